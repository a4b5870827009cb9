#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccache.h"
#include "log.h"
#include "regfile.h"
#include "strbuf.h"
#include "tempfile.h"

#define CCACHE_PROGRAM "/usr/bin/ccache"
#define STATS_PREFIX "lab-stats-"

int ccache_init(struct ccache *cc, const char *dir, long max_mib)
{
	static int seq;
	struct strbuf path = STRBUF_INIT;
	char *root;
	int ret = -1;

	memset(cc, 0, sizeof(*cc));
	strvec_init(&cc->env);
	if (access(CCACHE_PROGRAM, X_OK))
		return 0;
	/* base_dir is compared with the real paths make hands the compiler */
	root = realpath(dir ? dir : ".", NULL);
	if (!root)
		return error("cannot find the state root '%s': %s", dir ? dir : ".", strerror(errno));
	strbuf_addf(&path, "%s/ccache", root);
	if (mkdir(path.buf, 0755) && errno != EEXIST) {
		error("cannot create directory '%s': %s", path.buf, strerror(errno));
		goto out;
	}
	/* the logs of labs killed by SIGKILL */
	tempfile_remove_stale(path.buf, STATS_PREFIX);
	strvec_pushf(&cc->env, "CCACHE_DIR=%s", path.buf);
	strvec_pushf(&cc->env, "CCACHE_BASEDIR=%s", root);
	strvec_push(&cc->env, "CCACHE_NOHASHDIR=1");
	strvec_pushf(&cc->env, "CCACHE_MAXSIZE=%ldMi", max_mib > 0 ? max_mib : CCACHE_DEFAULT_MIB);
	strbuf_addf(&path, "/%s%d-%d.log", STATS_PREFIX, (int)getpid(), ++seq);
	if (tempfile_register(path.buf))
		goto out;
	unlink(path.buf);
	strvec_pushf(&cc->env, "CCACHE_STATSLOG=%s", path.buf);
	cc->stats_log = strbuf_detach(&path);
	cc->program = CCACHE_PROGRAM;
	ret = 0;
out:
	if (ret)
		strvec_release(&cc->env);
	strbuf_release(&path);
	free(root);
	return ret;
}

void ccache_release(struct ccache *cc)
{
	if (cc->stats_log)
		tempfile_delete(cc->stats_log);
	free(cc->stats_log);
	strvec_release(&cc->env);
	memset(cc, 0, sizeof(*cc));
}

/*
 * A record is "# <source>" and then one counter a line: direct_cache_hit
 * or preprocessed_cache_hit for a hit, cache_miss for a miss, others
 * (called_for_link, called_for_preprocessing, the storage counters) for
 * neither.
 */
void ccache_stats_parse(struct ccache_stats *out, const char *log)
{
	const char *p = log;

	out->hits = out->misses = 0;
	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if ((len == 16 && !strncmp(p, "direct_cache_hit", len)) ||
		    (len == 22 && !strncmp(p, "preprocessed_cache_hit", len)))
			out->hits++;
		else if (len == 10 && !strncmp(p, "cache_miss", len))
			out->misses++;
		p += len + (p[len] == '\n');
	}
}

void ccache_stats_read(struct ccache_stats *out, const struct ccache *cc)
{
	struct strbuf text = STRBUF_INIT;

	out->hits = out->misses = 0;
	if (cc->stats_log && !strbuf_read_file(&text, cc->stats_log, 0))
		ccache_stats_parse(out, strbuf_str(&text));
	strbuf_release(&text);
}
