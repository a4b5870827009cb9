#ifndef STORE_FIXTURE_H
#define STORE_FIXTURE_H
/*
 * What the C tests of the store share: a new database in a directory of
 * its own, a boot stored through the store's own writers, one number read
 * back with plain SQL, and the directory gone at the end.
 *
 *   struct store_fixture fx;
 *   if (store_fixture_open(&fx, &st)) return 1;
 *   id = store_fixture_boot(&st, exp, vid, 0, "", 1024, RUN_OK, 100, 3);
 *   is_int(store_fixture_int(&st, "SELECT count(*) FROM runs"), 1, "...");
 *   store_close(&st); store_fixture_remove(&fx);
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "store-private.h"
#include "store.h"

struct store_fixture {
	char dir[64];
	char path[128];		/* dir/lab.db */
};

/* 0 with st open on a new database; -1 when the directory or the database cannot be made. */
static inline int store_fixture_open(struct store_fixture *fx, struct store *st)
{
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/lab-store-test.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/lab.db", fx->dir);
	return store_open(st, fx->path);
}

/*
 * A boot of variant vid (0 and 0: of no experiment) on kernel (0: none) at
 * mem MiB, ended with status: n samples of zeroing.touch (base, base + 1,
 * ...), the first a warm-up, and the release 6.1.0-test. Its run id; 0 when
 * it could not be stored.
 */
static inline long long store_fixture_boot(struct store *st, long long exp, long long vid,
					   long long kernel, const char *cmdline, long mem,
					   enum run_status status, double base, int n)
{
	struct run_row row = { .kernel_id = kernel, .experiment_id = exp, .variant_id = vid,
			       .runner = "local", .workloads = "zeroing", .cmdline = cmdline,
			       .mem_mib = mem, .cpus = 1 };
	struct sample s = { "zeroing", "touch", "us", 0, 0, 0 };
	struct run_result res;
	long long id = 0;

	run_result_init(&res);
	res.status = status;
	for (int i = 0; i < n; i++) {
		s.iteration = i;
		s.value = base + i;
		s.flags = i ? 0 : SAMPLE_WARMUP;
		sample_set_add(&res.set, &s);
	}
	sample_set_meta(&res.set, "kernel.release", "6.1.0-test");
	if (store_run_begin(st, &id, &row) || store_run_finish(st, id, &res, NULL))
		id = 0;
	run_result_release(&res);
	return id;
}

/* The first column of the first row of sql; -1 when there is none. */
static inline long long store_fixture_int(struct store *st, const char *sql)
{
	sqlite3_stmt *q = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(st->conn->db, sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* The directory and the database in it removed; 0, or -1 when that failed. */
static inline int store_fixture_remove(const struct store_fixture *fx)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	return system(cmd) ? -1 : 0;
}

#endif
