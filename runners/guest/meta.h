#ifndef GUEST_META_H
#define GUEST_META_H
/*
 * What every run records about the machine it ran on, as meta lines:
 * kernel.release, kernel.cmdline, guest.arch, guest.pid1, cpu.model,
 * cpu.online, mem.total_kb, thp.enabled. What cannot be read is reported
 * as "unavailable: <reason>", never as an error.
 */
void meta_emit_run(int pid1);

#endif
