#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "userwork.h"

static enum userwork_line parse(struct userwork_sample *x, const char *line, char *why)
{
	why[0] = '\0';
	return userwork_parse_line(x, line, why, 160);
}

int main(void)
{
	struct userwork_sample x, s[USERWORK_STRESSNG_METRICS];
	struct userwork_stressng y;
	char why[160];
	static const char *const yaml[] = {
		"---", "system-info:", "      stress-ng-version: 0.15.06", "      cpus: 2", "",
		"metrics:", "    - stressor: vm", "      bogo-ops: 9",
		"      bogo-ops-per-second-real-time: 1.5",
		"    - stressor: mmap", "      bogo-ops: 14",
		"      bogo-ops-per-second-usr-sys-time: 0.760057",
		"      bogo-ops-per-second-real-time: 0.682936",
		"      wall-clock-time: 20.499717", "      user-time: 4.477055",
		"      system-time: 13.942623", "      max-rss: 264744", "", "...",
	};

	is_int(parse(&x, "fault_8m 16809.125 us", why), USERWORK_SAMPLE, "a sample line");
	is_str(x.name, "fault_8m", "its name");
	is_double(x.value, 16809.125, 1e-9, "its value");
	is_str(x.unit, "us", "its unit");
	is_int(x.direction, USERWORK_LOWER, "lower is better unless said");
	is_int(x.direction_given, 0, "... and not said: a [workload] section may say it");
	is_int(parse(&x, "  pages\t2048 pages higher  ", why), USERWORK_SAMPLE, "spaces and tabs");
	is_int(x.direction, USERWORK_HIGHER, "higher, when said");
	is_int(x.direction_given, 1, "... said");
	is_int(parse(&x, "rate 1e3 ops/s lower", why), USERWORK_SAMPLE, "ops/s, an exponent");
	is_int(x.direction_given, 1, "lower, said, is said too");
	is_double(x.value, 1000, 1e-9, "1e3");
	is_int(parse(&x, "", why), USERWORK_SKIP, "a blank line");
	is_int(parse(&x, "   # a comment 1 us", why), USERWORK_SKIP, "a comment");

	is_int(parse(&x, "garbage here", why), USERWORK_BAD, "a word for a value");
	is_str(why, "value 'here' of 'garbage' is not a finite number", "why");
	is_int(parse(&x, "t 1", why), USERWORK_BAD, "no unit");
	is_str(why, "no unit after the value of 't'", "why: no unit");
	is_int(parse(&x, "t", why), USERWORK_BAD, "no value");
	is_int(parse(&x, "t nan us", why), USERWORK_BAD, "nan");
	is_int(parse(&x, "t inf us", why), USERWORK_BAD, "inf");
	is_int(parse(&x, "t 1e999 us", why), USERWORK_BAD, "out of range");
	is_int(parse(&x, "t 1 us better", why), USERWORK_BAD, "an unknown direction");
	is_str(why, "'better' after the unit of 't' (want higher or lower)", "why: direction");
	is_int(parse(&x, "t 1 us higher more", why), USERWORK_BAD, "text after the direction");
	is_int(parse(&x, "t@x 1 us", why), USERWORK_BAD, "a name with '@'");
	is_int(parse(&x, "t 1 u*s", why), USERWORK_BAD, "a unit with '*'");
	is_int(parse(&x, "t 1 averyveryverylongunit", why), USERWORK_BAD, "a unit too long");
	is_int(parse(&x, "@lab sample zeroing touch 1 2 us", why), USERWORK_BAD,
	       "a protocol line is not a sample of the program");

	userwork_stressng_init(&y, "mmap");
	for (size_t i = 0; i < sizeof(yaml) / sizeof(yaml[0]); i++)
		userwork_stressng_feed(&y, yaml[i]);
	is_int(userwork_stressng_take(&y, s, why, sizeof(why)), USERWORK_STRESSNG_METRICS,
	       "stress-ng's YAML: the stressor's five metrics");
	is_str(s[0].name, "bogo_ops_s", "bogo ops/s first");
	is_double(s[0].value, 0.682936, 1e-12, "of real time");
	is_int(s[0].direction, USERWORK_HIGHER, "higher is better");
	is_str(s[1].name, "bogo_ops_s_cpu", "then of usr+sys time");
	is_double(s[1].value, 0.760057, 1e-12, "its value");
	is_str(s[2].name, "real_s", "real time");
	is_double(s[2].value, 20.499717, 1e-12, "its value");
	is_int(s[2].direction, USERWORK_LOWER, "lower is better");
	is_str(s[4].unit, "s", "in seconds");
	is_double(s[4].value, 13.942623, 1e-12, "system time");

	userwork_stressng_init(&y, "vm");
	for (size_t i = 0; i < sizeof(yaml) / sizeof(yaml[0]); i++)
		userwork_stressng_feed(&y, yaml[i]);
	is_int(userwork_stressng_take(&y, s, why, sizeof(why)), -1, "an entry lacking a value");
	is_str(why, "no 'bogo-ops-per-second-usr-sys-time' for stressor 'vm' in its YAML",
	       "why: the missing key");
	userwork_stressng_init(&y, "numa");
	for (size_t i = 0; i < sizeof(yaml) / sizeof(yaml[0]); i++)
		userwork_stressng_feed(&y, yaml[i]);
	is_int(userwork_stressng_take(&y, s, why, sizeof(why)), -1, "no entry for the stressor");
	is_str(why, "no metrics of stressor 'numa' in its YAML", "why: no entry");

	return done_testing();
}
