#ifndef MODULES_H
#define MODULES_H
/*
 * A kernel build's modules in the initramfs a host boots it with (the ssh
 * runner's kexec), so that a root disk, filesystem or NIC whose driver
 * the build made a module is there before the host's root is mounted.
 *
 * root is where the build installed them (kernel_image.modules, its
 * INSTALL_MOD_PATH): one release under lib/modules/, with depmod's
 * modules.dep. Taken from it: the modules of storage drivers (block,
 * nvme, ata, scsi, md, mmc, ufs, virtio), network drivers (drivers/net,
 * less wireless, usb, can, wan and the other non-Ethernet links) and
 * filesystems (fs/), with every module they depend on. Each is added at
 * its own path under lib/modules/<release>/, and /modules lists them one
 * absolute path a line, each after those it depends on: the order
 * lab-rootinit loads them in.
 *
 * Returns the count of modules added, or -1 after an error naming root or
 * the file it could not read. made is the archive's directories so far
 * (cpio_add_parents()).
 */
struct cpio;
struct strvec;

int initramfs_add_modules(struct cpio *c, struct strvec *made, const char *root);

/*
 * The initramfs of a host's kexec: cpio.h's initramfs_write() with
 * init_binary (lab-rootinit) as /init, the modules of root, if not NULL,
 * and what host sent for its root (host-root.h; NULL: nothing). 0, or -1
 * after an error naming what failed.
 */
struct strbuf;
int initramfs_write_modules(const char *out_path, const char *init_binary, const char *root,
			    const struct strbuf *host_root, const char *host);

/* Would the initramfs take the module at path (relative to lib/modules/<release>/)? */
int initramfs_wants_module(const char *path);

#endif
