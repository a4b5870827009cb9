/* A run's page: its row, metadata, samples per metric, and the console log copied beside it. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "html.h"
#include "log.h"
#include "pages.h"
#include "redact.h"
#include "stats.h"
#include "store-experiment.h"
#include "store-report.h"

/* A console log's tail as shown on its run page. */
#define LOG_TAIL_BYTES 8192

/* Per metric: n, warm-up count, mean, sd, quartiles, min, max of one run's samples. */
static int add_run_samples(struct site *s, struct strbuf *sb, long long id)
{
	struct run_metrics rm = { 0 };

	if (run_metrics_load(s, &rm, id))
		return -1;
	/* no column of units: each cell names the unit it is scaled to, its title the stored one */
	html_section_table(sb, "Samples", "<th>Metric</th><th>n</th><th>warm-up</th>"
			   "<th>Mean</th><th>std deviation</th><th>min</th><th>q1</th><th>median</th>"
			   "<th>q3</th><th>max</th>");
	for (size_t i = 0; i < rm.n; i++) {
		const struct run_metric *m = &rm.m[i];
		struct stats_summary sum;

		strbuf_addstr(sb, "<tr><th scope=\"row\">");
		html_metric_name(sb, &m->name);
		strbuf_addf(sb, "</th><td class=\"num\">%zu</td><td class=\"num\">%d</td>", m->d.nr,
			    m->warm);
		if (m->d.nr && !stats_summarize(&sum, m->d.v, m->d.nr)) {
			double v[7] = { sum.mean, sum.std, sum.min, sum.q1, sum.median, sum.q3, sum.max };

			/* one unit for the row, that its median reads best in */
			for (int j = 0; j < 7; j++)
				html_cell_quantity(sb, v[j], m->name.unit, sum.median);
		} else {
			strbuf_addstr(sb, "<td colspan=\"7\">&#8211;</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	html_section_end(sb);
	run_metrics_release(&rm);
	return 0;
}

/* The last bytes of a log, from a line start when there is one. */
static const char *log_tail(const struct strbuf *log)
{
	const char *t;

	if (log->len <= LOG_TAIL_BYTES)
		return strbuf_str(log);
	t = log->buf + log->len - LOG_TAIL_BYTES;
	if (strchr(t, '\n'))
		t = strchr(t, '\n') + 1;
	return t;
}

struct run_page {
	struct page p;
	struct strbuf log, tail;	/* log: the copy published */
	struct strbuf log_name;		/* its name in the site */
	long long log_size, log_cut;	/* the file's bytes, those of its start not published */
	int have_log;
	int refused;		/* the stored path is not one of the lab's logs */
};

/* One line on stderr, the stored path made printable: it is foreign text. */
static void refuse_log(struct run_page *rp, const char *path, const char *real, const char *why)
{
	struct strbuf msg = STRBUF_INIT;

	strbuf_addf(&msg, "run %lld: console log '", rp->p.id);
	escape_term(&msg, path, 0);
	strbuf_addch(&msg, '\'');
	if (strcmp(real, path)) {
		strbuf_addstr(&msg, " (resolved '");
		escape_term(&msg, real, 0);
		strbuf_addstr(&msg, "')");
	}
	warning("%s %s: not published", msg.buf, why);
	strbuf_release(&msg);
	rp->refused = 1;
}

/* Up to want bytes of fd from offset from into sb; a log that shrank gives fewer. */
static int read_at(struct strbuf *sb, int fd, off_t from, size_t want)
{
	char chunk[65536];

	strbuf_grow(sb, want);
	while (want) {
		ssize_t n = pread(fd, chunk, want < sizeof(chunk) ? want : sizeof(chunk), from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		strbuf_add(sb, chunk, (size_t)n);
		from += n;
		want -= (size_t)n;
	}
	return 0;
}

/* escape_term() of bytes that may hold NULs, where it would stop. */
static void escape_log(struct strbuf *sb, const char *p, size_t n)
{
	const char *end = p + n;

	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		/* a segment ends at a NUL of the log or at the buffer's own */
		escape_term(sb, p, ESCAPE_TERM_LINES);
		if (!nul)
			break;
		strbuf_addstr(sb, "\\x00");
		p = nul + 1;
	}
}

/*
 * The copy of a log the site publishes: its end, at most REPORT_LOG_MAX
 * bytes once escaped, from a line's start when cut, read from the end of
 * the file, so that a log of any size (sparse, or a guest that printed for
 * days) costs no more memory than that. Control bytes are shown as \xHH
 * (escape_term()): the copy is read in browsers and terminals alike, and
 * a guest's escape sequences must not drive them.
 */
static int copy_log(struct run_page *rp, int fd, off_t size)
{
	struct strbuf raw = STRBUF_INIT, esc = STRBUF_INIT;
	size_t want = size > REPORT_LOG_MAX ? REPORT_LOG_MAX : (size_t)size, start;
	off_t from;
	int ret = -1;

	for (;;) {
		from = size - (off_t)want;
		strbuf_reset(&raw);
		strbuf_reset(&esc);
		if (read_at(&raw, fd, from, want))
			goto out;
		start = 0;
		if (from > 0) {
			const char *nl = memchr(raw.buf, '\n', raw.len);

			if (nl && (size_t)(nl + 1 - raw.buf) < raw.len)
				start = (size_t)(nl + 1 - raw.buf);
		}
		escape_log(&esc, raw.buf + start, raw.len - start);
		if (esc.len <= REPORT_LOG_MAX)
			break;
		/* control bytes grew it (four times at most): take fewer of the end */
		want = (size_t)((double)(raw.len - start) * REPORT_LOG_MAX / (double)esc.len);
		if (want >= raw.len - start)
			want = raw.len - start - 1;
	}
	rp->log_size = (long long)size;
	rp->log_cut = (long long)from + (long long)start;
	strbuf_reset(&rp->log);
	if (rp->log_cut)
		strbuf_addf(&rp->log, "lab: the first %lld of the log's %lld bytes are cut; its end "
			    "follows\n", rp->log_cut, rp->log_size);
	strbuf_add(&rp->log, esc.buf, esc.len);
	ret = 0;
out:
	strbuf_release_all(&raw, &esc);
	return ret;
}

/*
 * Read the run's console log when it is one the lab wrote: a regular file
 * whose path, symlinks resolved, lies under the site's log root, with one
 * link (a hard link puts any file this process can read under the root)
 * and either the lab user's own or readable by all (the site never makes
 * public what was private to someone else). The path is a database row,
 * and whoever can write the database must not get any file this process
 * can read published. A log that is simply gone is no warning: the
 * stored tail stands in for it.
 */
static void read_log(struct run_page *rp, const char *path)
{
	const char *root = rp->p.s->log_root;
	const char *shown = root ? root : rp->p.s->opt->log_dir;
	char *real = realpath(path, NULL);
	size_t n = root ? strlen(root) : 0;
	struct strbuf why = STRBUF_INIT;
	struct stat st;
	int fd = -1;

	if (!real)
		goto out;
	if (!root || strncmp(real, root, n) || real[n] != '/') {
		strbuf_addstr(&why, "is outside ");
		escape_term(&why, shown ? shown : "the lab's logs", 0);
		refuse_log(rp, path, real, why.buf);
		goto out;
	}
	/* no symlink is left in real; a fifo must not block the report */
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		refuse_log(rp, path, real, "is not a regular file");
		goto out;
	}
	if (st.st_nlink != 1) {
		strbuf_addf(&why, "has %ju links", (uintmax_t)st.st_nlink);
		refuse_log(rp, path, real, why.buf);
		goto out;
	}
	if (st.st_uid != geteuid() && !(st.st_mode & S_IROTH)) {
		refuse_log(rp, path, real, "is another user's and not readable by all");
		goto out;
	}
	if (!copy_log(rp, fd, st.st_size))
		rp->have_log = 1;
	else
		strbuf_reset(&rp->log);
out:
	if (fd >= 0)
		close(fd);
	free(real);
	strbuf_release(&why);
}

static int run_header(const struct store_report_run *r, void *data)
{
	static const char *const labels[RR_NR_FIELDS] = {
		"status", "error", "runner", "workloads", "params", "command line", "memory (MiB)",
		"CPUs", "accelerator", "host", "host CPU", "QEMU", "boot, start to end",
		"start to the guest's first line", "lines refused", "kernel image", "kernel hash",
		"arch", "kernel release", "kernel commit",
	};
	struct run_page *rp = data;
	struct strbuf *sb = &rp->p.sb, title = STRBUF_INIT;

	rp->p.found = 1;
	strbuf_addf(&title, "Run %lld", rp->p.id);
	html_page_begin(sb, title.buf);
	strbuf_release(&title);
	strbuf_addstr(sb, "<dl class=\"facts\">\n");
	html_fact_time(sb, "started", r->started);
	html_fact_time(sb, "ended", r->ended);
	strbuf_addstr(sb, "<dt>experiment</dt><dd>");
	if (r->experiment_kind) {
		strbuf_addf(sb, "<a href=\"%c%lld.html\">E%lld</a>, variant ",
			    !strcmp(r->experiment_kind, "bisect") ? 'b' : 'e', r->experiment_id,
			    r->experiment_id);
		html_variant(sb, r->variant, !strcmp(r->experiment_kind, "bisect"));
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</dd>\n");
	if (add_clock(sb, rp->p.s->st, 0, rp->p.id))
		return -1;
	strbuf_addstr(sb, "</dl>\n");
	html_section_table(sb, "Run", "<th>Field</th><th>Value</th>");
	for (int i = 0; i < RR_NR_FIELDS; i++) {
		strbuf_addf(sb, "<tr><th scope=\"row\">%s</th><td class=\"wrap\">", labels[i]);
		if (i == RR_STATUS)
			html_badge(sb, "s-", r->text[i] ? r->text[i] : "");
		else if ((i == RR_WALL_S || i == RR_TO_HELLO_S) && r->text[i] && *r->text[i])
			/* wall clock of the host: milliseconds are all it resolves */
			strbuf_addf(sb, "%.3f s", strtod(r->text[i], NULL));
		else if (i == RR_KERNEL_COMMIT && r->text[i] && *r->text[i])
			add_kernel(rp->p.s, sb, NULL, r->text[i]);
		else
			html_text(sb, r->text[i]);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	html_section_end(sb);
	/* The log file is outside the database; its copy follows the stored path. */
	if (*r->console_log)
		read_log(rp, r->console_log);
	if (!rp->have_log)
		strbuf_addstr(&rp->tail, r->console_tail);
	return 0;
}

static int run_meta(const char *key, const char *value, void *data)
{
	struct strbuf *sb = data;

	strbuf_addstr(sb, "<tr><th scope=\"row\">");
	html_text(sb, key);
	strbuf_addstr(sb, "</th><td class=\"wrap\">");
	/* an older lab stored addresses with their secrets (lava.url with its password) */
	html_text(sb, url_redacted(value));
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

static void add_console(struct strbuf *sb, const char *text)
{
	strbuf_addstr(sb, "<pre class=\"console\">");
	escape_html(sb, text);
	strbuf_addstr(sb, "</pre>\n");
}

static int run_fill(struct page *p)
{
	struct run_page *rp = (struct run_page *)p;
	struct strbuf *sb = &p->sb;
	struct site *s = p->s;
	long long id = p->id;

	if (store_report_run(s->st, id, run_header, rp))
		return -1;
	if (!p->found)
		return 0;
	html_section_table(sb, "Metadata", "<th>Key</th><th>Value</th>");
	if (store_run_meta(s->st, id, run_meta, sb))
		return -1;
	html_section_end(sb);
	if (add_run_samples(s, sb, id))
		return -1;
	strbuf_addstr(sb, "<section>\n<h2>Console</h2>\n");
	strbuf_addf(&rp->log_name, "logs/r%lld.txt", id);
	if (rp->have_log) {
		if (rp->log_cut)
			strbuf_addf(sb, "<p><a href=\"%s\">The console log's last %lld bytes</a> (of "
				    "%lld); its end:</p>\n", rp->log_name.buf,
				    rp->log_size - rp->log_cut, rp->log_size);
		else
			strbuf_addf(sb, "<p><a href=\"%s\">The whole console log</a> (%lld bytes); "
				    "its end:</p>\n", rp->log_name.buf, rp->log_size);
		add_console(sb, log_tail(&rp->log));
	} else if (rp->refused) {
		strbuf_addstr(sb, "<p>The console log is missing: its stored path does not lead to a "
			      "log the lab wrote.");
		if (rp->tail.len) {
			strbuf_addstr(sb, " Its stored tail:</p>\n");
			add_console(sb, rp->tail.buf);
		} else {
			strbuf_addstr(sb, "</p>\n");
		}
	} else if (rp->tail.len) {
		strbuf_addstr(sb, "<p>The console log is gone; its stored tail:</p>\n");
		add_console(sb, rp->tail.buf);
	} else {
		strbuf_addstr(sb, "<p>No console log.</p>\n");
	}
	strbuf_addstr(sb, "</section>\n");
	return 0;
}

int page_run(struct site *s, long long id)
{
	struct run_page rp = { .p = { .s = s, .sb = STRBUF_INIT, .id = id }, .log = STRBUF_INIT,
			       .tail = STRBUF_INIT, .log_name = STRBUF_INIT };
	int ret = page_put(&rp.p, 'r', run_fill);

	/* a refused log's copy, published before, is not put: the manifest's prune takes it */
	if (!ret && rp.p.found && rp.have_log)
		ret = site_put(s, rp.log_name.buf, rp.log.buf, rp.log.len);
	strbuf_release_all(&rp.p.sb, &rp.log, &rp.tail, &rp.log_name);
	return ret;
}
