/*
 * lib/atomicfile: a file is replaced whole, with exactly the mode asked
 * for, or left as it was, with no temporary file left over either way.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "capture.h"
#include "regfile.h"
#include "strbuf.h"
#include "tap.h"

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static int fill_half_then_enospc(int fd, void *data)
{
	if (write(fd, data, 4) != 4)
		return -1;
	errno = ENOSPC;
	return -1;
}

int main(void)
{
	char dir[] = "/tmp/test-atomicfile.XXXXXX";
	struct strbuf path = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	struct capture cap;
	struct stat st;
	glob_t g;
	int ret;

	if (!mkdtemp(dir))
		return 2;
	strbuf_addf(&path, "%s/page.html", dir);

	umask(077);
	is_int(atomic_write_buf(path.buf, 0644, ATOMIC_DURABLE, NULL, "first\n", 6), 0, "a new file is written");
	ok(!strbuf_read_file(&got, path.buf, 0) && !strcmp(strbuf_str(&got), "first\n"),
	   "... with its contents");
	ok(!stat(path.buf, &st) && (st.st_mode & 07777) == 0644, "... and exactly its mode, umask or not");

	is_int(atomic_write_buf(path.buf, 0755, ATOMIC_DURABLE, NULL, "second\n", 7), 0, "an existing file is replaced");
	strbuf_reset(&got);
	ok(!strbuf_read_file(&got, path.buf, 0) && !strcmp(strbuf_str(&got), "second\n"),
	   "... by the new contents");
	ok(!stat(path.buf, &st) && (st.st_mode & 07777) == 0755, "... with the new mode");
	is_int(entries(dir), 1, "... and no temporary file is left");

	is_int(atomic_write_buf(path.buf, 0644, 0, NULL, "page\n", 5), 0,
	       "without ATOMIC_DURABLE (report pages) the file is replaced the same way");
	strbuf_reset(&got);
	ok(!strbuf_read_file(&got, path.buf, 0) && !strcmp(strbuf_str(&got), "page\n") &&
	   !stat(path.buf, &st) && (st.st_mode & 07777) == 0644 && entries(dir) == 1,
	   "... contents, mode, no temporary file");
	is_int(atomic_write_buf(path.buf, 0755, ATOMIC_DURABLE, NULL, "second\n", 7), 0,
	       "... and durably again");

	capture_start(&cap);
	ret = atomic_write(path.buf, 0644, ATOMIC_DURABLE, "initramfs", fill_half_then_enospc, "third\n");
	capture_end(&cap, &err);
	is_int(ret, -1, "a failing writer fails");
	strbuf_addf(&want, "lab: cannot write initramfs '%s': No space left on device\n", path.buf);
	is_str(strbuf_str(&err), want.buf, "... in one line naming the file and the reason");
	strbuf_reset(&got);
	ok(!strbuf_read_file(&got, path.buf, 0) && !strcmp(strbuf_str(&got), "second\n"),
	   "... leaving the old contents");
	is_int(entries(dir), 1, "... and no temporary file");

	strbuf_reset(&path);
	strbuf_addf(&path, "%s/missing/page.html", dir);
	capture_start(&cap);
	ret = atomic_write_buf(path.buf, 0644, ATOMIC_DURABLE, NULL, "x", 1);
	capture_end(&cap, &err);
	is_int(ret, -1, "a missing directory fails");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: cannot write '%s': No such file or directory\n", path.buf);
	is_str(strbuf_str(&err), want.buf, "... naming the file");

	capture_start(&cap);
	ret = atomic_write_buf(dir, 0644, 0, NULL, "x", 1);
	capture_end(&cap, &err);
	is_int(ret, -1, "a directory is not replaced by a file");
	ok(!stat(dir, &st) && S_ISDIR(st.st_mode), "... and stays a directory");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s.tmp.*", dir);
	is_int(glob(path.buf, 0, NULL, &g), GLOB_NOMATCH, "... with no temporary file left beside it");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/page.html", dir);
	unlink(path.buf);

	/* atomic_write_at: a symlink at the name is replaced, never written through */
	{
		struct strbuf target = STRBUF_INIT, link = STRBUF_INIT;
		int dfd = open(dir, O_RDONLY | O_DIRECTORY);

		strbuf_addf(&target, "%s/target", dir);
		strbuf_addf(&link, "%s/page.html", dir);
		ok(dfd >= 0 && !atomic_write_buf(target.buf, 0644, 0, NULL, "theirs\n", 7) &&
		   !symlink("target", link.buf), "atomic_write_at: a symlink where the page goes");
		is_int(atomic_write_at(dfd, "page.html", link.buf, 0644, 0, NULL, "page\n", 5), 0,
		       "... is replaced");
		strbuf_reset(&got);
		ok(!lstat(link.buf, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644 &&
		   !strbuf_read_file(&got, link.buf, 0) && !strcmp(strbuf_str(&got), "page\n"),
		   "... by a regular file of the contents and mode");
		strbuf_reset(&got);
		ok(!strbuf_read_file(&got, target.buf, 0) && !strcmp(strbuf_str(&got), "theirs\n"),
		   "... its target untouched");
		is_int(entries(dir), 2, "... and no temporary file is left");
		capture_start(&cap);
		ret = atomic_write_at(dfd, "sub/page.html", "shown/sub/page.html", 0644, 0, NULL, "x", 1);
		capture_end(&cap, &err);
		is_int(ret, -1, "a name with a slash is refused");
		is_str(strbuf_str(&err), "lab: cannot write 'shown/sub/page.html': Invalid argument\n",
		       "... naming it as shown");
		unlink(link.buf);
		unlink(target.buf);
		if (dfd >= 0)
			close(dfd);
		strbuf_release(&target);
		strbuf_release(&link);
	}
	rmdir(dir);

	strbuf_release(&path);
	strbuf_release(&got);
	strbuf_release(&err);
	strbuf_release(&want);
	return done_testing();
}
