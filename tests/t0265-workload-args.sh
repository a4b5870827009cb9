#!/bin/bash
# A user's workload with arguments: --arg on the command line, or a
# [workload "NAME"] section of lab.conf (program, arg, iters, deadline,
# directions), run by the local runner and in the VM; the arguments are
# part of the run's provenance.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
test_lazy_prereq BUSYBOX 'test -x /bin/busybox'

# Each argument as a metric of its own, so that the database shows what arrived.
cat >echoargs.sh <<'SH'
#!/bin/sh
echo "nargs $# n"
i=0
for a in "$@"; do
	i=$((i + 1))
	case $a in
	"a b") echo "arg${i}_space 1 n" ;;
	"it's,ok") echo "arg${i}_quote_comma 1 n" ;;
	*) echo "arg${i}_$a 1 n" ;;
	esac
done
echo "ops 250 ops/s"
echo "lat 3 us lower"
echo "rate 7 n/s higher"
SH
printf '#!/bin/sh\necho "t 1 us"\nwhile :; do :; done\n' >hang.sh
chmod +x echoargs.sh hang.sh

metrics_of() { # DB RUN
	sql "$1" "SELECT DISTINCT workload || '.' || metric FROM samples WHERE run_id = $2 ORDER BY 1" | tr '\n' ' '
}
meta() { # DB RUN KEY
	sql "$1" "SELECT value FROM run_meta WHERE run_id = $2 AND key = '$3'"
}

test_expect_success '--arg: each argument reaches the program whole, blanks, quotes and commas too' '
	"$LAB" run --db args.db --runner local --workload "exec:$TRASH/echoargs.sh" \
		--arg "a b" --arg "it'\''s,ok" --arg -v --iters 2 >out 2>err &&
	test "$(metrics_of args.db 1)" = "echoargs.arg1_space echoargs.arg2_quote_comma echoargs.arg3_-v echoargs.lat echoargs.nargs echoargs.ops echoargs.rate " &&
	test "$(sql args.db "SELECT group_concat(value) FROM samples WHERE run_id = 1 AND metric = '\''nargs'\''")" = "3.0,3.0" &&
	test "$(meta args.db 1 workload.echoargs.args)" = "'\''a b'\'' '\''it'\''\\'\'''\''s,ok'\'' -v"
'

test_expect_success '--arg is refused for a built-in workload and for two programs, one line, exit 2' '
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload zeroing --arg 5 2>err &&
	expect_one_line_naming err "^lab: --arg .5. is for exec: and stress-ng: workloads, not .zeroing.$" &&
	cp echoargs.sh other.sh &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local \
		--workload "exec:$TRASH/echoargs.sh,exec:$TRASH/other.sh" --arg 5 2>err &&
	expect_one_line_naming err "^lab: --arg .5. with 2 exec: or stress-ng: workloads: give each its arguments in a \[workload\] section$" &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload "exec:$TRASH/echoargs.sh" \
		--arg "$(printf "two\nlines")" 2>err &&
	expect_one_line_naming err "^lab: an argument of .$TRASH/echoargs.sh. holds a newline: the guest reads one argument a line$" &&
	! test -e bad.db
'

test_expect_success 'an A/B resumed with other arguments is refused: they are provenance' '
	ab() { "$LAB" ab --db ab.db --runner local --workload "exec:$TRASH/echoargs.sh" --iters 2 \
		--a-cmdline lab.side=a --b-cmdline lab.side=b "$@"; } &&
	ab --boots 2 --arg one >out 2>err &&
	test_expect_code 2 ab --boots 3 --resume E1 --arg two >out 2>err &&
	expect_one_line_naming err "cannot resume experiment 1: its workloads were .exec:$TRASH/echoargs.sh one." &&
	test "$(sql ab.db "SELECT count(DISTINCT value) FROM run_meta WHERE key = '\''workload.echoargs.args'\''")" = 1
'

test_expect_success 'setup: a [workload] section in lab.conf' '
	mkdir conf && cp echoargs.sh hang.sh conf/ &&
	cat >conf/lab.conf <<-\EOF
	[workload "mine"]
		program = echoargs.sh
		arg = a b
		arg = x
		iters = 3
		higher = ops
		lower = rate
	[workload "stuck"]
		program = hang.sh
		deadline = 1
	EOF
'
export LAB_CONFIG=$TRASH/conf/lab.conf

test_expect_success '--workload NAME runs the section: its name, args, iters and directions' '
	"$LAB" run --db sec.db --runner local --workload mine --iters 5 >out 2>err &&
	test "$(sql sec.db "SELECT status || \" \" || workloads FROM runs WHERE id = 1")" = "OK mine" &&
	test "$(sql sec.db "SELECT count(*) FROM samples WHERE run_id = 1 AND metric = '\''nargs'\''")" = 3 &&
	test "$(metrics_of sec.db 1)" = "mine.arg1_space mine.arg2_x mine.lat mine.nargs mine.ops mine.rate " &&
	test "$(meta sec.db 1 direction.mine.ops)" = higher &&
	test "$(meta sec.db 1 direction.mine.rate)" = higher &&
	test -z "$(meta sec.db 1 direction.mine.lat)" &&
	meta sec.db 1 workload.mine.program | grep -q "^\[mine iters=3 higher=ops lower=rate\] exec:$TRASH/conf/echoargs.sh '\''a b'\'' x$" &&
	test "$(meta sec.db 1 workload.mine.sha256)" = "$(sha256sum <echoargs.sh | cut -d" " -f1)"
'

test_expect_success 'a section'\''s deadline kills a run, naming the section as the reason' '
	test_expect_code 1 "$LAB" run --db sec.db --runner local --workload stuck --timeout 60 >out 2>err &&
	sql sec.db "SELECT status || \": \" || error FROM runs WHERE id = 2" |
		grep -q "^FAILED: stuck: iteration 1: .* ran past its deadline of 1 s (the deadline of its \[workload\] section) and was killed" &&
	! pgrep -f "$TRASH/conf/hang.sh"
'

test_expect_success 'unknown names list the sections; --arg is not for a section' '
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload nosuch 2>err &&
	expect_one_line_naming err "^lab: unknown workload .nosuch. (known: zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR, mine, stuck)$" &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload mine --arg 1 2>err &&
	expect_one_line_naming err "not the \[workload\] section .mine. (its arguments are its arg keys)" &&
	printf "[workload \"demote\"]\n\tprogram = /bin/true\n" >clash.conf &&
	test_expect_code 2 "$LAB" run --db bad.db --config clash.conf --runner local --workload demote 2>err &&
	expect_one_line_naming err "^lab: workload section .demote. in config clash.conf line 1 has the name of a built-in workload: rename it$" &&
	! test -e bad.db
'

test_expect_success BUSYBOX,TCG 'the section in the VM: the same samples, the settings staged beside the program' '
	"$LAB" run --db vm.db --accel tcg --kernel "$KERNEL" --mem 512M --timeout 300 \
		--workload mine >out 2>err &&
	test "$(sql vm.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(metrics_of vm.db 1)" = "$(metrics_of sec.db 1)" &&
	test "$(sql vm.db "SELECT count(*) FROM samples WHERE run_id = 1 AND metric = '\''nargs'\'' AND value = 2")" = 3 &&
	test "$(meta vm.db 1 direction.mine.ops)" = higher &&
	test "$(meta vm.db 1 workload.mine.args)" = "'\''a b'\'' x"
'

test_done
