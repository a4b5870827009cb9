/* The git side of a bisection (bisect-git.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "bisect-git.h"
#include "gitutil.h"
#include "log.h"
#include "store-bisect.h"
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
	switch (git_graph_descendant_of(t->repo, b, g)) {
	case 1:
		return 0;
	case 0:
		return error("bad (%s) is not a descendant of good (%s)", bad_ref, good_ref);
	default:
		return lab_git_error("cannot walk the history between good and bad");
	}
}

int bisect_graph_build(struct bisect_graph *g, git_oid **out, git_repository *repo,
		       const git_oid *good, const git_oid *bad, const char *good_name,
		       const char *bad_name)
{
	git_revwalk *walk = NULL;
	git_oid oid, *ids = NULL;
	size_t n = 0, alloc = 0;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	if (git_revwalk_new(&walk, repo) ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
	    git_revwalk_push(walk, bad) || git_revwalk_hide(walk, good)) {
		lab_git_error("cannot walk the history between good and bad");
		goto out;
	}
	while (!git_revwalk_next(&oid, walk)) {
		ALLOC_GROW(ids, n + 1, alloc);
		ids[n++] = oid;
	}
	if (!n || !git_oid_equal(&ids[n - 1], bad)) {
		error("bad (%s) is not a descendant of good (%s)", bad_name, good_name);
		goto out;
	}
	g->n = n;
	g->nparents = calloc(n, sizeof(*g->nparents));
	g->parents = calloc(n, sizeof(*g->parents));
	if (!g->nparents || !g->parents)
		goto out;
	for (size_t i = 0; i < n; i++) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, repo, &ids[i])) {
			lab_git_error("cannot read commit");
			goto out;
		}
		g->parents[i] = calloc(git_commit_parentcount(c) + 1, sizeof(size_t));
		for (unsigned k = 0; k < git_commit_parentcount(c); k++)
			for (size_t j = 0; j < i; j++)
				if (git_oid_equal(git_commit_parent_id(c, k), &ids[j]))
					g->parents[i][g->nparents[i]++] = j;
		git_commit_free(c);
	}
	*out = ids;
	ids = NULL;
	ret = 0;
out:
	free(ids);
	git_revwalk_free(walk);
	return ret;
}

void bisect_graph_release(struct bisect_graph *g)
{
	for (size_t i = 0; g->parents && i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
}

/* What the steps of git bisect run say of the candidates, and git's refs while it runs. */
struct step_marks {
	git_repository *repo;
	const git_oid *ids;
	size_t n;
	enum bisect_mark *marks;
};

/* The candidate whose id starts with hex (a step's id is read back cut to 12); -1: none. */
static long candidate_of(const struct step_marks *m, const char *hex)
{
	char id[GIT_OID_HEXSZ + 1];
	size_t len = strlen(hex);

	for (size_t i = 0; len && i < m->n; i++) {
		git_oid_tostr(id, sizeof(id), &m->ids[i]);
		if (!strncmp(id, hex, len))
			return (long)i;
	}
	return -1;
}

static void mark(struct step_marks *m, const char *hex, enum bisect_mark mk)
{
	long i = candidate_of(m, hex);

	if (i >= 0 && mk != BISECT_UNKNOWN)
		m->marks[i] = mk;
}

static int mark_step(const struct bisect_step_row *s, void *data)
{
	struct step_marks *m = data;
	enum bisect_mark mk = BISECT_UNKNOWN;

	for (enum bisect_mark k = BISECT_GOOD; k <= BISECT_SKIP; k++)
		if (!strcmp(s->mark, bisect_mark_name(k)))
			mk = k;
	mark(m, s->commit, mk);
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
	mark(m, hex, mk);
	return 0;
}

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
	if (bisect_graph_build(&g, &ids, repo, good, bad, "good", "bad"))
		goto out;
	m.ids = ids;
	m.n = g.n;
	m.marks = xcalloc(g.n, sizeof(*m.marks));
	if (store_bisect_steps(st, exp_id, mark_step, &m))
		goto out;
	if (git_reference_foreach_glob(repo, "refs/bisect/*", mark_ref, &m) < 0) {
		lab_git_error("cannot read refs/bisect");
		goto out;
	}
	m.marks[g.n - 1] = BISECT_BAD;
	ret = bisect_conclude(&end, &g, m.marks);
	/* bad marked good by hand leaves nothing: no answer */
	if (ret > 0 && !end.nremaining)
		ret = 0;
	if (ret > 0 && end.found)
		git_oid_tostr(culprit, GIT_OID_HEXSZ + 1, &ids[end.culprit]);
out:
	free(m.marks);
	free(ids);
	bisect_result_release(&end);
	bisect_graph_release(&g);
	return ret;
}
