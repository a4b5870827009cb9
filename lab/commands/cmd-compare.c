/*
 * lab compare A B: a ministat for two files of numbers. Prints each side's
 * summary, a text plot of both, the Hodges-Lehmann ratio B/A with its CI,
 * the Mann-Whitney p, the minimum detectable effect and the verdict.
 * Exit status: 0 no regression, 1 regression, 2 bad input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "ab-spec.h"
#include "array.h"
#include "commands.h"
#include "config-values.h"
#include "dvec.h"
#include "escape.h"
#include "log.h"
#include "options.h"
#include "parse-options.h"
#include "regfile.h"
#include "stats.h"
#include "strbuf.h"

static const char *const compare_usage[] = {
	"usage: lab compare [options] A B",
	"  Compare two files of numbers: A is the baseline, B the candidate.",
	"  One number per line; blank lines and lines starting with '#' are skipped.",
	"",
	parse_options_here,
	"",
	"  Exit status: 0 no regression found, 1 regression, 2 bad input.",
	NULL,
};

#define PLOT_WIDTH	60

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Read column `column` (1-based) of every line of path that is neither
 * blank nor a '#' comment. Ratios need logarithms, so every number must be
 * positive and finite.
 */
static int read_numbers(struct dvec *out, const char *path, int column)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	const char *p, *end;
	size_t lineno = 0;
	int ret = -1;

	/* a pipe is taken on purpose: lab compare <(cmd) <(cmd) */
	if (regfile_read(&sb, path, 0, REGFILE_PIPE, "file", &why) < 0) {
		ret = error("%s", why.buf);
		goto out;
	}
	p = strbuf_str(&sb);
	end = p + sb.len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *tok = p, *tend;
		char word[512], *stop;
		int col, skip = 0;
		size_t len;
		double x;

		if (!eol)
			eol = end;
		lineno++;
		for (col = 1;; col++) {
			while (tok < eol && is_blank(*tok))
				tok++;
			if (col == 1 && (tok == eol || *tok == '#')) {
				skip = 1;
				break;
			}
			if (tok == eol) {
				ret = error("%s:%zu: no column %d", path, lineno, column);
				goto out;
			}
			for (tend = tok; tend < eol && !is_blank(*tend); tend++)
				;
			if (col == column)
				break;
			tok = tend;
		}
		if (skip) {
			p = eol + 1;
			continue;
		}
		len = (size_t)(tend - tok);
		if (len >= sizeof(word) || memchr(tok, '\0', len)) {
			ret = error("%s:%zu: not a number: '%.40s...'", path, lineno, tok);
			goto out;
		}
		memcpy(word, tok, len);
		word[len] = '\0';
		errno = 0;
		x = strtod(word, &stop);
		if (stop == word || *stop || !isfinite(x)) {
			ret = error("%s:%zu: not a number: '%s'", path, lineno, word);
			goto out;
		}
		if (!(x > 0)) {
			ret = error("%s:%zu: not a positive number: '%s' (ratios need logarithms)",
				    path, lineno, word);
			goto out;
		}
		dvec_push(out, x);
		p = eol + 1;
	}
	if (!out->nr) {
		ret = error("%s: no numbers", path);
		goto out;
	}
	ret = 0;
out:
	strbuf_release_all(&sb, &why);
	return ret;
}

static int plot_col(double x, double lo, double hi)
{
	long c;

	if (!(hi > lo))
		return PLOT_WIDTH / 2;
	c = lround((x - lo) / (hi - lo) * (PLOT_WIDTH - 1));
	return c < 0 ? 0 : c > PLOT_WIDTH - 1 ? PLOT_WIDTH - 1 : (int)c;
}

/*
 * Two rows per side, as ministat draws them: a mark where samples fall,
 * then |___| over mean +- one sd with M at the median and A at the mean
 * (A wins when they share a column).
 */
static void plot_side(struct strbuf *sb, const struct dvec *nb,
		      const struct stats_summary *s, char mark, double lo, double hi)
{
	char row[PLOT_WIDTH + 1];
	size_t i;
	int c, l, r;

	memset(row, ' ', PLOT_WIDTH);
	row[PLOT_WIDTH] = '\0';
	for (i = 0; i < nb->nr; i++)
		row[plot_col(nb->v[i], lo, hi)] = mark;
	strbuf_addf(sb, "|%s|\n", row);

	memset(row, ' ', PLOT_WIDTH);
	if (s->n > 1 && isfinite(s->std)) {
		l = plot_col(s->mean - s->std, lo, hi);
		r = plot_col(s->mean + s->std, lo, hi);
		for (c = l; c <= r; c++)
			row[c] = '_';
		row[l] = '|';
		row[r] = '|';
	}
	row[plot_col(s->median, lo, hi)] = 'M';
	row[plot_col(s->mean, lo, hi)] = 'A';
	strbuf_addf(sb, "|%s|\n", row);
}

static void summary_row(struct strbuf *sb, char mark, const struct stats_summary *s,
			const char *path)
{
	const double v[] = { s->min, s->max, s->median, s->mean, s->std };

	strbuf_addf(sb, "%c %6zu", mark, s->n);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		char num[32];

		/* textfmt_value() writes "-" for a deviation that is not there */
		textfmt_value(num, sizeof(num), v[i]);
		strbuf_addf(sb, " %*s", 12 + (int)(strlen(num) - textfmt_width(num)), num);
	}
	strbuf_addf(sb, "  %s\n", term_safe(path));
}

static void print_report(const char *path_a, const struct dvec *a,
			 const char *path_b, const struct dvec *b,
			 const struct stats_comparison *c,
			 const struct stats_outliers *oa, const struct stats_outliers *ob)
{
	struct strbuf sb = STRBUF_INIT;
	double lo = fmin(c->a.min, c->b.min), hi = fmax(c->a.max, c->b.max);
	char change[96];
	const char *better = c->direction == STATS_HIGHER_IS_BETTER ?
		"higher is better" : "lower is better";
	char dash[PLOT_WIDTH + 1], vlo[32], vhi[32], p[16], mde[32];

	strbuf_addf(&sb, "  %6s %12s %12s %12s %12s %12s\n",
		    "N", "Min", "Max", "Median", "Mean", "Stddev");
	summary_row(&sb, 'x', &c->a, path_a);
	summary_row(&sb, '+', &c->b, path_b);

	memset(dash, '-', PLOT_WIDTH);
	dash[PLOT_WIDTH] = '\0';
	strbuf_addf(&sb, "+%s+\n", dash);
	plot_side(&sb, a, &c->a, 'x', lo, hi);
	plot_side(&sb, b, &c->b, '+', lo, hi);
	strbuf_addf(&sb, "+%s+\n", dash);
	textfmt_value(vlo, sizeof(vlo), lo);
	textfmt_value(vhi, sizeof(vhi), hi);
	strbuf_addf(&sb, " %s%*s\n", vlo, (int)(PLOT_WIDTH + 1 - textfmt_width(vlo) +
					      strlen(vhi) - textfmt_width(vhi)), vhi);

	textfmt_change(change, sizeof(change), c->ratio, c->lo, c->hi);
	strbuf_addf(&sb, "\nB/A %s (%g %% CI, Hodges-Lehmann)\n", change, 100 * (1 - c->alpha));
	textfmt_p(p, sizeof(p), c->p);
	strbuf_addf(&sb, "p %s%s", *p == '<' ? "" : "= ", p);
	strbuf_addf(&sb, " (Mann-Whitney U, two-sided, %s)\n",
		    c->exact ? "exact" : "normal approximation");
	textfmt_percent(mde, sizeof(mde), 100 * c->mde);
	if (isfinite(c->mde))
		strbuf_addf(&sb, "minimum detectable effect %s (alpha %g, 80 %% power)\n", mde,
			    c->alpha);
	strbuf_addf(&sb, "outliers (Tukey mild/extreme, MAD): x %zu/%zu/%zu, + %zu/%zu/%zu\n",
		    oa->low_mild + oa->high_mild, oa->low_extreme + oa->high_extreme, oa->mad,
		    ob->low_mild + ob->high_mild, ob->low_extreme + ob->high_extreme, ob->mad);
	strbuf_addf(&sb, "verdict: %s (delta %g %%, %s)\n", verdict_name(c->verdict),
		    100 * c->delta, better);
	strbuf_fwrite(&sb, stdout);
	strbuf_release(&sb);
}

static int opt_higher(const struct parse_option *opt, const char *arg)
{
	(void)arg;
	*(enum stats_direction *)opt->value = STATS_HIGHER_IS_BETTER;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct dvec a = DVEC_INIT, b = DVEC_INIT;
	struct stats_comparison cmp;
	struct stats_outliers oa, ob;
	long column = 1;
	const struct parse_option options[] = {
		{ .type = OPTION_INT, .short_name = 'c', .long_name = "column", .value = &column,
		  .min = 1, .max = 10000, .argh = "N",
		  .help = "read the N-th whitespace-separated column (default 1)",
		  .expect = "a column number from 1" },
		{ .type = OPTION_CALLBACK, .short_name = 'a', .long_name = "alpha", .value = &opt.alpha,
		  .argh = "ALPHA", .help = "significance level (default 0.05)", .cb = ab_opt_alpha,
		  .expect = "a number between 0 and 1" },
		{ .type = OPTION_CALLBACK, .short_name = 'd', .long_name = "delta", .value = &opt.delta,
		  .argh = "DELTA", .help = "smallest change that matters: 2% or 0.02 (default 2%)",
		  .cb = ab_opt_delta, .expect = "a percentage like 2% or a fraction like 0.02" },
		{ .type = OPTION_CALLBACK, .long_name = "higher-is-better", .value = &opt.direction,
		  .help = "the numbers are throughputs, not times", .cb = opt_higher,
		  .flags = PARSE_OPT_NOARG },
		OPT_END(),
	};
	struct option_parser parser = { "lab compare", compare_usage, options, NULL };
	int n, ret = 2;

	n = parse_command_options(&parser, argc, argv, PARSE_OPT_ANY_ARGS);
	if (n < 0)
		goto out;
	if (n != 2) {
		error("'lab compare' takes two files (see 'lab compare --help')");
		goto out;
	}
	if (read_numbers(&a, argv[0], (int)column) ||
	    read_numbers(&b, argv[1], (int)column))
		goto out;
	if (stats_compare(&cmp, a.v, a.nr, b.v, b.nr, &opt) ||
	    stats_outliers_count(&oa, a.v, a.nr) || stats_outliers_count(&ob, b.v, b.nr)) {
		error("cannot compare '%s' and '%s': %s", argv[0], argv[1],
		      strerror(errno));
		goto out;
	}
	print_report(argv[0], &a, argv[1], &b, &cmp, &oa, &ob);
	ret = cmp.verdict == VERDICT_REGRESSION ? 1 : 0;
out:
	dvec_release(&a);
	dvec_release(&b);
	return ret;
}
