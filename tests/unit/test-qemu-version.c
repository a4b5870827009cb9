/*
 * lib/host.c's reading of `qemu --version`, and the one decision made of
 * it: whether that QEMU runs several vCPUs in virtual time (8.1 or later).
 */
#include "host.h"
#include "tap.h"

static void smp(const char *line, int want, int major, int minor, int micro)
{
	struct qemu_version v;
	char name[256];

	snprintf(name, sizeof(name), "'%s': %s", line, want ? "several vCPUs" : "one vCPU");
	is_int(qemu_icount_smp(&v, line), want, name);
	snprintf(name, sizeof(name), "'%s' is %d.%d.%d", line, major, minor, micro);
	ok(v.major == major && v.minor == minor && v.micro == micro, name);
}

int main(void)
{
	struct qemu_version v;

	smp("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)", 0, 7, 2, 22);
	smp("QEMU emulator version 7.2", 0, 7, 2, 0);
	smp("QEMU emulator version 8.0.5", 0, 8, 0, 5);
	smp("QEMU emulator version 8.1.0", 1, 8, 1, 0);
	smp("QEMU emulator version 8.2.2 (Debian 1:8.2.2+ds-0ubuntu1)", 1, 8, 2, 2);
	smp("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)", 1, 10, 0, 2);
	smp("QEMU emulator version 9.0.50 (v9.0.0-1234-gabcdef)", 1, 9, 0, 50);
	/* unparsable: no version, so not trusted with several vCPUs */
	smp("", 0, 0, 0, 0);
	smp("qemu-system-x86_64: command not found", 0, 0, 0, 0);
	smp("QEMU emulator version ", 0, 0, 0, 0);
	smp("QEMU emulator version 10", 0, 0, 0, 0);
	smp("QEMU emulator version 10.x", 0, 0, 0, 0);
	smp("QEMU emulator version 10.0.", 0, 0, 0, 0);
	smp("QEMU emulator version 10.0.2rc1", 0, 0, 0, 0);
	smp("QEMU emulator version 99999.1.0", 0, 0, 0, 0);
	smp("qemu emulator version 10.0.2", 0, 0, 0, 0);
	is_int(qemu_version_parse(&v, "QEMU emulator version 10.0.2"), 0, "parsed");
	is_int(qemu_version_parse(&v, "QEMU 10.0.2"), -1, "another wording is none");
	return done_testing();
}
