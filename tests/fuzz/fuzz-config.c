/*
 * The lab.conf and recipe reader (config_parse) on arbitrary bytes, with
 * the config's sections and the recipe's, and each value through the
 * number parsers that lab.conf, recipes and the command line share.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Most inputs are refused with an error line: millions of them would drown
 * the fuzzer's own output. The sanitizers and libFuzzer write to fd 2 or
 * to a copy of stderr taken before this runs, so their reports still show.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *devnull = fopen("/dev/null", "w");

	(void)argc, (void)argv;
	if (devnull)
		stderr = devnull;
	return 0;
}

static int check_entry(const struct config_entry *e, void *data)
{
	size_t *n = data;
	long v, *list = NULL;
	size_t nlist;

	/* a header on a line of the input, or "section.key" at least, on a later line or its own */
	if (e->line < 1 || (size_t)e->line > *n || e->section_line < 1 || e->section_line > e->line)
		abort();
	if (!e->value)
		return 0;
	if (!strchr(e->name, '.'))
		abort();
	parse_size_mib(e->value, &v);
	parse_positive_int(e->value, &v);
	parse_seconds(e->value, &v);
	parse_list(&list, &nlist, e->value, parse_size_mib);
	free(list);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const config_sections[] = { "core", "qemu", "run", "build", NULL };
	static const char *const recipe_sections[] = { "recipe", "variant", NULL };
	static const char *const config_repeatable[] = { "run.mem", NULL };
	static const char *const recipe_repeatable[] = { "recipe.arch", "variant.config", NULL };
	char *buf = malloc(size ? size : 1);
	size_t lines = 1;

	if (!buf)
		abort();
	/* exactly size bytes, no NUL after them: the reader takes a length */
	memcpy(buf, data, size);
	for (size_t i = 0; i < size; i++)
		lines += buf[i] == '\n';
	config_parse(buf, size, "fuzz.conf", "config", config_sections, config_repeatable,
		     check_entry, &lines);
	config_parse(buf, size, "fuzz.recipe", "recipe", recipe_sections, recipe_repeatable,
		     check_entry, &lines);
	free(buf);
	return 0;
}
