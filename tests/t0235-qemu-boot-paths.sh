#!/bin/bash
# Real boots under TCG of Debian's prebuilt kernel: the faster x86 boot
# paths (qboot for a bzImage, PVH for a vmlinux) and NUMA guests, each said
# in the run's meta entries; bad --numa values refused before any boot.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
QBOOT=/usr/share/qemu/qboot.rom
run() {
	"$LAB" run --db lab.db --accel tcg --timeout 240 "$@"
}
meta() { # run key
	sql lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}

test_expect_success TCG 'numa 2: two nodes, each with its deferred struct page init' '
	run --kernel "$KERNEL" --workload boot --mem 2G --cpus 2 --numa 2 >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(meta 1 qemu.numa)" = 2 &&
	test "$(sql lab.db "SELECT group_concat(metric) FROM (SELECT metric FROM samples
		WHERE run_id = 1 AND metric LIKE '\''deferred_init_node%'\'' ORDER BY metric)")" = \
		"deferred_init_node0,deferred_init_node1" &&
	grep -q "^boot.deferred_init_node1 " out
'

test_expect_success TCG 'without --numa: one node, no numa entry' '
	run --kernel "$KERNEL" --workload boot --mem 2G --cpus 2 >out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	test -z "$(meta 2 qemu.numa)" &&
	test "$(sql lab.db "SELECT group_concat(metric) FROM samples
		WHERE run_id = 2 AND metric LIKE '\''deferred_init_node%'\''")" = deferred_init_node0
'

test_expect_success TCG 'a bzImage boots through qboot when it is installed' '
	if test -r $QBOOT; then want=bzimage+qboot; else want=bzimage+seabios; fi &&
	test "$(meta 1 qemu.boot)" = $want &&
	test "$(meta 2 qemu.boot)" = $want
'

test_expect_success TCG 'the vmlinux inside Debian'\''s bzImage boots through PVH' '
	"$TOP/tests/fixtures/extract-vmlinux.sh" "$KERNEL" vmlinux &&
	run --kernel vmlinux --workload boot --mem 1G >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 3")" = OK &&
	if test -r $QBOOT; then want=pvh+qboot; else want=pvh+seabios; fi &&
	test "$(meta 3 qemu.boot)" = $want &&
	test "$(meta 3 kernel.release)" = "$(meta 2 kernel.release)" &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 3 AND metric = '\''to_init'\'' AND value > 0")" = 1
'

test_expect_success KERNEL 'bad --numa values are refused, naming the value, before any boot' '
	for v in 0 65 two -1; do
		{ "$LAB" run --db bad.db --accel tcg --kernel "$KERNEL" --workload boot --numa $v 2>err; test $? = 2; } &&
		expect_one_line_naming err "bad value '\''$v'\'' for --numa" || exit 1
	done &&
	{ "$LAB" ab --db bad.db --accel tcg --kernel "$KERNEL" --workload boot --b-cmdline quiet --numa 0 2>err; test $? = 2; } &&
	expect_one_line_naming err "bad value '\''0'\'' for --numa" &&
	test ! -e bad.db || test "$(sql bad.db "SELECT count(*) FROM runs")" = 0
'

test_expect_success KERNEL 'nodes below 128M are refused with the sizes, before the database is made' '
	{ "$LAB" run --db small.db --accel tcg --kernel "$KERNEL" --workload boot --mem 256M --numa 4 2>err; test $? = 2; } &&
	cat err &&
	test "$(cat err)" = "lab: --numa 4 splits 256M into nodes below 128M: give more --mem or fewer nodes" &&
	test ! -e small.db
'

test_expect_success 'a recipe says numa = N; a bad count names the file and line' '
	printf "[recipe]\n\tworkload = boot\n\tnuma = 0\n[variant \"a\"]\n\tref = HEAD\n" >bad.recipe &&
	{ "$LAB" recipe bad.recipe --db r.db 2>err; test $? = 2; } &&
	expect_one_line_naming err "bad value '\''0'\'' for '\''recipe.numa'\'' in recipe bad.recipe line 3: expected a NUMA node count from 1 to 64" &&
	grep -q "^	numa = 2$" "$TOP/kernels/recipes/seed-003-boot-memory.recipe"
'

test_done
