#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitutil.h"
#include "image.h"
#include "regfile.h"
#include "store-private.h"
#include "store-spool.h"
#include "tap.h"

static long long one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q = NULL;
	long long v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static const char *one_text(sqlite3 *db, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *q = NULL;
	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/lab-store-XXXXXX", path[256], kpath[256], buf[256];
	struct store st;
	struct run_row row = { .runner = "qemu", .workloads = "zeroing", .cmdline = "",
			       .mem_mib = 2048, .cpus = 1 };
	struct run_result res;
	struct sample s = { "zeroing", "touch", "us", 0, 185.5, 1 };
	struct kernel_image k;
	long long kid = 0, kid2 = 0, rid = 0;
	FILE *f;

	if (!mkdtemp(dir) || lab_git_init())
		return 1;
	/* the failures below are expected; their messages are not the test's output */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	snprintf(path, sizeof(path), "%s/lab.db", dir);
	snprintf(kpath, sizeof(kpath), "%s/vmlinuz", dir);
	f = fopen(kpath, "w");
	fputs("hello\n", f);
	fclose(f);

	ok(store_open(&st, path) == 0, "a new database opens");
	is_int(one_int(st.conn->db, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "schema version recorded");
	is_str(one_text(st.conn->db, "PRAGMA journal_mode", buf, sizeof(buf)), "wal", "WAL mode");
	is_int(one_int(st.conn->db, "PRAGMA foreign_keys"), 1, "foreign keys on");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
		       "name IN ('kernels', 'runs', 'samples', 'run_meta', 'experiments', "
		       "'variants', 'verdicts')"), 7, "all tables exist");

	ok(kernel_image_resolve(&k, kpath, 0) == 0, "a program for the local runner resolves");
	ok(store_kernel(&st, &kid, &k) == 0, "kernel recorded");
	ok(store_kernel(&st, &kid2, &k) == 0 && kid == kid2, "same image, same id");
	/* `git hash-object` of "hello\n" */
	is_str(one_text(st.conn->db, "SELECT hash FROM kernels", buf, sizeof(buf)),
	       "ce013625030ba8dba906f756967f9e9ca394464a", "image hashed by content");
	memcpy(k.commit, "0123456789abcdef0123456789abcdef01234567", KERNEL_IMAGE_HASH_LEN + 1);
	ok(store_kernel(&st, &kid2, &k) == 0 && kid == kid2, "built from a commit: still the same id");
	is_str(one_text(st.conn->db, "SELECT git_commit FROM kernels", buf, sizeof(buf)),
	       "0123456789abcdef0123456789abcdef01234567", "the commit it was built from recorded");
	ok(store_kernel_once(&st, &k) == 0 && k.id == kid, "recorded once: its row into the image");
	/* a write now would be a second row: the id it carries is read instead */
	k.hash[0] = 'f';
	ok(store_kernel_once(&st, &k) == 0 && k.id == kid, "an image with its row keeps it");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM kernels"), 1, "and is not written again");
	ok(store_kernel_once(&st, NULL) == 0, "no image: nothing recorded");
	kernel_image_release(&k);

	row.kernel_id = kid;
	ok(store_run_begin(&st, &rid, &row) == 0 && rid > 0, "run begins");
	is_str(one_text(st.conn->db, "SELECT status FROM runs", buf, sizeof(buf)), "RUNNING",
	       "a started run is RUNNING");
	is_int(one_int(st.conn->db, "SELECT pid FROM run_owners WHERE run_id = 1"), getpid(),
	       "this process owns the run");
	run_result_init(&res);
	res.status = RUN_OK;
	for (int i = 0; i < 100; i++) {
		s.iteration = i;
		s.flags = i == 0;
		sample_set_add(&res.set, &s);
	}
	sample_set_meta(&res.set, "kernel.release", "6.1.0-test");
	ok(store_run_finish(&st, rid, &res, "/tmp/x.log") == 0, "run finishes");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM run_owners"), 0, "a finished run has no owner");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 1"), 100, "100 samples stored");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE flags = 1"), 1, "warm-up flagged");
	is_str(one_text(st.conn->db, "SELECT status FROM runs", buf, sizeof(buf)), "OK", "status OK");
	is_str(one_text(st.conn->db, "SELECT value FROM run_meta WHERE key = 'kernel.release'", buf,
			sizeof(buf)), "6.1.0-test", "metadata stored");
	is_str(one_text(st.conn->db, "SELECT release FROM kernels", buf, sizeof(buf)), "6.1.0-test",
	       "the kernel's release, as its boot said");
	ok(sqlite3_exec(st.conn->db, "INSERT INTO samples(run_id, workload, metric, iteration, value, unit) "
			"VALUES (999, 'x', 'y', 0, 1, 'us')", NULL, NULL, NULL) != SQLITE_OK,
	   "foreign keys enforced");

	/* a failing finish leaves no half-written boot */
	sqlite3_exec(st.conn->db, "CREATE TRIGGER no_more BEFORE INSERT ON samples WHEN NEW.iteration = 50 "
		     "BEGIN SELECT RAISE(ABORT, 'disk full'); END", NULL, NULL, NULL);
	ok(store_run_begin(&st, &rid, &row) == 0, "second run begins");
	ok(store_run_finish(&st, rid, &res, NULL) != 0, "finish fails midway");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM samples"), 100, "no samples of the failed boot");
	is_str(one_text(st.conn->db, "SELECT status FROM runs WHERE id = 2", buf, sizeof(buf)), "INFRA",
	       "the failed boot is not left RUNNING");
	is_str(one_text(st.conn->db, "SELECT error FROM runs WHERE id = 2", buf, sizeof(buf)),
	       "results not stored (constraint failed): lost", "its reason: no log, no spool file");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM run_owners"), 0, "nor owned");

	/* with a console log, the result is kept whole beside it and imported later */
	{
		char log[300], spool[300];

		snprintf(log, sizeof(log), "%s/run-3.log", dir);
		snprintf(spool, sizeof(spool), "%s/run-3.spool", dir);
		strbuf_addstr(&res.error, "two\tlines\nand a \\ backslash");
		strbuf_addstr(&res.tail, "console\nend");
		run_result_drop(&res, "a reason", "@lab bad\tline", 14);
		run_result_add_profile(&res, "zeroing", "clear_page", 7, 1234.5);
		res.wall_s = 1.0 / 3;
		ok(store_run_begin(&st, &rid, &row) == 0 && rid == 3, "third run begins");
		ok(store_run_finish(&st, rid, &res, log) != 0, "its finish fails too");
		ok(access(spool, F_OK) == 0, "its result is in run-3.spool");
		is_str(one_text(st.conn->db, "SELECT status FROM runs WHERE id = 3", buf, sizeof(buf)),
		       "INFRA", "the run is INFRA meanwhile");
		sqlite3_exec(st.conn->db, "DROP TRIGGER no_more", NULL, NULL, NULL);
		ok(store_spool_import(&st, dir) == 0, "the spool is imported");
		ok(access(spool, F_OK) != 0, "and removed");
		is_str(one_text(st.conn->db, "SELECT status FROM runs WHERE id = 3", buf, sizeof(buf)),
		       "OK", "the run ends as it did");
		is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 3"), 100,
		       "with its 100 samples");
		is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 3 AND "
			       "flags = 1 AND iteration = 0"), 1, "the warm-up flag kept");
		is_str(one_text(st.conn->db, "SELECT error FROM runs WHERE id = 3", buf, sizeof(buf)),
		       "two\tlines\nand a \\ backslash", "tabs, newlines and backslashes kept");
		is_str(one_text(st.conn->db, "SELECT console_log FROM runs WHERE id = 3", buf,
				sizeof(buf)), log, "the console log");
		is_str(one_text(st.conn->db, "SELECT line FROM dropped_lines WHERE run_id = 3", buf,
				sizeof(buf)), "@lab bad\tline", "a dropped line");
		is_int(one_int(st.conn->db, "SELECT bad_lines FROM runs WHERE id = 3"), 1,
		       "counted once");
		is_int(one_int(st.conn->db, "SELECT calls FROM profiles WHERE run_id = 3"), 7,
		       "the profile");
		is_str(one_text(st.conn->db, "SELECT wall_s = 1.0 / 3 FROM runs WHERE id = 3", buf,
				sizeof(buf)), "1", "numbers exactly");
		is_str(one_text(st.conn->db, "SELECT value FROM run_meta WHERE run_id = 3", buf,
				sizeof(buf)), "6.1.0-test", "meta entries");
		ok(store_run_finish_tx(&st, rid, &res, log, 1) == SQLITE_OK &&
		   one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 3") == 100,
		   "an import made twice stores each sample once");
		/* what a lab that imported the spool stored is not marked INFRA after it */
		sqlite3_exec(st.conn->db, "CREATE TRIGGER no_more BEFORE INSERT ON samples WHEN "
			     "NEW.iteration = 50 BEGIN SELECT RAISE(ABORT, 'disk full'); END",
			     NULL, NULL, NULL);
		ok(store_run_finish(&st, rid, &res, log) != 0, "a finish that fails");
		is_str(one_text(st.conn->db, "SELECT status FROM runs WHERE id = 3", buf, sizeof(buf)),
		       "OK", "of a run stored meanwhile leaves it as it was stored");
		sqlite3_exec(st.conn->db, "DROP TRIGGER no_more", NULL, NULL, NULL);
		ok(store_spool_import(&st, dir) == 0 && access(spool, F_OK) == 0,
		   "its spool file is not imported over the stored run, and is left");
		is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 3"), 100,
		       "whose samples stay");
		unlink(spool);

		/* a spool file of another run that had the same id: a database made again */
		snprintf(log, sizeof(log), "%s/run-4.log", dir);
		snprintf(spool, sizeof(spool), "%s/run-4.spool", dir);
		ok(store_run_begin(&st, &rid, &row) == 0 && rid == 4, "fourth run begins");
		sqlite3_exec(st.conn->db, "CREATE TRIGGER no_more BEFORE INSERT ON samples WHEN "
			     "NEW.iteration = 50 BEGIN SELECT RAISE(ABORT, 'disk full'); END",
			     NULL, NULL, NULL);
		ok(store_run_finish(&st, rid, &res, log) != 0 && access(spool, F_OK) == 0,
		   "its finish fails, its result spooled");
		sqlite3_exec(st.conn->db, "DROP TRIGGER no_more", NULL, NULL, NULL);
		sqlite3_exec(st.conn->db, "CREATE TEMP TABLE kept AS SELECT started FROM runs "
			     "WHERE id = 4; UPDATE runs SET started = started + 1 WHERE id = 4",
			     NULL, NULL, NULL);
		ok(store_spool_import(&st, dir) == 0 && access(spool, F_OK) == 0,
		   "a spool file of a run 4 that started at another time is left");
		is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 4"), 0,
		       "and not imported");
		sqlite3_exec(st.conn->db, "UPDATE runs SET started = (SELECT started FROM kept) "
			     "WHERE id = 4", NULL, NULL, NULL);
		/* a result that says RUNNING is no end */
		{
			struct strbuf text = STRBUF_INIT;
			char *at;

			at = strbuf_read_file(&text, spool, 0) ? NULL :
			     strstr(text.buf, "\nrun\t4\t1\t");
			ok(at != NULL, "the spool file has run 4 OK");
			if (at) {
				FILE *out = fopen(spool, "w");

				at[7] = '0';
				fputs(text.buf, out);
				fclose(out);
				at[7] = '1';
			}
			ok(store_spool_import(&st, dir) == 0 && access(spool, F_OK) == 0 &&
			   one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 4") == 0,
			   "a spool file whose run is RUNNING is left");
			if (at) {
				FILE *out = fopen(spool, "w");

				fputs(text.buf, out);
				fclose(out);
			}
			strbuf_release(&text);
		}
		ok(store_spool_import(&st, dir) == 0 && access(spool, F_OK) != 0,
		   "the spool file of this very run 4 is imported");
		is_int(one_int(st.conn->db, "SELECT count(*) FROM samples WHERE run_id = 4"), 100,
		       "with its samples");
		sqlite3_exec(st.conn->db, "DELETE FROM runs WHERE id = 4", NULL, NULL, NULL);
	}
	run_result_release(&res);
	store_close(&st);

	ok(store_open(&st, path) == 0, "reopen");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM samples"), 200, "samples survive reopen");
	/* a version 1 database: no bisection tables yet */
	sqlite3_exec(st.conn->db, "DROP TABLE bisect_steps; DROP TABLE bisections; "
		     "PRAGMA user_version = 1", NULL, NULL, NULL);
	store_close(&st);
	ok(store_open(&st, path) == 0, "a version 1 database opens");
	is_int(one_int(st.conn->db, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "and is upgraded");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
		       "name IN ('bisections', 'bisect_steps')"), 2, "with the bisection tables");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM samples"), 200, "and its samples");
	/* a version 3 database: runs without their clock */
	ok(sqlite3_exec(st.conn->db, "ALTER TABLE runs DROP COLUMN clock; PRAGMA user_version = 3",
			NULL, NULL, NULL) == SQLITE_OK, "a version 3 database made");
	store_close(&st);
	ok(store_open(&st, path) == 0, "a version 3 database opens");
	is_int(one_int(st.conn->db, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "and is upgraded");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM runs WHERE clock = 'wall'"),
	       one_int(st.conn->db, "SELECT count(*) FROM runs"), "its runs were measured in wall time");
	store_close(&st);
	ok(store_open(&st, path) == 0, "the upgraded database opens again");
	sqlite3_exec(st.conn->db, "PRAGMA user_version = 3", NULL, NULL, NULL);
	store_close(&st);
	ok(store_open(&st, path) == 0, "an upgrade that finds the column there adds nothing");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'clock'"),
	       1, "one clock column");
	/* a version 13 database: bisections with their unused args column */
	ok(sqlite3_exec(st.conn->db, "ALTER TABLE bisections ADD COLUMN args TEXT NOT NULL "
			"DEFAULT ''; PRAGMA user_version = 13", NULL, NULL, NULL) == SQLITE_OK,
	   "a version 13 database made");
	store_close(&st);
	ok(store_open(&st, path) == 0, "a version 13 database opens");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM pragma_table_info('bisections') "
		       "WHERE name = 'args'"), 0, "and loses bisections.args");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM samples"), 200, "and keeps its samples");
	sqlite3_exec(st.conn->db, "PRAGMA user_version = 99", NULL, NULL, NULL);
	store_close(&st);
	ok(store_open(&st, path) != 0, "a newer schema version is refused");

	snprintf(path, sizeof(path), "%s/corrupt.db", dir);
	f = fopen(path, "w");
	for (int i = 0; i < 200; i++)
		fputs("this is not a database, whatever its name says\n", f);
	fclose(f);
	ok(store_open(&st, path) != 0, "a corrupt file is refused");

	snprintf(path, sizeof(path), "%s/missing-dir/lab.db", dir);
	ok(store_open(&st, path) != 0, "a path that cannot be created is refused");

	/* a COMMIT that fails (a deferred constraint, a full disk) leaves nothing open */
	snprintf(path, sizeof(path), "%s/commit.db", dir);
	ok(store_open(&st, path) == 0, "another database opens");
	sqlite3_exec(st.conn->db, "PRAGMA defer_foreign_keys = ON", NULL, NULL, NULL);
	ok(store_begin(&st) == 0 &&
	   sqlite3_exec(st.conn->db, "INSERT INTO run_meta(run_id, key, value) VALUES (999, 'k', 'v')",
			NULL, NULL, NULL) == SQLITE_OK, "a row breaking a deferred foreign key");
	ok(store_commit(&st) != 0, "its commit fails");
	ok(sqlite3_get_autocommit(st.conn->db), "and no transaction is left open");
	is_int(one_int(st.conn->db, "SELECT count(*) FROM run_meta"), 0, "nothing of it is kept");
	store_close(&st);

	snprintf(path, sizeof(path), "%s/no-such-dir/lab.db", dir);
	ok(store_open_read(&st, path) != 0, "reading a missing database fails");
	snprintf(path, sizeof(path), "%s/no-such-dir", dir);
	ok(access(path, F_OK) != 0, "and creates nothing");

	/* what each stored clock is called in tables and pages */
	{
		static const char *const clocks[][2] = {
			{ "wall", "wall time" },
			{ "", "wall time" },
			{ "icount shift=0", "virtual time: instructions at 1 GHz" },
			{ "icount shift=1", "virtual time: instructions at 500 MHz (2 ns each)" },
			{ "icount shift=10", "virtual time: instructions at 0.976562 MHz (1024 ns each)" },
		};
		for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
			struct strbuf words = STRBUF_INIT;
			clock_words(&words, clocks[i][0]);
			is_str(words.buf, clocks[i][1], clocks[i][0][0] ? clocks[i][0] : "no clock");
			strbuf_release(&words);
		}
	}

	lab_git_shutdown();
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		return 1;
	return done_testing();
}
