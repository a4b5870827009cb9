#!/bin/bash
# lab ab's command line: each side's kernel named once, and the command it
# records (and prints for --resume) pastes back into a shell unchanged.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
test_expect_success '--a with --a-kernel, --b with --b-kernel, --patch with --b-kernel: refused' '
	echo kernel >img &&
	test_expect_code 2 "$LAB" ab --db lab.db --a v1 --a-kernel img --b v2 --workload zeroing 2>err &&
	expect_one_line_naming err "^lab: --a and --a-kernel both name A.s kernel: give one$" &&
	test_expect_code 2 "$LAB" ab --db lab.db --a v1 --b v2 --b-kernel img --workload zeroing 2>err &&
	expect_one_line_naming err "^lab: --b and --b-kernel both name B.s kernel: give one$" &&
	test_expect_code 2 "$LAB" ab --db lab.db --a v1 --patch x.mbox --b-kernel img --workload zeroing 2>err &&
	expect_one_line_naming err "^lab: --patch and --b-kernel both name B.s kernel: give one$" &&
	test_expect_code 2 "$LAB" ab --db lab.db --a v1 --b v2 --kernel img --workload zeroing 2>err &&
	expect_one_line_naming err "^lab: --a and --kernel both name A.s kernel: give one$" &&
	test ! -e lab.db
'

# Words a shell would act on if the recorded line did not quote them (a double
# quote has no place on a kernel command line: kcmdline refuses it).
INJ1="x';touch INJECTED;'"
INJ2='a  b$(touch INJECTED2)`touch INJECTED3`\'
INJ3="k=\`>INJECTED4\`'v'*;|"

test_expect_success 'the recorded command line is shell-safe: pasted, it runs nothing and keeps every word' '
	set -- ab --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--b-cmdline "$INJ1" --a-cmdline "$INJ2" --param "$INJ3" --cmdline "" \
		--boots 1 --iters 3 &&
	test_expect_code 0 "$LAB" "$@" >out 2>err &&
	sed -n "/^  command: /,/[^\\\\]\$/p" out >lines &&
	awk "{ if (length(\$0) > 100) exit 1 }" lines &&
	sed -e "s/^  command: //" -e "s/^    //" lines | sed -e :a -e "/ \\\\\$/{N;s/ \\\\\n/ /;ba" -e "}" >line &&
	test "$(wc -l <line)" = 1 &&
	sh -n line &&
	sh -c "lab() { printf \"[%s]\\n\" \"\$@\"; }; $(cat line)" >words &&
	test ! -e INJECTED && test ! -e INJECTED2 && test ! -e INJECTED3 && test ! -e INJECTED4 &&
	printf "[%s]\n" "$@" >want &&
	diff -u want words &&
	test "$(sql lab.db "SELECT command FROM experiments WHERE id = 1")" = "$(cat line)"
'

test_expect_success 'the report labels its interval with the level it was computed at' '
	test_expect_code 0 "$LAB" ab --aa --db ci.db --runner local --guest "$FAKE" --workload zeroing \
		--boots 2 --iters 5 >out 2>err &&
	grep -q "^metric .*  B/A, 95% CI  *verdict$" out &&
	test_expect_code 0 "$LAB" ab --aa --db ci.db --runner local --guest "$FAKE" --workload zeroing \
		--iters 5 >out 2>err &&
	test "$(sql ci.db "SELECT round(alpha, 4) FROM verdicts WHERE experiment_id = 2")" = 0.0109 &&
	grep -q "^metric .*  B/A, 98.9% CI  *verdict$" out
'

test_done
