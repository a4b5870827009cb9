/*
 * lab/plans/notify.c's credentials file: read when only its owner may, refused
 * otherwise, and never echoed in a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "curlutil.h"
#include "notify.h"
#include "tap.h"

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) || chmod(path, mode)) {
		perror(path);
		exit(2);
	}
}

static int read_creds(struct notify_creds *c, const char *path, struct strbuf *err)
{
	struct capture cap;
	int ret;

	strbuf_reset(err);
	notify_creds_init(c);
	capture_start(&cap);
	ret = notify_creds_read(c, path);
	capture_end(&cap, err);
	return ret;
}

int main(void)
{
	char dir[] = "/tmp/test-notify.XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct notify_creds c;

	if (!mkdtemp(dir) || chdir(dir) < 0) {
		perror(dir);
		return 2;
	}
	write_file("ok", "# the lab's mail account\nuser = lab\npassword =  p4ss word \ntoken=t0k\n", 0600);
	is_int(read_creds(&c, "ok", &err), 0, "a file of mode 0600 is read");
	is_str(strbuf_str(&c.user), "lab", "user");
	is_str(strbuf_str(&c.password), "p4ss word", "password, trimmed at its ends only");
	is_str(strbuf_str(&c.token), "t0k", "token");
	notify_creds_release(&c);

	write_file("open", "password = hunter2\n", 0640);
	is_int(read_creds(&c, "open", &err), -1, "a file its group may read is refused");
	is_str(strbuf_str(&err), "lab: credentials file 'open' is open to group or others (mode 0640): "
	       "refusing it; chmod 600 it\n", "... naming it and its mode");
	ok(!c.password.len, "... and nothing is kept of it");
	notify_creds_release(&c);
	chmod("open", 0604);
	is_int(read_creds(&c, "open", &err), -1, "a file others may read is refused");
	notify_creds_release(&c);

	write_file("bad", "user = lab\nhunter2\n", 0600);
	is_int(read_creds(&c, "bad", &err), -1, "a line without '=' is refused");
	is_str(strbuf_str(&err), "lab: credentials file 'bad' line 2: expected 'user', 'password' or "
	       "'token' = value\n", "... by its number, never its text");
	notify_creds_release(&c);

	is_int(read_creds(&c, "missing", &err), -1, "a missing file is refused");
	is_str(strbuf_str(&err), "lab: cannot read credentials file 'missing': No such file or directory\n",
	       "... naming it");
	notify_creds_release(&c);
	is_int(read_creds(&c, NULL, &err), 0, "no file: no credentials");
	notify_creds_release(&c);

	ok(lab_url_scheme("http://h/x", "http") && lab_url_scheme("https://h", "http"),
	   "http and https addresses are http ones");
	ok(!lab_url_scheme("http://", "http") && !lab_url_scheme("https://", "http"),
	   "... but not a scheme with nothing after it");
	ok(!lab_url_scheme("file:///x", "http") && !lab_url_scheme("httpx://h", "http") &&
	   !lab_url_scheme("smtp://h", "http"), "... nor another scheme");
	ok(lab_url_scheme("smtps://mail:465", "smtp") && !lab_url_scheme("mail.example.org", "smtp"),
	   "smtp and smtps addresses, and a bare host is none");

	unlink("ok");
	unlink("open");
	unlink("bad");
	rmdir(dir);
	strbuf_release(&err);
	return done_testing();
}
