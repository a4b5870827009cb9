/* Inline SVG plots: distributions on one axis, bisection steps, sparklines, nightly series. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "numbers.h"
#include "stats.h"
#include "svg.h"
#include "textfmt.h"

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

/*
 * v in a label's form: decimals after the point, trailing zeros dropped,
 * divided by 10^e3 and followed by that power's SI prefix.
 */
static void format_label(char *buf, size_t size, double v, int e3, int decimals)
{
	char num[48];
	size_t len;

	snprintf(num, sizeof(num), "%.*f", decimals, v / pow(10, e3));
	len = strlen(num);
	if (strchr(num, '.')) {
		while (num[len - 1] == '0')
			num[--len] = '\0';
		if (num[len - 1] == '.')
			num[--len] = '\0';
	}
	if (!strcmp(num, "-0"))
		memmove(num, num + 1, 2);
	snprintf(buf, size, "%s%s", num, textfmt_si_prefix(e3));
}

/* The SI power (a multiple of 3, -12 to 12) for labels of magnitude m; 0 plain. */
static int label_power(double m)
{
	int e3;

	if (m == 0 || (m >= 1e-3 && m < 1e4))
		return 0;
	e3 = (int)floor(log10(m) / 3) * 3;
	return e3 < -12 ? -12 : e3 > 12 ? 12 : e3;
}

/* Decimals for a step of 10^p in units of 10^e3. */
static int label_decimals(int p, int e3)
{
	return p < e3 ? e3 - p : 0;
}

static void add_tick(struct svg_axis *ax, double v)
{
	if (ax->nticks < SVG_MAX_TICKS)
		ax->tick[ax->nticks++] = v;
}

static void axis_init(struct svg_axis *ax, double lo, double hi, int may_log)
{
	memset(ax, 0, sizeof(*ax));
	if (!isfinite(lo) || !isfinite(hi) || lo > hi) {
		lo = 0;
		hi = 1;
	}
	if (hi - lo <= fabs(hi) * 1e-12) {
		double pad = lo ? fabs(lo) * 0.01 : 1;

		lo -= pad;
		hi += pad;
	}
	ax->lo = lo;
	ax->hi = hi;
	ax->log = may_log && lo > 0 && hi / lo > 10;
	if (ax->log) {
		int d0 = (int)floor(log10(lo) + 1e-9), d1 = (int)ceil(log10(hi) - 1e-9);
		int stride = (d1 - d0 + 7) / 8, few = d1 - d0 <= 3;
		static const double mult[] = { 1, 2, 5 };

		for (int d = d0; d <= d1; d += stride)
			for (size_t m = 0; m < (few ? 3 : 1); m++) {
				double v = mult[m] * pow(10, d);

				if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) {
					int e3 = label_power(v);

					format_label(ax->label[ax->nticks], sizeof(ax->label[0]), v, e3,
						     label_decimals(d, e3));
					add_tick(ax, v);
				}
			}
	} else {
		double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), norm = raw / mag;
		double m = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
		double step = m * mag, k0 = ceil(lo / step - 1e-6), k1 = floor(hi / step + 1e-6);
		int p = (int)floor(log10(step) + 1e-9), e3;

		for (double k = k0; k <= k1; k++)
			add_tick(ax, fabs(k) < 0.5 ? 0 : k * step);
		e3 = ax->nticks ? label_power(fmax(fabs(ax->tick[0]),
						   fabs(ax->tick[ax->nticks - 1]))) : 0;
		for (size_t i = 0; i < ax->nticks; i++)
			format_label(ax->label[i], sizeof(ax->label[0]), ax->tick[i], e3,
				     label_decimals(p, e3));
	}
}

void svg_axis_init(struct svg_axis *ax, double lo, double hi)
{
	axis_init(ax, lo, hi, 1);
}

double svg_axis_place(const struct svg_axis *ax, double v, double from, double to)
{
	if (ax->log)
		return scale(log10(v), log10(ax->lo), log10(ax->hi), from, to);
	return scale(v, ax->lo, ax->hi, from, to);
}

/*
 * A label's width in the plots' 11px font, a little generous: digits are
 * about 6.2px wide. Used to keep a label at an end of the axis inside the
 * plot by anchoring it at its start or end instead of its middle.
 */
/* An <svg> element of class cls, w by h, opened with its title (escaped). */
static void svg_open(struct strbuf *sb, const char *cls, double w, double h, const char *title)
{
	strbuf_addf(sb, "<svg class=\"%s\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", cls, w, h);
	escape_html(sb, title);
	strbuf_addstr(sb, "</title>\n");
}

/* A linear axis from lo to hi, drawn upwards as grid lines labelled at the left. */
static void y_grid(struct strbuf *sb, struct svg_axis *ax, double lo, double hi, double bottom,
		   double top)
{
	axis_init(ax, lo, hi, 0);
	for (size_t i = 0; i < ax->nticks; i++) {
		double y = scale(ax->tick[i], lo, hi, bottom, top);

		strbuf_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			    PAD_L, y, W - PAD_R, y, PAD_L - 4, y + 4, ax->label[i]);
	}
}

static double label_width(const char *s)
{
	double w = 0;

	for (; *s; s++)
		if ((*s & 0xc0) != 0x80)
			w += 6.6;
	return w;
}

/* A horizontal axis from PAD_L to W - PAD_R at height y, its labels below it. */
static void x_axis(struct strbuf *sb, const struct svg_axis *ax, double y, const char *unit)
{
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    PAD_L, y, W - PAD_R, y);
	for (size_t i = 0; i < ax->nticks; i++) {
		double x = svg_axis_place(ax, ax->tick[i], PAD_L, W - PAD_R);
		double half = label_width(ax->label[i]) / 2;
		const char *anchor = x - half < 2 ? "start" : x + half > W - 2 ? "end" : "middle";

		strbuf_addf(sb, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
			    x, y, x, y + 4, x, y + 16, anchor, ax->label[i]);
	}
	if (unit) {
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", W - PAD_R, y + 30);
		escape_html(sb, unit);
		if (ax->log)
			strbuf_addstr(sb, " (log scale)");
		strbuf_addstr(sb, "</text>\n");
	}
}

/* A series' boots: each run id once, in the order of their first sample. */
struct boots {
	long long *run;
	size_t n;
};

static int boots_find(const struct boots *b, long long run)
{
	for (size_t i = b->n; i-- > 0;)
		if (b->run[i] == run)
			return (int)i;
	return -1;
}

static int boots_init(struct boots *b, const struct svg_series *s)
{
	b->n = 0;
	b->run = malloc((s->n ? s->n : 1) * sizeof(*b->run));
	if (!b->run)
		return -1;
	if (!s->run) {
		b->run[b->n++] = 0;
		return 0;
	}
	for (size_t j = 0; j < s->n; j++)
		if (boots_find(b, s->run[j]) < 0)
			b->run[b->n++] = s->run[j];
	return 0;
}

static int boot_of(const struct boots *b, const struct svg_series *s, size_t j)
{
	return s->run ? boots_find(b, s->run[j]) : 0;
}

/* Sorts sample indices by value. */
static const double *sort_values;

static int cmp_index(const void *a, const void *b)
{
	double x = sort_values[*(const size_t *)a], y = sort_values[*(const size_t *)b];

	return (x > y) - (x < y);
}

/*
 * A series' points, each boot's in a band of its own between y0 and
 * y0 + h, spread over its band by a fixed low-discrepancy sequence (the
 * golden ratio's fractional parts), so a page is the same bytes on every
 * run; each boot's median is a short line across its band. Past
 * SVG_MAX_POINTS, points evenly spaced in rank stand for the rest: the
 * smallest and largest are always among them, and the box and the boots'
 * medians still summarize every value.
 */
static int add_points(struct strbuf *sb, const struct svg_series *s, const struct svg_axis *ax,
		      double y0, double h, const char *unit)
{
	size_t n = s->n < SVG_MAX_POINTS ? s->n : SVG_MAX_POINTS;
	size_t *order = NULL;
	double *vals = NULL, band;
	struct boots b = { 0 };
	int ret = -1;

	if (boots_init(&b, s))
		goto out;
	band = h / (double)b.n;
	if (n < s->n) {
		order = malloc(s->n * sizeof(*order));
		if (!order)
			goto out;
		for (size_t j = 0; j < s->n; j++)
			order[j] = j;
		sort_values = s->x;
		qsort(order, s->n, sizeof(*order), cmp_index);
		strbuf_addf(sb, "<text class=\"thinned\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
			    "%zu of %zu points</text>\n", W - PAD_R, y0 + 8, n, s->n);
	}
	for (size_t j = 0; j < n; j++) {
		double jit = fmod((double)(j + 1) * 0.6180339887498949, 1.0);
		size_t k = order ? order[(size_t)llround((double)j * (double)(s->n - 1) /
							 (double)(n - 1))] : j;
		double top = y0 + band * boot_of(&b, s, k);

		strbuf_addstr(sb, "<circle class=\"pt\" cx=\"");
		add_fixed1(sb, svg_axis_place(ax, s->x[k], PAD_L, W - PAD_R));
		strbuf_addstr(sb, "\" cy=\"");
		add_fixed1(sb, top + band * (0.15 + 0.7 * jit));
		strbuf_addstr(sb, "\" r=\"2.2\"><title>");
		numbers_exact(sb, s->x[k], 9);
		strbuf_addch(sb, ' ');
		escape_html(sb, unit);
		if (s->run)
			strbuf_addf(sb, ", run %lld", s->run[k]);
		if (s->iter)
			strbuf_addf(sb, ", iteration %lld", s->iter[k]);
		strbuf_addstr(sb, "</title></circle>\n");
	}
	vals = malloc((s->n ? s->n : 1) * sizeof(*vals));
	if (!vals)
		goto out;
	for (size_t i = 0; s->run && b.n > 1 && i < b.n; i++) {
		size_t m = 0;
		double med, x, top = y0 + band * (double)i;

		for (size_t j = 0; j < s->n; j++)
			if (s->run[j] == b.run[i])
				vals[m++] = s->x[j];
		med = stats_median(vals, m);
		x = svg_axis_place(ax, med, PAD_L, W - PAD_R);
		strbuf_addstr(sb, "<line class=\"boot-median\" x1=\"");
		add_fixed1(sb, x);
		strbuf_addstr(sb, "\" y1=\"");
		add_fixed1(sb, top + band * 0.05);
		strbuf_addstr(sb, "\" x2=\"");
		add_fixed1(sb, x);
		strbuf_addstr(sb, "\" y2=\"");
		add_fixed1(sb, top + band * 0.95);
		strbuf_addf(sb, "\"><title>run %lld: median ", b.run[i]);
		numbers_exact(sb, med, 9);
		strbuf_addch(sb, ' ');
		escape_html(sb, unit);
		strbuf_addf(sb, " of %zu samples</title></line>\n", m);
	}
	ret = 0;
out:
	free(order);
	free(vals);
	free(b.run);
	return ret;
}

static void add_box(struct strbuf *sb, const struct stats_summary *sum, const struct svg_axis *ax,
		    double by, double bh)
{
	double x0 = svg_axis_place(ax, sum->min, PAD_L, W - PAD_R);
	double x1 = svg_axis_place(ax, sum->q1, PAD_L, W - PAD_R);
	double xm = svg_axis_place(ax, sum->median, PAD_L, W - PAD_R);
	double x3 = svg_axis_place(ax, sum->q3, PAD_L, W - PAD_R);
	double x4 = svg_axis_place(ax, sum->max, PAD_L, W - PAD_R);

	strbuf_addf(sb, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
		    "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
		    "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n"
		    "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    x0, by + bh / 2, x1, by + bh / 2, x3, by + bh / 2, x4, by + bh / 2,
		    x1, by, fmax(x3 - x1, 0.5), bh, xm, by, xm, by + bh);
}

/* The value range of series s, or of all ns from s when all is set. */
static void range(double *lo, double *hi, const struct svg_series *s, size_t ns)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < s[i].n; j++) {
			*lo = fmin(*lo, s[i].x[j]);
			*hi = fmax(*hi, s[i].x[j]);
		}
}

/* The height of the band of a series' points: 12 units a boot, within limits. */
static double points_height(const struct svg_series *s)
{
	struct boots b = { 0 };
	double h;

	if (boots_init(&b, s))
		return 18;
	h = fmin(fmax(12.0 * (double)b.n, 18), 120);
	free(b.run);
	return h;
}

/* The median of a series (a copy is reordered), NaN when it has no values. */
static double series_median(const struct svg_series *s)
{
	double *v, m;

	if (!s->n)
		return NAN;
	v = malloc(s->n * sizeof(*v));
	if (!v)
		return NAN;
	memcpy(v, s->x, s->n * sizeof(*v));
	m = stats_median(v, s->n);
	free(v);
	return m;
}

int svg_distributions(struct strbuf *sb, const struct svg_series *s, size_t ns,
		      const char *unit, double band, const char *title)
{
	struct svg_axis ax;
	double lo, hi, y = 20, h = 20, ref = ns ? series_median(&s[0]) : NAN;
	int widened = 0;

	range(&lo, &hi, s, ns);
	/*
	 * One axis for every series, so that where each lies is seen at a
	 * glance; it holds the band around the first series' median, so that
	 * a spread narrower than what the verdict calls the same stays narrow
	 * instead of filling the width.
	 */
	if (band > 0 && isfinite(ref) && ref > 0 && isfinite(lo)) {
		if (ref / (1 + band) < lo) {
			lo = ref / (1 + band);
			widened = 1;
		}
		if (ref * (1 + band) > hi) {
			hi = ref * (1 + band);
			widened = 1;
		}
	}
	/* a little room at both ends, on the axis' own scale: no point on its edge */
	if (lo > 0 && hi / lo > 10) {
		double f = pow(hi / lo, 0.03);

		lo /= f;
		hi *= f;
	} else if (hi > lo) {
		double pad = (hi - lo) * 0.03;

		lo -= pad;
		hi += pad;
	}
	svg_axis_init(&ax, lo, hi);
	for (size_t i = 0; i < ns; i++)
		h += points_height(&s[i]) + 36;
	h += 36;
	svg_open(sb, "plot", W, h, title);
	if (ax.log)
		strbuf_addf(sb, "<text class=\"note\" x=\"%.1f\" y=\"12\">one log scale for all: "
			    "their values lie too far apart for a linear one</text>\n", PAD_L);
	else if (widened)
		strbuf_addf(sb, "<text class=\"note\" x=\"%.1f\" y=\"12\">the scale spans at least "
			    "&#177;%.3g %% around %s's median, the change the verdict calls the same"
			    "</text>\n", PAD_L, 100 * band, ns ? s[0].label : "");
	for (size_t i = 0; i < ns; i++) {
		struct stats_summary sum;
		double ph = points_height(&s[i]);

		strbuf_addf(sb, "<g class=\"%s\">\n<text x=\"4\" y=\"%.1f\">", s[i].css_class,
			    y + ph + 18);
		escape_html(sb, s[i].label);
		strbuf_addstr(sb, "</text>\n");
		if (add_points(sb, &s[i], &ax, y, ph, unit))
			return -1;
		if (s[i].n) {
			if (stats_summarize(&sum, s[i].x, s[i].n))
				return -1;
			add_box(sb, &sum, &ax, y + ph + 4, 20);
		}
		strbuf_addstr(sb, "</g>\n");
		y += ph + 36;
	}
	x_axis(sb, &ax, y - 8, unit);
	strbuf_addstr(sb, "</svg>\n");
	return 0;
}

void svg_ratio(struct strbuf *sb, double ratio, double lo, double hi, double delta,
	       const char *ci, const char *title)
{
	const double h = 80, y = 42;
	double up = 1 + delta, down = 1 / (1 + delta), a, b, xa, xb;
	struct svg_axis ax;

	a = fmin(fmin(down, ratio), isfinite(lo) ? lo : ratio);
	b = fmax(fmax(up, ratio), isfinite(hi) ? hi : ratio);
	/* room beyond the outermost mark: a twentieth of the span, on its scale */
	if (a > 0 && b / a > 10) {
		double f = pow(b / a, 0.05);

		a /= f;
		b *= f;
	} else {
		double pad = (b - a) * 0.05 + fabs(b) * 1e-4;

		a -= pad;
		b += pad;
	}
	svg_axis_init(&ax, a, b);
	svg_open(sb, "plot ratio", W, h, title);
	xa = svg_axis_place(&ax, down, PAD_L, W - PAD_R);
	xb = svg_axis_place(&ax, up, PAD_L, W - PAD_R);
	strbuf_addf(sb, "<rect class=\"same-band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height="
		    "\"28\"><title>the same within delta: ", xa, y - 14, fmax(xb - xa, 1));
	numbers_change(sb, down, NAN, NAN);
	strbuf_addstr(sb, " to ");
	numbers_change(sb, up, NAN, NAN);
	strbuf_addstr(sb, "</title></rect>\n");
	strbuf_addf(sb, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    svg_axis_place(&ax, 1, PAD_L, W - PAD_R), y - 16,
		    svg_axis_place(&ax, 1, PAD_L, W - PAD_R), y + 16);
	strbuf_addf(sb, "<text x=\"4\" y=\"%.1f\">B/A</text>\n<text class=\"note\" x=\"%.1f\" "
		    "y=\"12\">shaded: within delta (%.3g %%) of 1, the same; bar: the ",
		    y + 4, PAD_L, 100 * delta);
	escape_html(sb, ci);
	strbuf_addstr(sb, "</text>\n");
	if (isfinite(lo) && isfinite(hi)) {
		double x0 = svg_axis_place(&ax, lo, PAD_L, W - PAD_R);
		double x1 = svg_axis_place(&ax, hi, PAD_L, W - PAD_R);

		strbuf_addf(sb, "<g class=\"ci\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><title>",
			    x0, y, x1, y, x0, y - 6, x0, y + 6, x1, y - 6, x1, y + 6);
		escape_html(sb, ci);
		strbuf_addch(sb, ' ');
		numbers_change(sb, ratio, lo, hi);
		strbuf_addstr(sb, "</title></g>\n");
	}
	if (isfinite(ratio)) {
		strbuf_addf(sb, "<circle class=\"ratio-pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\">"
			    "<title>B/A ", svg_axis_place(&ax, ratio, PAD_L, W - PAD_R), y);
		numbers_change(sb, ratio, NAN, NAN);
		strbuf_addstr(sb, "</title></circle>\n");
	}
	x_axis(sb, &ax, y + 18, NULL);
	strbuf_addstr(sb, "</svg>\n");
}

void svg_bisect_steps(struct strbuf *sb, const struct svg_step *steps, size_t n,
		      double effect, const char *title)
{
	const double h = 240, top = 28, bottom = h - 40;
	double lo = 1, hi = 1;
	struct svg_axis ax;
	size_t unmeasured = 0;

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
	svg_open(sb, "plot", W, h, title);
	/* linear: the steps sit near 1 or near the effect, a log scale would part neither */
	y_grid(sb, &ax, lo, hi, bottom, top);
	strbuf_addstr(sb, "<text class=\"axis-label\" x=\"4\" y=\"12\">ratio to good (M/G)</text>\n");
	strbuf_addf(sb, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    PAD_L, scale(1, lo, hi, bottom, top), W - PAD_R, scale(1, lo, hi, bottom, top));
	if (isfinite(effect)) {
		strbuf_addf(sb, "<line class=\"effect\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">G&#8594;B ",
			    PAD_L, scale(effect, lo, hi, bottom, top), W - PAD_R,
			    scale(effect, lo, hi, bottom, top), W - PAD_R,
			    scale(effect, lo, hi, bottom, top) - 4);
		numbers_change(sb, effect, NAN, NAN);
		strbuf_addstr(sb, "</text>\n");
	}
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
		strbuf_addf(sb, " %s ", s->mark);
		numbers_change(sb, s->ratio, s->lo, s->hi);
		strbuf_addstr(sb, "</title></circle>");
		if (s->culprit)
			strbuf_addf(sb, "<circle class=\"culprit\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\"/>"
				    "<text class=\"culprit-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">culprit</text>",
				    x, scale(s->ratio, lo, hi, bottom, top), x,
				    scale(s->ratio, lo, hi, bottom, top) - 13);
		strbuf_addstr(sb, "</g>\n");
	}
	for (size_t i = 0; i < n; i++)
		unmeasured += !isfinite(steps[i].ratio);
	if (unmeasured)
		strbuf_addf(sb, "<text class=\"note\" x=\"%.1f\" y=\"12\" text-anchor=\"end\">%zu "
			    "step(s) without a ratio (not built, not booted or skipped): not drawn"
			    "</text>\n", W - PAD_R, unmeasured);
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step</text>\n",
		    (PAD_L + W - PAD_R) / 2, h - 6);
	strbuf_addstr(sb, "</svg>\n");
}

void svg_changes(struct strbuf *sb, const struct svg_bar *bars, size_t n, const char *unit,
		 const char *title)
{
	const double row = 20, top = 22, label_w = 196, value_w = 84;
	const double x0 = label_w + 8, x1 = W - PAD_R - value_w, h = top + row * (double)n + 30;
	double lo = 0, hi = 0, zero;
	struct svg_axis ax;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, bars[i].value);
		hi = fmax(hi, bars[i].value);
	}
	if (!(hi > lo))
		hi = lo + 1;
	axis_init(&ax, lo, hi, 0);
	zero = scale(0, lo, hi, x0, x1);
	svg_open(sb, "plot changes", W, h, title);
	for (size_t i = 0; i < ax.nticks; i++) {
		double x = scale(ax.tick[i], lo, hi, x0, x1);

		strbuf_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
			    "</text>\n", x, top - 4, x, top + row * (double)n, x, h - 14,
			    ax.label[i]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct svg_bar *b = &bars[i];
		double y = top + row * (double)i, x = scale(b->value, lo, hi, x0, x1);
		char label[64];

		textfmt_cut(label, sizeof(label), b->label, 32, 0);
		strbuf_addf(sb, "<g class=\"bar %s\"><title>", b->value > 0 ? "up" : "down");
		escape_html(sb, b->title);
		strbuf_addf(sb, "</title><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			    label_w, y + 14);
		escape_html(sb, label);
		strbuf_addf(sb, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", fmin(x, zero),
			    y + 3, fmax(fabs(x - zero), 1), row - 6, W - PAD_R, y + 14);
		escape_html(sb, b->text);
		strbuf_addstr(sb, "</text></g>\n");
	}
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    zero, top - 4, zero, top + row * (double)n);
	strbuf_addf(sb, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		    "change in time, B &#8722; A (", (x0 + x1) / 2, h - 2);
	escape_html(sb, unit);
	strbuf_addstr(sb, ")</text>\n</svg>\n");
}

/*
 * The value range [lo, hi] widened to hold the band around the values'
 * median: a wobble within the band must not climb the whole height.
 */
static void hold_band(double *lo, double *hi, const double *y, size_t n, double band)
{
	double *v, m;

	if (!n || !(band > 0))
		return;
	v = malloc(n * sizeof(*v));
	if (!v)
		return;
	memcpy(v, y, n * sizeof(*v));
	m = stats_median(v, n);
	free(v);
	if (!isfinite(m) || m == 0)
		return;
	*lo = fmin(*lo, m > 0 ? m / (1 + band) : m * (1 + band));
	*hi = fmax(*hi, m > 0 ? m * (1 + band) : m / (1 + band));
}

void svg_sparkline(struct strbuf *sb, const double *x, const double *y, size_t n, double band,
		   const char *title)
{
	const double w = 120, h = 28, pad = 3, text_x = w + 6;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	char top[16], bottom[16];

	for (size_t i = 0; i < n; i++) {
		x0 = fmin(x0, x[i]);
		x1 = fmax(x1, x[i]);
		y0 = fmin(y0, y[i]);
		y1 = fmax(y1, y[i]);
	}
	hold_band(&y0, &y1, y, n, band);
	svg_open(sb, "spark", w + 80, h, title);
	strbuf_addstr(sb, "<polyline points=\"");
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
		/* the scale's ends, top and bottom */
		textfmt_value(top, sizeof(top), y1);
		textfmt_value(bottom, sizeof(bottom), y0);
		strbuf_addf(sb, "<text class=\"max\" x=\"%.0f\" y=\"%.1f\">%s</text>\n"
			    "<text class=\"min\" x=\"%.0f\" y=\"%.1f\">%s</text>\n",
			    text_x, pad + 6, top, text_x, h - pad, bottom);
	}
	strbuf_addstr(sb, "</svg>\n");
}

void svg_nightly_series(struct strbuf *sb, const double *y, const char *const *labels, size_t n,
			const struct svg_change *changes, size_t nc, const char *unit, double band,
			const char *title)
{
	const double h = 240, top = 24, bottom = h - 40;
	double lo = INFINITY, hi = -INFINITY;
	struct svg_axis ax;
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
	hold_band(&lo, &hi, y, n, band);
	{
		double pad = (hi - lo) * 0.05 + fabs(hi) * 0.001 + 1e-9;

		lo -= pad;
		hi += pad;
	}
	svg_open(sb, "plot nightly", W, h, title);
	y_grid(sb, &ax, lo, hi, bottom, top);
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
		strbuf_addch(sb, ' ');
		numbers_quantity(sb, y[i], unit, y[i]);
		strbuf_addstr(sb, "</title></circle>\n");
	}
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commit, in the order "
		    "of the branch</text>\n<text x=\"4\" y=\"12\">", (PAD_L + W - PAD_R) / 2, h - 6);
	escape_html(sb, unit);
	strbuf_addstr(sb, "</text>\n</svg>\n");
}
