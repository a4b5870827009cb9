#ifndef HOST_H
#define HOST_H
/*
 * Provenance of the machine a run happens on: host name, CPU model and
 * the QEMU version, recorded with every run so that runs made under
 * different conditions are never silently compared. And where this lab
 * itself is: its architecture and its checkout.
 */

struct host_info {
	char name[256];
	char cpu[256];
	char qemu_version[128];	/* "" for runners without QEMU */
};

/* Fills *h; the QEMU version is asked of qemu only for the qemu runner. */
void host_info_get(struct host_info *h, const char *runner, const char *qemu);
/* "x86_64" or "aarch64": the architecture this lab was built for. */
const char *host_arch(void);
/* The directory of the running lab binary's checkout (for build/guest). */
const char *lab_source_dir(void);

#endif
