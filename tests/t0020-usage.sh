#!/bin/bash
# How lab answers a person at its door: help for one command, its version,
# a near miss of a command's or an option's name, bash completion from the
# option tables, and make install.
. "$(dirname "$0")/lib.sh"

test_lazy_prereq MAN 'command -v man && command -v go-md2man'

test_expect_success MAN 'lab help CMD shows its manual page, made from docs/' '
	"$LAB" help list >help &&
	grep -q "^lab-list(1) .* lab manual " help &&
	grep -q "^NAME" help && grep -q "^EXIT STATUS" help &&
	grep -q "lab list - the newest runs and experiments in the database" help &&
	"$LAB" help bisect-step >help && grep -q "^lab-bisect(1)" help
'

test_expect_success MAN 'lab help TOPIC shows a topic page, with a NAME line; a near miss is named' '
	"$LAB" help statistics >help 2>err &&
	# set at the 100 columns its tables are made for, not man.s 80: no warning
	test ! -s err && test "$(wc -L <help)" -le 100 &&
	grep -q "^lab-statistics(7) .* lab manual " help &&
	grep -A1 "^NAME" help | grep -q "lab-statistics - The statistics behind lab.s verdicts" &&
	"$LAB" help config 2>/dev/null | grep -q "^lab-config(5)" &&
	"$LAB" --help | grep -q "statistics, workloads" &&
	test_expect_code 2 "$LAB" help statistic >out 2>err &&
	expect_one_line_naming err "did you mean .statistics.?"
'

test_expect_success 'lab CMD --help prints that command'"'"'s usage' '
	"$LAB" list --help >dashdash &&
	grep -q "^usage: lab list " dashdash
'

test_expect_success 'with no page to show, lab help CMD is lab CMD --help' '
	mkdir -p bare/lab && cp "$LAB" bare/lab/lab &&
	bare/lab/lab help list >help && "$LAB" list --help >dashdash &&
	cmp help dashdash
'

test_expect_success 'lab help with an unknown command: one line, exit 2' '
	rc=0 && "$LAB" help frobnicate >out 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown command .frobnicate. (see .lab --help.)$" &&
	test ! -s out
'

test_expect_success 'lab help with two words is refused' '
	rc=0 && "$LAB" help run list 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "list"
'

test_expect_success 'lab --version names the build' '
	"$LAB" --version >v &&
	test "$(wc -l <v)" = 1 &&
	grep -q "^lab version [0-9a-zA-Z.+-]*$" v &&
	"$LAB" version >v2 && cmp v v2
'

test_expect_success 'a misspelt command gets the nearest one' '
	rc=0 && "$LAB" runn 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown command .runn.: did you mean .run.? (see .lab --help.)$" &&
	test_must_fail "$LAB" reprot 2>err &&
	expect_one_line_naming err "did you mean .report.?" &&
	test_must_fail "$LAB" bisetc-step 2>err &&
	expect_one_line_naming err "did you mean .bisect-step.?"
'

test_expect_success 'a word near nothing gets no guess' '
	test_must_fail "$LAB" frobnicate 2>err &&
	expect_one_line_naming err "^lab: unknown command .frobnicate. (see .lab --help.)$"
'

test_expect_success 'a misspelt option gets the nearest; a short prefix, its options' '
	test_must_fail "$LAB" run --wrokload boot 2>err &&
	expect_one_line_naming err "^lab: unknown option .--wrokload. for .lab run.: did you mean .--workload.? (see .lab run --help.)$" &&
	test_must_fail "$LAB" ab --a-c foo 2>err &&
	expect_one_line_naming err "^lab: ambiguous option .--a-c. for .lab ab.: --a-config, --a-cmdline? (see .lab ab --help.)$"
'

# Run bash's completion function on a command line, the cursor on its last word.
complete_words() {
	PATH="$(dirname "$LAB"):$PATH" bash -c '
		source "$1/lab/lab-completion.bash" && shift &&
		COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && _lab &&
		printf "%s\n" "${COMPREPLY[@]}"' sh "$TOP" "$@"
}

test_expect_success 'completion: commands, and an A/B'"'"'s --a-<TAB> from its option table' '
	complete_words lab bis >got &&
	printf "%s\n" bisect bisect-step >want && diff -u want got &&
	complete_words lab help rep >got &&
	echo report >want && diff -u want got &&
	complete_words lab ab --a- | sort >got &&
	printf "%s\n" --a-apply --a-cmdline --a-config --a-kernel >want && diff -u want got &&
	complete_words lab ab --b | sort >got &&
	printf "%s\n" --b --b-apply --b-cmdline --b-config --b-kernel --boots >want &&
	diff -u want got
'

test_expect_success 'every option lab ab parses is completed, and nothing else' '
	complete_words lab ab -- | tr " " "\n" | sort >got &&
	for o in $(cat got); do
		test "$o" = --help && continue
		rc=0 && "$LAB" ab "$o" 2>err </dev/null || rc=$?
		! grep -q "unknown option\|ambiguous option" err || { cat err; return 1; }
	done &&
	test "$(wc -l <got)" -ge 30
'

test_expect_success 'make install DESTDIR: the installed lab finds its guest and data' '
	make -s -C "$TOP" install DESTDIR="$PWD/root" PREFIX=/opt/lab >/dev/null &&
	test -x root/opt/lab/bin/lab &&
	test -f root/opt/lab/share/bash-completion/completions/lab &&
	test -f root/opt/lab/share/lab/kernels/configs/x86_64.config &&
	grep -q "^ExecStart=/opt/lab/bin/lab nightly$" root/opt/lab/share/lab/systemd/lab-nightly.service &&
	root/opt/lab/bin/lab --version >v && "$LAB" --version >want && diff -u want v &&
	if test_have_prereq MAN; then
		test -f root/opt/lab/share/man/man1/lab-ab.1 &&
		test -f root/opt/lab/share/man/man5/lab-config.5 &&
		test -f root/opt/lab/share/man/man7/lab-clocks.7 &&
		root/opt/lab/bin/lab help ab | grep -q "^lab-ab(1)"
	fi &&
	mkdir use && (cd use &&
		../root/opt/lab/bin/lab run --runner local --workload zeroing --iters 3 \
			--param zeroing_mb=8 >out) &&
	test "$(sql use/state/lab.db "SELECT count(*) FROM runs WHERE status = '"'"'OK'"'"'")" = 1 &&
	test "$(sql use/state/lab.db "SELECT count(*) FROM samples")" -ge 3
'

test_done
