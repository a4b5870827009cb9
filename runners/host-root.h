#ifndef HOST_ROOT_H
#define HOST_ROOT_H
/*
 * What a host's root needs before the lab's initramfs can mount it: when
 * it is a logical volume, the host's own lvm command, with the libraries
 * ldd names for it, to activate that volume as the host's initramfs would.
 *
 * The host says it all in one ssh command (host_root_command()): nothing
 * when its root is not on LVM; else the volume and the files, each as a
 * header line and its bytes:
 *   @lab-root DEVICE       the root's device, /dev/mapper/NAME
 *   @lv VG/LV              the volume to activate
 *   @tool SIZE PATH        the lvm command (goes to /sbin/lvm)
 *   @file SIZE PATH        a library it needs (goes to PATH)
 *   @missing lvm           no lvm command on the host
 *   @end
 * lab-rootinit runs /sbin/lvm lvchange -ay on the volume of /lvm.
 */
struct cpio;
struct strbuf;
struct strvec;

/*
 * For a POSIX shell on the host: dev= the sysfs directory of the block
 * device under / (by its number, as the kernel has it, whatever names
 * /dev gives it), lvm_root=1 when that device is a logical volume.
 */
#define HOST_ROOT_SH \
	"dev=/sys/dev/block/$(mountpoint -d /); lvm_root=; " \
	"case $(cat \"$dev/dm/uuid\" 2>/dev/null) in LVM-*) lvm_root=1;; esac; "

/*
 * The command, for a POSIX shell: lv "" asks the host for its root's
 * volume; a VG/LV sends the tools for that volume whatever the root is
 * (a test's disk).
 */
void host_root_command(struct strbuf *cmd, const char *lv);

/*
 * Add what the host sent (out, of host_root_command()) to an initramfs:
 * the count of files added, 0 for a root not on LVM, or -1 after an error
 * naming host (a volume without lvm, a header or size that does not
 * parse, a path not absolute or with "..").
 */
int initramfs_add_host_root(struct cpio *c, struct strvec *made, const struct strbuf *out,
			    const char *host);

#endif
