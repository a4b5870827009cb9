#ifndef LAVA_MODULES_H
#define LAVA_MODULES_H
/*
 * A kernel build's modules as a LAVA job takes them (its deploy's
 * "modules", KernelCI's modules.tar.xz): one xz-compressed tar of
 * lib/modules/<release>/..., which the dispatcher unpacks into the
 * ramdisk or root file system it deploys.
 *
 * root is where the build installed them (kernel_image.modules, its
 * INSTALL_MOD_PATH, with depmod's modules.dep). The archive is root's path
 * with ".tar.xz" (modules.tar.xz beside a build cache entry's modules/):
 * made there the first time a boot asks for it, and again once the
 * modules were installed anew (a modules.dep newer than it). The links
 * modules_install leaves to the build's tree (build, source) are left
 * out, any other link is followed: the archive holds files and folders.
 *
 * Into *path the archive's path: 0, or -1 with the reason in *why (no
 * modules.dep under root, tar failed, the folder not writable).
 */
struct strbuf;

int lava_modules_archive(struct strbuf *path, const char *root, struct strbuf *why);

#endif
