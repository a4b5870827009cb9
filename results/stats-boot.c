/*
 * Boots as the unit (stats-boot.h): Kruskal-Wallis across boots, per-boot
 * units, boot-level ratios with the pooled spread.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stats-boot.h"
#include "stats-dist.h"
#include "stats-sort.h"
#include "stats-tests.h"

/* ---- boot-to-boot ---- */

/*
 * Count the samples and the non-empty groups, checking every value is
 * finite; -1 with errno EINVAL when one is not.
 */
static int count_groups(size_t *total, size_t *nonempty, const double *const *groups,
			const size_t *len, size_t ngroups)
{
	*total = *nonempty = 0;
	for (size_t g = 0; g < ngroups; g++) {
		if (!len[g])
			continue;
		if (stats_check_finite(groups[g], len[g]))
			return -1;
		*total += len[g];
		(*nonempty)++;
	}
	return 0;
}

struct ranked {
	double v;
	size_t g;
};

static int ranked_cmp(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;

	return CMP(x, y);
}

int stats_kruskal(double *h, double *p, const double *const *groups, const size_t *len,
		  size_t ngroups)
{
	struct ranked *r;
	double *rank_sum, ties = 0, sum = 0, nn;
	size_t g, i, j, total, k;

	if (count_groups(&total, &k, groups, len, ngroups))
		return -1;
	if (k < 2) {
		errno = EINVAL;
		return -1;
	}
	r = malloc(total * sizeof(*r));
	rank_sum = calloc(ngroups, sizeof(*rank_sum));
	if (!r || !rank_sum) {
		free(r);
		free(rank_sum);
		errno = ENOMEM;
		return -1;
	}
	for (g = 0, i = 0; g < ngroups; g++)
		for (j = 0; j < len[g]; j++, i++) {
			r[i].v = groups[g][j];
			r[i].g = g;
		}
	qsort(r, total, sizeof(*r), ranked_cmp);
	/* tied values share their mean rank */
	for (i = 0; i < total; i = j) {
		double t, mid;
		for (j = i + 1; j < total && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		mid = ((double)i + (double)j + 1) / 2;
		ties += t * t * t - t;
		for (size_t m = i; m < j; m++)
			rank_sum[r[m].g] += mid;
	}
	for (g = 0; g < ngroups; g++)
		if (len[g])
			sum += rank_sum[g] * rank_sum[g] / (double)len[g];
	nn = (double)total;
	free(r);
	free(rank_sum);
	/* every value tied: no ordering to test */
	if (nn * nn * nn - nn - ties <= 0) {
		*h = 0;
		*p = 1;
		return 0;
	}
	*h = (12 / (nn * (nn + 1)) * sum - 3 * (nn + 1)) / (1 - ties / (nn * nn * nn - nn));
	*h = fmax(0, *h);
	*p = stats_chi2_sf(*h, (double)(k - 1));
	return 0;
}

int stats_boot_units(struct stats_boot_units *out, const double *const *groups,
		     const size_t *len, size_t ngroups)
{
	double *med = NULL, ss_within = 0, mean_med, sd_med, sum = 0, ss_between = 0, h;
	double *gmean = NULL;
	size_t g, i, total, boots, df_within = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (count_groups(&total, &boots, groups, len, ngroups))
		return -1;
	if (!total) {
		errno = EINVAL;
		return -1;
	}
	med = malloc(boots * sizeof(*med));
	gmean = malloc(boots * sizeof(*gmean));
	out->values = malloc(total * sizeof(double));
	if (!med || !gmean || !out->values) {
		errno = ENOMEM;
		goto out;
	}
	for (g = 0, i = 0; g < ngroups; g++) {
		double *s, mu, sd;

		if (!len[g])
			continue;
		s = stats_sorted_copy(groups[g], len[g]);
		if (!s)
			goto out;
		med[i] = stats_quantile(s, len[g], 0.5);
		stats_mean_sd(&mu, &sd, s, len[g]);
		gmean[i++] = mu;
		sum += mu * (double)len[g];
		if (len[g] > 1) {
			ss_within += (double)(len[g] - 1) * sd * sd;
			df_within += len[g] - 1;
		}
		free(s);
	}
	out->iterations = (double)total / (double)boots;
	out->within_sd = df_within ? sqrt(ss_within / (double)df_within) : NAN;
	if (boots > 1) {
		stats_mean_sd(&mean_med, &sd_med, med, boots);
		out->between_sd = sd_med;
	} else {
		out->between_sd = NAN;
	}
	/*
	 * The spread of per-boot medians is compared with what within-boot
	 * noise alone gives a median (sqrt(pi/2) sigma / sqrt(n), not the
	 * sigma / sqrt(n) of a mean), and a one-way ANOVA F test must show a
	 * boot effect (p < 0.01): with a handful of boots the sd of the medians
	 * is itself too noisy to decide on, and iid samples would otherwise be
	 * reduced to medians about half of the time.
	 */
	out->boot_p = 1;
	if (boots > 1 && df_within > 0 && ss_within > 0) {
		double grand = sum / (double)total, d1 = (double)(boots - 1);
		double d2 = (double)df_within, f;
		for (g = 0, i = 0; g < ngroups; g++) {
			if (!len[g])
				continue;
			ss_between += (double)len[g] * (gmean[i] - grand) * (gmean[i] - grand);
			i++;
		}
		f = (ss_between / d1) / (ss_within / d2);
		out->boot_p = stats_beta_inc(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
	} else if (boots > 1 && df_within > 0) {
		out->boot_p = out->between_sd > 0 ? 0 : 1;
	}
	/*
	 * The ranks see what the F test cannot: near-deterministic samples
	 * (icount) repeat a few values within a boot, and a boot moves them
	 * all by nanoseconds. The within-boot sd, set by the gaps between
	 * those values, hides the shift from the F test; the order of the
	 * samples does not.
	 */
	out->boot_rank_p = 1;
	if (boots > 1 && df_within &&
	    stats_kruskal(&h, &out->boot_rank_p, groups, len, ngroups))
		goto out;
	out->per_boot = boots > 1 && df_within &&
		((out->between_sd > out->within_sd * sqrt(M_PI / 2) / sqrt(out->iterations) &&
		  out->boot_p < 0.01) || out->boot_rank_p < 0.01);
	if (out->per_boot) {
		memcpy(out->values, med, boots * sizeof(*med));
		out->n = boots;
	} else {
		for (g = 0, i = 0; g < ngroups; g++) {
			if (!len[g])
				continue;
			memcpy(out->values + i, groups[g], len[g] * sizeof(double));
			i += len[g];
		}
		out->n = total;
	}
	ret = 0;
out:
	free(med);
	free(gmean);
	if (ret)
		stats_boot_units_release(out);
	return ret;
}

void stats_boot_units_release(struct stats_boot_units *u)
{
	free(u->values);
	u->values = NULL;
	u->n = 0;
}
/* Sum of squares about its own mean of the logs of x, and the mean. */
static void log_ss(double *mean, double *ss, const double *x, size_t n)
{
	double sum = 0, s = 0, l0 = log(x[0]), shift;
	size_t i;

	/* from the first value, as stats_mean_sd(): identical boots have ss 0 exactly */
	for (i = 0; i < n; i++)
		sum += log(x[i]) - l0;
	shift = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = log(x[i]) - l0 - shift;

		s += d * d;
	}
	*mean = l0 + shift;
	*ss = s;
}

int stats_boot_ratio(struct stats_boot_ratio *out, const double *x, size_t nx,
		     const double *y, size_t ny, const double *const *pool,
		     const size_t *npool, size_t ngroups, double alpha)
{
	double mx, my, ss, ss_all = 0, df = 0, s, tq;
	size_t g;

	memset(out, 0, sizeof(*out));
	if (stats_check_finite(x, nx) || stats_check_finite(y, ny))
		return -1;
	if (!(alpha > 0 && alpha < 1)) {
		errno = EINVAL;
		return -1;
	}
	if (stats_check_positive(x, nx) || stats_check_positive(y, ny))
		return -1;
	for (g = 0; g < ngroups; g++) {
		double m;

		if (!npool[g])
			continue;
		if (stats_check_finite(pool[g], npool[g]) || stats_check_positive(pool[g], npool[g]))
			return -1;
		log_ss(&m, &ss, pool[g], npool[g]);
		ss_all += ss;
		df += (double)(npool[g] - 1);
	}
	if (!(df > 0)) {
		/* no group with two boots: nothing says how much boots differ */
		errno = EINVAL;
		return -1;
	}
	log_ss(&mx, &ss, x, nx);
	log_ss(&my, &ss, y, ny);
	s = sqrt(ss_all / df);
	out->log_diff = my - mx;
	out->sd = s;
	out->df = df;
	out->se = s * sqrt(1 / (double)nx + 1 / (double)ny);
	out->alpha = alpha;
	if (out->se > 0) {
		double t = out->log_diff / out->se;

		out->p = 2 * stats_t_sf(fabs(t), df);
		tq = stats_t_quantile(1 - alpha / 2, df);
	} else {
		/* identical boots: the observed ratio is the whole uncertainty */
		out->p = out->log_diff == 0 ? 1 : 0;
		tq = 0;
	}
	out->estimate = exp(out->log_diff);
	out->lo = exp(out->log_diff - tq * out->se);
	out->hi = exp(out->log_diff + tq * out->se);
	return 0;
}
