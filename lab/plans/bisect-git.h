#ifndef BISECT_GIT_H
#define BISECT_GIT_H
/*
 * The git side of a bisection, apart from its builds and boots: the
 * candidates of good..bad as the graph lab/plans/bisect.c walks, and where git
 * bisect run stands after a step of `lab bisect-step`, from the steps
 * stored and the marks git holds in the repository. The caller owns what
 * these return.
 */
#include <git2.h>

#include "bisect.h"
#include "checkout.h"
#include "store.h"

/*
 * The ends' commits, into g and b, and good and bad as hex: refused in
 * one line (a bad ref, the same commit) before anything is stored, as a
 * bisection row would stay RUNNING.
 */
int bisect_git_ends(git_oid *g, git_oid *b, char good[GIT_OID_HEXSZ + 1],
		    char bad[GIT_OID_HEXSZ + 1], struct kernel_tree *t, const char *good_ref,
		    const char *bad_ref);

/*
 * 0 when b descends from g, else -1 after one line naming the refs. It
 * walks the history down to their merge base: seconds at 100,000
 * commits, so a step of git bisect run asks it only of a new bisection.
 */
int bisect_git_descends(struct kernel_tree *t, const git_oid *g, const git_oid *b,
			const char *good_ref, const char *bad_ref);

/*
 * The candidates: reachable from bad, not from good, parents before
 * children; *ids their commits (g->n of them; the caller frees). The
 * names are the ends' in a message. -1 after one; release g either way.
 * A range too large for the memory allowed (bisect_range_fits()) is
 * counted, refused and not built.
 */
int bisect_graph_build(struct bisect_graph *g, git_oid **ids, git_repository *repo,
		       const git_oid *good, const git_oid *bad, const char *good_name,
		       const char *bad_name);
void bisect_graph_release(struct bisect_graph *g);

/*
 * The memory a bisection may take: half the machine's, or less under a
 * limit on the process's data (ulimit -d).
 */
size_t bisect_memory_allowed(void);

/*
 * 0 when a range of n commits (named range, as good..bad) fits in
 * bisect_memory_allowed() at what a bisection holds per commit, else -1
 * after one line with the range, its commits and the memory they need.
 */
int bisect_range_fits(size_t n, const char *range);

/*
 * Is git bisect run over? The marks of the steps of bisection exp_id as
 * stored (in order: a later step of a commit counts), then those git
 * holds in repo while it runs (refs/bisect/bad, good-ID and skip-ID, the
 * user's own included), as bisect_conclude() sees them over what is still
 * in question: only the ancestors of the bad marked last (a step's before
 * git's refs/bisect/bad, bad when none is) that good and no good mark
 * has are read, half as many each step, not all of good..bad. 1 when it is over, with the first bad
 * commit in culprit, or "" when skipped commits stand with it; 0 while a
 * candidate is left to test; -1 after a message.
 */
int bisect_git_conclude(char culprit[GIT_OID_HEXSZ + 1], struct store *st, long long exp_id,
			git_repository *repo, const git_oid *good, const git_oid *bad);

#endif
