/*
 * Benchmark for web/report.c (numbers to read, not a test): the site of a
 * database of 1,000 A/B experiments holding 1,000,000 samples, against the
 * goals of 3 s for the whole site and 300 KB for its largest page.
 *
 * The database is written straight through sqlite in one transaction, in
 * the shape the lab leaves behind: each experiment compares one of ten
 * release kernels (A, each the base of a hundred experiments) with a
 * kernel of its own (B), in ten interleaved boots of two workloads with
 * two metrics each, 25 iterations per metric and boot, the zeroing
 * workload's first iteration a warm-up. Every 20th experiment is a sweep
 * over two memory sizes, every 10th run keeps a console log file.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rng.h"
#include "context.h"
#include "host.h"
#include "report.h"
#include "store.h"
#include "strbuf.h"
#include "subprocess.h"

#define EXPERIMENTS	1000
#define BASES		10
#define BOOTS		10		/* per experiment, both variants */
#define ITERS		25		/* per metric and boot */
#define GOAL_S		3.0
#define GOAL_PAGE	(300 * 1024)

static const struct {
	const char *workload, *metric, *unit;
	double scale;
} metrics[] = {
	{ "zeroing", "t", "ms", 120 },
	{ "zeroing", "fault_ns", "ns", 2400 },
	{ "boot", "to_init", "s", 1.9 },
	{ "boot", "to_userspace", "s", 2.6 },
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static void hex(char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = "0123456789abcdef"[rng_u64() & 15];
	out[n] = '\0';
}

static int check(sqlite3 *db, int rc, const char *what)
{
	if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	fprintf(stderr, "bench-report: %s: %s\n", what, sqlite3_errmsg(db));
	return -1;
}

/* Prepared inserts, one per table the generator fills. */
enum { I_KERNEL, I_EXP, I_VARIANT, I_RUN, I_META, I_SAMPLE, I_VERDICT, I_N };
static const char *const insert_sql[I_N] = {
	"INSERT INTO kernels (id, path, hash, arch, release, git_commit, created) "
	"VALUES (?1, ?2, ?3, 'x86_64', ?4, ?5, ?6)",
	"INSERT INTO experiments (id, kind, command, workloads, status, created, finished) "
	"VALUES (?1, 'ab', ?2, 'zeroing,boot', 'DONE', ?3, ?4)",
	"INSERT INTO variants (id, experiment_id, name, kernel_id, cmdline, git_ref) "
	"VALUES (?1, ?2, ?3, ?4, 'nokaslr', ?5)",
	"INSERT INTO runs (id, kernel_id, experiment_id, variant_id, runner, workloads, params, "
	"cmdline, mem_mib, cpus, accel, host, host_cpu, qemu_version, started, ended, status, "
	"console_log, wall_s, to_hello_s) VALUES (?1, ?2, ?3, ?4, 'qemu', 'zeroing,boot', "
	"'lab.iters=25', 'console=ttyS0 nokaslr', ?5, 2, 'kvm', 'bench', 'AMD EPYC 7B13', "
	"'7.2.11', ?6, ?7, 'OK', ?8, 9.5, 1.1)",
	"INSERT INTO run_meta (run_id, key, value) VALUES (?1, ?2, ?3)",
	"INSERT INTO samples (run_id, workload, metric, iteration, value, unit, flags) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	"INSERT INTO verdicts (experiment_id, workload, metric, unit, mem_mib, cpus, direction, "
	"unit_compared, n_a, n_b, mean_a, mean_b, std_a, std_b, median_a, median_b, ratio, "
	"ci_low, ci_high, p, p_adjusted, alpha, delta, mde, verdict) VALUES (?1, ?2, ?3, ?4, "
	"?5, 2, 'lower', 'samples', ?6, ?6, ?7, ?8, ?9, ?10, ?7, ?8, ?11, ?12, ?13, ?14, ?14, "
	"0.05, 0.02, 0.012, ?15)",
};

static int step(sqlite3 *db, sqlite3_stmt *q, const char *what)
{
	int rc = sqlite3_step(q);

	sqlite3_reset(q);
	return check(db, rc, what);
}

static int write_log(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (int i = 0; i < 200; i++)
		fprintf(f, "[    %d.%06d] bench console line %d of a boot\n", i / 50, i * 4999 % 1000000, i);
	return fclose(f);
}

static int generate(sqlite3 *db, const char *dir, long *nsamples)
{
	sqlite3_stmt *q[I_N] = { NULL };
	struct strbuf sb = STRBUF_INIT, log = STRBUF_INIT;
	const double t0 = 1767225600;	/* 2026-01-01 */
	long long run_id = 0;
	char h[41];
	int ret = -1;

	for (int i = 0; i < I_N; i++)
		if (check(db, sqlite3_prepare_v2(db, insert_sql[i], -1, &q[i], NULL), insert_sql[i]))
			goto out;
	if (check(db, sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), "begin"))
		goto out;
	for (int k = 1; k <= BASES + EXPERIMENTS; k++) {
		strbuf_reset(&sb);
		hex(h, 20);
		strbuf_addf(&sb, "/var/lib/lab/artifacts/%s/bzImage", h);
		sqlite3_bind_int(q[I_KERNEL], 1, k);
		sqlite3_bind_text(q[I_KERNEL], 2, sb.buf, -1, SQLITE_TRANSIENT);
		hex(h, 40);
		sqlite3_bind_text(q[I_KERNEL], 3, h, -1, SQLITE_TRANSIENT);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "6.%d.0-lab%d", 8 + k % 5, k);
		sqlite3_bind_text(q[I_KERNEL], 4, sb.buf, -1, SQLITE_TRANSIENT);
		hex(h, 40);
		sqlite3_bind_text(q[I_KERNEL], 5, h, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(q[I_KERNEL], 6, t0 + k);
		if (step(db, q[I_KERNEL], "kernel"))
			goto out;
	}
	for (int e = 1; e <= EXPERIMENTS; e++) {
		double start = t0 + 3600.0 * e;
		double shift = 1 + 0.04 * rng_normal();
		int sweep = e % 20 == 0, points = sweep ? 2 : 1;
		int kernel[2] = { 1 + (e - 1) % BASES, BASES + e };

		strbuf_reset(&sb);
		strbuf_addf(&sb, "lab ab --a v6.%d --b bench-%d --workload zeroing,boot --boots %d%s",
			    8 + kernel[0] % 5, e, BOOTS / points, sweep ? " --mem 2G,8G" : " --mem 2G");
		sqlite3_bind_int(q[I_EXP], 1, e);
		sqlite3_bind_text(q[I_EXP], 2, sb.buf, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(q[I_EXP], 3, start);
		sqlite3_bind_double(q[I_EXP], 4, start + 12 * BOOTS);
		if (step(db, q[I_EXP], "experiment"))
			goto out;
		for (int v = 0; v < 2; v++) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, v ? "bench-%d" : "v6.%d", v ? e : 8 + kernel[0] % 5);
			sqlite3_bind_int(q[I_VARIANT], 1, 2 * e - 1 + v);
			sqlite3_bind_int(q[I_VARIANT], 2, e);
			sqlite3_bind_text(q[I_VARIANT], 3, v ? "B" : "A", -1, SQLITE_STATIC);
			sqlite3_bind_int(q[I_VARIANT], 4, kernel[v]);
			sqlite3_bind_text(q[I_VARIANT], 5, sb.buf, -1, SQLITE_TRANSIENT);
			if (step(db, q[I_VARIANT], "variant"))
				goto out;
		}
		for (int b = 0; b < BOOTS; b++) {
			int point = b * points / BOOTS, v = (b + b / 2) % 2;	/* ABBA */
			long mem = point ? 8192 : 2048;
			double scale = v ? shift : 1;

			run_id++;
			sqlite3_bind_int64(q[I_RUN], 1, run_id);
			sqlite3_bind_int(q[I_RUN], 2, kernel[v]);
			sqlite3_bind_int(q[I_RUN], 3, e);
			sqlite3_bind_int(q[I_RUN], 4, 2 * e - 1 + v);
			sqlite3_bind_int64(q[I_RUN], 5, mem);
			sqlite3_bind_double(q[I_RUN], 6, start + 12 * b);
			sqlite3_bind_double(q[I_RUN], 7, start + 12 * b + 9.5);
			if (run_id % 10 == 0) {
				strbuf_reset(&log);
				strbuf_addf(&log, "%s/logs/run-%lld.log", dir, run_id);
				if (write_log(log.buf)) {
					fprintf(stderr, "bench-report: cannot write '%s': %s\n", log.buf,
						strerror(errno));
					goto out;
				}
				sqlite3_bind_text(q[I_RUN], 8, log.buf, -1, SQLITE_TRANSIENT);
			} else {
				sqlite3_bind_null(q[I_RUN], 8);
			}
			if (step(db, q[I_RUN], "run"))
				goto out;
			for (int m = 0; m < 2; m++) {
				sqlite3_bind_int64(q[I_META], 1, run_id);
				sqlite3_bind_text(q[I_META], 2, m ? "thp.enabled" : "kernel.release", -1,
						  SQLITE_STATIC);
				sqlite3_bind_text(q[I_META], 3, m ? "always" : "6.10.0-lab", -1, SQLITE_STATIC);
				if (step(db, q[I_META], "run_meta"))
					goto out;
			}
			for (size_t m = 0; m < NMETRICS; m++)
				for (int it = 0; it < ITERS; it++) {
					int warm = it == 0 && !strcmp(metrics[m].workload, "zeroing");
					double x = metrics[m].scale * scale * (1 + 0.2 * point) *
						   exp(0.03 * rng_normal()) * (warm ? 1.3 : 1);

					sqlite3_bind_int64(q[I_SAMPLE], 1, run_id);
					sqlite3_bind_text(q[I_SAMPLE], 2, metrics[m].workload, -1, SQLITE_STATIC);
					sqlite3_bind_text(q[I_SAMPLE], 3, metrics[m].metric, -1, SQLITE_STATIC);
					sqlite3_bind_int(q[I_SAMPLE], 4, it);
					sqlite3_bind_double(q[I_SAMPLE], 5, x);
					sqlite3_bind_text(q[I_SAMPLE], 6, metrics[m].unit, -1, SQLITE_STATIC);
					sqlite3_bind_int(q[I_SAMPLE], 7, warm);
					if (step(db, q[I_SAMPLE], "sample"))
						goto out;
					(*nsamples)++;
				}
		}
		/* Verdicts carry plausible numbers; the report only shows them. */
		for (int p = 0; p < points; p++)
			for (size_t m = 0; m < NMETRICS; m++) {
				double a = metrics[m].scale * (1 + 0.2 * p), r = shift;
				const char *verdict = r > 1.02 ? "REGRESSION" : r < 0.98 ? "IMPROVEMENT" : "SAME";

				sqlite3_bind_int(q[I_VERDICT], 1, e);
				sqlite3_bind_text(q[I_VERDICT], 2, metrics[m].workload, -1, SQLITE_STATIC);
				sqlite3_bind_text(q[I_VERDICT], 3, metrics[m].metric, -1, SQLITE_STATIC);
				sqlite3_bind_text(q[I_VERDICT], 4, metrics[m].unit, -1, SQLITE_STATIC);
				sqlite3_bind_int(q[I_VERDICT], 5, p ? 8192 : 2048);
				sqlite3_bind_int(q[I_VERDICT], 6, BOOTS / points / 2 * ITERS);
				sqlite3_bind_double(q[I_VERDICT], 7, a);
				sqlite3_bind_double(q[I_VERDICT], 8, a * r);
				sqlite3_bind_double(q[I_VERDICT], 9, 0.03 * a);
				sqlite3_bind_double(q[I_VERDICT], 10, 0.03 * a * r);
				sqlite3_bind_double(q[I_VERDICT], 11, r);
				sqlite3_bind_double(q[I_VERDICT], 12, r - 0.01);
				sqlite3_bind_double(q[I_VERDICT], 13, r + 0.01);
				sqlite3_bind_double(q[I_VERDICT], 14, fabs(r - 1) > 0.01 ? 1e-4 : 0.4);
				sqlite3_bind_text(q[I_VERDICT], 15, verdict, -1, SQLITE_STATIC);
				if (step(db, q[I_VERDICT], "verdict"))
					goto out;
			}
	}
	if (check(db, sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit"))
		goto out;
	ret = 0;
out:
	for (int i = 0; i < I_N; i++)
		sqlite3_finalize(q[i]);
	strbuf_release(&sb);
	strbuf_release(&log);
	return ret;
}

/* The largest file directly in dir; its name goes to name. */
static long largest_page(const char *dir, struct strbuf *name, long *files)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	long max = -1;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, de->d_name);
		if (stat(path.buf, &st) || !S_ISREG(st.st_mode))
			continue;
		(*files)++;
		if (st.st_size > max) {
			max = st.st_size;
			strbuf_reset(name);
			strbuf_addstr(name, de->d_name);
		}
	}
	closedir(d);
	strbuf_release(&path);
	return max;
}

static int site(double *secs, struct report_stats *stats, struct store *st,
		const struct report_options *opt)
{
	double t = now_monotonic();
	int ret = report_write_site(stats, st, opt);

	*secs = now_monotonic() - t;
	return ret;
}

int main(void)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, css = STRBUF_INIT, big = STRBUF_INIT;
	struct strbuf logs = STRBUF_INIT;
	struct report_options opt = { 0 };
	struct report_stats stats[2];
	struct store st = { 0 }, rd = { 0 };
	sqlite3 *db = NULL;
	double gen, t[2];
	long nsamples = 0, files = 0, max;
	char tmpl[] = "/tmp/lab-bench-report.XXXXXX";
	int ret = 1;

	rng_seed(0x243f6a8885a308d3ULL);
	if (!mkdtemp(tmpl)) {
		perror("bench-report: mkdtemp");
		return 1;
	}
	strbuf_addstr(&dir, tmpl);
	strbuf_addf(&path, "%s/logs", dir.buf);
	if (mkdir(path.buf, 0755)) {
		perror("bench-report: mkdir");
		goto out;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/lab.db", dir.buf);
	gen = now_monotonic();
	/* the lab makes the schema; the rows come through a connection of the bench's own */
	if (store_open(&st, path.buf))
		goto out;
	store_close(&st);
	if (sqlite3_open(path.buf, &db) != SQLITE_OK || generate(db, dir.buf, &nsamples))
		goto out;
	sqlite3_close(db);
	db = NULL;
	gen = now_monotonic() - gen;

	if (store_open_read(&rd, path.buf))
		goto out;
	/* lab_source_dir() is two up from the binary: build/ for build/bench/bench-report */
	strbuf_addf(&css, "%s/../web/style.css", lab_source_dir());
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/site", dir.buf);
	opt.out_dir = path.buf;
	opt.css_path = css.buf;
	strbuf_addf(&logs, "%s/logs", dir.buf);
	opt.log_dir = logs.buf;
	opt.recent = 50;
	if (site(&t[0], &stats[0], &rd, &opt) || site(&t[1], &stats[1], &rd, &opt))
		goto out;
	max = largest_page(path.buf, &big, &files);

	printf("database: %d experiments, %ld samples, written in %.1f s\n", EXPERIMENTS, nsamples,
	       gen);
	printf("site from scratch: %.2f s, %d file(s) (goal <= %.0f s: %s)\n", t[0],
	       stats[0].written, GOAL_S, t[0] <= GOAL_S ? "met" : "MISSED");
	printf("site again, nothing changed: %.2f s, %d unchanged (goal <= %.0f s: %s)\n", t[1],
	       stats[1].unchanged, GOAL_S, t[1] <= GOAL_S ? "met" : "MISSED");
	printf("largest page: %s, %.1f KB of %ld pages (goal < %d KB: %s)\n", big.buf,
	       (double)max / 1024, files, GOAL_PAGE / 1024, max < GOAL_PAGE ? "met" : "MISSED");
	ret = 0;
out:
	sqlite3_close(db);
	store_close(&st);
	store_close(&rd);
	if (!getenv("LAB_BENCH_KEEP")) {
		char *rm[] = { "rm", "-rf", dir.buf, NULL };
		subprocess_run(rm, NULL, NULL, 0);
	} else {
		printf("kept %s\n", dir.buf);
	}
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&css);
	strbuf_release(&logs);
	strbuf_release(&big);
	return ret;
}
