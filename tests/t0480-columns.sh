#!/bin/bash
# What every command prints, its progress too, from a real store (A/Bs, a run, a recipe and a
# bisection on the local runner), read as a person reads it: every line
# within 100 columns, and numbers as lib/textfmt writes them: no exponent
# (e-06, e+05), no percentage of five digits or more, no -0.0 %, no number carrying
# more digits than it can mean (more than 5 significant digits, outside a
# change whose CI supports them). Words a user typed (key=value, a quoted
# command line), paths and hashes (and a range of two) are not checked for digits.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
export GUEST_BIN=$GUEST
LONG=a_metric_name_longer_than_any_column_of_clear_huge_page_sys
mkdir outs nights

# lint FILE...: each line of each FILE against the rules above; every
# offending line is printed with its file and the rule it breaks.
lint() {
	LC_ALL=C.UTF-8 awk '
	function bad(why) { printf "%s:%d: %s: %s\n", FILENAME, FNR, why, $0; n++ }
	{
		# a word no line holds (a path, a URL) stands whole on a line of its own
		if (length($0) > 100 && $0 !~ /^ *[^ ]+$/)
			bad("wider than 100 columns (" length($0) ")")
		s = $0
		gsub(/\047[^\047]*\047/, "", s)	# a quoted command line: the user'"'"'s words
		gsub(/[^ ]*=[^ ]*/, "", s)		# key=value: the user'"'"'s words
		gsub(/\/[^ ]*/, "", s)			# paths
		k = split(s, w, " ")			# hashes
		s = ""
		for (i = 1; i <= k; i++)
			if (!(w[i] ~ /^[(]?[0-9a-f]+(-dirty)?([.][.][0-9a-f]+)?[)]?[:,]?$/ && w[i] ~ /[a-f]/ && length(w[i]) >= 7))
				s = s " " w[i]
		if (s ~ /[0-9]e[-+]?[0-9]/)
			bad("exponent notation")
		if (s ~ /[0-9][0-9][0-9][0-9][0-9](\.[0-9]*)? ?%/)
			bad("a percentage of five digits or more")
		if (s ~ /(^|[^0-9.])-0(\.0*)? ?%/)
			bad("a negative zero")
		t = s
		# a change, its CI and the digits it supports: "+2.0013 % [+1.9990, +2.0036]"
		gsub(/[-+][0-9.]+ % \[[-+][0-9.]+, [-+][0-9.]+\]/, "", t)
		gsub(/[-+]?[0-9.]+ ?%/, "", t)
		while (match(t, /[0-9]+\.[0-9]+/)) {
			num = substr(t, RSTART, RLENGTH)
			t = substr(t, RSTART + RLENGTH)
			split(num, part, ".")
			digits = part[1] part[2]
			sub(/^0+/, "", digits)
			if (length(digits) > 5)
				bad("too many digits in " num)
		}
	}
	END { exit n > 0 }' "$@"
}

ab() {
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing "$@"
}

test_expect_success 'the rules catch what they are about' '
	printf "%s\n" "std deviation: 4.54973e-06" >x1 && test_must_fail lint x1 &&
	printf "%s\n" "change +45414.83 %" >x2 && test_must_fail lint x2 &&
	printf "%s\n" "  wall s         0.395082276001631" >x3 && test_must_fail lint x3 &&
	printf "%0101d\n" 0 | sed "s/^0/word /" >x4 && test_must_fail lint x4 &&
	printf "%s\n" "old_fn   5   -   250.0 us   -250.0 us   -0.0 %" >x5 && test_must_fail lint x5 &&
	printf "    /%0101d\n" 0 >long-path && lint long-path &&
	printf "%s\n" "  boot 6cec82599e77: OK (run 34, 0.3 s)" "a step at ef0ef2b92447..205a50e31327," \
		>hash && lint hash &&
	printf "%s\n" "B/A +2.0013 % [+1.9990, +2.0036]  455× [449×, 460×]  397.0 ns  45702 ms" \
		"  cmdline '\''scale=0.00000397 x=1e-6'\''" "path /tmp/a-1e-06.log" >ok &&
	lint ok
'

test_expect_success 'setup: A/Bs, a run, a recipe and a bisection in a store' '
	test_expect_code 1 ab --a-cmdline "scale=1.0 metrics=t,$LONG" \
		--b-cmdline "scale=455 metrics=t,$LONG" --boots 3 --iters 20 >outs/ab-455 2>outs/ab-455.err &&
	{ ab --a-cmdline "scale=0.00000397 cv=0.01" --b-cmdline "scale=0.00000417 cv=0.01" \
		--boots 3 --iters 10 >outs/ab-tiny 2>outs/ab-tiny.err || test $? = 1; } &&
	test_expect_code 1 ab --a-cmdline "scale=10000 cv=0.01" --b-cmdline "scale=10500 cv=0.01" \
		--boots 2 --iters 10 --verbose >outs/ab-verbose 2>outs/ab-verbose.err &&
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--cmdline "metrics=t,$LONG scale=0.00000397 $(printf "word%d " $(seq 1 40))" \
		>outs/run 2>outs/run.err &&
	user_recipe &&
	test_expect_code 1 "$LAB" recipe user.recipe --repo repo --db lab.db --boots 4 --iters 3 \
		>outs/recipe 2>outs/recipe.err &&
	mkdir bis && (
		cd bis && fake_project hist "$FAKE_IMAGE" && fake_history hist 6 scale_from hist 4 1.5 &&
		local_conf "$PWD/hist" >lab.conf &&
		"$LAB" bisect --db ../lab.db --good base --bad main --workload zeroing --iters 10 \
			>../outs/bisect 2>../outs/bisect.err
	) &&
	test "$(sql lab.db "SELECT count(*) FROM bisections")" = 1
'

test_expect_success 'every command that prints, into outs/' '
	e=$(sql lab.db "SELECT max(id) FROM experiments WHERE kind = \"bisect\"") &&
	run=$(sql lab.db "SELECT max(id) FROM runs WHERE experiment_id IS NULL") &&
	"$LAB" list --db lab.db >outs/list &&
	for x in $(sql lab.db "SELECT id FROM experiments WHERE kind = \"ab\""); do
		"$LAB" show --db lab.db E$x >outs/show-E$x || return 1
	done &&
	for r in 1 $run $(sql lab.db "SELECT min(id) FROM runs WHERE experiment_id = 4"); do
		"$LAB" show --db lab.db $r >outs/show-$r || return 1
	done &&
	"$LAB" bisect --db lab.db --status $e >outs/bisect-status &&
	"$LAB" bisect --db lab.db --status >outs/bisect-list &&
	for i in $(seq 1 20); do echo "0.0000040$((i % 7))"; done >a &&
	for i in $(seq 1 20); do echo "0.000018$((i % 5))"; done >b &&
	test_expect_code 1 "$LAB" compare a b >outs/compare &&
	for i in $(seq 1 20); do echo "1$((i % 7))00000000"; done >big &&
	test_expect_code 0 "$LAB" compare big big >outs/compare-big &&
	"$LAB" report --db lab.db --out site >outs/report 2>outs/report.err &&
	"$LAB" help >outs/help && "$LAB" --version >outs/version &&
	# a topic is its manual page as man(1) sets it: checked for being there, not for width
	for t in $(sed -n "/lab help <topic>/,\$p" outs/help | tail -n +2 | tr -d ","); do
		"$LAB" help $t >topic-$t && grep -q "^lab-$t([57])" topic-$t || return 1
	done &&
	for c in $(awk "/^commands:/ { on = 1; next } /^\$/ { on = 0 } on { print \$1 }" outs/help); do
		"$LAB" $c --help >outs/usage-$c || return 1
	done &&
	test_must_fail "$LAB" nosuch 2>outs/err-command &&
	test_expect_code 2 "$LAB" show --db lab.db Ex 2>outs/err-id &&
	test_must_fail ab --workload zeroin --iters 1 2>outs/err-workload &&
	ls outs | wc -l >count && test "$(cat count)" -gt 30
'

# lab target's config: qemu targets whose binary is deep in a folder (one
# there, one missing), libvirt's test driver and a socket that is not there
target_conf() {
	printf "[target \"%s\"]\n\trunner = qemu\n\tarch = aarch64\n\taccel = tcg\n\tclass = %s\n" \
		a-target-whose-name-is-long a-class-name-long-too &&
	printf "[target \"vm-missing\"]\n\trunner = qemu\n\tarch = x86_64\n\taccel = kvm\n" &&
	printf "[target \"virt\"]\n\trunner = libvirt\n\turi = test:///default\n" &&
	printf "[target \"virtbad\"]\n\trunner = libvirt\n\turi = qemu+unix:///system?socket=%s\n" \
		"$1/no-libvirtd" &&
	printf "[qemu \"aarch64\"]\n\tbinary = %s/qemu-system-aarch64\n" "$1" &&
	printf "[qemu \"x86_64\"]\n\tbinary = %s/no-such-qemu-system-x86_64\n" "$1"
}

NIGHTLY=a-nightly-name-long-enough-to-pass-a-line-of-its-own-summary-past-the-columns
nightly_conf() {
	printf "[core]\n\tdb = %s/night.db\n" "$PWD" &&
	printf "[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n\titers = 5\n" &&
	printf "[nightly \"%s\"]\n\trepository = hist\n\tbranch = nightly\n\tworkloads = zeroing\n" "$NIGHTLY" &&
	printf "\tboots = 3\n\tpolicy = new\n\tmaxCommits = 3\n"
}

test_expect_success 'lab explain, lab target list and check, and the nights of lab nightly, into outs/' '
	f=a_function_name_long_enough_to_push_the_table_past_its_columns &&
	"$LAB" explain --db explain.db --runner local --guest "$FAKE" --workload zeroing --iters 5 --boots 2 \
		--a-cmdline "metrics=touch by=pmu prof=entry:10:2000000,$f:1000:10000000000,tiny:3:4,old_fn:5:50000" \
		--b-cmdline "metrics=touch by=pmu scale=1.3 prof=entry:10:2300000,$f:1000:11000000000,tiny:3:5,helper:1000:200000" \
		>outs/explain 2>outs/explain.err &&
	grep -q "^a_function_name_lon" outs/explain &&
	"$LAB" explain --db explain.db X1 --top 0 >outs/explain-all &&
	deep=$TRASH/a-folder-of-qemu-binaries-whose-name-is-long-enough/to-pass/the-columns &&
	mkdir -p "$deep" &&
	cat >"$deep/qemu-system-aarch64" <<-\EOS &&
	#!/bin/sh
	echo "Accelerators supported in QEMU binary:"
	echo tcg
	EOS
	chmod +x "$deep/qemu-system-aarch64" &&
	target_conf "$deep" >targets.conf &&
	"$LAB" target list --config targets.conf >outs/target-list &&
	test_expect_code 1 "$LAB" target check --config targets.conf >outs/target-check 2>outs/target-check.err &&
	grep -q "^target .a-target-whose-name-is-long. (qemu,\$" outs/target-check &&
	mkdir ny && (
		cd ny && fake_project hist "$FAKE_IMAGE" && fake_history hist 12 scale_from hist 8 1.5 &&
		nightly_conf >lab.conf &&
		for c in 2 5 7 12; do
			git -C hist update-ref refs/heads/nightly $(git -C hist rev-list --reverse main | sed -n "$((c + 1))p") &&
			{ "$LAB" nightly >../nights/night-$c 2>../nights/night-$c.err || test $? = 1; } || exit 1
		done
	) &&
	grep -q "^  E2: FOUND, culprit " nights/night-12
'

test_expect_success 'every line of it within 100 columns, its numbers as a person reads them' '
	lint outs/* nights/*
'

test_expect_success 'every manual page, as lab help shows it, within 100 columns' '
	unset MANWIDTH &&
	pages=$(sed -n "/lab help <topic>/,\$p" outs/help | tail -n +2 | tr -d ",") &&
	pages="$pages $(awk "/^commands:/ { on = 1; next } /^\$/ { on = 0 } on { print \$1 }" outs/help)" &&
	mkdir man &&
	for p in $pages; do
		COLUMNS=100 "$LAB" help $p | col -bx >man/$p &&
		test $(wc -l <man/$p) -gt 10 || { echo "no page for $p"; return 1; }
	done &&
	COLUMNS=100 man -l "$TOP/build/man/lab.1" | col -bx >man/lab &&
	test $(ls man | wc -l) -ge $(ls "$TOP"/docs/*.md | wc -l) &&
	LC_ALL=C.UTF-8 awk "length > 100 { print FILENAME \":\" FNR \": \" length; n++ } END { exit n > 0 }" man/* &&
	# a table of the manual, set in the columns it fits
	grep -q "^ *│ *zeroing *│ the seed-000 touch test" man/workloads &&
	grep -q "^ *• core.state: the root of all the lab makes" man/config
'

test_expect_success 'lab show RUN names its experiment and variant' '
	r=$(sql lab.db "SELECT min(id) FROM runs WHERE experiment_id = 1 AND variant_id = (SELECT id FROM variants WHERE experiment_id = 1 AND name = \"B\")") &&
	"$LAB" show --db lab.db $r >show-b &&
	grep -x "  experiment     E1, variant B" show-b &&
	grep -x "  experiment     -" outs/show-$(sql lab.db "SELECT max(id) FROM runs WHERE experiment_id IS NULL")
'

test_expect_success 'a value far below its unit is written in the unit that suits it' '
	grep -E "^zeroing\.t +ns +[34][0-9][0-9]\.[0-9] ±[0-9.]+% +4[0-9][0-9]\.[0-9] ±[0-9.]+% +\+[0-9.]+ % \[" outs/ab-tiny &&
	grep -E "^  Mean: +[0-9.]+ ns +[0-9.]+ ns$" outs/show-E2 &&
	grep -E "^  wall +[0-9.]+ (s|ms)$" outs/show-1 &&
	grep -E "^zeroing\.t +ns +5 +[34][0-9][0-9]\.[0-9] " outs/run
'

test_expect_success 'unknown workloads and metrics get a suggestion' '
	test "$(cat outs/err-workload)" = "lab: unknown workload '\''zeroin'\'': did you mean '\''zeroing'\''?"
'

test_expect_success 'JSON writes null where nothing is, and the exact numbers' '
	"$LAB" show --db lab.db E1 --format json >e1.json &&
	"$LAB" show --db lab.db 1 --format json >r1.json &&
	run=$(sql lab.db "SELECT max(id) FROM runs WHERE experiment_id IS NULL") &&
	"$LAB" show --db lab.db $run --format json >run.json &&
	python3 - "$(sql lab.db "SELECT wall_s FROM runs WHERE id = 1")" <<-\EOF
	import json, sys
	e = json.load(open("e1.json"))
	assert [v["hash"] for v in e["variants"]] == [None, None], e["variants"]
	assert [v["kernel"] for v in e["variants"]] == [None, None], e["variants"]
	r = json.load(open("r1.json"))
	assert (r["experiment"], r["variant"]) == (1, "A"), r
	assert abs(r["wall_s"] - float(sys.argv[1])) < 1e-12, (r["wall_s"], sys.argv[1])
	assert r["kernel"] is None and r["target"] is None, r
	u = json.load(open("run.json"))
	assert u["experiment"] is None and u["variant"] is None, u
	EOF
'

test_done
