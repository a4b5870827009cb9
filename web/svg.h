#ifndef SVG_H
#define SVG_H
/*
 * Inline SVG plots for the HTML report. Each function appends one <svg>
 * element to sb; the arrays belong to the caller. Text in the plots goes
 * through escape_html() (lib/escape.h). The plots scale with the page
 * (viewBox, no fixed width) and carry a <title> so that a screen reader
 * names them.
 */
#include <stddef.h>

#include "strbuf.h"

/*
 * A value axis: linear, or log10 when the values are all positive and
 * span more than 10x. The domain is the values' own range (the axis' ends
 * are the smallest and largest value), the ticks "nice" values inside it:
 * steps of 1, 2 or 5 times a power of ten on a linear axis; on a log axis
 * the decades, with 2 and 5 between them when there are at most three.
 * A label is a plain number between 0.001 and 10000 and otherwise a
 * number with an SI prefix (12k, 3.5M, 20µ), never an exponent.
 */
#define SVG_MAX_TICKS 16
struct svg_axis {
	int log;
	double lo, hi;
	size_t nticks;
	double tick[SVG_MAX_TICKS];
	char label[SVG_MAX_TICKS][24];
};

/* The axis for values from lo to hi (a single value gets a range around it). */
void svg_axis_init(struct svg_axis *ax, double lo, double hi);
/* Where v goes on a line from "from" (the axis' lo) to "to" (its hi). */
double svg_axis_place(const struct svg_axis *ax, double v, double from, double to);

/*
 * A series of samples; run and iter, when not NULL, give each sample's
 * boot (run id) and iteration: the points of a boot are drawn together in
 * a band of their own, with the boot's median marked.
 */
struct svg_series {
	const char *label;		/* A, B */
	const char *css_class;		/* side-a, side-b */
	const double *x;
	const long long *run, *iter;
	size_t n;
};

/* Points drawn per series; a larger series is drawn by rank (see svg.c). */
#define SVG_MAX_POINTS 400

/*
 * The distributions of the series on one value axis, shared by all of
 * them: a strip of points (each titled with its value, unit, run and
 * iteration) and a box (quartiles, median, whiskers to min and max) per
 * series. The axis is log when the values span more than 10x (a 455x A/B
 * shows its sides far apart on one scale) and always holds the band
 * [m / (1 + band), m * (1 + band)] around the first series' median m
 * (band 0: none), so that a spread smaller than it, a 0.04 % one, stays
 * narrow; the plot says so when the band widened it. 0, or -1 when a
 * series could not be summarized.
 */
int svg_distributions(struct strbuf *sb, const struct svg_series *s, size_t ns,
		      const char *unit, double band, const char *title);

/*
 * A ratio B/A with its confidence interval [lo, hi] against the band of
 * ratios the verdict calls the same, [1 / (1 + delta), 1 + delta]; ci is
 * the interval's name ("95% CI").
 */
void svg_ratio(struct strbuf *sb, double ratio, double lo, double hi, double delta,
	       const char *ci, const char *title);

/* One bisection step: its ratio M/G with a CI, and whether it is the culprit. */
struct svg_step {
	double ratio, lo, hi;		/* NaN when not measured */
	const char *label;		/* short commit id */
	const char *mark;		/* GOOD | BAD | SKIP */
	int culprit;
};

/*
 * The ratio against step order, the G->B effect as a line, the culprit
 * ringed; the y axis is labelled "ratio to good (M/G)". A step without a
 * ratio keeps its place on the x axis, and the plot counts those.
 */
void svg_bisect_steps(struct strbuf *sb, const struct svg_step *steps, size_t n,
		      double effect, const char *title);

/* One bar of a chart of changes: a function's change in time. */
struct svg_bar {
	const char *label;		/* the function */
	double value;			/* its change, in the chart's unit */
	const char *text;		/* the value as written beside its bar */
	const char *title;		/* the bar's tooltip: both sides, the change */
};

/*
 * Horizontal bars from a zero line, one row each in the order given, a
 * rise to the right in the colour of a regression and a fall to the left
 * in that of an improvement, each labelled with its function at the left
 * and its value at the right. The axis is linear and holds zero.
 */
void svg_changes(struct strbuf *sb, const struct svg_bar *bars, size_t n, const char *unit,
		 const char *title);

/*
 * A sparkline: y against x (a time) as a line a few words wide, the last
 * point marked, the ends of its scale written at its right. The scale
 * holds the values and at least the band [m / (1 + band), m * (1 + band)]
 * around their median m: a wobble smaller than the band, one the caller
 * cannot tell from noise, stays small instead of climbing the whole height.
 */
void svg_sparkline(struct strbuf *sb, const double *x, const double *y, size_t n, double band,
		   const char *title);

/* A change in a nightly series: between the points of index before and after. */
struct svg_change {
	size_t before, after;
	const char *css_class;		/* v-regression, v-improvement, ... */
	const char *label;		/* the verdict, else the kind */
};

/*
 * A nightly series: the value against commit order, one point per commit
 * (labels[i] its short id, in the point's title), each change marked by a
 * dashed line halfway between its two points, with its label above. The
 * value axis holds the band around the median as svg_sparkline()'s does.
 */
void svg_nightly_series(struct strbuf *sb, const double *y, const char *const *labels, size_t n,
			const struct svg_change *changes, size_t nc, const char *unit, double band,
			const char *title);

#endif
