#ifndef USERWORK_H
#define USERWORK_H
/*
 * What a user's workload program prints, turned into samples. Shared by
 * the static guest program (which runs the program in the VM, or on this
 * host under the local runner) and the lab's unit tests, so a benchmark
 * written once is read the same way everywhere.
 *
 * The plain format, one sample per line:
 *
 *   name value unit [higher|lower]
 *
 * name: letters, digits, '_', '-' and '.', at most USERWORK_NAME_MAX - 1,
 * not starting with "ev." (the guest's event counts, protocol.h);
 * value: a finite number (strtod); unit: letters, digits, '_', '/', '%',
 * '.' and '-', at most USERWORK_UNIT_MAX - 1 (us, ms, s, ops/s, pages);
 * the direction says which way is better, lower when left out. Blank
 * lines and lines starting with '#' are comments. Anything else is a bad
 * line: counted and shown, never a sample.
 *
 * stress-ng's --yaml output has its own reader: each stressor's entry
 * under "metrics:" gives bogo_ops_s and bogo_ops_s_cpu (bogo ops per
 * second of real time and of user+system time, higher is better) and
 * real_s, usr_s and sys_s (lower is better).
 *
 * Strings in, values out: no I/O, no allocation, nothing but libc.
 */
#include <stddef.h>

#define USERWORK_NAME_MAX 64
#define USERWORK_UNIT_MAX 16

enum userwork_direction {
	USERWORK_LOWER = 0,		/* lower is better: times */
	USERWORK_HIGHER,		/* higher is better: rates */
};

struct userwork_sample {
	char name[USERWORK_NAME_MAX];
	double value;
	char unit[USERWORK_UNIT_MAX];
	enum userwork_direction direction;
	int direction_given;		/* the line said higher or lower */
};

enum userwork_line {
	USERWORK_SKIP = 0,		/* blank or a comment */
	USERWORK_SAMPLE,
	USERWORK_BAD,
};

/*
 * One line of plain output (without its newline). Fills *out for a
 * sample; for a bad line, why says what is wrong with it.
 */
enum userwork_line userwork_parse_line(struct userwork_sample *out, const char *line,
				       char *why, size_t whysize);

/*
 * stress-ng's YAML, line by line: the entry of one stressor under
 * "metrics:" ("- stressor: mmap" and its "key: value" lines); every other
 * line is ignored.
 */
#define USERWORK_STRESSNG_METRICS 5

struct userwork_stressng {
	char want[USERWORK_NAME_MAX];	/* the stressor asked for */
	int in_metrics, in_entry;
	double v[USERWORK_STRESSNG_METRICS];
	unsigned seen;			/* bit per v[] */
};

void userwork_stressng_init(struct userwork_stressng *s, const char *stressor);
void userwork_stressng_feed(struct userwork_stressng *s, const char *line);
/*
 * The samples of the stressor's entry: returns how many were filled
 * (USERWORK_STRESSNG_METRICS), or -1 with why when the entry is missing
 * or lacks a value.
 */
int userwork_stressng_take(const struct userwork_stressng *s,
			   struct userwork_sample out[USERWORK_STRESSNG_METRICS],
			   char *why, size_t whysize);
/* The name of the i-th metric a stressor's entry gives (bogo_ops_s ...). */
const char *userwork_stressng_metric(int i);

#endif
