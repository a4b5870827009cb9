#ifndef IMAGE_H
#define IMAGE_H
/*
 * Facts about a kernel image file read from its header: which
 * architecture it boots on. x86 bzImage carries "HdrS" at 0x202; an arm64
 * Image carries "ARM\x64" at 0x38.
 */

/* *arch is a static string ("x86_64", "aarch64"); -1 with an error line. */
int kernel_image_arch(const char **arch, const char *path);

#endif
