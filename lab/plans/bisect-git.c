/* The git side of a bisection (bisect-git.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "array.h"
#include "bisect-git.h"
#include "gitutil.h"
#include "log.h"
#include "store-bisect.h"
#include "strbuf.h"
#include "xalloc.h"

int bisect_git_ends(git_oid *g, git_oid *b, char good[GIT_OID_HEXSZ + 1],
		    char bad[GIT_OID_HEXSZ + 1], struct kernel_tree *t, const char *good_ref,
		    const char *bad_ref)
{
	git_oid tree;

	if (kernel_tree_resolve(g, &tree, t, good_ref) ||
	    kernel_tree_resolve(b, &tree, t, bad_ref))
		return -1;
	git_oid_tostr(good, GIT_OID_HEXSZ + 1, g);
	git_oid_tostr(bad, GIT_OID_HEXSZ + 1, b);
	if (git_oid_equal(g, b))
		return error("good and bad are the same commit (%s): nothing to bisect", good);
	return 0;
}

int bisect_git_descends(struct kernel_tree *t, const git_oid *g, const git_oid *b,
			const char *good_ref, const char *bad_ref)
{
	switch (git_graph_descendant_of(t->repo, b, g)) {
	case 1:
		return 0;
	case 0:
		return error("bad (%s) is not a descendant of good (%s)", bad_ref, good_ref);
	default:
		return lab_git_error("cannot walk the history between good and bad");
	}
}

/*
 * Where each commit of the range sits among ids: an open-addressed table
 * of indices + 1 (0 empty), keyed by the id's first bytes (already
 * uniform), so that every parent is found in O(1) instead of by a scan
 * of the commits before it, which made 100,000 commits take a minute.
 */
struct oid_index {
	const git_oid *ids;
	size_t *slot, mask;
};

static size_t oid_hash(const git_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h;
}

static void oid_index_init(struct oid_index *x, const git_oid *ids, size_t n)
{
	size_t size = 16;

	while (size < 2 * n)
		size *= 2;
	x->ids = ids;
	x->mask = size - 1;
	x->slot = xcalloc(size, sizeof(*x->slot));
	for (size_t i = 0; i < n; i++) {
		size_t h = oid_hash(&ids[i]) & x->mask;

		while (x->slot[h])
			h = (h + 1) & x->mask;
		x->slot[h] = i + 1;
	}
}

/* The index of id among the range's commits, or -1 when it is not one (a good commit). */
static long oid_index_find(const struct oid_index *x, const git_oid *id)
{
	for (size_t h = oid_hash(id) & x->mask; x->slot[h]; h = (h + 1) & x->mask)
		if (git_oid_equal(&x->ids[x->slot[h] - 1], id))
			return (long)x->slot[h] - 1;
	return -1;
}

/*
 * What a bisection holds per candidate: its id, graph node and parents,
 * the walk's arrays (lab/plans/bisect-walk.c), its mark and the bisector's
 * slot (struct who), and most of all libgit2's, the revwalk's nodes and
 * the cached commits. Measured: lab bisect over 100,000 commits peaked at
 * 157 MB, about 1.4 KB a commit above a small bisection's; rounded up.
 */
#define BISECT_BYTES_PER_COMMIT 1536

size_t bisect_memory_allowed(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	size_t allow = pages > 0 && size > 0 ? (size_t)pages / 2 * (size_t)size : SIZE_MAX;
	struct rlimit rl;

	/* a limit on the process's data (ulimit -d) is what malloc meets first */
	if (!getrlimit(RLIMIT_DATA, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < allow)
		allow = (size_t)rl.rlim_cur;
	return allow;
}

/* The most commits a range may have here: by memory, and by the walk's 32-bit indices. */
static size_t most_commits(void)
{
	size_t most = bisect_memory_allowed() / BISECT_BYTES_PER_COMMIT;

	return most < BISECT_MAX_COMMITS ? most : BISECT_MAX_COMMITS;
}

int bisect_range_fits(size_t n, const char *range)
{
	size_t need = n * BISECT_BYTES_PER_COMMIT, allow = bisect_memory_allowed();

	if (n > BISECT_MAX_COMMITS)
		return error("%s: %zu commits, more than the %zu a bisection can hold", range, n,
			     (size_t)BISECT_MAX_COMMITS);
	if (n > most_commits())
		return error("%s: %zu commits, about %zu MiB to bisect, more than the %zu MiB "
			     "allowed here", range, n, (need + (1 << 20) - 1) >> 20, allow >> 20);
	return 0;
}

/*
 * bisect_graph_build() with the ancestors of hide[0..nhide) left out too:
 * 1, nothing built and nothing said, when they hide all of bad's.
 */
static int graph_build(struct bisect_graph *g, git_oid **out, git_repository *repo,
		       const git_oid *good, const git_oid *bad, const char *good_name,
		       const char *bad_name, const git_oid *hide, size_t nhide)
{
	git_revwalk *walk = NULL;
	git_oid oid, *ids = NULL;
	struct oid_index index = { NULL, NULL, 0 };
	struct strbuf range = STRBUF_INIT;
	size_t n = 0, alloc = 0, most = most_commits();
	int ret = -1;

	memset(g, 0, sizeof(*g));
	strbuf_addf(&range, "%s..%s", good_name, bad_name);
	if (git_revwalk_new(&walk, repo) ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
	    git_revwalk_push(walk, bad) || git_revwalk_hide(walk, good)) {
		lab_git_error("cannot walk the history between good and bad");
		goto out;
	}
	for (size_t i = 0; i < nhide; i++)
		if (git_revwalk_hide(walk, &hide[i])) {
			lab_git_error("cannot walk the history between good and bad");
			goto out;
		}
	while (!git_revwalk_next(&oid, walk)) {
		/* past what fits, only counted: the refusal names the whole range */
		if (n < most) {
			ALLOC_GROW(ids, n + 1, alloc);
			ids[n] = oid;
		}
		n++;
	}
	/* the goods hide all the last bad has: nothing is left in question */
	if (!n && nhide) {
		ret = 1;
		goto out;
	}
	if (bisect_range_fits(n, range.buf))
		goto out;
	if (!n || !git_oid_equal(&ids[n - 1], bad)) {
		error("bad (%s) is not a descendant of good (%s)", bad_name, good_name);
		goto out;
	}
	oid_index_init(&index, ids, n);
	g->n = n;
	g->nparents = xcalloc(n, sizeof(*g->nparents));
	g->parents = xcalloc(n, sizeof(*g->parents));
	for (size_t i = 0; i < n; i++) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, repo, &ids[i])) {
			lab_git_error("cannot read commit");
			goto out;
		}
		g->parents[i] = xcalloc(git_commit_parentcount(c) + 1, sizeof(size_t));
		for (unsigned k = 0; k < git_commit_parentcount(c); k++) {
			long j = oid_index_find(&index, git_commit_parent_id(c, k));

			if (j >= 0)
				g->parents[i][g->nparents[i]++] = (size_t)j;
		}
		git_commit_free(c);
	}
	*out = ids;
	ids = NULL;
	ret = 0;
out:
	free(ids);
	free(index.slot);
	strbuf_release(&range);
	git_revwalk_free(walk);
	return ret;
}

int bisect_graph_build(struct bisect_graph *g, git_oid **out, git_repository *repo,
		       const git_oid *good, const git_oid *bad, const char *good_name,
		       const char *bad_name)
{
	return graph_build(g, out, repo, good, bad, good_name, bad_name, NULL, 0);
}

void bisect_graph_release(struct bisect_graph *g)
{
	for (size_t i = 0; g->parents && i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
}

/*
 * What the steps of git bisect run say, and git's refs while it runs:
 * first only which commits are good and which bad was marked last, to
 * narrow the walk; then the mark of each candidate.
 */
struct step_marks {
	git_repository *repo;
	const git_oid *ids;
	size_t n;
	enum bisect_mark *marks;	/* NULL: the first pass */
	git_oid *goods, last_bad;
	size_t ngoods, goods_alloc;
	int has_last_bad, bad_from_steps;
};

/* The candidate whose id starts with hex (a step's id is read back cut to 12); -1: none. */
static long candidate_of(const struct step_marks *m, const char *hex)
{
	size_t len = strlen(hex);
	git_oid prefix;

	if (!len || len > GIT_OID_HEXSZ || git_oid_fromstrn(&prefix, hex, len))
		return -1;
	for (size_t i = 0; i < m->n; i++)
		if (!git_oid_ncmp(&m->ids[i], &prefix, len))
			return (long)i;
	return -1;
}

/* The commit hex names (a step's, cut to 12, or a ref's); 0 when found. */
static int commit_of(git_oid *id, git_repository *repo, const char *hex)
{
	size_t len = strlen(hex);
	git_object *obj = NULL;
	git_oid prefix;

	if (!len || len > GIT_OID_HEXSZ || git_oid_fromstrn(&prefix, hex, len) ||
	    git_object_lookup_prefix(&obj, repo, &prefix, len, GIT_OBJECT_COMMIT))
		return -1;
	git_oid_cpy(id, git_object_id(obj));
	git_object_free(obj);
	return 0;
}

static void mark(struct step_marks *m, const char *hex, enum bisect_mark mk, int from_steps)
{
	long i;
	git_oid id;

	if (mk == BISECT_UNKNOWN)
		return;
	if (m->marks) {
		i = candidate_of(m, hex);
		if (i >= 0)
			m->marks[i] = mk;
		return;
	}
	if ((mk != BISECT_GOOD && mk != BISECT_BAD) || commit_of(&id, m->repo, hex))
		return;
	if (mk == BISECT_GOOD) {
		ALLOC_GROW(m->goods, m->ngoods + 1, m->goods_alloc);
		m->goods[m->ngoods++] = id;
	} else if (from_steps || !m->bad_from_steps) {
		/* a step's bad (the one this call stored, say) before git's older refs/bisect/bad */
		m->last_bad = id;
		m->has_last_bad = 1;
		m->bad_from_steps = from_steps;
	}
}

static int mark_step(const struct bisect_step_row *s, void *data)
{
	struct step_marks *m = data;
	enum bisect_mark mk = BISECT_UNKNOWN;

	for (enum bisect_mark k = BISECT_GOOD; k <= BISECT_SKIP; k++)
		if (!strcmp(s->mark, bisect_mark_name(k)))
			mk = k;
	mark(m, s->commit, mk, 1);
	return 0;
}

/* refs/bisect/bad, good-ID and skip-ID: the marks git holds, the user's own included. */
static int mark_ref(const char *name, void *data)
{
	struct step_marks *m = data;
	const char *rest = name + strlen("refs/bisect/");
	enum bisect_mark mk = !strcmp(rest, "bad") ? BISECT_BAD :
			      !strncmp(rest, "good-", 5) ? BISECT_GOOD :
			      !strncmp(rest, "skip-", 5) ? BISECT_SKIP : BISECT_UNKNOWN;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid id;

	if (mk == BISECT_UNKNOWN || git_reference_name_to_id(&id, m->repo, name))
		return 0;
	git_oid_tostr(hex, sizeof(hex), &id);
	mark(m, hex, mk, 0);
	return 0;
}

static int read_marks(struct step_marks *m, struct store *st, long long exp_id)
{
	if (store_bisect_steps(st, exp_id, mark_step, m))
		return -1;
	if (git_reference_foreach_glob(m->repo, "refs/bisect/*", mark_ref, m) < 0)
		return lab_git_error("cannot read refs/bisect");
	return 0;
}

/*
 * Only what is still in question is read: the ancestors of the bad marked
 * last that no good has, as git bisect itself sees it (each step's commit
 * was in question, so the last bad is an ancestor of every earlier one).
 * Reading all of good..bad again at every step took seconds at 100,000
 * commits; this way the steps read half as much each time.
 */
int bisect_git_conclude(char culprit[GIT_OID_HEXSZ + 1], struct store *st, long long exp_id,
			git_repository *repo, const git_oid *good, const git_oid *bad)
{
	struct step_marks m = { .repo = repo };
	struct bisect_graph g;
	struct bisect_result end;
	git_oid *ids = NULL;
	int ret = -1;

	*culprit = '\0';
	memset(&end, 0, sizeof(end));
	memset(&g, 0, sizeof(g));
	if (read_marks(&m, st, exp_id))
		goto out;
	ret = graph_build(&g, &ids, repo, good, m.has_last_bad ? &m.last_bad : bad, "good", "bad",
			  m.goods, m.ngoods);
	if (ret) {
		/* bad marked good by hand leaves nothing: no answer */
		ret = ret > 0 ? 0 : -1;
		goto out;
	}
	ret = -1;
	m.ids = ids;
	m.n = g.n;
	m.marks = xcalloc(g.n, sizeof(*m.marks));
	if (read_marks(&m, st, exp_id))
		goto out;
	m.marks[g.n - 1] = BISECT_BAD;
	ret = bisect_conclude(&end, &g, m.marks);
	/* bad marked good by hand leaves nothing: no answer */
	if (ret > 0 && !end.nremaining)
		ret = 0;
	if (ret > 0 && end.found)
		git_oid_tostr(culprit, GIT_OID_HEXSZ + 1, &ids[end.culprit]);
out:
	free(m.marks);
	free(m.goods);
	free(ids);
	bisect_result_release(&end);
	bisect_graph_release(&g);
	return ret;
}
