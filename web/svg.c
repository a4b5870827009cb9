/* Inline SVG plots: distributions on one axis, bisection steps, sparklines, nightly series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "stats.h"
#include "svg.h"

#define W 640.0
#define PAD_L 48.0
#define PAD_R 16.0

static double scale(double v, double lo, double hi, double from, double to)
{
	if (!(hi > lo))
		return (from + to) / 2;
	return from + (v - lo) / (hi - lo) * (to - from);
}

/*
 * v with one decimal, as "%.1f" would write it but for ties, which round
 * away from zero. Plots write a coordinate pair per sample, and printf's
 * exact decimal conversion was most of a large site's time.
 */
static void add_fixed1(struct strbuf *sb, double v)
{
	char digits[24];
	long long t;
	int n = 0;

	if (!(fabs(v) < 1e15)) {
		strbuf_addf(sb, "%.1f", v);
		return;
	}
	t = llround(v * 10);
	if (t < 0) {
		strbuf_addch(sb, '-');
		t = -t;
	}
	digits[n++] = (char)('0' + t % 10);
	digits[n++] = '.';
	t /= 10;
	do {
		digits[n++] = (char)('0' + t % 10);
		t /= 10;
	} while (t);
	while (n)
		strbuf_addch(sb, digits[--n]);
}

/* Ticks at five evenly spaced values; the labels are short numbers. */
static void x_axis(struct strbuf *sb, double lo, double hi, double y, const char *unit)
{
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    PAD_L, y, W - PAD_R, y);
	for (int i = 0; i <= 4; i++) {
		double v = lo + (hi - lo) * i / 4, x = scale(v, lo, hi, PAD_L, W - PAD_R);
		strbuf_addf(sb, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.4g</text>\n",
			    x, y, x, y + 4, x, y + 16, v);
	}
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", W - PAD_R, y + 30);
	escape_html(sb, unit);
	strbuf_addstr(sb, "</text>\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A series' points above its box, spread over a band by a fixed
 * low-discrepancy sequence (the golden ratio's fractional parts), so a page
 * is the same bytes on every run. Past SVG_MAX_POINTS, points evenly spaced
 * in rank stand for the rest: the smallest and largest are always among
 * them, and the box still summarizes every value.
 */
static int add_points(struct strbuf *sb, const struct svg_series *s, double lo, double hi,
		      double y0)
{
	size_t n = s->n < SVG_MAX_POINTS ? s->n : SVG_MAX_POINTS;
	double *sorted = NULL;

	if (n < s->n) {
		sorted = malloc(s->n * sizeof(*sorted));
		if (!sorted)
			return -1;
		memcpy(sorted, s->x, s->n * sizeof(*sorted));
		qsort(sorted, s->n, sizeof(*sorted), cmp_double);
		strbuf_addf(sb, "<text class=\"thinned\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
			    "%zu of %zu points</text>\n", W - PAD_R, y0 + 8, n, s->n);
	}
	for (size_t j = 0; j < n; j++) {
		double jit = fmod((double)(j + 1) * 0.6180339887498949, 1.0);
		double v = sorted ? sorted[(size_t)llround((double)j * (double)(s->n - 1) /
							   (double)(n - 1))] : s->x[j];

		strbuf_addstr(sb, "<circle class=\"pt\" cx=\"");
		add_fixed1(sb, scale(v, lo, hi, PAD_L, W - PAD_R));
		strbuf_addstr(sb, "\" cy=\"");
		add_fixed1(sb, y0 + 2 + 16 * jit);
		strbuf_addstr(sb, "\" r=\"2.2\"/>\n");
	}
	free(sorted);
	return 0;
}

int svg_distributions(struct strbuf *sb, const struct svg_series *s, size_t ns,
		      const char *unit, const char *title)
{
	const double row = 56;
	double lo = INFINITY, hi = -INFINITY, h = 20 + row * (double)ns + 36;

	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < s[i].n; j++) {
			lo = fmin(lo, s[i].x[j]);
			hi = fmax(hi, s[i].x[j]);
		}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	strbuf_addf(sb, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", W, h);
	escape_html(sb, title);
	strbuf_addstr(sb, "</title>\n");
	for (size_t i = 0; i < ns; i++) {
		struct stats_summary sum;
		double y0 = 20 + row * (double)i, mid = y0 + row / 2;

		strbuf_addf(sb, "<g class=\"%s\">\n<text x=\"4\" y=\"%.1f\">", s[i].css_class, mid + 4);
		escape_html(sb, s[i].label);
		strbuf_addstr(sb, "</text>\n");
		if (add_points(sb, &s[i], lo, hi, y0))
			return -1;
		if (!s[i].n) {
			strbuf_addstr(sb, "</g>\n");
			continue;
		}
		if (stats_summarize(&sum, s[i].x, s[i].n))
			return -1;
		{
			double x0 = scale(sum.min, lo, hi, PAD_L, W - PAD_R);
			double x1 = scale(sum.q1, lo, hi, PAD_L, W - PAD_R);
			double xm = scale(sum.median, lo, hi, PAD_L, W - PAD_R);
			double x3 = scale(sum.q3, lo, hi, PAD_L, W - PAD_R);
			double x4 = scale(sum.max, lo, hi, PAD_L, W - PAD_R);
			double by = y0 + 24, bh = 20;

			strbuf_addf(sb, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
				    "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
				    "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n"
				    "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				    x0, by + bh / 2, x1, by + bh / 2, x3, by + bh / 2, x4, by + bh / 2,
				    x1, by, fmax(x3 - x1, 0.5), bh, xm, by, xm, by + bh);
		}
		strbuf_addstr(sb, "</g>\n");
	}
	x_axis(sb, lo, hi, 20 + row * (double)ns, unit);
	strbuf_addstr(sb, "</svg>\n");
	return 0;
}

void svg_bisect_steps(struct strbuf *sb, const struct svg_step *steps, size_t n,
		      double effect, const char *title)
{
	const double h = 240, top = 16, bottom = h - 40;
	double lo = 1, hi = 1;

	if (isfinite(effect)) {
		lo = fmin(lo, effect);
		hi = fmax(hi, effect);
	}
	for (size_t i = 0; i < n; i++) {
		if (isfinite(steps[i].lo))
			lo = fmin(lo, steps[i].lo);
		if (isfinite(steps[i].hi))
			hi = fmax(hi, steps[i].hi);
	}
	lo -= (hi - lo) * 0.05 + 0.005;
	hi += (hi - lo) * 0.05 + 0.005;
	strbuf_addf(sb, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", W, h);
	escape_html(sb, title);
	strbuf_addstr(sb, "</title>\n");
	for (int i = 0; i <= 4; i++) {
		double v = lo + (hi - lo) * i / 4, y = scale(v, lo, hi, bottom, top);
		strbuf_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3f</text>\n",
			    PAD_L, y, W - PAD_R, y, PAD_L - 4, y + 4, v);
	}
	strbuf_addf(sb, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    PAD_L, scale(1, lo, hi, bottom, top), W - PAD_R, scale(1, lo, hi, bottom, top));
	if (isfinite(effect))
		strbuf_addf(sb, "<line class=\"effect\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">G&#8594;B %.3f</text>\n",
			    PAD_L, scale(effect, lo, hi, bottom, top), W - PAD_R,
			    scale(effect, lo, hi, bottom, top), W - PAD_R,
			    scale(effect, lo, hi, bottom, top) - 4, effect);
	for (size_t i = 0; i < n; i++) {
		double x = scale((double)i, -0.5, (double)n - 0.5, PAD_L, W - PAD_R);
		const struct svg_step *s = &steps[i];

		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n",
			    x, bottom + 16, i + 1);
		if (!isfinite(s->ratio))
			continue;
		strbuf_addf(sb, "<g class=\"step mark-%s\">", s->mark[0] == 'B' ? "bad" :
			    s->mark[0] == 'G' ? "good" : "skip");
		if (isfinite(s->lo) && isfinite(s->hi))
			strbuf_addf(sb, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
				    x, scale(s->lo, lo, hi, bottom, top), x, scale(s->hi, lo, hi, bottom, top));
		strbuf_addf(sb, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>",
			    x, scale(s->ratio, lo, hi, bottom, top));
		escape_html(sb, s->label);
		strbuf_addf(sb, " %s %.4f</title></circle>", s->mark, s->ratio);
		if (s->culprit)
			strbuf_addf(sb, "<circle class=\"culprit\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\"/>"
				    "<text class=\"culprit-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">culprit</text>",
				    x, scale(s->ratio, lo, hi, bottom, top), x,
				    scale(s->ratio, lo, hi, bottom, top) - 13);
		strbuf_addstr(sb, "</g>\n");
	}
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step</text>\n",
		    (PAD_L + W - PAD_R) / 2, h - 6);
	strbuf_addstr(sb, "</svg>\n");
}

void svg_sparkline(struct strbuf *sb, const double *x, const double *y, size_t n,
		   const char *title)
{
	const double w = 120, h = 28, pad = 3;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;

	for (size_t i = 0; i < n; i++) {
		x0 = fmin(x0, x[i]);
		x1 = fmax(x1, x[i]);
		y0 = fmin(y0, y[i]);
		y1 = fmax(y1, y[i]);
	}
	strbuf_addf(sb, "<svg class=\"spark\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", w, h);
	escape_html(sb, title);
	strbuf_addstr(sb, "</title>\n<polyline points=\"");
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		add_fixed1(sb, scale(x[i], x0, x1, pad, w - pad));
		strbuf_addch(sb, ',');
		add_fixed1(sb, scale(y[i], y0, y1, h - pad, pad));
	}
	strbuf_addstr(sb, "\"/>\n");
	if (n) {
		strbuf_addstr(sb, "<circle cx=\"");
		add_fixed1(sb, scale(x[n - 1], x0, x1, pad, w - pad));
		strbuf_addstr(sb, "\" cy=\"");
		add_fixed1(sb, scale(y[n - 1], y0, y1, h - pad, pad));
		strbuf_addstr(sb, "\" r=\"2.5\"/>\n");
	}
	strbuf_addstr(sb, "</svg>\n");
}

void svg_nightly_series(struct strbuf *sb, const double *y, const char *const *labels, size_t n,
			const struct svg_change *changes, size_t nc, const char *unit,
			const char *title)
{
	const double h = 240, top = 24, bottom = h - 40;
	double lo = INFINITY, hi = -INFINITY;
	/* a tick every step points, so that their numbers never overlap */
	size_t step = n / 16 + 1;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, y[i]);
		hi = fmax(hi, y[i]);
	}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	{
		double pad = (hi - lo) * 0.05 + fabs(hi) * 0.001 + 1e-9;

		lo -= pad;
		hi += pad;
	}
	strbuf_addf(sb, "<svg class=\"plot nightly\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", W, h);
	escape_html(sb, title);
	strbuf_addstr(sb, "</title>\n");
	for (int i = 0; i <= 4; i++) {
		double v = lo + (hi - lo) * i / 4, yy = scale(v, lo, hi, bottom, top);

		strbuf_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
			    PAD_L, yy, W - PAD_R, yy, PAD_L - 4, yy + 4, v);
	}
	for (size_t i = 0; i < nc; i++) {
		const struct svg_change *c = &changes[i];
		double x = scale(((double)c->before + (double)c->after) / 2, -0.5, (double)n - 0.5,
				 PAD_L, W - PAD_R);

		if (c->before >= n || c->after >= n)
			continue;
		strbuf_addf(sb, "<g class=\"change %s\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			    c->css_class, x, top - 4, x, bottom, x, top - 8);
		escape_html(sb, c->label);
		strbuf_addstr(sb, "</text></g>\n");
	}
	if (n > 1) {
		strbuf_addstr(sb, "<polyline class=\"series\" points=\"");
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(sb, ' ');
			add_fixed1(sb, scale((double)i, -0.5, (double)n - 0.5, PAD_L, W - PAD_R));
			strbuf_addch(sb, ',');
			add_fixed1(sb, scale(y[i], lo, hi, bottom, top));
		}
		strbuf_addstr(sb, "\"/>\n");
	}
	for (size_t i = 0; i < n; i++) {
		double x = scale((double)i, -0.5, (double)n - 0.5, PAD_L, W - PAD_R);

		if (i % step == 0 || i == n - 1)
			strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n",
				    x, bottom + 16, i + 1);
		strbuf_addstr(sb, "<circle class=\"pt\" cx=\"");
		add_fixed1(sb, x);
		strbuf_addstr(sb, "\" cy=\"");
		add_fixed1(sb, scale(y[i], lo, hi, bottom, top));
		strbuf_addstr(sb, "\" r=\"3\"><title>");
		escape_html(sb, labels[i]);
		strbuf_addf(sb, " %.6g ", y[i]);
		escape_html(sb, unit);
		strbuf_addstr(sb, "</title></circle>\n");
	}
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commit, in the order "
		    "of the branch</text>\n<text x=\"4\" y=\"12\">", (PAD_L + W - PAD_R) / 2, h - 6);
	escape_html(sb, unit);
	strbuf_addstr(sb, "</text>\n</svg>\n");
}
