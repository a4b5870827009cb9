#ifndef GUEST_DEMOTE_H
#define GUEST_DEMOTE_H
/*
 * The demote workload: allocate 1 GiB hugetlb pages at run time (lab.iters
 * of them, or as many as the guest's free memory holds with room to spare,
 * said in meta when fewer), demote each to 512 pages of 2 MiB through
 * sysfs, and time every demotion (wall and system time), each a sample. With HVO (hugetlb vmemmap optimisation) on, each
 * demotion restores and re-optimises vmemmap, the path where upstream
 * bd225530a4c7 added a synchronize_rcu() per page. Pools are put back as
 * they were before it ran.
 */
#include "params.h"

int demote_run(const struct params *p, int pid1);

#endif
