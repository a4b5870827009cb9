#ifndef REGFILE_H
#define REGFILE_H
/*
 * Files a user names (on the command line, in lab.conf, in a recipe),
 * opened for reading only when they are regular files. A fifo would hold
 * the lab until a writer comes, a terminal until a key is pressed, and a
 * device like /dev/zero would never end: each is refused by what it is,
 * and the refusal itself never blocks (the open is O_NONBLOCK, the check
 * an fstat of what was opened, so a rename in between changes nothing).
 *
 * strbuf_read_file() goes through regfile_open(), so every whole-file read
 * of the lab has the rule; a caller that tells the user why uses
 * regfile_read() (or regfile_open() for a descriptor of its own), which
 * puts one line naming the file in `why`.
 */
#include <sys/stat.h>
#include <sys/types.h>

struct strbuf;

/* "a fifo", "a directory", "a character device"... for a message. */
const char *file_kind(mode_t mode);

enum regfile_flags {
	/* a symlink at path is refused (ELOOP) rather than followed */
	REGFILE_NOFOLLOW = 1 << 0,
	/*
	 * A pipe or fifo is taken too, and read until its writer closes it:
	 * only for commands whose input a user pipes on purpose
	 * (lab compare <(cmd) <(cmd)).
	 */
	REGFILE_PIPE = 1 << 1,
};

/*
 * A descriptor for reading path (blocking again, close-on-exec), its stat
 * in *st when st is not NULL; or -1 with errno set (EISDIR for a directory,
 * EINVAL for any other thing that is not a regular file) and, when why is
 * not NULL, one line added to it: "cannot read WHAT 'PATH': No such file or
 * directory", "WHAT 'PATH' is a fifo, not a regular file". what is the
 * file's role for the message ("config", "recipe"); NULL says "file".
 */
int regfile_open(const char *path, enum regfile_flags flags, struct stat *st,
		 const char *what, struct strbuf *why);

/*
 * The whole file into sb (read up to max bytes when max is not 0), as
 * regfile_open() decides; 0, or -1 with errno and the line in why.
 */
int regfile_read(struct strbuf *sb, const char *path, size_t max, enum regfile_flags flags,
		 const char *what, struct strbuf *why);
/*
 * The same, said by errno alone: 0, or -1 with errno set. Anything but a
 * regular file at path (a fifo, a device, a directory) is refused without
 * blocking.
 */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max);

#endif
