#!/bin/bash
# What goes on a kernel command line is checked piece by piece before it
# is joined: a value that would not stay one word (--functions
# "f lab.workload=demote" ran demote), a user's word that sets a key the
# lab sets, double quotes and control characters are refused, one line naming
# them, before a database exists or a guest runs.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

# the stand-in guest, each of its starts noted in started
cat >guest.sh <<EOF
#!/bin/sh
echo "\$*" >>"$TRASH/started"
exec "$FAKE" "\$@"
EOF
chmod +x guest.sh

runs() { # DB
	sql "$1" "SELECT count(*) FROM runs"
}

test_expect_success 'setup: an A/B of the stand-in guest to explain' '
	"$LAB" ab --db lab.db --runner local --guest "$TRASH/guest.sh" --workload zeroing --iters 5 \
		--a-cmdline "scale=1.0 metrics=touch" --b-cmdline "scale=1.3 metrics=touch" \
		--boots 2 >out 2>err || test $? = 1 &&
	test "$(runs lab.db)" = 4 && rm started
'

test_expect_success 'lab explain --functions "f lab.workload=demote": refused, naming it; no boot, no demote' '
	test_expect_code 2 "$LAB" explain --db lab.db --boots 1 --functions "f lab.workload=demote" \
		E1 >out 2>err &&
	test "$(unwrapped err)" = "lab: --functions: '\''f lab.workload=demote'\'' is not a function name (a C identifier, perhaps with a clone'\''s suffix such as .isra.0)" &&
	test ! -e started &&
	test "$(runs lab.db)" = 4 &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE params LIKE '\''%demote%'\''")" = 0
'

test_expect_success '--functions: globs, :mod: commands and empty names are refused; a clone'\''s name passes' '
	for f in "vfs_*" "f:mod:ext4" "a,,b" "!f"; do
		test_expect_code 2 "$LAB" explain --db lab.db --boots 1 --functions "$f" E1 2>err &&
		expect_one_line_naming err "^lab: --functions: .* is not a function name" || return 1
	done &&
	test ! -e started &&
	test_expect_code 2 "$LAB" explain --db lab.db --boots 1 \
		--functions clear_huge_page.isra.0,handle_mm_fault E1 >out 2>err &&
	grep -q "sent no profile" err &&
	test "$(sql lab.db "SELECT params FROM runs ORDER BY id DESC LIMIT 1")" = "lab.workload=zeroing lab.iters=5 lab.profile=1 lab.profile_functions=clear_huge_page.isra.0,handle_mm_fault"
'

test_expect_success 'a --cmdline word that sets lab.workload is refused, naming the key; the guest never runs' '
	rm -f started &&
	test_expect_code 2 "$LAB" run --db run.db --runner local --guest "$TRASH/guest.sh" \
		--workload zeroing --cmdline "scale=1 lab.workload=demote" >out 2>err &&
	test "$(unwrapped err)" = "lab: extra kernel command line word '\''lab.workload=demote'\'' sets lab.workload, which the lab sets itself (use --workload)" &&
	test ! -e started && test ! -e run.db
'

test_expect_success 'the lab'\''s keys from --param, a key given twice, a --param key shadowed by --cmdline' '
	test_expect_code 2 "$LAB" run --db run.db --runner local --guest "$TRASH/guest.sh" \
		--workload zeroing --param nonce=0123456789abcdef 2>err &&
	expect_one_line_naming err "^lab: guest parameter .nonce=0123456789abcdef. sets lab.nonce, which the lab sets itself$" &&
	test_expect_code 2 "$LAB" run --db run.db --runner local --guest "$TRASH/guest.sh" \
		--workload zeroing --param thp=never --param thp=always 2>err &&
	expect_one_line_naming err "^lab: lab.thp is given twice on the kernel command line (.thp=never. and .thp=always.)$" &&
	test_expect_code 2 "$LAB" run --db run.db --runner local --guest "$TRASH/guest.sh" \
		--workload zeroing --param thp=never --cmdline lab.thp=always 2>err &&
	expect_one_line_naming err "^lab: extra kernel command line word .lab.thp=always. sets lab.thp, which a guest parameter of this boot sets already$" &&
	test ! -e started && test ! -e run.db
'

test_expect_success 'lab ab: a quoted value or a control character is refused before the experiment exists' '
	test_expect_code 2 "$LAB" ab --db ab.db --runner local --guest "$TRASH/guest.sh" \
		--workload zeroing --a-cmdline scale=1 --b-cmdline "dyndbg=\"file a.c +p\"" 2>err &&
	expect_one_line_naming err "^lab: extra kernel command line .dyndbg=\"file a.c +p\". holds a double quote: a kernel command line takes words of printable ASCII without double quotes$" &&
	test_expect_code 2 "$LAB" ab --db ab.db --runner local --guest "$TRASH/guest.sh" \
		--workload zeroing --a-cmdline scale=1 --b-cmdline "$(printf "scale=1\nlab.iters=1")" 2>err &&
	expect_one_line_naming err "holds a control character" && grep -qF "scale=1\\x0alab.iters=1" err &&
	test ! -e started && test ! -e ab.db
'

test_expect_success 'lab bisect: a bad --cmdline is refused before anything is built or stored' '
	scaled_base repo "#!/bin/sh\nexec \"$FAKE\" \"\$@\" scale=%s\n" &&
	echo 1.3 >repo/scale && commit repo slow &&
	printf "[core]\n\trepo = %s/repo\n" "$PWD" >>lab.conf &&
	test_expect_code 2 "$LAB" bisect --db bisect.db --good base --bad main --workload zeroing \
		--cmdline lab.iters=1 >out 2>err &&
	test "$(unwrapped err | head -1)" = "lab: extra kernel command line word '\''lab.iters=1'\'' sets lab.iters, which the lab sets itself (use --iters)" &&
	test ! -e repo/out && test "$(sql bisect.db "SELECT count(*) FROM experiments")" = 0
'

test_done
