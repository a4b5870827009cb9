#!/bin/bash
# A user's program as the bisected workload: a static C program demoting
# one 1 GiB hugetlb page a boot finds seed 001's seeded commit in the
# fixture history, as the built-in demote workload does (k0100). A 4G
# guest with nokaslr has room for one such page, allocated once: a second
# allocation after the demote spent minutes under TCG, so --iters 1.
# Measured on the 2-core host: 4 steps, about 25 boots of 50-75 s each
# under icount, builds of 50-90 s a commit once the first (30 min from a
# fresh tree, ccache warm) is done: an hour cold, half an hour cached.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
DB=$TOP/state/check-kernel.db

cat >demote1g.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define POOL_1G "/sys/kernel/mm/hugepages/hugepages-1048576kB/"

static int put(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	struct timespec a, b;

	if (put(POOL_1G "nr_hugepages", "1")) {
		perror("cannot allocate a 1 GiB page");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (put(POOL_1G "demote", "1")) {
		perror("cannot demote it");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("demote_ms %.6f ms\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	return 0;
}
C

# static: the guest has no libc
if ! cc -static -O2 -o "$TRASH/demote1g" demote1g.c; then
	skip_all="no static C compiler (make deps)"
	test_done
fi
runs_before=0
[ -e "$DB" ] && runs_before=$(sql "$DB" "SELECT coalesce(max(id), 0) FROM runs")

test_expect_success 'bisect --workload exec: finds the seeded commit in virtual time' '
	rc=0 && "$LAB" bisect --db "$DB" --repo "$FIXTURE" --good fixture-base --bad fixture-fix~1 \
		--workload "exec:$TRASH/demote1g" --iters 1 --mem 4G \
		--cmdline "hugetlb_free_vmemmap=on nokaslr" --clock icount --metric demote_ms \
		>out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C "$FIXTURE" rev-parse fixture-regression)" out
'

test_expect_success 'the boots of the bisection stored the one program they ran by its SHA-256' '
	sql "$DB" "SELECT value FROM run_meta WHERE run_id > $runs_before
		AND key = '\''workload.demote1g.sha256'\''" >ids &&
	test "$(wc -l <ids)" -gt 1 &&
	sort -u ids >id &&
	sha256sum <"$TRASH/demote1g" | cut -d" " -f1 >want &&
	diff -u want id
'

test_done
