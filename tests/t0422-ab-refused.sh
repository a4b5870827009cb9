#!/bin/bash
# A refused lab ab stores nothing: every check a boot would make is made
# before the experiment exists, so that a refusal leaves no experiment
# RUNNING for ever, and its one line names the option to give.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
KERNEL=$(debian_kernel)

# refused PATTERN ARGS...: lab ab ARGS exits 2 with one line matching
# PATTERN, and adds no experiment to the database.
refused() {
	local pattern=$1 before

	shift
	before=$(sql lab.db "SELECT count(*) FROM experiments") &&
	test_expect_code 2 "$LAB" ab --db lab.db "$@" >out 2>err || return 1
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = "$before" ||
		{ echo "lab ab $* left an experiment:"; sql lab.db "SELECT * FROM experiments"; return 1; }
	expect_one_line_naming err "$pattern"
}

test_expect_success 'setup: a database with one experiment, a project with two commits' '
	"$LAB" ab --aa --db lab.db --runner local --guest "$FAKE" --workload zeroing --boots 1 \
		--iters 3 >out 2>err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1 &&
	scaled_project repo "#!/bin/sh\nexec \"$FAKE\" \"\$@\" scale=%s\n" &&
	echo "not a kernel" >img
'

test_expect_success 'one side'\''s kernel given, the other not: the option for the other is named' '
	refused "^lab: no kernel for B: give --b-kernel IMG (or --kernel IMG for both sides)$" \
		--a-kernel img --workload zeroing &&
	refused "^lab: no kernel for A: give --a-kernel IMG (or --kernel IMG for both sides)$" \
		--b-kernel img --workload zeroing &&
	refused "^lab: no kernel for B: give --b-kernel IMG" \
		--runner local --a-kernel "$FAKE" --workload zeroing
'

test_expect_success 'no kernel at all, for a runner that boots one: the ways to give them are named' '
	refused "^lab: no kernels: the qemu runner boots one on each side: give --a-kernel IMG and --b-kernel IMG, --kernel IMG for both, or --a REF and --b REF" \
		--runner qemu --workload zeroing
'

test_expect_success 'a clock the runner cannot give, an unknown runner, a missing guest: nothing stored' '
	refused "^lab: clock .icount. needs the qemu runner" \
		--aa --runner local --guest "$FAKE" --clock icount --workload zeroing &&
	refused "^lab: unknown runner .bogus." --runner bogus --kernel img --workload zeroing &&
	refused "^lab: cannot find guest program ./nonexistent." \
		--aa --runner local --guest /nonexistent --workload zeroing
'

test_expect_success 'a bad ref, a bad workload, a bad option value: nothing stored' '
	refused "nosuch" --repo repo --a base --b nosuch --workload zeroing &&
	refused "frobnicate" --runner local --guest "$FAKE" --workload frobnicate &&
	refused "^lab: bad value .x. for --boots" --runner local --guest "$FAKE" --workload zeroing --boots x
'

test_expect_success KERNEL 'NUMA nodes too small for the guest, on one point of a sweep: nothing stored' '
	refused "^lab: --numa 4 splits 256M into nodes below 128M" \
		--aa --runner qemu --kernel "$KERNEL" --workload zeroing --numa 4 --mem 1G,256M
'

test_expect_success 'A and B the same kernel and command line: refused unless --aa says so' '
	AA="^lab: A and B are one kernel with one command line: give --a-cmdline/--b-cmdline, or --aa for an A/A$" &&
	refused "$AA" --runner local --guest "$FAKE" --workload zeroing &&
	refused "$AA" --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline "scale=1.0" --b-cmdline "scale=1.0" &&
	# the same parameters in another order are the same command line to the kernel
	refused "$AA" --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline "scale=1.0 cv=0.01" --b-cmdline "cv=0.01  scale=1.0" &&
	echo "not a kernel either" >img2 && cp img img3 &&
	refused "$AA" --runner local --a-kernel img --b-kernel img3 --workload zeroing &&
	test_expect_code 2 "$LAB" ab --db lab.db --repo repo --a base --b base~0 \
		--workload zeroing >out 2>err &&
	tail -n 1 err | grep -q "$AA" &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1 &&
	"$LAB" ab --db aa.db --aa --runner local --guest "$FAKE" --workload zeroing --boots 1 \
		--iters 3 >out 2>err &&
	test "$(sql aa.db "SELECT count(*) FROM runs WHERE status = \"OK\"")" = 2 &&
	# a parameter given twice: the kernel takes the last, so the order makes another side
	rc=0 && "$LAB" ab --db ab2.db --runner local --guest "$FAKE" --workload zeroing --boots 1 \
		--iters 3 --a-cmdline "scale=1.0 scale=2.0" --b-cmdline "scale=2.0 scale=1.0" \
		>out 2>err || rc=$? &&
	test "$rc" -le 1 &&
	test "$(sql ab2.db "SELECT count(*) FROM runs WHERE status = \"OK\"")" = 2
'

test_done
