#!/bin/bash
# lab nightly on the real kernel history, six nights: the branch advances
# through the fixture (make check-kernel's FIXTURE) and is fetched from a git
# daemon on 127.0.0.1; each new commit is built and booted on demote in
# virtual time. The night that brings the bd225530a4c7-shaped commit ends
# with a confirmed REGRESSION, a bisection naming it, one mail and one POST;
# the night that brings the batching fix records an IMPROVEMENT and mails
# nothing. Builds are shared with k0100 (the artifact cache under the state root).
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
# The nights' own database, made afresh, beside k0100's so that the build
# caches (state/artifacts, state/ccache) and the mirror are shared.
DB=$TOP/state/nightly-kernel.db
. "$TOP/tests/lib-nightly.sh"
start=$(date +%s)

# Commit N of the fixture (fixture-base is 0, the regression 12, the fix 20).
fixture_commit() {
	git -C "$FIXTURE" rev-parse "fixture-done~$((30 - $1))"
}

advance() {
	git -C up.git update-ref refs/heads/next "$(fixture_commit "$1")"
}

night() {
	rc=0 && "$LAB" nightly --config lab.conf next >out.$1 2>err.$1 || rc=$?
	cat out.$1
}

test_expect_success AIOSMTPD,GIT_DAEMON 'setup: the fixture served by a git daemon, a mail and webhook sink' '
	git clone -q --bare "$FIXTURE" up.git &&
	# the fixture'\''s objects are loose: served without a delta search, a fetch is a copy
	git -C up.git config pack.window 0 &&
	advance 3 &&
	nightly_serve up.git &&
	rm -f "$DB" "$DB"-* "$DB".nightly-* &&
	cat >lab.conf <<-EOF
	[core]
		db = $DB
	[nightly "next"]
		repository = git://127.0.0.1:$port/up.git
		branch = next
		workloads = demote
		mem = 4G
		cmdline = "hugetlb_free_vmemmap=on nokaslr"
		clock = icount
		boots = 2
		policy = new
		maxCommits = 3
	$(nightly_notify_conf)
	EOF
'

test_expect_success AIOSMTPD,GIT_DAEMON 'three nights before the regression: seven points, no change' '
	night 1 && test "$rc" = 0 &&
	advance 7 && night 2 && test "$rc" = 0 &&
	advance 11 && night 3 && test "$rc" = 0 &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM nightly_points WHERE metric = '\''demote_page_wall'\''")" = 7 &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM nightly_changes")" = 0
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the night that brings bd225530a4c7'\''s shape: REGRESSION, bisected to it, one mail, one POST' '
	advance 16 && night 4 && test "$rc" = 1 &&
	reg=$(git -C "$FIXTURE" rev-parse fixture-regression) &&
	test "$(sqlite3 "$DB" "SELECT verdict, culprit, outcome FROM nightly_changes
		WHERE series LIKE '\''demote.demote_page_wall %'\''")" = "REGRESSION|$reg|FOUND" &&
	test "$(mails)" = 1 && test "$(posts)" = 1 &&
	tr -d "\\r" <sink/mail-1.eml >mail &&
	grep -q "^culprit: $reg$" mail &&
	grep -q "^explanation X[0-9]*: demote\\.demote_[a-z_]* of E[0-9]*$" mail &&
	grep -qE "^(synchronize_rcu|__wait_rcu_gp) " mail &&
	grep -q "^subject: $(git -C "$FIXTURE" log -1 --format=%s "$reg")$" mail &&
	grep -q "^author: $(git -C "$FIXTURE" log -1 --format="%an <%ae>" "$reg")$" mail &&
	grep -q "^Subject: \\[lab nightly next\\] REGRESSION in demote\\.demote_[a-z_]*: ${reg:0:12} " mail &&
	$PY -c "
import json, sys
d = json.load(open(\"sink/post-1.json\"))
c = {x[\"metric\"]: x for x in d[\"changes\"]}
assert d[\"nightly\"] == \"next\", d
w = c[\"demote_page_wall\"]
assert w[\"verdict\"] == \"REGRESSION\" and w[\"outcome\"] == \"FOUND\", w
assert w[\"culprit\"] == sys.argv[1] and w[\"subject\"] == sys.argv[2], w
" "$reg" "$(git -C "$FIXTURE" log -1 --format=%s "$reg")" &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM experiments WHERE kind = '\''bisect'\''")" = 1 &&
	# the bisection starts from the confirming A/B'\''s boots of its ends: none of its own
	ab=$(sqlite3 "$DB" "SELECT ab_experiment FROM nightly_changes WHERE bisection IS NOT NULL LIMIT 1") &&
	test "$(sqlite3 "$DB" "SELECT DISTINCT s.seed_experiment FROM bisect_specs s JOIN nightly_changes c
		ON c.bisection = s.experiment_id")" = "$ab" &&
	grep -q "^the ends start from E$ab'\''s boots ([1-9][0-9]* and [1-9][0-9]*, in virtual time)$" err.4 &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id
		JOIN experiments e ON e.id = v.experiment_id WHERE e.kind = '\''bisect'\''
		AND v.name IN ('\''G'\'', '\''B'\'')")" = 0 &&
	grep "^step\|^culprit\|confirm" err.4
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the night that brings the fix: IMPROVEMENT, no regression mail' '
	advance 19 && night 5 && test "$rc" = 0 &&
	advance 23 && night 6 && test "$rc" = 0 &&
	test "$(sqlite3 "$DB" "SELECT verdict FROM nightly_changes WHERE series LIKE '\''demote.demote_page_wall %'\''
		ORDER BY id DESC LIMIT 1")" = IMPROVEMENT &&
	test "$(mails)" = 1 && test "$(posts)" = 2 &&
	test "$(sqlite3 "$DB" "SELECT count(*) FROM experiments WHERE kind = '\''bisect'\''")" = 1 &&
	grep -q "\"verdict\":\"IMPROVEMENT\"" sink/post-2.json
'

echo "# six nights in $(( $(date +%s) - start )) s"
test_done
