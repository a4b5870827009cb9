/*
 * web/svg.c's value axes: when the scale is log, which ticks a range
 * gets and how their labels read (plain short numbers or SI prefixes,
 * never an exponent); and that the plots built on them keep their labels
 * inside the plot and give each point a title.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "svg.h"
#include "tap.h"

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* The least or largest cx of the points inside <g class="cls">. */
static double cx_of(const char *svg, const char *cls, int largest)
{
	char open[64];
	const char *g, *end, *p;
	double best = largest ? -1 : 1e9;

	snprintf(open, sizeof(open), "<g class=\"%s\">", cls);
	g = strstr(svg, open);
	if (!g)
		return NAN;
	end = strstr(g, "</g>");
	for (p = g; (p = strstr(p, "<circle class=\"pt\" cx=\"")) && p < end; p++) {
		double x = strtod(p + strlen("<circle class=\"pt\" cx=\""), NULL);

		best = largest ? (x > best ? x : best) : (x < best ? x : best);
	}
	return best;
}

static double max_cx(const char *svg, const char *cls)
{
	return cx_of(svg, cls, 1);
}

static double min_cx(const char *svg, const char *cls)
{
	return cx_of(svg, cls, 0);
}

/* The ticks as "label@value label@value ...", values with %.10g. */
static void ticks(struct strbuf *sb, double lo, double hi, int *log)
{
	struct svg_axis ax;

	svg_axis_init(&ax, lo, hi);
	strbuf_reset(sb);
	for (size_t i = 0; i < ax.nticks; i++)
		strbuf_addf(sb, "%s%s@%.10g", i ? " " : "", ax.label[i], ax.tick[i]);
	*log = ax.log;
}

static void check(double lo, double hi, int want_log, const char *want, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	int log;

	ticks(&sb, lo, hi, &log);
	is_int(log, want_log, name);
	is_str(strbuf_str(&sb), want, name);
	strbuf_release(&sb);
}

/* Every <text x=... text-anchor=...> of svg: its extent, estimated, inside [0, width]. */
static int labels_inside(const char *svg, double width)
{
	const char *p = svg;

	while ((p = strstr(p, "<text x=\""))) {
		double x = strtod(p + 9, NULL), w;
		const char *anchor = strstr(p, "text-anchor=\"");
		const char *body = strchr(p, '>') + 1, *end = strstr(body, "</text>");

		w = 6.2 * (double)(end - body);
		if (anchor && anchor < body)
			anchor += 13;
		else
			anchor = "start";
		if (!strncmp(anchor, "middle", 6) ? x - w / 2 < 0 || x + w / 2 > width :
		    !strncmp(anchor, "end", 3) ? x - w < 0 || x > width : x < 0 || x + w > width) {
			printf("# outside: %.*s\n", (int)(end - p + 7), p);
			return 0;
		}
		p = end;
	}
	return 1;
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct svg_axis ax;

	check(27.068978, 27.06899, 0,
	      "27.068978@27.068978 27.06898@27.06898 27.068982@27.068982 27.068984@27.068984 "
	      "27.068986@27.068986 27.068988@27.068988 27.06899@27.06899",
	      "a spread of 0.00004 %: linear, steps of 2e-6, as many decimals as they need");
	check(1, 455, 1, "1@1 2@2 5@5 10@10 20@20 50@50 100@100 200@200",
	      "1 to 455: log, its decades with 2 and 5 between");
	check(0.0012, 0.0049, 0,
	      "0.0015@0.0015 0.002@0.002 0.0025@0.0025 0.003@0.003 0.0035@0.0035 0.004@0.004 "
	      "0.0045@0.0045",
	      "0.0012 to 0.0049 (4x): linear, steps of 5e-4, plain numbers");
	check(100, 45500, 1,
	      "100@100 200@200 500@500 1000@1000 2000@2000 5000@5000 10k@10000 20k@20000",
	      "100 to 45500: log; from 10000 on with a k");
	check(1.232e6, 2.406e6, 0, "1.4M@1400000 1.6M@1600000 1.8M@1800000 2M@2000000 2.2M@2200000 "
	      "2.4M@2400000", "millions: M, never 1.232e+06");
	check(1e-9, 1e-1, 1, "1n@1e-09 10n@1e-08 100n@1e-07 1µ@1e-06 10µ@1e-05 100µ@0.0001 "
	      "0.001@0.001 0.01@0.01 0.1@0.1", "eight decades: the decades alone, small ones with n and µ");
	check(1, 1e12, 1, "1@1 100@100 10k@10000 1M@1000000 100M@100000000 10G@1e+10 "
	      "1T@1e+12", "twelve decades: every other one");
	check(-3, 7, 0, "-2@-2 0@0 2@2 4@4 6@6", "negative and positive: linear, through 0");
	check(0.5, 40, 1, "0.5@0.5 1@1 2@2 5@5 10@10 20@20", "below 1 too: log");
	check(42, 42, 0, "41.6@41.6 41.8@41.8 42@42 42.2@42.2 42.4@42.4",
	      "one value: a range of 1 % around it");

	svg_axis_init(&ax, 1, 1000);
	is_double(svg_axis_place(&ax, 10, 0, 300), 100, 1e-9, "log: 10 a third of the way to 1000");
	svg_axis_init(&ax, 2, 4);
	is_double(svg_axis_place(&ax, 3, 0, 300), 150, 1e-9, "linear: 3 halfway from 2 to 4");

	/* a demote-like A/B of 455x, three boots a side: both on one log axis, far apart */
	{
		double a[6] = { 33.0261, 33.0262, 33.0263, 33.0260, 33.0264, 33.0265 };
		double b[6] = { 15020, 15030, 15010, 15040, 15025, 15035 };
		long long ra[6] = { 1, 1, 3, 3, 5, 5 }, rb[6] = { 2, 2, 4, 4, 6, 6 };
		long long it[6] = { 1, 2, 1, 2, 1, 2 };
		struct svg_series s[2] = {
			{ .label = "A", .css_class = "side-a", .x = a, .run = ra, .iter = it, .n = 6 },
			{ .label = "B", .css_class = "side-b", .x = b, .run = rb, .iter = it, .n = 6 },
		};

		strbuf_reset(&sb);
		ok(svg_distributions(&sb, s, 2, "ms", 0.02, "t") == 0, "a 455x A/B drawn");
		ok(!strstr(sb.buf, "of its own") && count(sb.buf, "class=\"axis\"") == 1 &&
		   strstr(sb.buf, "ms (log scale)</text>") && strstr(sb.buf, "one log scale for all"),
		   "one axis, log, said so");
		ok(max_cx(sb.buf, "side-a") < 80 && min_cx(sb.buf, "side-b") > 590,
		   "A at the axis' left end, B at its right");
		ok(strstr(sb.buf, "<title>33.0264 ms, run 5, iteration 1</title>"),
		   "a point's title: value, unit, run, iteration");
		ok(strstr(sb.buf, "<title>run 4: median 15025 ms of 2 samples</title>"),
		   "each boot's median marked, with its run");
		ok(!strstr(sb.buf, "e+") && !strstr(sb.buf, "e-0"), "no exponent anywhere");
		ok(labels_inside(sb.buf, 640), "every label inside the plot");
	}
	strbuf_reset(&sb);
	svg_ratio(&sb, 455.2, 450.1, 460.3, 0.02, "95% CI", "r");
	ok(strstr(sb.buf, "class=\"same-band\"") && strstr(sb.buf, "<title>95% CI 455× [450×, 460×]</title>"),
	   "the ratio plot: the band of delta and the CI");
	ok(labels_inside(sb.buf, 640), "its labels inside the plot");
	/* an icount-like A/B spread 0.04 %: on an axis that holds the band of 2 % */
	{
		double a[4] = { 100.00, 100.02, 100.04, 100.01 }, b[4] = { 100.01, 100.03, 100.0, 100.02 };
		struct svg_series s[2] = {
			{ .label = "A", .css_class = "side-a", .x = a, .n = 4 },
			{ .label = "B", .css_class = "side-b", .x = b, .n = 4 },
		};

		strbuf_reset(&sb);
		ok(svg_distributions(&sb, s, 2, "ms", 0.02, "t") == 0, "a 0.04 % spread drawn");
		ok(max_cx(sb.buf, "side-a") - min_cx(sb.buf, "side-a") < 12 &&
		   max_cx(sb.buf, "side-b") - min_cx(sb.buf, "side-b") < 12 &&
		   min_cx(sb.buf, "side-a") > 250 && max_cx(sb.buf, "side-a") < 390,
		   "each side a narrow strip in the middle, not the whole width");
		ok(strstr(sb.buf, "at least &#177;2 % around A's median") != NULL, "said so");
		strbuf_reset(&sb);
		ok(svg_distributions(&sb, s, 2, "ms", 0, "t") == 0 &&
		   max_cx(sb.buf, "side-a") - min_cx(sb.buf, "side-a") > 500, "no band: min to max");
	}
	{
		double t[3] = { 1, 2, 3 }, y[3] = { 100, 100.17, 99.95 };

		strbuf_reset(&sb);
		svg_sparkline(&sb, t, y, 3, 0.02, "s");
		ok(strstr(sb.buf, "3.0,14.1 60.0,13.2 117.0,14.4\"") && strstr(sb.buf, ">102.0</text>") &&
		   strstr(sb.buf, ">98.04</text>"),
		   "a 0.17 % wobble within a band of 2 %: a pixel or two of the height, the scale's ends written");
		strbuf_reset(&sb);
		svg_sparkline(&sb, t, y, 3, 0, "s");
		ok(strstr(sb.buf, "3.0,20.0 60.0,3.0 117.0,25.0\"") && strstr(sb.buf, ">100.2</text>") &&
		   strstr(sb.buf, ">99.95</text>"), "no band: stretched, its max and min written");
	}
	{
		struct svg_step st[2] = { { 1.0, 0.99, 1.01, "aaaa", "GOOD", 0 },
					  { 1.1, 1.09, 1.11, "bbbb", "BAD", 1 } };

		strbuf_reset(&sb);
		svg_bisect_steps(&sb, st, 2, 1.1, "b");
		ok(strstr(sb.buf, ">ratio to good (M/G)</text>"), "the bisection's y axis has its label");
		ok(!strstr(sb.buf, "without a ratio"), "every step drawn: nothing said");
		st[0].ratio = NAN;
		strbuf_reset(&sb);
		svg_bisect_steps(&sb, st, 2, 1.1, "b");
		ok(strstr(sb.buf, ">1 step(s) without a ratio (not built, not booted or skipped): "
			  "not drawn</text>") && labels_inside(sb.buf, 640),
		   "a step not measured: the plot says it leaves it out");
	}
	strbuf_release(&sb);
	return done_testing();
}
