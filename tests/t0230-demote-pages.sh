#!/bin/bash
# demote under a real boot of Debian's kernel: several 1 GiB pages a boot,
# each demotion a sample; a guest too small to hold them all at once
# demotes them in two rounds at most, and says so.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
run() {
	"$LAB" run --db lab.db --accel tcg --kernel "$KERNEL" --timeout 300 --workload demote \
		--cmdline "hugetlb_free_vmemmap=on nokaslr" "$@"
}
samples() {
	sql lab.db "SELECT count(*) FROM samples WHERE run_id = $1 AND metric = '$2' AND value > 0"
}
meta() {
	sql lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}

test_expect_success TCG '--iters 3 in a 6G guest: three pages demoted, three samples' '
	run --mem 6G --iters 3 >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(samples 1 demote_page_wall)" = 3 &&
	test "$(samples 1 demote_page_sys)" = 3 &&
	test "$(sql lab.db "SELECT group_concat(iteration) FROM (SELECT iteration FROM samples WHERE run_id = 1 AND metric = '\''demote_page_wall'\'' ORDER BY iteration)")" = 0,1,2 &&
	test "$(meta 1 demote.verified)" = yes &&
	test -z "$(meta 1 demote.pages_demoted)"
'

test_expect_success TCG 'more pages than the guest holds: two rounds at most, and said' '
	run --mem 3G --iters 8 >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	n=$(samples 2 demote_page_wall) &&
	at_once=$(meta 2 demote.pages_at_once | cut -d" " -f1) &&
	test "$n" = $((2 * at_once)) && test "$n" -lt 8 &&
	test "$(meta 2 demote.pages_requested)" = 8 &&
	test "$(meta 2 demote.rounds)" = 2 &&
	meta 2 demote.pages_demoted | grep -q "^$n: the guest.s memory holds no more in 2 rounds$" &&
	test "$(meta 2 demote.verified)" = yes
'

test_done
