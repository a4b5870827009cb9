#ifndef KERNEL_IMAGE_H
#define KERNEL_IMAGE_H
/*
 * A kernel image as the lab knows it once it has looked at it: where it
 * is, which architecture it boots on, what its content hashes to (the git
 * blob id the kernels table keys it by) and where it came from. It is
 * filled once, by kernels/image.h's kernel_image_resolve() for a file the
 * user names or by kernels/build.h for an image it built or found in its
 * cache, and then passed by pointer from the command through the A/B,
 * bisect and run code to the boot plan and the runner: nothing on the way
 * reads the file again. Plain data, so that the store can record it.
 */

#define KERNEL_IMAGE_HASH_LEN 40

enum kernel_origin {
	KERNEL_FILE,		/* a file the user named (--kernel) */
	KERNEL_BUILT,		/* built now from a commit */
	KERNEL_CACHED,		/* built earlier, found in the artifact cache */
};

struct kernel_image {
	char *path;
	const char *arch;	/* "x86_64" | "aarch64" (static) */
	char hash[KERNEL_IMAGE_HASH_LEN + 1];
	int pvh;		/* an x86 vmlinux that QEMU enters through PVH */
	enum kernel_origin origin;
	/* built or cached: the commit, what decided its .config, its cache entry */
	char commit[KERNEL_IMAGE_HASH_LEN + 1];
	char config_hash[KERNEL_IMAGE_HASH_LEN + 1];
	char build_key[KERNEL_IMAGE_HASH_LEN + 1];
	/*
	 * built with CONFIG_MODULES=y: the folder its modules were installed
	 * in (INSTALL_MOD_PATH, lib/modules/<release>/ under it); NULL: none
	 */
	char *modules;
	/* its row in the database's kernels, once recorded (store_kernel_once()); 0: not yet */
	long long id;
};

void kernel_image_init(struct kernel_image *k);
void kernel_image_release(struct kernel_image *k);

/* "file", "built", "cached" */
const char *kernel_origin_name(enum kernel_origin o);

#endif
