#ifndef STATS_SORT_H
#define STATS_SORT_H
/*
 * Sorting and selection for the statistics (stats-sort.c): what the
 * tests and estimators order and pick from. Pure computation; arrays are
 * the caller's, and nothing is kept between calls.
 */
#include <stddef.h>
#include <stdint.h>

/*
 * The k-th smallest (1-based, 1 <= k <= m * n) of the m * n differences
 * b_j - a_i, given both arrays sorted ascending. Exact; time about
 * O((m + n) log(m n)), memory O(m + n).
 */
int stats_pairdiff_select(double *out, const double *a_sorted, size_t m,
			  const double *b_sorted, size_t n, uint64_t k);

/*
 * For the other statistics files, not their callers. The checks fail
 * with EINVAL (no value, or one not finite) and EDOM (one not positive);
 * stats_sort_doubles() sorts in place, stats_sorted_copy() returns a sorted
 * copy the caller frees (NULL, ENOMEM); stats_select_kth() is the k-th
 * smallest (0-based) of x, reordering it, pivots drawn from *rng.
 * stats_pairdiff_ranks() puts the ks[i]-th smallest (1-based) difference
 * b_j - a_i into out[i], for up to STATS_PD_MAX_RANKS ranks in any order.
 */
int stats_check_finite(const double *x, size_t n);
int stats_check_positive(const double *x, size_t n);
int stats_sort_doubles(double *x, size_t n);
double *stats_sorted_copy(const double *x, size_t n);
double stats_select_kth(double *x, size_t n, size_t k, uint64_t *rng);
#define STATS_PD_MAX_RANKS 8
int stats_pairdiff_ranks(double *out, const double *as, size_t m,
			 const double *bs, size_t n, const uint64_t *ks, size_t nk);

#endif
