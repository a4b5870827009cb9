#!/bin/bash
# Text from outside the lab (a commit subject, a command line) reaches the
# terminal with its control characters shown as \xHH: a subject that sets
# the window title and clears the screen does neither.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

EVIL=$(printf 'mm: \033]0;PWN\007\033[2J')
SHOWN='mm: \x1b]0;PWN\x07\x1b[2J'

# no ESC and no BEL anywhere in the files named
no_controls() {
	for f in "$@"; do
		if LC_ALL=C grep -q "$(printf '[\033\007]')" "$f"; then
			echo "control characters in $f:"; od -c "$f" | grep -E '033|\\a' | head -5
			return 1
		fi
	done
}

test_expect_success 'setup: a history whose slower commit has a subject with escapes' '
	scaled_base repo "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s\n" &&
	echo one >repo/notes && git -C repo add -A && git -C repo commit -q -m "change 1" &&
	echo 1.20 >repo/scale && git -C repo commit -q -am "$EVIL" && git -C repo tag culprit &&
	echo two >repo/notes && git -C repo commit -q -am "change 3" &&
	test "$(git -C repo log -1 --format=%s culprit)" = "$EVIL" &&
	local_conf "$PWD/repo" >lab.conf
'

test_expect_success 'lab bisect: the culprit'\''s subject, build and step lines show the escapes' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out err && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	grep -qxF "  subject: $SHOWN" out &&
	grep -qF "build $(git -C repo rev-parse --short=12 culprit) $SHOWN (" err &&
	grep -qE "^step [0-9]+: [0-9a-f]{12} mm: \\\\x1b\]0;PWN\\\\x07\\\\x1b\[2J is " err &&
	no_controls out err
'

test_expect_success 'lab ab: a refs A/B builds the subject'\''s commit, its build line escaped' '
	rc=0 && "$LAB" ab --db lab.db --a base --b culprit --workload zeroing --max-boots 8 --iters 10 \
		>out 2>err || rc=$? &&
	cat out err && test "$rc" = 1 &&
	grep -q " REGRESSION$" out &&
	grep -qF "build $(git -C repo rev-parse --short=12 culprit) $SHOWN (" err &&
	no_controls out err
'

test_expect_success 'lab ab --b-cmdline with ESC is refused, the escapes shown; a stored one, lab show escapes' '
	rc=0 && "$LAB" ab --db ab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=1.0 --b-cmdline "scale=1.0 note=$(printf "\033]0;PWN\007\033[2J")" \
		--boots 2 --iters 10 >out 2>err || rc=$? &&
	cat out err && test "$rc" = 2 &&
	grep -qF "note=\\x1b]0;PWN\\x07\\x1b[2J'\'' holds a control character" err &&
	test ! -e ab.db &&
	"$LAB" ab --db ab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=1.0 --b-cmdline "scale=1.0 note=x" --boots 2 --iters 10 >out 2>err &&
	sql ab.db "UPDATE variants SET cmdline = '\''scale=1.0 note='\'' || char(27) || '\'']0;PWN'\'' || char(7) || char(27) || '\''[2J'\'' WHERE name = '\''B'\''" &&
	"$LAB" show --db ab.db E1 >show 2>show.err &&
	cat show show.err &&
	grep -qF "cmdline '\''scale=1.0 note=\\x1b]0;PWN\\x07\\x1b[2J'\''" show &&
	no_controls out err show show.err
'

test_expect_success 'lab nightly: the subject in the line of the commit it measures, escaped once' '
	git -C repo branch evil culprit &&
	{
		local_conf "$PWD/repo" &&
		printf "[core]\n\tdb = %s/night.db\n[nightly \"e\"]\n" "$PWD" &&
		printf "\trepository = %s/repo\n\tbranch = evil\n\tboots = 1\n" "$PWD"
	} >night.conf &&
	"$LAB" nightly --config night.conf e >out 2>err &&
	cat out err &&
	grep -qxF "commit $(git -C repo rev-parse --short=12 culprit) (\"$SHOWN\"):" out &&
	no_controls out err
'

test_expect_success 'an error quoting a ref the user typed shows its escapes' '
	test_expect_code 2 "$LAB" bisect --db lab.db --good "$(printf "v1\033]0;PWN\007")" --bad main \
		--workload zeroing >out 2>err &&
	cat err && grep -qF "v1\\x1b]0;PWN\\x07" err &&
	no_controls out err
'

test_done
