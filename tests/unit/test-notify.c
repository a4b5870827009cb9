/*
 * lab/plans/notify.c's credentials file: read when only its owner may, refused
 * otherwise, and never echoed in a message.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "curlutil.h"
#include "notify.h"
#include "strvec.h"
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

/* A port of 127.0.0.1 bound but not listening: a connection to it is refused. */
static int refusing_port(int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(*fd, (struct sockaddr *)&a, &len)) {
		perror("socket");
		exit(2);
	}
	return ntohs(a.sin_port);
}

static void addresses(void)
{
	static const char *const good[] = {
		"lab@example.org", "a.b+nightly@mail.example.org", "root@localhost", "x_y-z=1@h-1.example",
	};
	static const char *const bad[] = {
		"a@x>\nRCPT TO:<v@evil", "Lab <lab@example.org>", "<lab@example.org>", "lab@example.org\r",
		"lab", "@example.org", "lab@", "a@b@c", ".lab@example.org", "l..ab@example.org",
		"lab@example..org", "lab@-x.org\n", "\"quoted\"@example.org", "lab@[127.0.0.1]",
		"l ab@example.org", "lab@example.org ", "",
	};
	struct strbuf name = STRBUF_INIT;
	struct strvec all = STRVEC_INIT;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "a plain address: %s", good[i]);
		ok(notify_address_ok(good[i]), name.buf);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "not a plain address (case %zu)", i);
		ok(!notify_address_ok(bad[i]), name.buf);
	}
	ok(notify_address_list_ok("a@example.org, b@example.org,c@example.org"),
	   "a list, comma-separated, blanks after the commas");
	ok(!notify_address_list_ok("a@example.org,") && !notify_address_list_ok("a@example.org,,b@x") &&
	   !notify_address_list_ok("a@example.org b@example.org") &&
	   !notify_address_list_ok("a@x>\nRCPT TO:<v@evil"), "... and no empty or bad member");
	ok(!notify_address_list_ok("a@b.c,\n\nx@y.z") && !notify_address_list_ok("a@b.c,\r\nx@y.z") &&
	   !notify_address_list_ok("a@b.c,\tx@y.z") && !notify_address_list_ok("a@b.c\n") &&
	   !notify_address_list_ok("a@b.c,\x7fx@y.z"),
	   "a line break, tab or DEL between members is refused, not trimmed off");
	is_int(notify_address_list_split(&all, "a@b.c,\n\nx@y.z"), -1, "... and split pushes nothing");
	is_int((int)all.nr, 0, "... nothing at all");
	is_int(notify_address_list_split(&all, "  a@b.c ,x@y.z,   m@n.o  "), 0,
	       "a list with blanks around its members splits");
	is_int((int)all.nr, 3, "... into its three addresses");
	ok(all.nr == 3 && !strcmp(all.v[0], "a@b.c") && !strcmp(all.v[1], "x@y.z") &&
	   !strcmp(all.v[2], "m@n.o"), "... each with its blanks trimmed");
	strvec_release(&all);
	strbuf_release(&name);
}

/* A mail and a webhook POST that fail: the message names the address, never its secrets. */
static void failures(void)
{
	struct notify_creds c;
	struct strbuf err = STRBUF_INIT, url = STRBUF_INIT, want = STRBUF_INIT;
	struct notify_to to = { "nightly 't'", NULL, "lab@example.org", "mm@example.org", NULL };
	struct capture cap;
	int fd, port = refusing_port(&fd), r;

	notify_creds_init(&c);
	strbuf_addf(&url, "smtp://lab:s3cr3t-smtp@127.0.0.1:%d", port);
	to.smtp = url.buf;
	capture_start(&cap);
	r = notify_mail(&to, &c, "subject", "body\n");
	capture_end(&cap, &err);
	is_int(r, -1, "a mail to a port that refuses fails");
	strbuf_addf(&want, "lab: mail through 'smtp://***@127.0.0.1:%d' failed: ", port);
	ok(!strncmp(err.buf, want.buf, want.len), "... naming the server, its userinfo masked");
	ok(!strstr(err.buf, "s3cr3t"), "... and nowhere the password");

	strbuf_reset(&url);
	strbuf_addf(&url, "http://127.0.0.1:%d/hooks/s3cr3t-path?token=s3cr3t-token", port);
	to.webhook = url.buf;
	strbuf_reset(&err);
	capture_start(&cap);
	r = notify_webhook(&to, &c, "{}");
	capture_end(&cap, &err);
	is_int(r, -1, "a webhook POST to a port that refuses fails");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: webhook POST through 'http://127.0.0.1:%d/***' failed: ", port);
	ok(!strncmp(err.buf, want.buf, want.len), "... naming the host, its path and token masked");
	ok(!strstr(err.buf, "s3cr3t"), "... and nowhere the secrets");

	to.smtp = "smtp://127.0.0.1:1";
	to.mail_to = "a@x>\r\nRCPT TO:<v@evil>";
	strbuf_reset(&err);
	capture_start(&cap);
	r = notify_mail(&to, &c, "subject", "body\n");
	capture_end(&cap, &err);
	is_int(r, -1, "a mail to an address that is not plain is refused, never sent");
	is_str(err.buf, "lab: nightly 't' has an address in mailFrom or mailTo that is not plain: "
	       "not mailing\n", "... saying so in one line");
	to.mail_to = "a@example.org,\n\nx@example.org";
	strbuf_reset(&err);
	capture_start(&cap);
	r = notify_mail(&to, &c, "subject", "body\n");
	capture_end(&cap, &err);
	is_int(r, -1, "a mailTo with a line break between its members is refused, never sent");
	is_str(err.buf, "lab: nightly 't' has an address in mailFrom or mailTo that is not plain: "
	       "not mailing\n", "... saying so in one line");
	close(fd);
	strbuf_release(&err);
	strbuf_release(&url);
	strbuf_release(&want);
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

	/* a fifo nobody writes to would block the open and the read for ever */
	if (mkfifo("fifo", 0600)) {
		perror("fifo");
		return 2;
	}
	alarm(10);
	is_int(read_creds(&c, "fifo", &err), -1, "a fifo is refused, without waiting for a writer");
	alarm(0);
	is_str(strbuf_str(&err), "lab: credentials file 'fifo' is a fifo, not a regular file\n",
	       "... naming it and what it is");
	notify_creds_release(&c);
	write_file("ctl", "token = t0k\rX-Injected: 1\n", 0600);
	is_int(read_creds(&c, "ctl", &err), -1, "a value with a control character inside is refused");
	is_str(strbuf_str(&err), "lab: credentials file 'ctl' line 1: a control character in the value\n",
	       "... by its line, never its text");
	notify_creds_release(&c);
	addresses();
	failures();

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
	unlink("fifo");
	unlink("ctl");
	rmdir(dir);
	strbuf_release(&err);
	return done_testing();
}
