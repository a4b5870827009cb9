/* The A/B report: stored verdicts as text (the seeds' tables), CSV or JSON. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab.h"
#include "escape.h"
#include "log.h"
#include "store.h"

static void json_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

#define VERDICT_COLUMNS \
	"workload, metric, unit, mem_mib, cpus, direction, unit_compared, n_a, n_b, " \
	"mean_a, mean_b, std_a, std_b, median_a, median_b, ratio, ci_low, ci_high, p, " \
	"p_adjusted, alpha, delta, mde, verdict"
enum { C_WORKLOAD, C_METRIC, C_UNIT, C_MEM, C_CPUS, C_DIRECTION, C_COMPARED, C_NA, C_NB,
       C_MEAN_A, C_MEAN_B, C_STD_A, C_STD_B, C_MEDIAN_A, C_MEDIAN_B, C_RATIO, C_LO, C_HI,
       C_P, C_PADJ, C_ALPHA, C_DELTA, C_MDE, C_VERDICT, C_COUNT };
static const char *const column_names[C_COUNT] = {
	"workload", "metric", "unit", "mem_mib", "cpus", "direction", "unit_compared", "n_a",
	"n_b", "mean_a", "mean_b", "std_a", "std_b", "median_a", "median_b", "ratio", "ci_low",
	"ci_high", "p", "p_adjusted", "alpha", "delta", "mde", "verdict",
};

static int is_text_column(int i)
{
	return i <= C_UNIT || i == C_DIRECTION || i == C_COMPARED || i == C_VERDICT;
}

static void print_metric_text(FILE *f, sqlite3_stmt *q, const char *clock)
{
	const char *unit = store_text(q, C_UNIT);
	double ratio = store_num(q, C_RATIO);
	char ci[32];

	fprintf(f, "\n%s.%s (%s, %s is better; %lldM, %d cpu%s; compared: %s; %s)\n",
		store_text(q, C_WORKLOAD), store_text(q, C_METRIC), unit, store_text(q, C_DIRECTION),
		sqlite3_column_int64(q, C_MEM), sqlite3_column_int(q, C_CPUS),
		sqlite3_column_int(q, C_CPUS) == 1 ? "" : "s", store_text(q, C_COMPARED), clock);
	fprintf(f, "  %-22s %16s %16s\n", "", "A", "B");
	fprintf(f, "  %-22s %16d %16d\n", "Number of iterations:", sqlite3_column_int(q, C_NA),
		sqlite3_column_int(q, C_NB));
	fprintf(f, "  %-22s %13.6g %-2s %13.6g %-2s\n", "Mean:", store_num(q, C_MEAN_A), unit,
		store_num(q, C_MEAN_B), unit);
	fprintf(f, "  %-22s %13.6g %-2s %13.6g %-2s\n", "std deviation:", store_num(q, C_STD_A), unit,
		store_num(q, C_STD_B), unit);
	fprintf(f, "  %-22s %13.6g %-2s %13.6g %-2s\n", "median:", store_num(q, C_MEDIAN_A), unit,
		store_num(q, C_MEDIAN_B), unit);
	stats_ci_label(ci, sizeof(ci), store_num(q, C_ALPHA));
	if (isfinite(ratio))
		fprintf(f, "  B/A %.4f (%+.2f %%), %s [%.4f, %.4f], p %.3g (adjusted %.3g), "
			"MDE %.2f %%\n", ratio, 100 * (ratio - 1), ci, store_num(q, C_LO),
			store_num(q, C_HI), store_num(q, C_P), store_num(q, C_PADJ),
			100 * store_num(q, C_MDE));
	else
		fprintf(f, "  not compared: a side has values that are not all positive\n");
	fprintf(f, "  verdict: %s (alpha %.3g, delta %.3g %%)\n", store_text(q, C_VERDICT),
		store_num(q, C_ALPHA), 100 * store_num(q, C_DELTA));
}

/* Seed 004's layout: a row per variant, a column per memory size, % against A. */
static int print_sweep(FILE *f, struct store *st, long long exp_id, const char *clock)
{
	sqlite3_stmt *m = NULL, *q = NULL;
	int ret = -1, rc;

	if (sqlite3_prepare_v2(st->db, "SELECT DISTINCT workload, metric, unit, cpus FROM verdicts "
			       "WHERE experiment_id = ?1 ORDER BY workload, metric, cpus", -1, &m,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "SELECT mem_mib, median_a, median_b, verdict FROM verdicts "
			       "WHERE experiment_id = ?1 AND workload = ?2 AND metric = ?3 AND "
			       "cpus = ?4 ORDER BY mem_mib", -1, &q, NULL) != SQLITE_OK) {
		store_error(st, "cannot read verdicts");
		goto out;
	}
	sqlite3_bind_int64(m, 1, exp_id);
	while ((rc = sqlite3_step(m)) == SQLITE_ROW) {
		char row[3][1024];
		size_t len[3] = { 0, 0, 0 };

		for (int r = 0; r < 3; r++)
			row[r][0] = '\0';
		sqlite3_bind_int64(q, 1, exp_id);
		sqlite3_bind_text(q, 2, store_text(m, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(q, 3, store_text(m, 1), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(q, 4, sqlite3_column_int64(m, 3));
		len[0] = (size_t)snprintf(row[0], sizeof(row[0]), "  %-10s", "A");
		len[1] = (size_t)snprintf(row[1], sizeof(row[1]), "  %-10s", "B");
		len[2] = (size_t)snprintf(row[2], sizeof(row[2]), "  %-10s", "verdict");
		fprintf(f, "\n%s.%s, median %s, %d cpu(s), %s: a row per variant, a column per memory size\n  %-10s",
			store_text(m, 0), store_text(m, 1), store_text(m, 2), sqlite3_column_int(m, 3),
			clock, "");
		while (sqlite3_step(q) == SQLITE_ROW) {
			double a = store_num(q, 1), b = store_num(q, 2);
			char head[32];
			snprintf(head, sizeof(head), "%lldM", sqlite3_column_int64(q, 0));
			fprintf(f, " %20s", head);
			if (len[0] < sizeof(row[0]))
				len[0] += (size_t)snprintf(row[0] + len[0], sizeof(row[0]) - len[0],
							   " %20.6g", a);
			if (len[1] < sizeof(row[1]))
				len[1] += (size_t)snprintf(row[1] + len[1], sizeof(row[1]) - len[1],
							   " %11.6g %+7.1f%%", b, 100 * (b / a - 1));
			if (len[2] < sizeof(row[2]))
				len[2] += (size_t)snprintf(row[2] + len[2], sizeof(row[2]) - len[2],
							   " %20s", store_text(q, 3));
		}
		sqlite3_reset(q);
		fprintf(f, "\n%s\n%s\n%s\n", row[0], row[1], row[2]);
	}
	ret = rc == SQLITE_DONE ? 0 : store_error(st, "cannot read verdicts");
out:
	sqlite3_finalize(m);
	sqlite3_finalize(q);
	return ret;
}

/*
 * What the experiment is: as text, the lines above the verdicts; as JSON,
 * the object's fields before "verdicts" (the object is left open).
 */
static int print_header(FILE *f, struct store *st, long long exp_id, int *points,
			const char *clock, enum ab_format fmt)
{
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;

	if (sqlite3_prepare_v2(st->db, "SELECT e.status, e.workloads, e.command, "
			       "(SELECT count(DISTINCT mem_mib || ',' || cpus) FROM verdicts "
			       "WHERE experiment_id = e.id), (SELECT count(*) FROM runs WHERE "
			       "experiment_id = e.id AND status = 'OK'), (SELECT count(*) FROM runs "
			       "WHERE experiment_id = e.id AND status != 'OK') "
			       "FROM experiments e WHERE e.id = ?1", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read experiment");
	sqlite3_bind_int64(q, 1, exp_id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		error("no experiment %lld in database '%s'", exp_id, st->path);
		goto out;
	}
	*points = sqlite3_column_int(q, 3);
	if (fmt == AB_JSON) {
		fprintf(f, "{\"experiment\": %lld, \"status\": ", exp_id);
		escape_json(f, store_text(q, 0));
		fputs(", \"workloads\": ", f);
		escape_json(f, store_text(q, 1));
		fputs(", \"command\": ", f);
		escape_json(f, store_text(q, 2));
		fprintf(f, ", \"boots_ok\": %d, \"boots_failed\": %d, \"clock\": ",
			sqlite3_column_int(q, 4), sqlite3_column_int(q, 5));
		escape_json(f, clock);
		fputs(", \"variants\": [", f);
	} else {
		fprintf(f, "experiment E%lld (%s): workloads %s; %d boots OK, %d failed\n", exp_id,
			store_text(q, 0), store_text(q, 1), sqlite3_column_int(q, 4),
			sqlite3_column_int(q, 5));
		fprintf(f, "  command: %s\n", store_text(q, 2));
		fprintf(f, "  clock: %s\n", clock);
	}
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(st->db, "SELECT v.name, COALESCE(v.git_ref || ' ' || "
			       "substr(k.git_commit, 1, 12), k.path, '(this host)'), "
			       "COALESCE(substr(k.hash, 1, 12), '-'), v.cmdline FROM variants v "
			       "LEFT JOIN kernels k ON k.id = v.kernel_id WHERE v.experiment_id = ?1 "
			       "ORDER BY v.name", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read experiment");
	sqlite3_bind_int64(q, 1, exp_id);
	for (int i = 0; (rc = sqlite3_step(q)) == SQLITE_ROW; i++) {
		if (fmt != AB_JSON) {
			fprintf(f, "  %s: %s (%s) cmdline '%s'\n", store_text(q, 0), store_text(q, 1),
				store_text(q, 2), store_text(q, 3));
			continue;
		}
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		escape_json(f, store_text(q, 0));
		fputs(", \"kernel\": ", f);
		escape_json(f, store_text(q, 1));
		fputs(", \"hash\": ", f);
		escape_json(f, store_text(q, 2));
		fputs(", \"cmdline\": ", f);
		escape_json(f, store_text(q, 3));
		fputc('}', f);
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read experiment");
		goto out;
	}
	if (fmt == AB_JSON)
		fputs("]", f);
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int ab_format_parse(enum ab_format *out, const char *name)
{
	static const char *const names[] = { "text", "csv", "json" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum ab_format)i;
			return 0;
		}
	return -1;
}

int ab_report(FILE *f, struct store *st, long long exp_id, enum ab_format fmt)
{
	struct strbuf clock = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	int ret = -1, rc, points = 0, rows = 0;

	if (clock_words_experiment(&clock, st->db, exp_id))
		goto out;
	if (fmt != AB_CSV && print_header(f, st, exp_id, &points, clock.buf, fmt))
		goto out;
	if (sqlite3_prepare_v2(st->db, "SELECT " VERDICT_COLUMNS " FROM verdicts WHERE "
			       "experiment_id = ?1 ORDER BY workload, metric, mem_mib, cpus", -1,
			       &q, NULL) != SQLITE_OK) {
		store_error(st, "cannot read verdicts");
		goto out;
	}
	sqlite3_bind_int64(q, 1, exp_id);
	if (fmt == AB_CSV) {
		fputs("experiment", f);
		for (int i = 0; i < C_COUNT; i++)
			fprintf(f, ",%s", column_names[i]);
		fputc('\n', f);
	} else if (fmt == AB_JSON) {
		fputs(", \"verdicts\": [", f);
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (fmt == AB_TEXT) {
			print_metric_text(f, q, clock.buf);
		} else if (fmt == AB_CSV) {
			fprintf(f, "%lld", exp_id);
			for (int i = 0; i < C_COUNT; i++) {
				fputc(',', f);
				if (is_text_column(i))
					escape_csv(f, store_text(q, i));
				else if (sqlite3_column_type(q, i) != SQLITE_NULL)
					fprintf(f, "%.10g", sqlite3_column_double(q, i));
			}
			fputc('\n', f);
		} else {
			fputs(rows ? ",\n  {" : "\n  {", f);
			for (int i = 0; i < C_COUNT; i++) {
				fprintf(f, "%s\"%s\": ", i ? ", " : "", column_names[i]);
				if (is_text_column(i))
					escape_json(f, store_text(q, i));
				else
					json_number(f, store_num(q, i));
			}
			fputc('}', f);
		}
		rows++;
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read verdicts");
		goto out;
	}
	if (fmt == AB_JSON)
		fputs("\n]}\n", f);
	if (fmt == AB_TEXT && !rows)
		fputs("\n(no verdicts: the experiment has not finished)\n", f);
	if (fmt == AB_TEXT && points > 1 && print_sweep(f, st, exp_id, clock.buf))
		goto out;
	ret = 0;
out:
	sqlite3_finalize(q);
	strbuf_release(&clock);
	return ret;
}
