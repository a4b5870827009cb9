#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contain.h"
#include "emit.h"
#include "events.h"
#include "exec.h"
#include "sysfs.h"
#include "userwork.h"

#define MAX_ARGS 64
#define MAX_METRICS 64
#define MAX_OUTPUT (4u << 20)
#define STDERR_TAIL 480
/* stderr keeps its end (what says why a program failed), not its start */
#define STDERR_KEEP (64u << 10)
#define SHOWN_BAD_LINES 3

struct output {
	char *buf;
	size_t len, alloc;
	int cut;
	size_t dropped;			/* stderr: bytes let go from the front */
};

struct exec_state {
	const char *name;
	char dir[512], run[600];
	char argbuf[4096];
	char *argv[MAX_ARGS + 4];
	int argc;
	char stressor[USERWORK_NAME_MAX];	/* "" for the plain format */
	char yaml[256];
	struct {
		char name[USERWORK_NAME_MAX];
		long count;
		int announced;
	} metrics[MAX_METRICS];
	int nmetrics;
	long bad_lines;
	int shown;
	/* a [workload] section's settings (lab/config/workload.h), over lab.iters and lab.exec_timeout */
	long iters, deadline;
	int deadline_own;
	char directions[2048];		/* "metric higher|lower" lines */
};

/* How this guest keeps programs in: found out once, before the first run. */
static struct contain contained;
static int probed;

int exec_known(const struct params *p, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s/run", p->workdir, name);
	return !access(path, F_OK);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A positive number from path into *out: 2; 1 when there is no file; -1 reported. */
static int read_long(struct exec_state *s, const char *path, long *out)
{
	char buf[32], *end;
	long v;
	int ret = sysfs_read(path, buf, sizeof(buf));

	if (ret == -ENOENT)
		return 1;
	if (ret < 0)
		return emit_error(s->name, "cannot read %s: %s", path, strerror(-ret));
	v = strtol(buf, &end, 10);
	if (end == buf || *end || v <= 0)
		return emit_error(s->name, "bad number '%s' in %s", buf, path);
	*out = v;
	return 2;
}

/* The section's direction of a metric the line gave none for. */
static enum userwork_direction direction_of(const struct exec_state *s,
					    const struct userwork_sample *x)
{
	size_t n = strlen(x->name);

	if (x->direction_given)
		return x->direction;
	for (const char *l = s->directions; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		if (!strncmp(l, x->name, n) && l[n] == ' ')
			return !strncmp(l + n + 1, "higher", 6) ? USERWORK_HIGHER : USERWORK_LOWER;
	return x->direction;
}

/* args: one per line; a trailing empty line is not an argument. */
static int load(struct exec_state *s, const struct params *p)
{
	char path[600], format[128];
	char *line, *save = NULL;
	int ret;

	snprintf(s->dir, sizeof(s->dir), "%s/%s", p->workdir, s->name);
	snprintf(s->run, sizeof(s->run), "%s/run", s->dir);
	s->argv[s->argc++] = s->run;
	snprintf(path, sizeof(path), "%s/args", s->dir);
	ret = sysfs_read(path, s->argbuf, sizeof(s->argbuf));
	if (ret < 0 && ret != -ENOENT)
		return emit_error(s->name, "cannot read %s: %s", path, strerror(-ret));
	for (line = ret > 0 ? strtok_r(s->argbuf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (s->argc == MAX_ARGS)
			return emit_error(s->name, "more than %d arguments in %s", MAX_ARGS - 1, path);
		s->argv[s->argc++] = line;
	}
	s->iters = p->iters;
	s->deadline = p->exec_timeout;
	snprintf(path, sizeof(path), "%s/iters", s->dir);
	ret = read_long(s, path, &s->iters);
	if (ret <= 0)
		return ret;
	snprintf(path, sizeof(path), "%s/deadline", s->dir);
	ret = read_long(s, path, &s->deadline);
	if (ret <= 0)
		return ret;
	s->deadline_own = ret == 2;
	snprintf(path, sizeof(path), "%s/directions", s->dir);
	ret = sysfs_read(path, s->directions, sizeof(s->directions));
	if (ret == -ENOENT)
		s->directions[0] = '\0';
	else if (ret < 0)
		return emit_error(s->name, "cannot read %s: %s", path, strerror(-ret));
	snprintf(path, sizeof(path), "%s/format", s->dir);
	ret = sysfs_read(path, format, sizeof(format));
	if (ret == -ENOENT || (ret >= 0 && !strcmp(format, "plain")))
		return 0;
	if (ret < 0)
		return emit_error(s->name, "cannot read %s: %s", path, strerror(-ret));
	if (strncmp(format, "stress-ng ", 10) || !format[10])
		return emit_error(s->name, "unknown output format '%s' in %s", format, path);
	if (strlen(format + 10) >= sizeof(s->stressor))
		return emit_error(s->name, "stressor name too long in %s", path);
	memcpy(s->stressor, format + 10, strlen(format + 10) + 1);
	snprintf(s->yaml, sizeof(s->yaml), "/tmp/lab-%s-%d.yaml", s->name, (int)getpid());
	s->argv[s->argc++] = "--yaml";
	s->argv[s->argc++] = s->yaml;
	return 0;
}

static void output_add(struct output *o, const char *buf, size_t n)
{
	if (o->len + n > MAX_OUTPUT) {
		o->cut = 1;
		n = MAX_OUTPUT - o->len;
	}
	if (o->len + n + 1 > o->alloc) {
		size_t want = o->alloc ? o->alloc : 65536;
		char *nb;
		while (want < o->len + n + 1)
			want *= 2;
		nb = realloc(o->buf, want);
		if (!nb) {
			o->cut = 1;
			return;
		}
		o->buf = nb;
		o->alloc = want;
	}
	memcpy(o->buf + o->len, buf, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* The last STDERR_KEEP bytes of a stream, however long it grows. */
static void output_add_tail(struct output *o, const char *buf, size_t n)
{
	if (n >= STDERR_KEEP) {
		o->dropped += o->len + n - STDERR_KEEP;
		buf += n - STDERR_KEEP;
		n = STDERR_KEEP;
		o->len = 0;
	} else if (o->len + n > STDERR_KEEP) {
		size_t drop = o->len + n - STDERR_KEEP;

		memmove(o->buf, o->buf + drop, o->len - drop);
		o->len -= drop;
		o->dropped += drop;
	}
	output_add(o, buf, n);
}

static void child(const struct exec_state *s, int out, int err, long iteration)
{
	char iter[32];

	setpgid(0, 0);
	contain_enter(&contained);
	dup2(out, 1);
	dup2(err, 2);
	if (out > 2)
		close(out);
	if (err > 2)
		close(err);
	snprintf(iter, sizeof(iter), "%ld", iteration);
	setenv("PATH", "/bin:/usr/bin:/sbin:/usr/sbin", 0);
	setenv("LAB_WORKLOAD", s->name, 1);
	setenv("LAB_ITERATION", iter, 1);
	execv(s->run, s->argv);
	dprintf(2, "cannot run %s: %s\n", s->run, strerror(errno));
	_exit(127);
}

/*
 * The last bytes of stderr on one line, for a message: "; stderr: ...",
 * with how much came before them when that is not all; "" for none.
 */
static const char *stderr_words(struct output *e, char *buf, size_t size)
{
	size_t shown = e->len > STDERR_TAIL ? STDERR_TAIL : e->len;
	char *t = e->buf + e->len - shown;

	if (!e->len)
		return "";
	for (char *c = t; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	if (e->dropped + e->len > shown)
		snprintf(buf, size, "; stderr (... %zu bytes cut ...): %s",
			 e->dropped + e->len - shown, t);
	else
		snprintf(buf, size, "; stderr: %s", t);
	return buf;
}

/*
 * Run the program once, its output collected. Returns 0 when it exited 0,
 * -1 after reporting why not.
 */
/* Both ends of a pipe closed, those still open (-1: closed already). */
static void close_pipe(const int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

static int run_once(struct exec_state *s, long iteration,
		    struct output *out, struct output *err)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, status = 0, ret = -1, killed = 0;
	char words[STDERR_TAIL + 64];
	double deadline = s->deadline ? now_s() + (double)s->deadline : 0;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		emit_error(s->name, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	contain_prepare(&contained, s->name, iteration);
	pid = fork();
	if (pid < 0) {
		emit_error(s->name, "cannot fork: %s", strerror(errno));
		contain_finish(&contained);
		goto out;
	}
	if (!pid)
		child(s, po[1], pe[1], iteration);
	setpgid(pid, pid);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	while (po[0] >= 0 || pe[0] >= 0) {
		struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int wait_ms = -1, n;
		char buf[8192];

		if (deadline) {
			double left = deadline - now_s();
			if (left <= 0) {
				kill(-pid, SIGKILL);
				killed = 1;
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		n = poll(fds, 2, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &pe[0] : &po[0];
			ssize_t got;
			if (*fd < 0 || !fds[i].revents)
				continue;
			got = read(*fd, buf, sizeof(buf));
			if (got > 0) {
				if (i)
					output_add_tail(err, buf, (size_t)got);
				else
					output_add(out, buf, (size_t)got);
			} else if (!got || errno != EINTR) {
				close(*fd);
				*fd = -1;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* what it left running in its group goes with it */
	kill(-pid, SIGKILL);
	contain_finish(&contained);
	if (killed)
		emit_error(s->name, "iteration %ld: '%s' ran past its deadline of %ld s "
			   "(%s) and was killed", iteration, s->argv[0], s->deadline,
			   s->deadline_own ? "the deadline of its [workload] section" :
			   "lab.exec_timeout");
	else if (WIFSIGNALED(status))
		emit_error(s->name, "iteration %ld: '%s' was killed by signal %d (%s)%s",
			   iteration, s->run, WTERMSIG(status), strsignal(WTERMSIG(status)),
			   stderr_words(err, words, sizeof(words)));
	else if (WEXITSTATUS(status))
		emit_error(s->name, "iteration %ld: '%s' exited with status %d%s", iteration,
			   s->run, WEXITSTATUS(status), stderr_words(err, words, sizeof(words)));
	else if (out->cut)
		emit_error(s->name, "iteration %ld: more than %u MiB of output", iteration,
			   MAX_OUTPUT >> 20);
	else
		ret = 0;
out:
	close_pipe(po);
	close_pipe(pe);
	return ret;
}

/*
 * Emit one sample, numbered 1, 2, ... per metric across runs of the
 * program; a metric's direction goes out before its first sample.
 * Returns -1 when the program has more metrics than the guest keeps.
 */
static int take(struct exec_state *s, const struct userwork_sample *x)
{
	char key[160];
	int i;

	for (i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].name, x->name))
			break;
	if (i == s->nmetrics) {
		if (s->nmetrics == MAX_METRICS)
			return -1;
		snprintf(s->metrics[i].name, USERWORK_NAME_MAX, "%s", x->name);
		s->metrics[i].count = 0;
		s->nmetrics++;
		if (direction_of(s, x) == USERWORK_HIGHER) {
			snprintf(key, sizeof(key), "direction.%s.%s", s->name, x->name);
			emit_meta(key, "higher");
		}
	}
	emit_sample(s->name, x->name, ++s->metrics[i].count, x->value, x->unit, 0);
	return 0;
}

static void bad_line(struct exec_state *s, long iteration, long lineno, const char *line,
		     const char *why)
{
	char key[96];

	s->bad_lines++;
	if (s->shown == SHOWN_BAD_LINES)
		return;
	snprintf(key, sizeof(key), "%s.dropped_line.%d", s->name, ++s->shown);
	emit_meta(key, "iteration %ld line %ld: '%.80s': %s", iteration, lineno, line, why);
}

/* The plain format: samples, or -1 after reporting a run with none. */
static int read_plain(struct exec_state *s, long iteration, struct output *out)
{
	char why[160], first[256] = "";
	long lineno = 0, samples = 0, bad = 0;
	char *line = out->len ? out->buf : NULL, *next;

	for (; line && *line; line = next) {
		struct userwork_sample x;
		enum userwork_line kind;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		kind = userwork_parse_line(&x, line, why, sizeof(why));
		if (kind == USERWORK_SAMPLE && take(s, &x)) {
			snprintf(why, sizeof(why), "more than %d metrics", MAX_METRICS);
			kind = USERWORK_BAD;
		}
		if (kind == USERWORK_SAMPLE) {
			samples++;
		} else if (kind == USERWORK_BAD) {
			if (!bad++)
				snprintf(first, sizeof(first), "line %ld: '%.60s': %s", lineno, line,
					 why);
			bad_line(s, iteration, lineno, line, why);
		}
	}
	if (samples)
		return 0;
	if (bad)
		return emit_error(s->name, "iteration %ld: no sample in %ld line(s) of output, "
				  "%ld bad; first %s", iteration, lineno, bad, first);
	return emit_error(s->name, "iteration %ld: '%s' printed no sample (want lines "
			  "'name value unit [higher|lower]')", iteration, s->run);
}

static int read_stressng(struct exec_state *s, long iteration)
{
	struct userwork_sample x[USERWORK_STRESSNG_METRICS];
	struct userwork_stressng y;
	struct lines r;
	const char *line;
	char why[160];
	int ret, n;

	userwork_stressng_init(&y, s->stressor);
	ret = lines_open(&r, s->yaml);
	if (ret < 0)
		return emit_error(s->name, "iteration %ld: stress-ng wrote no YAML to %s: %s",
				  iteration, s->yaml, strerror(-ret));
	while ((ret = lines_next(&r, &line)) > 0)
		userwork_stressng_feed(&y, line);
	lines_close(&r);
	unlink(s->yaml);
	n = userwork_stressng_take(&y, x, why, sizeof(why));
	if (n < 0)
		return emit_error(s->name, "iteration %ld: %s", iteration, why);
	for (int i = 0; i < n; i++)
		take(s, &x[i]);
	return 0;
}

int exec_run(const struct params *p, const char *name)
{
	struct exec_state *s = calloc(1, sizeof(*s));
	struct output out = { 0 }, err = { 0 };
	int ret = -1;

	if (!s)
		return emit_error(name, "out of memory");
	s->name = name;
	if (!probed) {
		probed = 1;
		contain_probe(&contained, p->exec_pids);
		emit_meta("exec.containment", "%s", contained.how);
		if (contained.lacks[0])
			emit_meta("exec.uncontained", "%s", contained.lacks);
	}
	if (load(s, p))
		goto done;
	for (long i = 1; i <= s->iters; i++) {
		struct events ev;

		out.len = err.len = 0;
		out.cut = err.cut = 0;
		err.dropped = 0;
		if (out.buf)
			out.buf[0] = '\0';
		events_begin(&ev, EVENTS_CHILDREN);
		if (run_once(s, i, &out, &err))
			goto done;
		events_end(&ev);
		if (s->stressor[0] ? read_stressng(s, i) : read_plain(s, i, &out))
			goto done;
		events_emit(&ev, name, i, 0);
	}
	ret = 0;
done:
	if (!s->stressor[0] && s->run[0]) {
		char key[96];
		snprintf(key, sizeof(key), "%s.dropped_lines", name);
		emit_meta(key, "%ld", s->bad_lines);
	}
	free(out.buf);
	free(err.buf);
	free(s);
	return ret;
}
