#ifndef CCACHE_H
#define CCACHE_H
/*
 * The lab's compiler cache: one ccache directory under the state root,
 * <state>/ccache, for every tree the lab builds, whatever its path.
 *
 * ccache keys an object by its command line and its preprocessed source,
 * and both name files by path. With base_dir the state root, the paths
 * under it are made relative to the directory the compiler runs in; with
 * hash_dir off, that directory is left out of the key. Two trees whose
 * build directories sit where each other's do relative to their sources
 * (checkout.h: <tree>/src beside <tree>/kbuild/) then compile the same
 * commands, and the second finds the first's objects. The kernel's own
 * -fmacro-prefix-map keeps __FILE__ relative as well.
 *
 * Each build counts its own hits and misses in a stats log of its own
 * (CCACHE_STATSLOG, a temp file), so builds before it do not count, and
 * nobody's zeroing of ccache's totals is needed.
 *
 * struct ccache owns its environment and its log's name; ccache_release()
 * removes the log and frees them.
 */
#include "strvec.h"

/* build.ccacheSize's default, in MiB. */
#define CCACHE_DEFAULT_MIB (5 * 1024L)

struct ccache {
	const char *program;	/* ccache's path; NULL: not installed, env empty */
	struct strvec env;	/* NAME=VALUE for the build's programs */
	char *stats_log;	/* this build's CCACHE_STATSLOG */
};

struct ccache_stats {
	long hits;		/* direct and preprocessed */
	long misses;
};

/*
 * The cache of the state root dir, kept to max_mib MiB (0: the default);
 * creates <dir>/ccache. Without ccache installed this is 0 and cc->program
 * NULL. -1 when the directory cannot be made or its log registered (said).
 */
int ccache_init(struct ccache *cc, const char *dir, long max_mib);
void ccache_release(struct ccache *cc);

/* What this build's compilations found so far (none: 0 and 0). */
void ccache_stats_read(struct ccache_stats *out, const struct ccache *cc);

/* The counts of a stats log's text: each "# file" record's hit or miss. */
void ccache_stats_parse(struct ccache_stats *out, const char *log);

#endif
