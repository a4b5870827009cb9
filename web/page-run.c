/* A run's page: its row, metadata, samples per metric, and the console log copied beside it. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "html.h"
#include "log.h"
#include "pages.h"
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
	strbuf_addstr(sb, "<section>\n<h2>Samples</h2>\n");
	html_table_begin(sb, "<th>Metric</th><th>Unit</th><th>n</th><th>warm-up</th><th>Mean</th>"
		    "<th>std deviation</th><th>min</th><th>q1</th><th>median</th><th>q3</th><th>max</th>");
	for (size_t i = 0; i < rm.n; i++) {
		const struct run_metric *m = &rm.m[i];
		struct stats_summary sum;

		strbuf_addstr(sb, "<tr><th scope=\"row\">");
		escape_html(sb, m->workload);
		strbuf_addch(sb, '.');
		escape_html(sb, m->metric);
		strbuf_addstr(sb, "</th><td>");
		escape_html(sb, m->unit);
		strbuf_addf(sb, "</td><td class=\"num\">%zu</td><td class=\"num\">%d</td>", m->d.n,
			    m->warm);
		if (m->d.n && !stats_summarize(&sum, m->d.v, m->d.n)) {
			double v[7] = { sum.mean, sum.std, sum.min, sum.q1, sum.median, sum.q3, sum.max };

			for (int j = 0; j < 7; j++) {
				strbuf_addstr(sb, "<td class=\"num\">");
				html_num(sb, v[j]);
				strbuf_addstr(sb, "</td>");
			}
		} else {
			strbuf_addstr(sb, "<td colspan=\"7\">&#8211;</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	html_table_end(sb);
	strbuf_addstr(sb, "</section>\n");
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
	struct strbuf log, tail;
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

/*
 * Read the run's console log when it is one the lab wrote: a regular file
 * whose path, symlinks resolved, lies under the site's log root. The path
 * is a database row, and whoever can write the database must not get any
 * file this process can read published. A log that is simply gone is no
 * warning: the stored tail stands in for it.
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
	if (!strbuf_read_fd(&rp->log, fd, 0))
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
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>started</dt><dd>");
	html_time(sb, r->started);
	strbuf_addstr(sb, "</dd>\n<dt>ended</dt><dd>");
	html_time(sb, r->ended);
	strbuf_addstr(sb, "</dd>\n<dt>experiment</dt><dd>");
	if (r->experiment_kind) {
		strbuf_addf(sb, "<a href=\"%c%lld.html\">E%lld</a>, variant ",
			    !strcmp(r->experiment_kind, "bisect") ? 'b' : 'e', r->experiment_id,
			    r->experiment_id);
		html_text(sb, r->variant);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</dd>\n");
	if (add_clock(sb, rp->p.s->st, 0, rp->p.id))
		return -1;
	strbuf_addstr(sb, "</dl>\n<section>\n<h2>Run</h2>\n");
	html_table_begin(sb, "<th>Field</th><th>Value</th>");
	for (int i = 0; i < RR_NR_FIELDS; i++) {
		strbuf_addf(sb, "<tr><th scope=\"row\">%s</th><td class=\"wrap\">", labels[i]);
		if (i == RR_STATUS)
			html_badge(sb, "s-", r->text[i] ? r->text[i] : "");
		else if ((i == RR_WALL_S || i == RR_TO_HELLO_S) && r->text[i] && *r->text[i])
			/* wall clock of the host: milliseconds are all it resolves */
			strbuf_addf(sb, "%.3f s", strtod(r->text[i], NULL));
		else
			html_text(sb, r->text[i]);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	html_table_end(sb);
	strbuf_addstr(sb, "</section>\n");
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
	html_text(sb, value);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

int page_run(struct site *s, long long id)
{
	struct run_page rp = { .p = { .s = s, .sb = STRBUF_INIT, .id = id }, .log = STRBUF_INIT,
			       .tail = STRBUF_INIT };
	struct strbuf *sb = &rp.p.sb, name = STRBUF_INIT, log_name = STRBUF_INIT;
	int ret = -1;

	if (store_read_begin(s->st))
		return -1;
	if (store_report_run(s->st, id, run_header, &rp))
		goto out;
	if (!rp.p.found) {
		ret = 0;
		goto out;
	}
	strbuf_addstr(sb, "<section>\n<h2>Metadata</h2>\n");
	html_table_begin(sb, "<th>Key</th><th>Value</th>");
	if (store_run_meta(s->st, id, run_meta, sb))
		goto out;
	html_table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	if (add_run_samples(s, sb, id))
		goto out;
	strbuf_addstr(sb, "<section>\n<h2>Console</h2>\n");
	strbuf_addf(&log_name, "logs/r%lld.txt", id);
	if (rp.have_log) {
		strbuf_addf(sb, "<p><a href=\"%s\">The whole console log</a> (%zu bytes); its end:</p>\n",
			    log_name.buf, rp.log.len);
		strbuf_addstr(sb, "<pre class=\"console\">");
		escape_html(sb, log_tail(&rp.log));
		strbuf_addstr(sb, "</pre>\n");
	} else if (rp.refused) {
		strbuf_addstr(sb, "<p>The console log is missing: its stored path does not lead to a "
			      "log the lab wrote.");
		if (rp.tail.len) {
			strbuf_addstr(sb, " Its stored tail:</p>\n<pre class=\"console\">");
			escape_html(sb, rp.tail.buf);
			strbuf_addstr(sb, "</pre>\n");
		} else {
			strbuf_addstr(sb, "</p>\n");
		}
	} else if (rp.tail.len) {
		strbuf_addstr(sb, "<p>The console log is gone; its stored tail:</p>\n<pre class=\"console\">");
		escape_html(sb, rp.tail.buf);
		strbuf_addstr(sb, "</pre>\n");
	} else {
		strbuf_addstr(sb, "<p>No console log.</p>\n");
	}
	strbuf_addstr(sb, "</section>\n");
	html_page_end(sb);
	strbuf_addf(&name, "r%lld.html", id);
	ret = 1;
out:
	store_read_end(s->st);
	if (ret == 1) {
		/* a refused log's copy, published before, is not put: the manifest's prune takes it */
		ret = site_put(s, name.buf, sb->buf, sb->len);
		if (!ret && rp.have_log)
			ret = site_put(s, log_name.buf, rp.log.buf, rp.log.len);
	}
	strbuf_release(sb);
	strbuf_release(&name);
	strbuf_release(&rp.log);
	strbuf_release(&rp.tail);
	strbuf_release(&log_name);
	return ret;
}
