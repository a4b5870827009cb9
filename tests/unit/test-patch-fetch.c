#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "patch.h"
#include "strbuf.h"
#include "subprocess.h"
#include "capture.h"
#include "rmtree.h"
#include "tap.h"

/* patch_fetch() over HTTP from a `python3 -m http.server` on 127.0.0.1. */

static const char mbox[] =
	"From 9dd716f90ea0589b52f9e48a108ae1d2e891fa72 Mon Sep 17 00:00:00 2001\n"
	"From: Ada Lovelace <ada@example.org>\n"
	"Date: Wed, 19 Jun 2024 09:15:00 +0200\n"
	"Subject: [PATCH] lib: add four\n"
	"\n"
	"Short body.\n"
	"---\n"
	"diff --git a/a.txt b/a.txt\n"
	"--- a/a.txt\n"
	"+++ b/a.txt\n"
	"@@ -1,3 +1,4 @@\n"
	" one\n"
	" 2\n"
	" three\n"
	"+four\n"
	"-- \n"
	"2.39.5\n"
	"\n";


static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&path, "%s/%s", dir, name);
	f = fopen(path.buf, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path.buf);
		exit(2);
	}
	strbuf_release(&path);
}

/* A port nobody listens on right now: bound, read back, released. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &alen))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static int answers(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok_ = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0)
		ok_ = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	if (fd >= 0)
		close(fd);
	return ok_;
}

/* fetch source expecting failure; the one error line lands in *err. */
static int fetch_fails(struct strbuf *err, const char *source, size_t max)
{
	struct strbuf out = STRBUF_INIT;
	struct capture cap;
	int rc;

	capture_start(&cap);
	rc = patch_fetch_max(&out, source, max);
	capture_end(&cap, err);
	rc = rc == -1 && out.len == 0;
	strbuf_release(&out);
	return rc;
}

static void test_fetch(const char *dir, int port, const struct strbuf *big)
{
	struct strbuf url = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT, path = STRBUF_INIT;
	int dead;
	double t0;

	strbuf_addf(&url, "http://127.0.0.1:%d/series.mbox", port);
	is_int(patch_fetch(&out, url.buf), 0, "a served mbox is fetched");
	ok(out.len == strlen(mbox) && !memcmp(out.buf, mbox, out.len), "byte for byte");

	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/sub", port);
	is_int(patch_fetch(&out, url.buf), 0, "a redirect (/sub -> /sub/) is followed");
	ok(out.len == strlen(mbox) && !memcmp(out.buf, mbox, out.len), "to the mbox");

	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/missing.mbox", port);
	ok(fetch_fails(&err, url.buf, PATCH_FETCH_MAX), "a missing path fails");
	strbuf_addf(&want, "lab: cannot fetch '%s': HTTP 404\n", url.buf);
	is_str(err.buf, want.buf, "with HTTP 404 and the URL");

	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/notes.txt", port);
	ok(fetch_fails(&err, url.buf, PATCH_FETCH_MAX), "a served non-mbox is rejected");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: '%s' is not an mbox or patch: no 'diff --git' line in it\n",
		    url.buf);
	is_str(err.buf, want.buf, "saying why");

	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/", port);
	ok(fetch_fails(&err, url.buf, PATCH_FETCH_MAX), "a directory listing is rejected");
	ok(strstr(err.buf, "HTML page"), "as an HTML page");

	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/big.mbox", port);
	is_int(patch_fetch(&out, url.buf), 0, "a big mbox under the cap is fetched");
	ok(out.len == big->len && !memcmp(out.buf, big->buf, out.len), "all of it");
	ok(fetch_fails(&err, url.buf, 4096), "over the cap the transfer is aborted");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: cannot fetch '%s': larger than 4096 bytes\n", url.buf);
	is_str(err.buf, want.buf, "saying so");

	dead = free_port();
	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/x.mbox", dead);
	t0 = now_monotonic();
	ok(fetch_fails(&err, url.buf, PATCH_FETCH_MAX), "a closed port fails");
	ok(now_monotonic() - t0 < 5, "fast");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: cannot fetch '%s': ", url.buf);
	ok(!strncmp(err.buf, want.buf, want.len) && err.len > want.len + 1 &&
	   count_lines(err.buf) == 1, "one line naming the URL and the reason");
	printf("# %s", err.buf);

	ok(fetch_fails(&err, "ftp://127.0.0.1/x.mbox", PATCH_FETCH_MAX), "ftp:// is refused");
	is_str(err.buf, "lab: cannot fetch 'ftp://127.0.0.1/x.mbox': only http:// and https:// "
	       "URLs are supported\n", "saying which are");

	/* The same rules for a file. */
	strbuf_addf(&path, "%s/series.mbox", dir);
	is_int(patch_fetch(&out, path.buf), 0, "a local mbox is read");
	ok(out.len == strlen(mbox) && !memcmp(out.buf, mbox, out.len), "byte for byte");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/big.mbox", dir);
	ok(fetch_fails(&err, path.buf, 4096), "a local file over the cap is refused");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: cannot read patch '%s': larger than 4096 bytes\n", path.buf);
	is_str(err.buf, want.buf, "saying so");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/nope.mbox", dir);
	ok(fetch_fails(&err, path.buf, PATCH_FETCH_MAX), "a missing file fails");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: cannot read patch '%s': No such file or directory\n", path.buf);
	is_str(err.buf, want.buf, "saying so");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/fifo.mbox", dir);
	ok(!mkfifo(path.buf, 0600) && fetch_fails(&err, path.buf, PATCH_FETCH_MAX),
	   "a fifo is refused, not waited on");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: patch '%s' is a fifo, not a regular file\n", path.buf);
	is_str(err.buf, want.buf, "saying what it is");

	strbuf_release(&url);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&want);
	strbuf_release(&path);
}

int main(void)
{
	char dir[] = "/tmp/lab-test-patch-fetch-XXXXXX";
	struct strbuf big = STRBUF_INIT, sub = STRBUF_INIT, portstr = STRBUF_INIT;
	struct child server;
	int port, up = 0;
	double deadline;

	if (!mkdtemp(dir))
		return 2;
	write_file(dir, "series.mbox", mbox, strlen(mbox));
	write_file(dir, "notes.txt", "Dear all,\nplease pull.\n", 23);
	strbuf_addstr(&big, mbox);
	while (big.len < 100000)
		strbuf_addstr(&big, "\n");
	write_file(dir, "big.mbox", big.buf, big.len);
	strbuf_addf(&sub, "%s/sub", dir);
	if (mkdir(sub.buf, 0755))
		return 2;
	write_file(sub.buf, "index.html", mbox, strlen(mbox));

	port = free_port();
	strbuf_addf(&portstr, "%d", port);
	{
		char *argv[] = { "python3", "-m", "http.server", portstr.buf, "--bind",
				 "127.0.0.1", "--directory", dir, NULL };
		if (subprocess_start(&server, argv, NULL, SUBPROCESS_SILENT)) {
			printf("1..0 # SKIP cannot start python3 -m http.server\n");
			rmtree(dir);
			return 0;
		}
	}
	deadline = now_monotonic() + 60;	/* python3 starts slowly on a loaded host */
	while (!(up = answers(port)) && now_monotonic() < deadline) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (ok(up, "the HTTP server answers"))
		test_fetch(dir, port, &big);

	subprocess_kill(&server);
	subprocess_finish(&server);
	rmtree(dir);
	strbuf_release(&big);
	strbuf_release(&sub);
	strbuf_release(&portstr);
	return done_testing();
}
