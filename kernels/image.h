#ifndef IMAGE_H
#define IMAGE_H
/*
 * Facts about a kernel image file read from its header: which
 * architecture it boots on, and whether QEMU can boot it without firmware
 * help. x86 bzImage carries "HdrS" at 0x202; an arm64 Image carries
 * "ARM\x64" at 0x38; an x86 vmlinux is an ELF file that QEMU boots directly
 * only when it carries the PVH entry point (Xen ELF note type 18,
 * XEN_ELFNOTE_PHYS32_ENTRY, from CONFIG_PVH).
 */
#include "kernel-image.h"

/*
 * 1 when path is an x86_64 ELF vmlinux with the PVH entry point, 0 when it
 * is anything else (a bzImage, an ELF without the note), -1 with an error
 * line when it cannot be read.
 */
int kernel_image_pvh(const char *path);

/*
 * The one resolver of a kernel file into a struct kernel_image: its header
 * read once and its content hashed once. boots: the file is an image a
 * runner boots, so its arch and PVH entry come from its header and
 * anything else is refused with one line naming it; 0: a program the local
 * runner runs (build.command projects), of the host's arch. Its modules
 * are found as kernel_image_find_modules() finds them.
 */
int kernel_image_resolve(struct kernel_image *k, const char *path, int boots);

/*
 * The modules that go with k's image: a folder modules/ beside it holding
 * lib/modules/ (an INSTALL_MOD_PATH, as the lab's build cache entries
 * have), into k->modules; none leaves it NULL. A built image and a file
 * the user names (the image of a cache entry, or one laid out the same
 * way) find them alike.
 */
void kernel_image_find_modules(struct kernel_image *k);

#endif
