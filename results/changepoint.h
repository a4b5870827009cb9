#ifndef CHANGEPOINT_H
#define CHANGEPOINT_H
/*
 * Change points of a nightly series (one point per measured commit, the
 * median of its samples), as docs/statistics.md describes them:
 * E-divisive means over windows of the series, each candidate kept only
 * when a Mann-Whitney test between its neighbouring segments says so, then
 * merged until every point left is significant at the final level and moves
 * the series by at least delta. Segments have at least min_segment points,
 * so a single spike is never a change point.
 *
 * The newest nights cannot make a segment yet; changepoint_suspect() looks
 * at them separately: a step that a confirming A/B must then prove, never
 * an alert by itself.
 *
 * Pure computation, like stats.h: 0 or -1 with errno set (EINVAL for a
 * value that is not positive and finite or a bad option).
 */
#include <stddef.h>

struct changepoint_opts {
	size_t window;		/* points per E-divisive window */
	size_t step;		/* windows start this many points apart */
	size_t min_segment;	/* fewest points on either side of a change */
	double p_first;		/* a candidate is kept at p <= this */
	double p_final;		/* after merging every change has p <= this */
	double delta;		/* and |ratio - 1| >= delta */
	size_t min_tail;	/* newest points beyond their segment for a suspect */
};

#define CHANGEPOINT_OPTS_INIT { 50, 25, 5, 0.01, 0.001, 0.02, 2 }

struct changepoint {
	size_t index;		/* first point after the change */
	size_t before;		/* the last ordinary point before it: the A of its A/B */
	double p;		/* Mann-Whitney, segment before against after */
	double ratio;		/* Hodges-Lehmann, after / before */
	double lo, hi;		/* its 99 % CI */
};

/*
 * The change points of x[0..n), sorted by index, into *out (caller frees;
 * NULL when none) and their count into *nout.
 */
int changepoints_find(struct changepoint **out, size_t *nout, const double *x, size_t n,
		      const struct changepoint_opts *opt);

/*
 * Does the series end with a step too recent for a segment? The last k
 * points, k >= min_tail, all lie on one side of the median of
 * x[start..n-k) (at least min_segment points), on the ln scale farther from
 * it than both ln(1 + delta) and 3 robust sds (1.4826 MAD) of that segment.
 * The smallest such k is taken; start is where the caller's last known
 * change left the series; refuted (0: none) the index of the newest suspect
 * its A/B refuted, after which a step now starts (two spikes in a row
 * followed by a real step must not keep pointing at the spikes). Returns 1 and fills out, 0 when there is none:
 * index is the first point of the step (points just before the tail beyond
 * the bound on the same side belong to it), before the last point before
 * it within the bound (spikes skipped), p 1, and the ratio of medians as
 * ratio, lo and hi.
 */
int changepoint_suspect(struct changepoint *out, const double *x, size_t n, size_t start,
			size_t refuted, const struct changepoint_opts *opt);

#endif
