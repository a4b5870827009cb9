/*
 * kernels/ccache.c: the counts of a stats log as ccache 4.7 writes it (a
 * record per call, "# <source>" then its counters), and the environment a
 * build gets.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccache.h"
#include "tap.h"

static const char log_text[] =
	"# ../../src/mm/page_alloc.c\n"
	"cache_miss\n"
	"direct_cache_miss\n"
	"local_storage_miss\n"
	"preprocessed_cache_miss\n"
	"# ../../src/mm/slab.c\n"
	"direct_cache_hit\n"
	"local_storage_hit\n"
	"# ../../src/kernel/fork.c\n"
	"preprocessed_cache_hit\n"
	"direct_cache_miss\n"
	"# arch/x86/kernel/vmlinux.lds.S\n"
	"called_for_preprocessing\n"
	"# vmlinux.o\n"
	"called_for_link\n"
	"# ../../src/init/version.c\n"
	"cache_miss";		/* no newline at the end */

static void test_parse(void)
{
	struct ccache_stats st;

	ccache_stats_parse(&st, log_text);
	is_int(st.hits, 2, "a direct and a preprocessed hit are hits");
	is_int(st.misses, 2, "cache_miss is a miss, the last line without its newline too");
	ccache_stats_parse(&st, "");
	ok(!st.hits && !st.misses, "an empty log: nothing");
	ccache_stats_parse(&st, "# x.c\ndirect_cache_hits\ncache_missed\n# cache_miss\n");
	ok(!st.hits && !st.misses, "only whole counter lines count");
}

static const char *env_value(const struct ccache *cc, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < cc->env.nr; i++)
		if (!strncmp(cc->env.v[i], name, len) && cc->env.v[i][len] == '=')
			return cc->env.v[i] + len + 1;
	return NULL;
}

static void test_env(void)
{
	char dir[] = "/tmp/test-ccache.XXXXXX", real[PATH_MAX], want[PATH_MAX + 16];
	struct ccache cc;
	struct ccache_stats st;
	const char *log;

	if (access("/usr/bin/ccache", X_OK)) {
		skip("no ccache");
		return;
	}
	if (!mkdtemp(dir) || !realpath(dir, real))
		return;
	is_int(ccache_init(&cc, dir, 0), 0, "a cache for a state root");
	snprintf(want, sizeof(want), "%s/ccache", real);
	is_str(env_value(&cc, "CCACHE_DIR"), want, "... in <state>/ccache");
	is_str(env_value(&cc, "CCACHE_BASEDIR"), real, "... the root its base");
	is_str(env_value(&cc, "CCACHE_MAXSIZE"), "5120Mi", "... 5 GiB by default");
	log = env_value(&cc, "CCACHE_STATSLOG");
	ok(log && !strncmp(log, want, strlen(want)), "... a stats log of its own inside it");
	ccache_stats_read(&st, &cc);
	ok(!st.hits && !st.misses, "... nothing compiled yet: 0 and 0");
	ccache_release(&cc);
	rmdir(want);
	rmdir(dir);
}

int main(void)
{
	test_parse();
	test_env();
	return done_testing();
}
