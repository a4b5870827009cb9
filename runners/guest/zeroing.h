#ifndef GUEST_ZEROING_H
#define GUEST_ZEROING_H
/*
 * The zeroing workload: map anonymous memory, write one int per 4 KiB
 * page, unmap; the time of each round is mostly the kernel zeroing the
 * pages it faults in (huge pages under THP). Where tracefs allows, the
 * same rounds also yield the duration of every clear_huge_page() call.
 */
#include "params.h"

int zeroing_run(const struct params *p, int pid1);

#endif
