/* Every runner, by name (runner-list.h). */
#include <string.h>

#include "array.h"
#include "runner.h"
#include "runner-list.h"

const struct runner *const runner_all[] = { &runner_qemu, &runner_local, &runner_libvirt,
					    &runner_ssh, &runner_lava };
const size_t runner_nr = ARRAY_SIZE(runner_all);

const struct runner *runner_find(const char *name)
{
	for (size_t i = 0; i < runner_nr; i++)
		if (!strcmp(runner_all[i]->name, name))
			return runner_all[i];
	return NULL;
}
