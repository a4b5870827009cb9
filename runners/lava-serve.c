/*
 * The lava runner's file server (lava-api.h): the images of the boots in
 * flight, served over HTTP from a folder under the state root to the
 * LAVA workers, which fetch them by URL as they fetch any job's. A child
 * of the lab, one per lab process, started before the first boot and
 * killed with the lab (PR_SET_PDEATHSIG); each boot copies its images in
 * and removes them when it ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "lava-api.h"
#include "log.h"

/* a request's head: a GET of a file name needs far less */
#define SERVE_HEAD_MAX 8192
/* a client that sends nothing, or takes nothing, for this long is dropped */
#define SERVE_IDLE_S 60

static struct {
	pid_t pid;
	char addr[128];		/* as the target says it: HOST:PORT */
	char url[256];		/* http://HOST:PORT of the files */
	char dir[4096];
} server;

static void say(int fd, const char *status, const char *type, long long len)
{
	char head[512];
	int n = snprintf(head, sizeof(head), "HTTP/1.0 %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %lld\r\nConnection: close\r\n\r\n", status, type, len);

	if (n > 0 && write(fd, head, (size_t)n) < 0)
		return;
}

static void refuse(int fd, const char *status, int head_only)
{
	char body[160];
	int n = snprintf(body, sizeof(body), "%s\n", status);

	say(fd, status, "text/plain", n);
	if (!head_only && write(fd, body, (size_t)n) < 0)
		return;
}

/* a file name of the folder: letters, digits, '.', '-', '_', no '.' first */
static int name_ok(const char *name)
{
	if (!*name || *name == '.')
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
			return 0;
	return 1;
}

/* One request on fd: GET or HEAD of a file of the folder, nothing else. */
static void serve_one(int fd)
{
	char req[SERVE_HEAD_MAX + 1], path[4200], *name, *end;
	size_t len = 0;
	int head_only, file = -1;
	struct stat st;
	off_t off = 0;

	while (len < SERVE_HEAD_MAX) {
		ssize_t got = read(fd, req + len, SERVE_HEAD_MAX - len);

		if (got <= 0)
			return;
		len += (size_t)got;
		req[len] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[len] = '\0';
	head_only = !strncmp(req, "HEAD /", 6);
	if (strncmp(req, "GET /", 5) && !head_only) {
		refuse(fd, "405 Method Not Allowed", 0);
		return;
	}
	name = strchr(req, '/') + 1;
	if (!(end = strchr(name, ' '))) {
		refuse(fd, "400 Bad Request", head_only);
		return;
	}
	*end = '\0';
	snprintf(path, sizeof(path), "%s/%s", server.dir, name);
	if (!name_ok(name) || (file = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0 ||
	    fstat(file, &st) || !S_ISREG(st.st_mode)) {
		refuse(fd, "404 Not Found", head_only);
		if (file >= 0)
			close(file);
		return;
	}
	say(fd, "200 OK", "application/octet-stream", (long long)st.st_size);
	while (!head_only && off < st.st_size)
		if (sendfile(fd, file, &off, (size_t)(st.st_size - off)) <= 0)
			break;
	close(file);
}

static void serve_loop(int lfd)
{
	struct sigaction sa = { .sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT };
	struct timeval idle = { SERVE_IDLE_S, 0 };

	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			continue;
		/* a connection each, so one slow worker holds up no other */
		if (fork() == 0) {
			close(lfd);
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle));
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, sizeof(idle));
			serve_one(fd);
			close(fd);
			_exit(0);
		}
		close(fd);
	}
}

/* HOST:PORT into an IPv4 address: -1 when it is not one */
static int parse_addr(struct sockaddr_in *sa, const char *addr)
{
	char host[128];
	const char *colon = strrchr(addr, ':');
	char *end;
	long port;

	if (!colon || (size_t)(colon - addr) >= sizeof(host))
		return -1;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	port = strtol(colon + 1, &end, 10);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)port);
	if (*end || end == colon + 1 || port < 0 || port > 65535 ||
	    inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return -1;
	return 0;
}

int lava_serve_addr_ok(const char *addr)
{
	struct sockaddr_in sa;

	return !parse_addr(&sa, addr);
}

int lava_serve_start(const struct lava_config *c, const char *cache, struct strbuf *why)
{
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	char host[INET_ADDRSTRLEN];
	pid_t lab = getpid();
	int lfd = -1, one = 1;

	if (server.pid) {
		if (strcmp(server.addr, c->serve))
			return strbuf_addf(why, "the lab serves LAVA's files at %s already, not also at "
					   "%s: one serve address for the targets of one command",
					   server.addr, c->serve), -1;
		return 0;
	}
	if (!cache)
		return strbuf_addstr(why, "no state root to serve LAVA's files from"), -1;
	snprintf(server.dir, sizeof(server.dir), "%s/lava-serve", cache);
	if (mkdir(server.dir, 0755) && errno != EEXIST)
		return strbuf_addf(why, "cannot create '%s': %s", server.dir, strerror(errno)), -1;
	if (parse_addr(&sa, c->serve))
		return strbuf_addf(why, "cannot serve at '%s': not an IPv4 HOST:PORT", c->serve), -1;
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen)) {
		strbuf_addf(why, "cannot serve LAVA's files at %s: %s", c->serve, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	inet_ntop(AF_INET, &sa.sin_addr, host, sizeof(host));
	snprintf(server.addr, sizeof(server.addr), "%s", c->serve);
	/* the address the workers use: serveUrl, else the one listened on (its port if 0) */
	if (c->serve_url)
		snprintf(server.url, sizeof(server.url), "%s", c->serve_url);
	else
		snprintf(server.url, sizeof(server.url), "http://%s:%d", host, ntohs(sa.sin_port));
	fflush(stdout);
	fflush(stderr);
	server.pid = fork();
	if (server.pid < 0) {
		server.pid = 0;
		close(lfd);
		return strbuf_addf(why, "cannot start the file server: %s", strerror(errno)), -1;
	}
	if (server.pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* it dies with the lab, even a lab killed with -9 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != lab || null < 0)
			_exit(0);
		/* and holds none of the lab's files: its output, its database, its locks */
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != lfd)
				close(fd);
		serve_loop(lfd);
		_exit(0);
	}
	close(lfd);
	return 0;
}

int lava_serve_where(const char **dir, const char **url)
{
	if (!server.pid)
		return -1;
	*dir = server.dir;
	*url = server.url;
	return 0;
}
