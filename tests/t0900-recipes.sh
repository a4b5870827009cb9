#!/bin/bash
# lab recipe on each seed recipe in kernels/recipes/, fast: a repository
# holding the three Linux 6.1 files the probes and patches touch (so they
# really apply), build.command making a program the local runner runs, few
# boots. The tables must have the recipe's shape and their numbers must be
# the stored samples'. The real builds and boots are `make seeds`.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
RECIPES=$TOP/kernels/recipes
FILES="arch/arm64/mm/mmu.c arch/x86/kernel/setup.c include/linux/highmem.h"

test_expect_success LINUX_TARBALL 'setup: the files of 6.1 that probes touch, with fixture tags' '
	mkdir repo && cd repo &&
	tar -xJf "$LINUX_TARBALL" --strip-components=1 $(for f in $FILES; do echo linux-source-6.1/$f; done) &&
	git init -q -b main . &&
	git config user.name "A U Thor" && git config user.email author@example.com &&
	cat >build.sh <<-\EOS &&
	#!/bin/sh
	# the program measures slower with the regression, and with kmap_atomic
	scale=$(cat scale)
	grep -q "^	void \*addr = kmap_atomic(page);" include/linux/highmem.h && scale=$(echo "$scale * 1.2" | bc -l)
	metrics=demote_page_wall,touch,clear_huge_page,to_init,freeing_unused_kernel
	grep -q lab-probe arch/arm64/mm/mmu.c && metrics=$metrics,probe_map_mem
	grep -q lab-probe arch/x86/kernel/setup.c && metrics=$metrics,probe_init_mem_mapping
	mkdir -p out && printf "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s metrics=%s\n" "$scale" "$metrics" >out/image &&
	chmod +x out/image
	EOS
	chmod +x build.sh && echo 1.00 >scale && git add . && git commit -q -m base && git tag fixture-base &&
	echo 2.50 >scale && git commit -q -am "slow demote" && git tag fixture-regression &&
	echo 1.00 >scale && git commit -q -am "batch it" && git tag fixture-fix &&
	cd .. &&
	printf "[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n" >lab.conf
'

# run_recipe RECIPE DB [options]: run it against the repository here; its
# tables go to t, everything it printed to out. It exits 1 exactly when a
# verdict of its tables is REGRESSION, as lab ab does, else 0.
run_recipe() {
	local rc=0 want=0

	r=$1 db=$2 && shift 2 &&
	"$LAB" recipe "$r" --repo repo --db "$db" "$@" >out 2>err || rc=$?
	tables out >t && cat t &&
	{ ! grep -q " REGRESSION" t || want=1; } &&
	test "$rc" = "$want" || { echo "exit $rc, want $want"; cat err; return 1; }
}

# The recipe's tables, without the reports of the A/Bs printed before them.
tables() {
	awk '/^== / { on = 1 } /^experiment E/ { on = 0 } on' "$1"
}

# table_row FILE VARIANT: the variant's last row
table_row() {
	tables "$1" | awk -v v="$2" '$1 == v { row = $0 } END { print row }'
}

# median of what an experiment's verdict compared: samples, or per-boot medians
stored_median() { # db exp variant workload metric mem [printf format, default the table's 4 digits]
	db=$1 && shift && fmt=${6:-%#.4g}
	unit=$(sql "$db" "SELECT unit_compared FROM verdicts WHERE experiment_id = $1 AND workload = '$3' AND metric = '$4' AND mem_mib = $5")
	sql "$db" "SELECT r.id, s.value FROM samples s JOIN runs r ON r.id = s.run_id
		JOIN variants v ON v.id = r.variant_id
		WHERE r.experiment_id = $1 AND v.name = '$2' AND s.workload = '$3' AND s.metric = '$4'
		AND r.mem_mib = $5 AND r.status = 'OK' AND s.flags = 0 ORDER BY r.id" |
	awk -F'|' -v unit="$unit" -v fmt="$fmt" '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
		}
		{ if ($1 != run && nb) { m[++nm] = median(b, nb); nb = 0 } run = $1; b[++nb] = $2; all[++na] = $2 }
		END { if (nb) m[++nm] = median(b, nb); printf fmt "\n", unit == "samples" ? median(all, na) : median(m, nm) }'
}

# sweep_row FILE METRIC VARIANT: the variant's row in the metric's table
# of a column per memory size, its words one space apart
sweep_row() {
	awk -v m="$2," -v v="$3" '$1 == m { t = 1 } t && $1 == v { $1 = $1; print; exit }' "$1"
}

# stored_sweep_row DB EXP METRIC VARIANT A|B: that row as the stored
# verdicts make it, a cell per size: A's median, or B's with its change
# against A and the verdict
stored_sweep_row() {
	sql "$1" "SELECT median_a, median_b, ratio, verdict FROM verdicts
		WHERE experiment_id = $2 AND metric = '$3' ORDER BY mem_mib" |
	awk -F'|' -v v="$4" -v side="$5" '
		function mult(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
		function change(r) {
			if (r >= 2) return mult(r) "×"
			if (r <= 0.5) return "1/" mult(1 / r) "×"
			return sprintf("%+.1f %%", 100 * (r - 1))
		}
		side == "A" { row = row sprintf(" %.4g (base)", $1) }
		side == "B" { row = row sprintf(" %.4g (%s) %s", $2, change($3), $4) }
		END { print v row }'
}

# verdict_aligned FILE: in every point table, each variant's verdict starts in
# the column of the header's "verdict", whatever the width of the change
# before it ("455×" is one column and two bytes)
verdict_aligned() {
	python3 - "$1" <<-\EOF
	import sys
	col, rows = None, 0
	for line in open(sys.argv[1], encoding="utf-8"):
	    if line.startswith("  variant") and "verdict" in line:
	        col = line.index("verdict")
	    elif col is not None and " (E" in line and "no verdict" not in line:
	        end = line.rindex(" (E")
	        if line.rindex(" ", 0, end) + 1 != col:
	            sys.exit("not aligned: " + line.rstrip())
	        rows += 1
	sys.exit(0 if rows else "no rows")
	EOF
}

test_expect_success LINUX_TARBALL 'seed-001: base, regression and fix in one table, each against base' '
	run_recipe "$RECIPES/seed-001-demote.recipe" lab.db --boots 5 --iters 5 &&
	grep -q "^== seed-001: demote 1 GiB hugetlb pages to 2 MiB, HVO on (x86_64)$" t &&
	grep -q "^demote.demote_page_wall (ms, lower is better), 4G, 1 cpu, wall time$" t &&
	grep -qx "  clock: wall time" t &&
	test "$(awk "/^  variant/ { on = 1; next } on && NF { print \$1 }" t | tr "\n" " ")" = "base regression fix " &&
	table_row out regression | grep -q " REGRESSION (E1)$" &&
	table_row out fix | grep -q "(E2)$" &&
	verdict_aligned t &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 2 &&
	test "$(table_row out base | awk "{ print \$5 }")" = "$(stored_median lab.db 1 A demote demote_page_wall 4096)" &&
	test "$(table_row out regression | awk "{ print \$5 }")" = "$(stored_median lab.db 1 B demote demote_page_wall 4096)" &&
	test "$(table_row out fix | awk "{ print \$5 }")" = "$(stored_median lab.db 2 B demote demote_page_wall 4096)" &&
	test "$(sql lab.db "SELECT group_concat(git_ref, \" \") FROM (SELECT git_ref FROM variants WHERE experiment_id = 2 ORDER BY name)")" = "fixture-base fixture-fix"
'

test_expect_success LINUX_TARBALL 'seed-001 again with --resume: finished A/Bs are reused, an interrupted one continued' '
	cp t t.before &&
	run_recipe "$RECIPES/seed-001-demote.recipe" lab.db --boots 5 --iters 5 --resume &&
	cmp t.before t &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 2 &&
	grep -q "E1: done before, reused" err &&
	sql lab.db "UPDATE experiments SET status = '\''RUNNING'\'', finished = NULL WHERE id = 2;
		DELETE FROM verdicts WHERE experiment_id = 2; DELETE FROM runs WHERE id = (SELECT max(id) FROM runs WHERE experiment_id = 2)" &&
	run_recipe "$RECIPES/seed-001-demote.recipe" lab.db --boots 5 --iters 5 --resume &&
	grep -q "experiment E2: resumed" err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 2 &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 2")" = DONE &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 2 AND status = '\''OK'\''")" = 10 &&
	table_row out fix | grep -q "(E2)$"
'

test_expect_success LINUX_TARBALL 'the CI is labelled with the level of the stored verdicts, per row when they differ' '
	grep -q "^  variant .* vs base \[95% CI\] *verdict$" t &&
	test "$(sql lab.db "SELECT DISTINCT alpha FROM verdicts")" = 0.05 &&
	sql lab.db "UPDATE verdicts SET alpha = 0.0129835 WHERE experiment_id = 2" &&
	run_recipe "$RECIPES/seed-001-demote.recipe" lab.db --boots 5 --iters 5 --resume &&
	grep -q "^  variant .* vs base \[CI\] *verdict$" t &&
	table_row out regression | grep -q "\] 95% CI  *REGRESSION (E1)$" &&
	table_row out fix | grep -q "\] 98.7% CI  *[A-Z]* (E2)$" &&
	sql lab.db "UPDATE verdicts SET alpha = 0.0129835" &&
	run_recipe "$RECIPES/seed-001-demote.recipe" lab.db --boots 5 --iters 5 --resume &&
	grep -q "^  variant .* vs base \[98.7% CI\] *verdict$" t &&
	! grep -q "90% CI" out
'

test_expect_success LINUX_TARBALL 'seed-000: the before patch is applied to one side only, on both arches' '
	ln -s "$TOP/kernels" kernels &&
	run_recipe kernels/recipes/seed-000-zeroing.recipe lab2.db --boots 5 --iters 5 &&
	test "$(grep -c "^== seed-000: zeroing" t)" = 2 &&
	grep -q "(aarch64)$" t && grep -q "(x86_64)$" t &&
	test "$(grep -c "^zeroing.touch (ms, lower is better)" t)" = 2 &&
	test "$(grep -c "^zeroing.clear_huge_page (ms, lower is better)" t)" = 2 &&
	test "$(grep -c "^  after .* IMPROVEMENT (E[12])$" t)" = 4 &&
	grep -q "^  before .*fixture-base + kernels/recipes/seed-000-kmap-atomic.patch$" t &&
	test "$(sql lab2.db "SELECT count(DISTINCT kernel_id) FROM variants")" = 4 &&
	test "$(sql lab2.db "SELECT DISTINCT params FROM runs")" != "" &&
	sql lab2.db "SELECT params FROM runs LIMIT 1" | grep -q "lab.thp=always" &&
	row=$(awk "/^== .*aarch64/ { on = 1 } on && /^zeroing.touch/ { t = 1 } t && \$1 == \"before\" { print; exit }" t) &&
	test "$(echo "$row" | awk "{ print \$5 }")" = "$(stored_median lab2.db 1 A zeroing touch 2048)"
'

test_expect_success LINUX_TARBALL 'seed-003 says clock = icount: the local runner refuses it before any build' '
	grep -qx "	clock = icount" "$RECIPES/seed-003-boot-memory.recipe" &&
	test_expect_code 2 "$LAB" recipe "$RECIPES/seed-003-boot-memory.recipe" --repo repo --db icount.db 2>err &&
	cat >want <<-EOF &&
	recipe $RECIPES/seed-003-boot-memory.recipe: deferred-off against deferred-on on x86_64
	lab: clock '\''icount'\'' needs the qemu runner or the libvirt runner: the local runner measures in wall time (use --clock wall)
	EOF
	unwrapped err >joined && diff want joined &&
	test "$(sql icount.db "SELECT count(*) FROM kernels") $(sql icount.db "SELECT count(*) FROM experiments")" = "0 0"
'

test_expect_success LINUX_TARBALL 'seed-003 under a QEMU older than 8.1: its two vCPUs in icount refused before any build' '
	printf "#!/bin/sh\necho \"\$*\" >>$TRASH/argv-7.2\necho \"QEMU emulator version 7.2.22 (Debian)\"\n" >qemu-7.2 &&
	chmod +x qemu-7.2 &&
	printf "[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = qemu\n[qemu \"x86_64\"]\n\tbinary = %s/qemu-7.2\n" "$TRASH" >old-qemu.conf &&
	test_expect_code 2 "$LAB" recipe "$RECIPES/seed-003-boot-memory.recipe" --config old-qemu.conf --repo repo --db old-qemu.db 2>err &&
	test "$(tail -n 1 err)" = "lab: clock '\''icount'\'': QEMU 7.2.22 < 8.1 cannot run 2 vCPUs in virtual time: use --clock wall" &&
	test "$(unwrapped err | wc -l)" = 2 &&
	test "$(cat argv-7.2)" = --version &&
	test "$(sql old-qemu.db "SELECT count(*) FROM kernels")" = 0
'

test_expect_success LINUX_TARBALL 'lab ab refuses a clock its runner cannot give before it builds' '
	test_expect_code 2 "$LAB" ab --repo repo --db ab-icount.db --a fixture-base --b fixture-fix --workload demote --clock icount 2>err &&
	expect_one_line_naming err "^lab: clock .icount. needs the qemu runner or the libvirt runner: the local runner" &&
	{ test ! -e ab-icount.db || test "$(sql ab-icount.db "SELECT count(*) FROM kernels")" = 0; }
'

test_expect_success LINUX_TARBALL 'seed-003: a config fragment per variant, a sweep table per metric; --clock wall overrides the recipe'\''s' '
	run_recipe "$RECIPES/seed-003-boot-memory.recipe" lab3.db --boots 3 --iters 3 --clock wall &&
	grep -q "^boot.to_init, median in ms (lower is better), 2 cpus, wall time: a column per memory size$" t &&
	grep -q "^boot.probe_init_mem_mapping, median in ms" t &&
	grep -q "^  variant  *4G  *16G  *64G *$" t &&
	grep -q "^  deferred-off .*, config .*deferred-off.config$" t &&
	test "$(sql lab3.db "SELECT group_concat(DISTINCT mem_mib) FROM runs")" = "4096,16384,65536" &&
	base16=$(awk "/^boot.to_init,/ { t = 1 } t && \$1 == \"deferred-on\" { print \$4; exit }" t) &&
	test "$base16" = "$(stored_median lab3.db 1 A boot to_init 16384 %.4g)" &&
	off64=$(awk "/^boot.to_init,/ { t = 1 } t && \$1 == \"deferred-off\" { print \$10; exit }" t) &&
	test "$off64" = "$(stored_median lab3.db 1 B boot to_init 65536 %.4g)"
'

test_expect_success LINUX_TARBALL 'seed-004: the map_mem probe reaches the arm64 build of both sides' '
	{ "$LAB" recipe "$RECIPES/seed-004-linear-map.recipe" --repo=repo --db=lab4.db --boots=3 --iters 3 >out 2>err;
	  test $? -le 1; } &&
	tables out >t && cat t &&
	grep -q "^boot.probe_map_mem, median in ms (lower is better), 1 cpu, wall time: a column per memory size$" t &&
	grep -q "^  probe map_mem on every variant$" t &&
	test "$(sql lab4.db "SELECT group_concat(mem_mib) FROM (SELECT mem_mib FROM verdicts WHERE experiment_id = 1 AND metric = '\''probe_map_mem'\'' ORDER BY mem_mib)")" = 4096,16384,65536 &&
	test "$(sweep_row t boot.probe_map_mem rodata-full)" = "$(stored_sweep_row lab4.db 1 probe_map_mem rodata-full A)" &&
	test "$(sweep_row t boot.probe_map_mem rodata-on)" = "$(stored_sweep_row lab4.db 1 probe_map_mem rodata-on B)" &&
	{ sweep_row t boot.probe_map_mem rodata-full | awk "{ print \$2, \$4, \$6 }" &&
	  sweep_row t boot.probe_map_mem rodata-on | awk "{ print \$2, \$6, \$10 }"; } >got &&
	for side in A B; do
		for m in 4096 16384 65536; do stored_median lab4.db 1 $side boot probe_map_mem $m %.4g; done |
		paste -sd " " || exit 1
	done >want &&
	diff want got &&
	test "$(sql lab4.db "SELECT count(*) FROM samples WHERE metric = '\''probe_map_mem'\''")" -gt 0 &&
	test "$(sql lab4.db "SELECT group_concat(cmdline, \"|\") FROM (SELECT cmdline FROM variants ORDER BY name)")" = "rodata=full|rodata=on"
'

test_expect_success LINUX_TARBALL 'a metric only the base reports: its stored median, no verdict' '
	cat >only-a.recipe <<-\EOF &&
	[recipe]
		title = only A
		ref = fixture-base
		workload = boot
		metric = boot.to_init
		metric = boot.deferred_init_total
		mem = 4G,16G
	[variant "on"]
		cmdline = extra=deferred_init_total
	[variant "off"]
		cmdline = quiet
	EOF
	run_recipe only-a.recipe lab6.db --boots 3 --iters 4 &&
	grep -q "^boot.deferred_init_total, median in ms (lower is better), 1 cpu, wall time: a column per memory size$" t &&
	row=$(awk "/^boot.deferred_init_total,/ { t = 1 } t && \$1 == \"on\" { print; exit }" t) &&
	echo "$row" | grep -q "(no verdict) .*(no verdict)" &&
	test "$(echo "$row" | awk "{ print \$2 }")" = "$(stored_median lab6.db 1 A boot deferred_init_total 4096 %.4g)" &&
	test "$(echo "$row" | awk "{ print \$5 }")" = "$(stored_median lab6.db 1 A boot deferred_init_total 16384 %.4g)" &&
	awk "/^boot.deferred_init_total,/ { t = 1 } t && \$1 == \"off\" { print; exit }" t | grep -q "^  off  *-  *- *$"
'

test_expect_success LINUX_TARBALL 'delta in the recipe is its verdicts'\'' band; --delta overrides it' '
	cat >band.recipe <<-\EOF &&
	[recipe]
		ref = fixture-base
		workload = boot
		metric = boot.to_init
		delta = 0.5%
	[variant "a"]
		cmdline = quiet
	[variant "b"]
		cmdline = quiet
	EOF
	run_recipe band.recipe lab7.db --boots 2 --iters 2 &&
	test "$(sql lab7.db "SELECT DISTINCT delta FROM verdicts")" = 0.005 &&
	run_recipe band.recipe lab8.db --boots 2 --iters 2 --delta 3% &&
	test "$(sql lab8.db "SELECT DISTINCT delta FROM verdicts")" = 0.03 &&
	printf "[recipe]\n\tdelta = 2\n" >bad-band.recipe &&
	test_expect_code 2 "$LAB" recipe bad-band.recipe 2>err &&
	expect_one_line_naming err "bad value .2. for .recipe.delta."
'

test_expect_success LINUX_TARBALL 'a probe that does not apply is BUILD_FAILED naming the probe' '
	cd repo && sed -i "s/^	map_mem(pgdp);$/	map_mem(pgdp); \/* moved *\//" arch/arm64/mm/mmu.c &&
	git commit -q -am "touch map_mem" && git tag moved && cd .. &&
	rc=0 && "$LAB" build --db lab5.db --repo repo --arch aarch64 --probe map_mem moved >/dev/null 2>err || rc=$? &&
	cat err && test "$rc" = 1 && grep -q "(aarch64): BUILD_FAILED" err &&
	grep -q "patch .*/kernels/probes/arm64/map_mem.patch. does not apply to" err &&
	test ! -e .lab/trees/repo/src/arch/arm64/mm/mmu.c.rej
'

test_expect_success LINUX_TARBALL 'the probe is in the cache key, and the next build without it has no probe' '
	"$LAB" build --db lab5.db --repo repo --arch aarch64 --probe map_mem fixture-base >with 2>err &&
	"$LAB" build --db lab5.db --repo repo --arch aarch64 fixture-base >without 2>err &&
	test "$(cat with)" != "$(cat without)" &&
	grep -q probe_map_mem "$(cat with)" && ! grep -q probe_map_mem "$(cat without)"
'

test_expect_success 'bad recipes: one line naming the problem, exit 2' '
	printf "[recipe]\n\tworkload = demote\n\tmetirc = demote.x\n" >typo.recipe &&
	rc=0 && "$LAB" recipe typo.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "unknown key .recipe.metirc. in recipe typo.recipe" &&
	printf "[recipe]\n\tworkload = demote\n\tmetric = demote.x\n[variant \"a\"]\n\tref = x\n" >one.recipe &&
	rc=0 && "$LAB" recipe one.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "recipe one.recipe names 1 variant" &&
	rc=0 && "$LAB" recipe missing.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "cannot read recipe .missing.recipe." &&
	printf "[recipe]\n\tclock = fast\n" >clock.recipe &&
	rc=0 && "$LAB" recipe clock.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "bad value .fast. for .recipe.clock. in recipe clock.recipe line 2: expected wall, icount or auto" &&
	printf "[recipe]\n\tmem = 4X\n" >mem.recipe &&
	rc=0 && "$LAB" recipe mem.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "bad value .4X. for .recipe.mem." &&
	rc=0 && "$LAB" recipe "$RECIPES/seed-004-linear-map.recipe" --arch x86_64 2>err || rc=$? &&
	test "$rc" = 2 && expect_one_line_naming err "does not run on .x86_64."
'

test_expect_success 'a metric the lab guest'\''s workload never reports: refused before any build' '
	printf "[recipe]\n\tworkload = zeroing\n\tmetric = zeroing.touch\n\tmetric = zeroing.nosuch\n[variant \"a\"]\n\tref = x\n[variant \"b\"]\n\tref = y\n" >metric.recipe &&
	rc=0 && "$LAB" recipe metric.recipe --runner qemu --db metric.db 2>err || rc=$? && test "$rc" = 2 &&
	test "$(cat err)" = "lab: unknown metric '\''nosuch'\'' for workload '\''zeroing'\'' in recipe metric.recipe: did you mean '\''touch'\''?" &&
	test ! -e metric.db
'

test_done
