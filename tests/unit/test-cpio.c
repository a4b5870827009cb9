#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cpio.h"
#include "cpio-read.h"
#include "regfile.h"
#include "strbuf.h"
#include "capture.h"
#include "rmtree.h"
#include "tap.h"

static char dir[] = "/tmp/test-cpio.XXXXXX";

static char *path_in(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", dir, name);
	return strbuf_detach(&sb);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void read_bytes(struct strbuf *sb, const char *path)
{
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path, 0) < 0)
		strbuf_reset(sb);
}

static int same_bytes(const struct strbuf *a, const struct strbuf *b)
{
	return a->len == b->len && !memcmp(a->buf, b->buf, a->len);
}

static const char prog_text[] = "not really a program, but 59 bytes long: odd on purpose.\n";
static const char *const sample_names[] = {
	"bin", "bin/prog", "bin/sh", "etc", "etc/motd", "etc/empty",
	"dev", "dev/console", "dev/sda", "dev/fifo",
};
#define SAMPLE_NR (int)(sizeof(sample_names) / sizeof(*sample_names))

static int write_sample(struct cpio *c, const char *prog_path)
{
	cpio_add_dir(c, "bin", 0755);
	cpio_add_file_from_path(c, "bin/prog", 0755, prog_path);
	cpio_add_symlink(c, "bin/sh", "prog");
	cpio_add_dir(c, "/etc", 0755);
	cpio_add_file(c, "etc/motd", 0644, "hello\n", 6);
	cpio_add_file(c, "etc/empty", 0600, NULL, 0);
	cpio_add_dir(c, "dev", 0755);
	cpio_add_node(c, "dev/console", S_IFCHR | 0600, 5, 1);
	cpio_add_node(c, "dev/sda", S_IFBLK | 0660, 8, 0);
	cpio_add_node(c, "dev/fifo", S_IFIFO | 0644, 0, 0);
	return cpio_finish(c);
}

/* Run a shell command over our own temp paths; its stdout into out. */
static int run_capture(const char *cmd, struct strbuf *out)
{
	char chunk[4096];
	size_t n;
	FILE *p = popen(cmd, "r");

	strbuf_reset(out);
	if (!p)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		strbuf_add(out, chunk, n);
	return pclose(p);
}

static const char *line_ending(const char *text, const char *suffix, struct strbuf *line)
{
	size_t slen = strlen(suffix);
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");
		if (len >= slen && !memcmp(p + len - slen, suffix, slen)) {
			strbuf_reset(line);
			strbuf_add(line, p, len);
			return line->buf;
		}
		p += len + (p[len] == '\n');
	}
	return NULL;
}

static void test_sample(void)
{
	char *prog = path_in("prog");
	char *archive = path_in("sample.cpio");
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, out = STRBUF_INIT, line = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	struct entry e[MAX_ENTRIES];
	const struct entry *x;
	const char *why = "";
	struct cpio c;
	FILE *fp;
	int fd, nr, i, inos_unique = 1, failed_before;

	write_bytes(prog, prog_text, strlen(prog_text));

	cpio_init_strbuf(&c, &a);
	is_int(write_sample(&c, prog), 0, "sample archive written to a strbuf");
	ok(a.len >= 6 && !memcmp(a.buf, "070701", 6), "newc magic at offset 0");
	is_int(a.len % 512, 0, "archive length is a multiple of 512");

	nr = walk(&a, e, &why);
	if (!ok(nr >= 0, "headers and data are 4-byte aligned, trailer and padding right"))
		printf("#   %s\n", why);
	is_int(nr, SAMPLE_NR, "entry count");
	for (i = 0; i < nr && i < SAMPLE_NR; i++) {
		char name[300];
		snprintf(name, sizeof(name), "entry %d is %s", i, sample_names[i]);
		is_str(e[i].name, sample_names[i], name);
	}
	for (i = 0; i < nr; i++) {
		int j;
		for (j = 0; j < i; j++)
			if (e[i].ino == e[j].ino)
				inos_unique = 0;
		if (!e[i].ino)
			inos_unique = 0;
	}
	ok(inos_unique, "inode numbers are unique and non-zero");
	for (i = 0; i < nr; i++) {
		unsigned long want_nlink = S_ISDIR(e[i].mode) ? 2 : 1;
		if (e[i].nlink != want_nlink || e[i].mtime || e[i].uid || e[i].gid)
			break;
	}
	ok(i == nr, "nlink 2 for directories and 1 otherwise; mtime, uid, gid 0");

	x = find(e, nr, "bin/prog");
	ok(x && x->mode == (S_IFREG | 0755) && x->size == strlen(prog_text) &&
	   !memcmp(x->data, prog_text, x->size), "file from a path: mode and contents");
	x = find(e, nr, "etc/motd");
	ok(x && x->mode == (S_IFREG | 0644) && x->size == 6 && !memcmp(x->data, "hello\n", 6),
	   "file from memory: mode and contents");
	x = find(e, nr, "etc/empty");
	ok(x && x->mode == (S_IFREG | 0600) && !x->size, "empty file");
	x = find(e, nr, "bin/sh");
	ok(x && x->mode == (S_IFLNK | 0777) && x->size == 4 && !memcmp(x->data, "prog", 4),
	   "symlink: target as data, without NUL");
	x = find(e, nr, "dev/console");
	ok(x && x->mode == (S_IFCHR | 0600) && x->rmajor == 5 && x->rminor == 1 && !x->size,
	   "character device 5,1");
	x = find(e, nr, "dev/sda");
	ok(x && x->mode == (S_IFBLK | 0660) && x->rmajor == 8 && x->rminor == 0,
	   "block device 8,0");
	x = find(e, nr, "dev/fifo");
	ok(x && x->mode == (S_IFIFO | 0644), "fifo");

	cpio_init_strbuf(&c, &b);
	write_sample(&c, prog);
	ok(same_bytes(&a, &b), "reproducible: a second write gives the same bytes");

	fp = tmpfile();
	cpio_init_file(&c, fp);
	is_int(write_sample(&c, prog), 0, "written to a FILE*");
	rewind(fp);
	strbuf_reset(&b);
	{
		char chunk[4096];
		size_t n;
		while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			strbuf_add(&b, chunk, n);
	}
	fclose(fp);
	ok(same_bytes(&a, &b), "... same bytes as the strbuf");

	fd = open(archive, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cpio_init_fd(&c, fd);
	is_int(write_sample(&c, prog), 0, "written to an fd");
	close(fd);
	read_bytes(&b, archive);
	ok(same_bytes(&a, &b), "... same bytes as the strbuf");

	/* GNU cpio as a second, independent reader. */
	strbuf_addf(&want, "cpio -it --quiet < '%s'", archive);
	is_int(run_capture(want.buf, &out), 0, "cpio -t reads the archive");
	strbuf_reset(&want);
	for (i = 0; i < SAMPLE_NR; i++)
		strbuf_addf(&want, "%s\n", sample_names[i]);
	is_str(out.buf, want.buf, "cpio -t lists the names in order");

	strbuf_reset(&want);
	strbuf_addf(&want, "cpio -itv --quiet < '%s'", archive);
	is_int(run_capture(want.buf, &out), 0, "cpio -tv reads the archive");
	failed_before = tap_failed;
	ok(line_ending(out.buf, " dev/console", &line) &&
	   !strncmp(line.buf, "crw-------   1 root     root       5,   1 ", 42),
	   "cpio -tv: dev/console is crw------- 5,1 owned by root");
	ok(line_ending(out.buf, " dev/sda", &line) && !strncmp(line.buf, "brw-rw----", 10) &&
	   strstr(line.buf, " 8,   0 "), "cpio -tv: dev/sda is brw-rw---- 8,0");
	ok(line_ending(out.buf, " bin/sh -> prog", &line) && !strncmp(line.buf, "lrwxrwxrwx", 10),
	   "cpio -tv: bin/sh is a symlink to prog");
	ok(line_ending(out.buf, " bin/prog", &line) && !strncmp(line.buf, "-rwxr-xr-x", 10),
	   "cpio -tv: bin/prog is -rwxr-xr-x");
	ok(line_ending(out.buf, " etc", &line) && !strncmp(line.buf, "drwxr-xr-x   2 ", 15),
	   "cpio -tv: etc is a directory with 2 links");
	ok(strstr(out.buf, " Jan  1  1970 "), "cpio -tv: mtime is the epoch");
	if (tap_failed > failed_before)
		printf("# cpio -tv said:\n%s", out.buf);

	unlink(archive);
	unlink(prog);
	free(archive);
	free(prog);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&out);
	strbuf_release(&line);
	strbuf_release(&want);
}

static void test_misuse(void)
{
	static const char *bad_names[] = { "", "/", "../etc", "a/../b", "a/./b", "./a",
		"a//b", "a/", ".." };
	struct strbuf sb = STRBUF_INIT;
	struct cpio c;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(bad_names) / sizeof(*bad_names); i++) {
		char name[80];
		int ret;
		cpio_init_strbuf(&c, &sb);
		ret = cpio_add_dir(&c, bad_names[i], 0755);
		snprintf(name, sizeof(name), "name '%s' is refused with EINVAL", bad_names[i]);
		ok(ret == -1 && errno == EINVAL, name);
	}

	cpio_init_strbuf(&c, &sb);
	ok(cpio_add_node(&c, "x", S_IFREG | 0644, 0, 0) == -1 && errno == EINVAL,
	   "cpio_add_node refuses a regular file type");
	ok(cpio_add_dir(&c, "ok", 0755) == -1 && errno == EINVAL,
	   "the first failure sticks");
	ok(cpio_finish(&c) == -1, "... up to cpio_finish");

	cpio_init_strbuf(&c, &sb);
	ok(cpio_add_file(&c, "x", S_IFREG | 0644, "", 0) == -1, "perm with type bits is refused");
	cpio_init_strbuf(&c, &sb);
	ok(cpio_add_node(&c, "x", S_IFCHR | 0600, 4096, 0) == -1, "major over 12 bits is refused");
	cpio_init_strbuf(&c, &sb);
	ok(cpio_add_file_from_path(&c, "x", 0644, "/nonexistent/file") == -1 && errno == ENOENT,
	   "a missing source file fails with ENOENT");
	cpio_init_strbuf(&c, &sb);
	ok(cpio_add_file_from_path(&c, "x", 0644, "/tmp") == -1 && errno == EISDIR,
	   "a directory as source fails with EISDIR");
	{
		char fifo[64];

		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		cpio_init_strbuf(&c, &sb);
		ok(!mkfifo(fifo, 0600) && cpio_add_file_from_path(&c, "x", 0644, fifo) == -1 &&
		   errno == EINVAL, "a fifo as source fails at once with EINVAL, not waited on");
		unlink(fifo);
	}
	cpio_init_strbuf(&c, &sb);
	ok(!cpio_finish(&c) && cpio_add_dir(&c, "late", 0755) == -1,
	   "nothing may be added after cpio_finish");

	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	cpio_init_fd(&c, fd);
	ok(cpio_add_dir(&c, "dev", 0755) == -1 && errno == ENOSPC,
	   "a full disk is reported with ENOSPC");
	close(fd);

	strbuf_release(&sb);
}

static void test_initramfs(void)
{
	static const char *const names[] = {
		"dev", "proc", "sys", "tmp", "dev/console", "dev/null", "dev/kmsg", "init",
	};
	char *init = path_in("lab-guest");
	char *img = path_in("initramfs.img");
	char *root = path_in("root");
	char *missing = path_in("no-such-dir/initramfs.img");
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT, cmd = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	struct entry e[MAX_ENTRIES];
	const struct entry *x;
	const char *why = "";
	struct capture cap;
	struct stat st;
	unsigned long seed = 12345;
	int nr, ret;
	size_t i;

	/* An odd-sized binary-looking payload, NULs included, for the padding. */
	for (i = 0; i < 100003; i++) {
		char ch;
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		ch = (char)(seed >> 56);
		strbuf_add(&want, &ch, 1);
	}
	write_bytes(init, want.buf, want.len);

	is_int(initramfs_write(img, init), 0, "initramfs_write succeeds");
	read_bytes(&a, img);
	nr = walk(&a, e, &why);
	if (!ok(nr >= 0, "the initramfs is well-formed"))
		printf("#   %s\n", why);
	is_int(nr, (int)(sizeof(names) / sizeof(*names)), "initramfs entry count");
	for (i = 0; i < (size_t)nr && i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(e[i].name, names[i]))
			break;
	ok(i == sizeof(names) / sizeof(*names), "initramfs entries in order");
	x = find(e, nr, "dev/console");
	ok(x && x->mode == (S_IFCHR | 0600) && x->rmajor == 5 && x->rminor == 1,
	   "dev/console is c 5 1 0600");
	x = find(e, nr, "dev/null");
	ok(x && x->mode == (S_IFCHR | 0666) && x->rmajor == 1 && x->rminor == 3,
	   "dev/null is c 1 3 0666");
	x = find(e, nr, "dev/kmsg");
	ok(x && x->mode == (S_IFCHR | 0644) && x->rmajor == 1 && x->rminor == 11,
	   "dev/kmsg is c 1 11 0644");
	x = find(e, nr, "init");
	ok(x && x->mode == (S_IFREG | 0755) && x->size == want.len, "init is 0755");
	ok(!stat(img, &st) && (st.st_mode & 07777) == 0644, "the image is readable by all");

	write_bytes(img, "stale", 5);
	is_int(initramfs_write(img, init), 0, "initramfs_write replaces an existing file");
	read_bytes(&b, img);
	ok(same_bytes(&a, &b), "... with the same bytes as before");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "ls -A '%s'", dir);
	run_capture(cmd.buf, &b);
	is_str(b.buf, "initramfs.img\nlab-guest\n", "no temporary file is left behind");

	if (mkdir(root, 0755) < 0)
		perror(root);
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "cd '%s' && cpio -idm --no-absolute-filenames --quiet < '%s'",
		    root, img);
	is_int(system(cmd.buf), 0, "cpio -i extracts the initramfs");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "%s/init", root);
	read_bytes(&b, cmd.buf);
	ok(same_bytes(&want, &b), "extracted init is byte-identical to the input");
	ok(!stat(cmd.buf, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0755,
	   "extracted init is a 0755 regular file");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "%s/dev/console", root);
	if (geteuid() == 0)
		ok(!stat(cmd.buf, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 &&
		   minor(st.st_rdev) == 1, "extracted dev/console is character device 5,1");
	else
		skip("mknod needs root");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "%s/tmp", root);
	ok(!stat(cmd.buf, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 01777,
	   "extracted tmp is a sticky world-writable directory");

	capture_start(&cap);
	ret = initramfs_write(missing, init);
	capture_end(&cap, &err);
	is_int(ret, -1, "writing into a missing directory fails");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "lab: cannot write initramfs '%s': No such file or directory\n", missing);
	is_str(err.buf, cmd.buf, "... naming the file");

	unlink(img);
	capture_start(&cap);
	ret = initramfs_write(img, "/nonexistent/lab-guest");
	capture_end(&cap, &err);
	is_int(ret, -1, "a missing init binary fails");
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "lab: cannot write initramfs '%s': cannot read '/nonexistent/lab-guest': "
		    "No such file or directory\n", img);
	is_str(err.buf, cmd.buf, "... naming both files");
	ok(stat(img, &st) < 0 && errno == ENOENT, "... and creates nothing");

	free(init);
	free(img);
	free(root);
	free(missing);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
	strbuf_release(&cmd);
	strbuf_release(&want);
}

/*
 * A boot's own file after the common initramfs: the common bytes as they
 * were, then a second whole archive (the kernel unpacks one after the
 * other) with only that file; a base whose length is no multiple of 4 is
 * padded with zeros, where the kernel looks for the next magic.
 */
static void test_appended(void)
{
	static const char word[] = "lab.nonce=0123456789abcdef\n";
	char *base = path_in("base.img");
	char *odd = path_in("odd.img");
	char *img = path_in("boot.img");
	char *init = path_in("init-small");
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, tail = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	struct entry e[MAX_ENTRIES];
	const char *why = "";
	struct capture cap;
	struct stat st;
	int nr, ret;

	write_bytes(init, prog_text, sizeof(prog_text) - 1);
	is_int(initramfs_write(base, init), 0, "the common initramfs is written");
	is_int(initramfs_write_appended(img, base, "lab.nonce", word, sizeof(word) - 1), 0,
	       "initramfs_write_appended succeeds");
	read_bytes(&a, base);
	read_bytes(&b, img);
	ok(b.len > a.len && !memcmp(a.buf, b.buf, a.len), "the common archive comes first, as it was");
	strbuf_add(&tail, b.buf + a.len, b.len - a.len);
	nr = walk(&tail, e, &why);
	if (!ok(nr == 1, "then an archive of one entry"))
		printf("#   %d entries: %s\n", nr, why);
	ok(nr == 1 && !strcmp(e[0].name, "lab.nonce") && e[0].mode == (S_IFREG | 0644) &&
	   e[0].size == sizeof(word) - 1 && !memcmp(e[0].data, word, sizeof(word) - 1),
	   "... the file with its contents");
	ok(!stat(img, &st) && (st.st_mode & 07777) == 0644, "... readable by all");

	write_bytes(odd, "070701", 6);
	is_int(initramfs_write_appended(img, odd, "lab.nonce", word, sizeof(word) - 1), 0,
	       "a base of 6 bytes");
	read_bytes(&b, img);
	strbuf_add(&want, "070701\0\0", 8);
	ok(b.len > 8 && !memcmp(b.buf, want.buf, 8) && !memcmp(b.buf + 8, "070701", 6),
	   "... is padded to 8 with zeros before the archive");

	unlink(img);
	capture_start(&cap);
	ret = initramfs_write_appended(img, "/nonexistent/base.img", "lab.nonce", word,
				       sizeof(word) - 1);
	capture_end(&cap, &err);
	is_int(ret, -1, "a missing common initramfs fails");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: cannot write initramfs '%s': cannot read '/nonexistent/base.img': "
		    "No such file or directory\n", img);
	is_str(err.buf, want.buf, "... naming both files");
	ok(stat(img, &st) < 0 && errno == ENOENT, "... and creates nothing");

	free(base);
	free(odd);
	free(img);
	free(init);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&tail);
	strbuf_release(&err);
	strbuf_release(&want);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	test_sample();
	test_misuse();
	test_initramfs();
	test_appended();
	if (rmtree(dir) < 0)
		printf("# cannot remove %s: %s\n", dir, strerror(errno));
	return done_testing();
}
