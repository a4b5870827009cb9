#include <string.h>

#include "runner.h"

const struct runner *runner_find(const char *name)
{
	static const struct runner *const all[] = { &runner_qemu, &runner_local };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

int workload_known(const char *name)
{
	static const char *const known[] = { "zeroing", "demote", "boot" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i], name))
			return 1;
	return 0;
}
