#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "meter.h"
#include "subprocess.h"
#include "textfmt.h"
#include "xalloc.h"

enum meter_mode meter_mode = METER_AUTO;

/* The meter whose line is on the terminal now: cleared before a message. */
static struct meter *showing;

/* On a terminal: redraw at most this often for a new count, and once a second for the clock. */
#define REDRAW_S 0.2
#define TICK_S 1.0

void meter_init(struct meter *m, FILE *out)
{
	memset(m, 0, sizeof(*m));
	m->out = out;
	m->quiet = meter_mode == METER_QUIET;
	m->in_place = meter_mode == METER_ALWAYS ||
		      (meter_mode == METER_AUTO && isatty(fileno(out)));
	m->now = now_monotonic;
	strbuf_init(&m->title, 0);
	strbuf_init(&m->state, 0);
	strbuf_init(&m->line, 0);
}

void meter_release(struct meter *m)
{
	meter_clear(m);
	strbuf_release_all(&m->title, &m->state, &m->line);
}

void meter_add_duration(struct strbuf *sb, double s)
{
	long t = s > 0 && s < 1e9 ? lround(s) : 0;

	if (t >= 3600)
		strbuf_addf(sb, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		strbuf_addf(sb, "%ld:%02ld", t / 60, t % 60);
}

/* Columns a line may take: one short of the terminal's, whose last column would wrap on some. */
static int width(const struct meter *m)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (!ioctl(fileno(m->out), TIOCGWINSZ, &ws) && ws.ws_col > 10)
		return ws.ws_col - 1;
	if (cols && atoi(cols) > 10)
		return atoi(cols) - 1;
	return 79;
}

static void compose(struct meter *m, double now)
{
	double el = now - m->start, left = -1;

	strbuf_reset(&m->line);
	strbuf_addf(&m->line, "%s: ", strbuf_str(&m->title));
	if (m->total > 0)
		strbuf_addf(&m->line, "%3ld%% (%ld/%ld)%s",
			    m->done >= m->total ? 100 : 100 * m->done / m->total, m->done, m->total,
			    m->state.len ? " " : "");
	if (m->total > 0 || m->state.len)
		strbuf_addf(&m->line, "%s, ", strbuf_str(&m->state));
	meter_add_duration(&m->line, el);
	if (m->total > 0 && m->done > 0 && m->done < m->total)
		left = (now - m->count_start) * (double)(m->total - m->done) / (double)m->done;
	else if (m->expected_s > 0 && el < m->expected_s)
		left = m->expected_s - el;
	if (left >= 0) {
		strbuf_addf(&m->line, ", %s~", m->left_before ? m->left_before : "");
		meter_add_duration(&m->line, left);
		strbuf_addf(&m->line, " %s", m->left_after ? m->left_after : "left");
	}
}

static void draw(struct meter *m, double now)
{
	if (m->quiet || !m->title.len)
		return;
	compose(m, now);
	if (m->in_place) {
		size_t w = (size_t)width(m);

		/* columns, not bytes: a label or a workload's name may be UTF-8 */
		if (textfmt_width(m->line.buf) > w) {
			char *cut = xrealloc(NULL, m->line.len + 8);

			textfmt_cut(cut, m->line.len + 8, m->line.buf, w, 0);
			strbuf_reset(&m->line);
			strbuf_addstr(&m->line, cut);
			free(cut);
		}
		fprintf(m->out, "\r%s\033[K", m->line.buf);
		m->shown = 1;
		showing = m;
	} else {
		fprintf(m->out, "%s\n", m->line.buf);
	}
	fflush(m->out);
	m->last = now;
}

void meter_begin(struct meter *m, long total, double expected_s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vsetf(&m->title, fmt, ap);
	va_end(ap);
	strbuf_reset(&m->state);
	m->done = 0;
	m->total = total;
	m->expected_s = expected_s;
	m->start = m->count_start = m->now();
	m->last = m->start;
}

void meter_phase(struct meter *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vsetf(&m->state, fmt, ap);
	va_end(ap);
	draw(m, m->now());
}

void meter_set_total(struct meter *m, long total)
{
	m->total = total;
	m->done = 0;
	m->count_start = m->now();
}

void meter_set(struct meter *m, long done, const char *fmt, ...)
{
	double now = m->now();
	va_list ap;

	m->done = done;
	va_start(ap, fmt);
	strbuf_vsetf(&m->state, fmt, ap);
	va_end(ap);
	if (m->in_place ? now - m->last >= REDRAW_S : now - m->last >= METER_QUIET_S)
		draw(m, now);
}

void meter_tick(struct meter *m)
{
	double now = m->now();

	if (now - m->last >= (m->in_place ? TICK_S : METER_QUIET_S))
		draw(m, now);
}

void meter_clear(struct meter *m)
{
	if (!m->shown)
		return;
	fputs("\r\033[K", m->out);
	fflush(m->out);
	m->shown = 0;
	if (showing == m)
		showing = NULL;
}

void meter_clear_showing(void)
{
	if (showing)
		meter_clear(showing);
}

void meter_done(struct meter *m, const char *fmt, ...)
{
	va_list ap;

	meter_clear(m);
	va_start(ap, fmt);
	vfprintf(m->out, fmt, ap);
	va_end(ap);
	fputc('\n', m->out);
	fflush(m->out);
	strbuf_reset(&m->title);
}
