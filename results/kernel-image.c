#include <stdlib.h>
#include <string.h>

#include "kernel-image.h"
#include "xalloc.h"

void kernel_image_init(struct kernel_image *k)
{
	memset(k, 0, sizeof(*k));
}

void kernel_image_release(struct kernel_image *k)
{
	free(k->path);
	kernel_image_init(k);
}

void kernel_image_copy(struct kernel_image *dst, const struct kernel_image *src)
{
	*dst = *src;
	dst->path = src->path ? xstrdup(src->path) : NULL;
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
