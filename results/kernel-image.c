#include <stdlib.h>
#include <string.h>

#include "kernel-image.h"

void kernel_image_init(struct kernel_image *k)
{
	memset(k, 0, sizeof(*k));
}

void kernel_image_release(struct kernel_image *k)
{
	free(k->path);
	free(k->modules);
	kernel_image_init(k);
}

const char *kernel_origin_name(enum kernel_origin o)
{
	switch (o) {
	case KERNEL_FILE: return "file";
	case KERNEL_BUILT: return "built";
	case KERNEL_CACHED: return "cached";
	}
	return "?";
}
