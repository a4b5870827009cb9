#!/bin/bash
# lab nightly on a history made here, played night by night: the branch is
# advanced between nights and fetched from a git daemon on 127.0.0.1; the
# project's build makes a program that prints samples (the local runner and
# tests/fixtures/fake-guest.sh), 10 % slower from one commit on and back
# again from a later one; mail and webhook go to tests/fixtures/notify-sink.py.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
. "$TOP/tests/lib-nightly.sh"

commit() {
	git -C up add -A && git -C up commit -q -m "$1"
}

# change N: commit "change N" on work, 1.10 from 13 on, 1.00 again from 22 on
make_changes() {
	for i in $(seq "$1" "$2"); do
		echo "change $i" >up/notes.txt
		case $i in
		13) echo 1.10 >up/scale ;;
		22) echo 1.00 >up/scale ;;
		esac
		commit "change $i" || return 1
		git -C up tag "c$i"
	done
}

# The branch the nightly follows moves to commit cN, as a maintainer's push would.
advance() {
	git -C up update-ref refs/heads/next "c$1"
}

# The config of nightly $2 of repository $3, branch $4, into database $1:
# three boots of zeroing on each of up to three new commits, its mail and
# posts to the ports of nightly_ports. Its [nightly] section ends it.
nightly_conf() {
	cat <<-EOF
	[core]
		db = $PWD/$1
	[build]
		command = ./build.sh
		artifact = out/image
	[run]
		runner = local
		iters = 5
	[nightly "$2"]
		repository = $3
		branch = $4
		workloads = zeroing
		boots = 3
		policy = new
		maxCommits = 3
	$(nightly_notify_conf)
	EOF
}

conf_of() {
	while [ $# -gt 1 ] && [ "$1" != --config ]; do shift; done
	echo "${2:-none}"
}

# Each database's boots draw their samples from seeds counted per commit
# (FAKE_SEED_DIR), so that two databases that boot the same commits in the
# same order hold the same samples, and take the same decisions. What the
# night said is in said, each line within 100 columns, and joined back in out.
night() {
	rc=0 && FAKE_SEED_DIR=$PWD/seeds/$(conf_of "$@") "$LAB" nightly "$@" >said 2>err || rc=$?
	tee -a nights.out <said && within_columns said && unwrapped said >out
}

test_expect_success AIOSMTPD,GIT_DAEMON 'setup: a project with 30 commits, a git daemon, a mail and webhook sink' '
	git init -q -b main up &&
	git -C up config user.name "A U Thor" && git -C up config user.email author@example.com &&
	cat >up/build.sh <<-\EOS &&
	#!/bin/sh
	mkdir -p out &&
	printf "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s cv=0.002 sleep=\${FAKE_SLEEP:-0} key=%s\n" \
		"$(cat scale)" "$(tr " " _ <notes.txt 2>/dev/null || echo base)" >out/image &&
	chmod +x out/image
	EOS
	chmod +x up/build.sh && echo 1.00 >up/scale && commit base && git -C up tag c0 &&
	make_changes 1 30 &&
	advance 1 &&
	nightly_serve up &&
	printf "token = s3cr3t-t0ken\n" >secret && chmod 600 secret &&
	{
		nightly_conf lab.db next "git://127.0.0.1:$port/up" next &&
		printf "\tmailFrom = lab@example.org\n\tcredentials = %s\n" "$PWD/secret" &&
		printf "\tbaseUrl = https://lab.example.org/site\n"
	} >lab.conf
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the first night measures the head: three boots, one point' '
	night --config lab.conf next && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT git_commit, status FROM nightly_commits")" = "$(git -C up rev-parse c1)|MEASURED" &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_runs")" = 3 &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_points")" = 1 &&
	test "$(sql lab.db "SELECT series FROM nightly_points")" = "zeroing.t local 2048M wall cmdline='\'''\''" &&
	test "$(sql lab.db "SELECT status FROM nightly_nights")" = OK &&
	test -d mirrors/next.git &&
	# the point as lab ab writes a time: four digits, scaled, never %g
	point=$(sql lab.db "SELECT value FROM nightly_points") &&
	shown=$(sed -n "s/^  zeroing\.t 2048M: \([0-9.]*\) ms (3 boots)$/\1/p" out) &&
	echo "point $point ms, shown $shown ms" &&
	awk -v p="$point" -v s="$shown" "BEGIN { exit !(s ~ /^[0-9]+\.[0-9]+\$/ && length(s) == 5 &&
		(s - p) ^ 2 < 0.0025) }" &&
	grep -q "^nightly next, night 1: 1 commit measured, 0 regressions, 0 improvements, 0 infrastructure failures$" out
'

test_expect_success AIOSMTPD,GIT_DAEMON 'two more nights: seven points, no change, nothing sent' '
	advance 7 && night --config lab.conf && test "$rc" = 0 &&
	grep -q "^branch next at [0-9a-f]*: 6 new commits, 3 to measure$" out &&
	advance 10 && night --config lab.conf && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_points")" = 7 &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_changes")" = 0 &&
	test "$(mails)" = 0 && test "$(posts)" = 0
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the regression night: confirmed, bisected to its commit, one mail, one POST' '
	advance 16 && night --config lab.conf && test "$rc" = 1 &&
	c13=$(git -C up rev-parse c13) &&
	test "$(sql lab.db "SELECT before_commit, after_commit, kind, verdict FROM nightly_changes")" = \
		"$(git -C up rev-parse c10)|$(git -C up rev-parse c14)|SUSPECT|REGRESSION" &&
	test "$(sql lab.db "SELECT culprit, outcome FROM nightly_changes")" = "$c13|FOUND" &&
	ab=$(sql lab.db "SELECT ab_experiment FROM nightly_changes") &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = $ab AND metric = '\''t'\''")" = REGRESSION &&
	test "$(sql lab.db "SELECT culprit FROM bisections")" = "$c13" &&
	test "$(sql lab.db "SELECT status FROM nightly_nights ORDER BY id DESC LIMIT 1")" = REGRESSION &&
	test "$(mails)" = 1 && test "$(posts)" = 1 &&
	grep -q "^report: $PWD/site/index.html$" out &&
	grep -q "REGRESSION" "site/e$ab.html" &&
	grep -q "${c13:0:12}" "site/b$(sql lab.db "SELECT bisection FROM nightly_changes").html"
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the A/B and the bisection store the nightly command as typed, then which they are' '
	printf "[%s]\n" nightly --config lab.conf >want &&
	for id in $(sql lab.db "SELECT ab_experiment FROM nightly_changes") \
		  $(sql lab.db "SELECT bisection FROM nightly_changes"); do
		sql lab.db "SELECT command FROM experiments WHERE id = $id" >line &&
		test "$(wc -l <line)" = 1 &&
		sh -c "lab() { printf \"[%s]\\n\" \"\$@\"; }; $(cat line)" >words &&
		diff -u want words || exit 1
	done &&
	grep -q "  # nightly next: confirm zeroing 2048M cmdline=" \
		<(sql lab.db "SELECT command FROM experiments WHERE id = $(sql lab.db "SELECT ab_experiment FROM nightly_changes")") &&
	grep -q "  # nightly next: bisect zeroing.t " \
		<(sql lab.db "SELECT command FROM experiments WHERE id = $(sql lab.db "SELECT bisection FROM nightly_changes")")
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the mail: to the list, the A/B table, the culprit with subject and author, links' '
	c13=$(git -C up rev-parse c13) &&
	tr -d "\\r" <sink/mail-1.eml >mail &&
	grep -q "^X-Envelope-To: mm@example.org$" mail &&
	grep -q "^Subject: \\[lab nightly next\\] REGRESSION in zeroing.t +[0-9.]* %: ${c13:0:12} (\"change 13\")$" mail &&
	grep -q "^zeroing.t (this host, [0-9.]*G and [0-9]* CPUs*, wall time) got worse between [0-9a-f]\{12\} and [0-9a-f]\{12\}\.$" mail &&
	grep -q "^zeroing.t (ms, lower is better; this host, [0-9.]*G and [0-9]* CPUs*; compared: .*; wall time)$" mail &&
	grep -q "^  B/A +[0-9.]* % \\[+[0-9.]*, +[0-9.]*\\] ([0-9.]*% CI), p " mail &&
	grep -q "^  verdict: REGRESSION " mail &&
	grep -q "^culprit: $c13$" mail &&
	grep -q "^subject: change 13$" mail &&
	grep -q "^author: A U Thor <author@example.com>$" mail &&
	grep -q "^A/B: https://lab.example.org/site/e[0-9]*.html$" mail &&
	grep -q "^bisection: https://lab.example.org/site/b[0-9]*.html$" mail
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the POST: JSON with the change and the culprit, the token as a bearer, nowhere else' '
	$PY -c "
import json, sys
d = json.load(open(\"sink/post-1.json\"))
c = d[\"changes\"]
assert d[\"nightly\"] == \"next\" and len(c) == 1, d
assert c[0][\"verdict\"] == \"REGRESSION\" and c[0][\"metric\"] == \"t\", c
assert c[0][\"culprit\"] == sys.argv[1] and c[0][\"subject\"] == \"change 13\", c
assert c[0][\"bisection_url\"].startswith(\"https://lab.example.org/site/b\"), c
" "$(git -C up rev-parse c13)" &&
	grep -q "^Authorization: Bearer s3cr3t-t0ken" sink/post-1.headers &&
	! grep -q s3cr3t lab.db* out err &&
	! grep -rq s3cr3t logs mirrors
'

test_expect_success AIOSMTPD,GIT_DAEMON 'a night after it: no change, nothing sent again' '
	advance 19 && night --config lab.conf && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_changes")" = 1 &&
	test "$(mails)" = 1 && test "$(posts)" = 1
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the fix night: an IMPROVEMENT, posted, not bisected, no regression mail' '
	advance 25 && night --config lab.conf && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT verdict, COALESCE(bisection, 0) FROM nightly_changes ORDER BY id DESC LIMIT 1")" = "IMPROVEMENT|0" &&
	test "$(sql lab.db "SELECT after_commit FROM nightly_changes ORDER BY id DESC LIMIT 1")" = "$(git -C up rev-parse c23)" &&
	test "$(sql lab.db "SELECT count(*) FROM bisections")" = 1 &&
	test "$(mails)" = 1 && test "$(posts)" = 2 &&
	grep -q "\"verdict\":\"IMPROVEMENT\"" sink/post-2.json &&
	grep -q "1 improvement" out
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the nightly page: its series, both changes marked between their commits, linked' '
	id=$(sql lab.db "SELECT min(id) FROM nightly_nights WHERE nightly = '\''next'\''") &&
	page=site/n$id.html && test -s $page && xmllint --noout $page &&
	grep -q "<h1>Nightly next</h1>" $page &&
	grep -q "<h2>zeroing.t</h2>" $page &&
	test "$(grep -c "<g class=\"change " $page)" = 2 &&
	test "$(grep -c "<circle class=\"pt\"" $page)" = "$(sql lab.db "SELECT count(*) FROM nightly_points")" &&
	sql lab.db "SELECT before_commit, after_commit, verdict FROM nightly_changes ORDER BY id" >changes &&
	cat >check-marks.py <<-\EOF &&
	import sys, xml.etree.ElementTree as ET
	SVG = "{http://www.w3.org/2000/svg}"
	svg = [s for s in ET.parse(sys.argv[1]).getroot().iter(SVG + "svg") if "nightly" in s.get("class")]
	assert len(svg) == 1, svg
	x = {c.findtext(SVG + "title").split()[0]: float(c.get("cx"))
	     for c in svg[0].iter(SVG + "circle") if c.get("class") == "pt"}
	marks = [(g.get("class"), float(g.find(SVG + "line").get("x1")), g.findtext(SVG + "text"))
	         for g in svg[0].iter(SVG + "g") if g.get("class").startswith("change ")]
	want = [l.strip().split("|") for l in open("changes")]
	assert len(marks) == len(want) == 2, (marks, want)
	for (cls, mx, label), (before, after, verdict) in zip(sorted(marks, key=lambda m: m[1]), want):
	    assert cls == "change v-" + verdict.lower() and label == verdict, (cls, label, verdict)
	    assert x[before[:12]] < mx < x[after[:12]], (mx, x[before[:12]], x[after[:12]])
	EOF
	python3 check-marks.py $page &&
	ab=$(sql lab.db "SELECT ab_experiment FROM nightly_changes ORDER BY id LIMIT 1") &&
	fix=$(sql lab.db "SELECT ab_experiment FROM nightly_changes ORDER BY id DESC LIMIT 1") &&
	bis=$(sql lab.db "SELECT bisection FROM nightly_changes ORDER BY id LIMIT 1") &&
	test -s site/e$ab.html && test -s site/e$fix.html && test -s site/b$bis.html &&
	grep -q "href=\"e$ab.html\">E$ab</a>" $page && grep -q "href=\"e$fix.html\">E$fix</a>" $page &&
	grep -q "href=\"b$bis.html\">E$bis</a>" $page &&
	c13=$(git -C up rev-parse c13) &&
	grep -q "<code>${c13:0:12}</code> <span class=\"subject\">change 13</span>" $page &&
	grep -q "<a href=\"n$id.html\">next</a>" site/index.html &&
	grep -q "<h2>Nightlies</h2>" site/index.html
'

test_expect_success AIOSMTPD,GIT_DAEMON 'nothing new: the night says so and measures nothing' '
	runs=$(sql lab.db "SELECT count(*) FROM runs") &&
	night --config lab.conf next && test "$rc" = 0 &&
	grep -q "nothing new since the last night" out &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = "$runs"
'

test_expect_success AIOSMTPD,GIT_DAEMON 'two at once: the second stops at once, naming the first' '
	advance 27 &&
	{ FAKE_SLEEP=1 "$LAB" nightly --config lab.conf >first.out 2>first.err & echo $! >first.pid; } &&
	test_wait_until 30 "test \"\$(sql lab.db \"SELECT count(*) FROM runs WHERE status = '\''RUNNING'\''\")\" -ge 1" &&
	rc=0 && "$LAB" nightly --config lab.conf >second.out 2>second.err || rc=$? &&
	test "$rc" = 75 &&
	expect_one_line_naming second.err "^lab: nightly .next. is being run by another lab (pid $(cat first.pid)): not starting a second$" &&
	wait "$(cat first.pid)" && rm first.pid &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_commits WHERE status = '\''PENDING'\''")" = 0
'

test_expect_success AIOSMTPD,GIT_DAEMON 'killed mid-night and run again: nothing measured twice, nothing lost' '
	advance 30 && seq=$(sql lab.db "SELECT max(seq) FROM nightly_commits") &&
	{ FAKE_SLEEP=1 "$LAB" nightly --config lab.conf >killed.out 2>killed.err & echo $! >killed.pid; } &&
	test_wait_until 60 "test \"\$(sql lab.db \"SELECT count(*) FROM nightly_runs n JOIN nightly_commits c USING (nightly, git_commit) WHERE c.seq > $seq\")\" -ge 4" &&
	kill -9 "$(cat killed.pid)" && rm killed.pid &&
	night --config lab.conf && test "$rc" = 0 &&
	grep -q "resuming what an interrupted night left" out &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_nights WHERE status = '\''INTERRUPTED'\''")" = 1 &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_commits WHERE status != '\''MEASURED'\''")" = 0 &&
	sql lab.db "SELECT c.git_commit, count(*) FROM nightly_commits c JOIN nightly_runs n USING (nightly, git_commit)
		JOIN runs r ON r.id = n.run_id WHERE r.status = '\''OK'\'' GROUP BY c.git_commit" >per-commit &&
	test "$(wc -l <per-commit)" = "$(sql lab.db "SELECT count(*) FROM nightly_commits")" &&
	! grep -v "|3$" per-commit &&
	test "$(sql lab.db "SELECT count(*) FROM nightly_points")" = "$(sql lab.db "SELECT count(*) FROM nightly_commits")"
'

test_expect_success AIOSMTPD,GIT_DAEMON 'a fetch that fails is an infrastructure failure: said, stored, no mail' '
	nightly_ports &&
	kill "$(cat "$TRASH/daemon.pid")" && rm "$TRASH/daemon.pid" &&
	test_wait_until 20 "! git ls-remote git://127.0.0.1:$port/up >/dev/null 2>&1" &&
	night --config lab.conf && test "$rc" = 2 &&
	grep -q "^infrastructure: cannot fetch branch .next. of .git://127.0.0.1:$port/up.: " out &&
	test "$(sql lab.db "SELECT status FROM nightly_nights ORDER BY id DESC LIMIT 1")" = INFRA &&
	test "$(mails)" = 1
'

test_expect_success AIOSMTPD,GIT_DAEMON 'a local path, head only: each night measures the head alone' '
	cat >local.conf <<-EOF &&
	[core]
		db = $PWD/local.db
	[build]
		command = ./build.sh
		artifact = out/image
	[run]
		runner = local
		iters = 3
	[nightly "own-head-only"]
		repository = up
		branch = next
		boots = 2
	EOF
	advance 3 && night --config local.conf own-head-only && test "$rc" = 0 &&
	advance 9 && night --config local.conf own-head-only && test "$rc" = 0 &&
	grep -q "^branch next at [0-9a-f]*: 6 new commits, 1 to measure$" out &&
	# the night'\''s summary, wider than the columns with this name: wrapped (night())
	grep -qx "nightly own-head-only, night 2: 1 commit measured, 0 regressions, 0 improvements, 0 infrastructure failures" out &&
	test "$(sql local.db "SELECT group_concat(git_commit, \" \") FROM nightly_commits ORDER BY seq")" = \
		"$(git -C up rev-parse c3) $(git -C up rev-parse c9)" &&
	test "$(sql local.db "SELECT count(*) FROM nightly_runs")" = 4 &&
	test -d mirrors/own-head-only.git
'

# OK boots per commit of an experiment: "commit|boots" lines, by commit.
boots_per_commit() {
	sql "$1" "SELECT COALESCE(v.git_ref, v.name), count(*) FROM runs r JOIN variants v ON v.id = r.variant_id
		WHERE r.experiment_id = $2 AND r.status = 'OK' GROUP BY 1 ORDER BY 1"
}

# Nightly $1 (database $1.db, config $1.conf) following branch $1: its
# nights at c1, c7 and c10, then the branch at c16, past the regression
nights_up_to_regression() {
	nightly_conf $1.db $1 up $1 >$1.conf &&
	for c in 1 7 10; do
		git -C up update-ref refs/heads/$1 c$c &&
		night --config $1.conf && test "$rc" = 0 || return 1
	done &&
	git -C up update-ref refs/heads/$1 c16
}

# Start a night of again.conf at FAKE_SLEEP=1 in the background, and kill -9
# it once the experiment of kind $1 has $2 boots ended OK.
kill_during() {
	{ FAKE_SLEEP=1 FAKE_SEED_DIR=$PWD/seeds/again.conf "$LAB" nightly --config again.conf \
		>>killed.out 2>>killed.err & echo $! >killed.pid; } &&
	test_wait_until 120 "test \"\$(sql again.db \"SELECT count(*) FROM runs r JOIN experiments e
		ON e.id = r.experiment_id WHERE e.kind = '$1' AND r.status = 'OK'\")\" -ge $2" &&
	kill -9 "$(cat killed.pid)" && rm killed.pid
}

test_expect_success AIOSMTPD,GIT_DAEMON 'killed during the confirming A/B and during the bisection: each continued, nothing measured twice' '
	nightly_ports &&
	nights_up_to_regression again &&
	mails0=$(mails) &&
	kill_during ab 3 &&
	test "$(sql again.db "SELECT count(*) FROM experiments WHERE kind = '\''bisect'\''")" = 0 &&
	# found again by what it measures, not by the words it was listed with
	sql again.db "UPDATE experiments SET command = '\''as an older lab put it'\''" &&
	kill_during bisect 3 &&
	sql again.db "UPDATE experiments SET command = '\''as an older lab put it'\''" &&
	test "$(sql again.db "SELECT count(*) FROM experiments WHERE kind = '\''ab'\'' AND status = '\''DONE'\''")" = 1 &&
	night --config again.conf && test "$rc" = 1 &&
	test "$(sql again.db "SELECT count(*) FROM nightly_nights WHERE status = '\''INTERRUPTED'\''")" = 2 &&
	ab=$(sql again.db "SELECT id FROM experiments WHERE kind = '\''ab'\''") &&
	bis=$(sql again.db "SELECT id FROM experiments WHERE kind = '\''bisect'\''") &&
	test "$(sql again.db "SELECT ab_experiment, bisection, verdict, culprit, outcome FROM nightly_changes")" = \
		"$ab|$bis|REGRESSION|$(git -C up rev-parse c13)|FOUND" &&
	test "$(sql again.db "SELECT status FROM experiments WHERE id = $bis")" = DONE &&
	boots_per_commit again.db $ab >ab.killed &&
	whole=$(sql lab.db "SELECT ab_experiment FROM nightly_changes ORDER BY id LIMIT 1") &&
	boots_per_commit lab.db $whole >ab.whole &&
	# the same samples as the uninterrupted nights (seeds per commit), so
	# the same decisions: the same boots of each commit, sides balanced
	test "$(cut -d"|" -f2 ab.killed | sort -u | wc -l)" = 1 &&
	diff -u ab.whole ab.killed &&
	values() {
		sql "$1" "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run_id
			WHERE r.experiment_id = $2 AND r.status = '\''OK'\'' ORDER BY s.value"
	} &&
	values lab.db $whole >values.whole && values again.db $ab >values.killed &&
	test -s values.whole && diff -u values.whole values.killed &&
	boots_per_commit again.db $bis >bisect.killed &&
	boots_per_commit lab.db "$(sql lab.db "SELECT bisection FROM nightly_changes ORDER BY id LIMIT 1")" >bisect.whole &&
	diff -u bisect.whole bisect.killed &&
	test "$(( $(mails) - mails0 ))" = 1 &&
	grep -l "^Subject: \[lab nightly again\] REGRESSION" sink/mail-*.eml >again.mails &&
	test "$(wc -l <again.mails)" = 1
'

# stop_night DB SIG KIND N: once N boots of DB's experiments of kind KIND
# (nightly: the night's own boots) ended OK, send SIG to the night running
# in the background (its pid in night.pid); rc gets its exit status
stop_night() {
	if test "$3" = nightly; then
		q="SELECT count(*) FROM nightly_runs n JOIN runs r ON r.id = n.run_id WHERE r.status = 'OK'"
	else
		q="SELECT count(*) FROM runs r JOIN experiments e ON e.id = r.experiment_id
			WHERE e.kind = '$3' AND r.status = 'OK'"
	fi &&
	test_wait_until 120 "test \"\$(sql $1 \"$q\" 2>/dev/null)\" -ge $4" &&
	kill -$2 "$(cat night.pid)" && { wait "$(cat night.pid)"; echo $? >rc; } && rm night.pid
}

# the boots of DB: none left RUNNING, and an INFRA one only the boot a signal stopped
boots_closed() {
	test "$(sql $1 "SELECT count(*) FROM runs WHERE status = 'RUNNING'")" = 0 &&
	test "$(sql $1 "SELECT count(*) FROM runs WHERE status = 'INFRA' AND error != 'interrupted'")" = 0
}

test_expect_success AIOSMTPD,GIT_DAEMON 'Ctrl-C while measuring: the night INTERRUPTED, what the next one does, exit 130' '
	nightly_ports &&
	nightly_conf sig.db sig up sig >sig.conf &&
	git -C up update-ref refs/heads/sig c1 &&
	night --config sig.conf && test "$rc" = 0 &&
	git -C up update-ref refs/heads/sig c7 &&
	before=$(sql sig.db "SELECT count(*) FROM runs WHERE status = '\''OK'\''") &&
	{ FAKE_SLEEP=1 FAKE_SEED_DIR=$PWD/seeds/sig.conf with_sigint "$LAB" nightly --config sig.conf \
		>sig.out 2>sig.err & echo $! >night.pid; } &&
	stop_night sig.db INT nightly $((before + 2)) &&
	cat sig.out &&
	test "$(cat rc)" = 130 &&
	test "$(sql sig.db "SELECT status FROM nightly_nights ORDER BY id DESC LIMIT 1")" = INTERRUPTED &&
	boots_closed sig.db &&
	test "$(tail -n 1 sig.out)" = "interrupted: the next lab nightly measures $(git -C up rev-parse --short=12 c5) and the 2 commits queued after it" &&
	test "$(LC_ALL=C.UTF-8 wc -L <sig.out)" -le 100 &&
	! grep -q "^infrastructure:" sig.out &&
	test -z "$(pgrep -f "$FAKE .*key=change_[5-7]")" &&
	night --config sig.conf && test "$rc" = 0 &&
	test "$(sql sig.db "SELECT count(*) FROM nightly_commits WHERE status != '\''MEASURED'\''")" = 0 &&
	sql sig.db "SELECT c.git_commit, count(*) FROM nightly_commits c JOIN nightly_runs n USING (nightly, git_commit)
		JOIN runs r ON r.id = n.run_id WHERE r.status = '\''OK'\'' GROUP BY c.git_commit" >per-commit &&
	test "$(wc -l <per-commit)" = 4 && ! grep -v "|3$" per-commit
'

test_expect_success AIOSMTPD,GIT_DAEMON 'SIGTERM during the confirming A/B: the A/B and the night INTERRUPTED, exit 143, the next night ends it' '
	nightly_ports &&
	nights_up_to_regression term &&
	{ FAKE_SLEEP=1 FAKE_SEED_DIR=$PWD/seeds/term.conf "$LAB" nightly --config term.conf \
		>term.out 2>term.err & echo $! >night.pid; } &&
	stop_night term.db TERM ab 2 &&
	cat term.out &&
	test "$(cat rc)" = 143 &&
	ab=$(sql term.db "SELECT id FROM experiments WHERE kind = '\''ab'\''") &&
	test "$(sql term.db "SELECT status FROM experiments WHERE id = $ab")" = INTERRUPTED &&
	test "$(sql term.db "SELECT status FROM nightly_nights ORDER BY id DESC LIMIT 1")" = INTERRUPTED &&
	boots_closed term.db &&
	test "$(tail -n 1 term.out)" = "interrupted: the next lab nightly goes on with A/B E$ab ($(git -C up rev-parse --short=12 c10)..$(git -C up rev-parse --short=12 c14))" &&
	! grep -q "^infrastructure:" term.out &&
	night --config term.conf && test "$rc" = 1 &&
	test "$(sql term.db "SELECT status FROM experiments WHERE id = $ab")" = DONE &&
	test "$(sql term.db "SELECT ab_experiment, verdict, culprit FROM nightly_changes")" = \
		"$ab|REGRESSION|$(git -C up rev-parse c13)" &&
	grep -q "^nightly term, night [0-9]*: 0 commits measured, 1 regression, " out
'

# The mail and the POSTs nightly $1 sent to the sink.
mails_of() {
	grep -l "^Subject: \[lab nightly $1\]" sink/mail-*.eml 2>/dev/null | wc -l
}

posts_of() {
	grep -l "\"nightly\":\"$1\"" sink/post-*.json 2>/dev/null | wc -l
}

# Two metrics, t and u, both 10 % slower from change 13 on: one A/B, one bisection;
# the page faults counted rise with them, in the A/B's table and under each culprit.
test_expect_success AIOSMTPD,GIT_DAEMON 'the mail server down on the regression night: the POST goes, the mail alone the next night' '
	nightly_ports &&
	down=$(free_port) &&
	printf "#!/bin/sh\n./build.sh && sed -i \"s/ cv=/ metrics=t,u,ev.pgfault steep=u cv=/\" out/image\n" >build-two.sh &&
	chmod +x build-two.sh &&
	for smtp in $down $smtp; do
		sed -e "s/again/down/g" -e "s|smtp://127.0.0.1:[0-9]*|smtp://127.0.0.1:$smtp|" \
			-e "s|command = ./build.sh|command = $PWD/build-two.sh|" again.conf >down-$smtp.conf ||
			return 1
	done &&
	for c in 1 7 10; do
		git -C up update-ref refs/heads/down c$c &&
		night --config down-$smtp.conf && test "$rc" = 0 || return 1
	done &&
	git -C up update-ref refs/heads/down c16 &&
	night --config down-$down.conf && test "$rc" = 1 &&
	grep -q "^infrastructure: the regression mail to mm@example.org was not sent$" out &&
	grep -q "^webhook: posted 2 changes$" out &&
	test "$(sql down.db "SELECT metric, count(*) FROM nightly_points GROUP BY metric" | tr "\n" " ")" = "t|10 u|10 " &&
	test "$(sql down.db "SELECT count(*) FROM experiments WHERE kind = '\''ab'\''")" = 1 &&
	test "$(sql down.db "SELECT count(*) FROM experiments WHERE kind = '\''bisect'\''")" = 1 &&
	test "$(sql down.db "SELECT DISTINCT verdict, culprit, outcome FROM nightly_changes")" = \
		"REGRESSION|$(git -C up rev-parse c13)|FOUND" &&
	test "$(mails_of down)" = 0 && test "$(posts_of down)" = 1 &&
	test "$(sql down.db "SELECT DISTINCT channel FROM nightly_notices")" = webhook &&
	test "$(sql down.db "SELECT DISTINCT notified FROM nightly_changes")" = 0 &&
	night --config down-$smtp.conf && test "$rc" = 0 &&
	grep -q "^mail: sent to mm@example.org$" out && ! grep -q "^webhook:" out &&
	test "$(mails_of down)" = 1 && test "$(posts_of down)" = 1 &&
	tr -d "\\r" <"$(grep -l "^Subject: \[lab nightly down\]" sink/mail-*.eml)" >down.mail &&
	# the subject leads with the worse of the two, u (+21 %), and counts the other
	grep -q "^Subject: \[lab nightly down\] REGRESSION in zeroing.u +2[0-9.]* %: $(git -C up rev-parse --short=12 c13) (\"change 13\"), +1 other regression$" down.mail &&
	test "$(grep -c "^culprit: $(git -C up rev-parse c13)$" down.mail)" = 2 &&
	test "$(grep -c "^zeroing.t (ms" down.mail)" = 1 && grep -q "^  (the table of E1 above)$" down.mail &&
	test "$(grep -c "^event  *culprit^  *culprit  *culprit/culprit^$" down.mail)" = 2 &&
	test "$(grep -c "^zeroing\.ev\.pgfault  *[0-9.]*  *[0-9.]*  *+[0-9.]* %$" down.mail)" = 3 &&
	test "$(sql down.db "SELECT channel, count(*) FROM nightly_notices GROUP BY channel" | tr "\n" " ")" = "mail|2 webhook|2 " &&
	test "$(sql down.db "SELECT DISTINCT notified FROM nightly_changes")" = 1 &&
	night --config down-$smtp.conf && test "$rc" = 0 &&
	test "$(mails_of down)" = 1 && test "$(posts_of down)" = 1
'

# The newest mail and POST nightly $1 sent.
last_mail_of() {
	tr -d "\r" <"$(grep -l "^Subject: \[lab nightly $1\]" sink/mail-*.eml | sort -V | tail -n 1)"
}

last_post_of() {
	grep -l "\"nightly\":\"$1\"" sink/post-*.json | sort -V | tail -n 1
}

# The config of nightly $1 on branch $1: a bisection budget of $2 boots,
# mail to the SMTP port $3.
stop_conf() {
	smtp=$3 nightly_conf "$1.db" "$1" up "$1" && printf "\tbisectBudget = %s\n" "$2"
}

# Three quiet nights of nightly $1, then the regression night, whose
# bisection $1-2.conf stops: mailed and posted without a culprit.
stop_bisection() {
	for c in 1 7 10; do
		git -C up update-ref refs/heads/$1 c$c &&
		night --config $1-500.conf && test "$rc" = 0 || return 1
	done &&
	git -C up update-ref refs/heads/$1 c16 &&
	night --config $1-2.conf && test "$rc" = 1 &&
	grep -q "^infrastructure: the bisection of [0-9a-f]*\.\.[0-9a-f]* stopped (the reason is above); it resumes next night$" out &&
	test "$(sql $1.db "SELECT verdict, COALESCE(outcome, '') FROM nightly_changes")" = "REGRESSION|" &&
	test "$(mails_of $1)" = 1 && test "$(posts_of $1)" = 1 &&
	! last_mail_of $1 | grep -q "^culprit:"
}

test_expect_success AIOSMTPD,GIT_DAEMON 'a bisection its budget stopped: mailed as going on, its culprit mailed and posted once the next night' '
	nightly_ports &&
	stop_conf stop 2 $smtp >stop-2.conf && stop_conf stop 500 $smtp >stop-500.conf &&
	stop_bisection stop &&
	last_mail_of stop >stop-1.mail &&
	grep -q "^Subject: \[lab nightly stop\] REGRESSION in zeroing.t +[0-9.]* %$" stop-1.mail &&
	grep -q "^bisection: not finished tonight; it goes on next night, and a second mail will tell its outcome$" stop-1.mail &&
	$PY -c "
import json, sys
c = json.load(open(sys.argv[1]))[\"changes\"]
assert len(c) == 1 and c[0][\"verdict\"] == \"REGRESSION\" and c[0][\"bisection_pending\"] is True, c
assert \"culprit\" not in c[0] and \"followup\" not in c[0], c
" "$(last_post_of stop)" &&
	night --config stop-500.conf && test "$rc" = 1 &&
	c13=$(git -C up rev-parse c13) &&
	test "$(sql stop.db "SELECT culprit, outcome FROM nightly_changes")" = "$c13|FOUND" &&
	test "$(mails_of stop)" = 2 && test "$(posts_of stop)" = 2 &&
	grep -q "^mail: follow-up sent to mm@example.org$" out && grep -q "^webhook: posted 1 change$" out &&
	last_mail_of stop >stop-2.mail &&
	grep -q "^Subject: \[lab nightly stop\] culprit of the REGRESSION in zeroing.t: ${c13:0:12} (\"change 13\")$" stop-2.mail &&
	grep -q "^zeroing.t (this host, [0-9.]*G and [0-9]* CPUs*, wall time) got worse between [0-9a-f]\{12\} and [0-9a-f]\{12\} (E[0-9]*): its bisection has ended$" stop-2.mail &&
	grep -q "^culprit: $c13$" stop-2.mail &&
	grep -q "^subject: change 13$" stop-2.mail &&
	grep -q "^author: A U Thor <author@example.com>$" stop-2.mail &&
	bis=$(sql stop.db "SELECT bisection FROM nightly_changes") &&
	grep -q "^bisection: E$bis, FOUND$" stop-2.mail &&
	grep -q "^effect good -> bad: t +[0-9.]* % \[+[0-9.]*, +[0-9.]*\] ([0-9.]*% CI)$" stop-2.mail &&
	$PY -c "
import json, sys
c = json.load(open(sys.argv[1]))[\"changes\"]
assert len(c) == 1 and c[0][\"followup\"] is True and \"bisection_pending\" not in c[0], c
assert c[0][\"culprit\"] == sys.argv[2] and c[0][\"subject\"] == \"change 13\", c
assert c[0][\"author\"] == \"A U Thor <author@example.com>\" and c[0][\"outcome\"] == \"FOUND\", c
assert c[0][\"bisection\"] == int(sys.argv[3]), c
assert c[0][\"effect_metric\"] == \"t\" and 1.05 < c[0][\"effect\"] < 1.15, c
assert c[0][\"effect_ci\"][0] < c[0][\"effect\"] < c[0][\"effect_ci\"][1], c
" "$(last_post_of stop)" "$c13" "$bis" &&
	test "$(sql stop.db "SELECT channel, sent IS NOT NULL FROM nightly_followups ORDER BY channel" | tr "\n" " ")" = "mail|1 webhook|1 " &&
	test "$(sql stop.db "SELECT notified FROM nightly_changes")" = 1 &&
	night --config stop-500.conf && test "$rc" = 0 &&
	test "$(mails_of stop)" = 2 && test "$(posts_of stop)" = 2
'

test_expect_success AIOSMTPD,GIT_DAEMON 'the follow-up mail not sent: the POST goes, the follow-up mail alone the next night' '
	nightly_ports &&
	down=$(free_port) &&
	stop_conf late 2 $smtp >late-2.conf && stop_conf late 500 $smtp >late-500.conf &&
	stop_conf late 500 $down >late-down.conf &&
	stop_bisection late &&
	night --config late-down.conf && test "$rc" = 1 &&
	grep -q "^infrastructure: the follow-up mail to mm@example.org was not sent$" out &&
	grep -q "^webhook: posted 1 change$" out &&
	test "$(mails_of late)" = 1 && test "$(posts_of late)" = 2 &&
	grep -q "\"followup\":true" "$(last_post_of late)" &&
	test "$(sql late.db "SELECT channel, sent IS NOT NULL FROM nightly_followups ORDER BY channel" | tr "\n" " ")" = "mail|0 webhook|1 " &&
	test "$(sql late.db "SELECT notified FROM nightly_changes")" = 0 &&
	night --config late-500.conf && test "$rc" = 0 &&
	grep -q "^mail: follow-up sent to mm@example.org$" out && ! grep -q "^webhook:" out &&
	test "$(mails_of late)" = 2 && test "$(posts_of late)" = 2 &&
	last_mail_of late >late.mail &&
	grep -q "^Subject: \[lab nightly late\] culprit of the REGRESSION in zeroing.t: " late.mail &&
	grep -q "^culprit: $(git -C up rev-parse c13)$" late.mail &&
	test "$(sql late.db "SELECT notified FROM nightly_changes")" = 1 &&
	night --config late-500.conf && test "$rc" = 0 &&
	test "$(mails_of late)" = 2 && test "$(posts_of late)" = 2
'

test_expect_success AIOSMTPD,GIT_DAEMON 'a night resuming one killed before it mailed: the regression counted, exit 1, mailed once' '
	nightly_ports &&
	advance 30 &&
	sqlite3 lab.db ".backup resumed.db" &&
	# the regression night, as a kill -9 after its bisection and before its mail leaves it
	ch=$(sql resumed.db "SELECT id FROM nightly_changes WHERE verdict = '\''REGRESSION'\''") &&
	last=$(sql resumed.db "SELECT max(id) FROM nightly_nights WHERE nightly = '\''next'\''") &&
	sql resumed.db "UPDATE nightly_changes SET notified = 0, night_id = $last WHERE id = $ch;
		DELETE FROM nightly_notices WHERE change_id = $ch;
		DELETE FROM nightly_followups WHERE change_id = $ch;
		UPDATE nightly_nights SET status = '\''RUNNING'\'', summary = NULL WHERE id = $last" &&
	sed -e "s|db = .*|db = $PWD/resumed.db|" -e "s|repository = .*|repository = $PWD/up|" \
		lab.conf >resumed.conf &&
	mails0=$(mails_of next) &&
	night --config resumed.conf && test "$rc" = 1 &&
	grep -q "^resuming what an interrupted night left$" out &&
	grep -q "^mail: sent to mm@example.org$" out &&
	grep -q "^nightly next, night [0-9]*: 0 commits measured, 1 regression, 0 improvements, 0 infrastructure failures$" out &&
	test "$(sql resumed.db "SELECT status FROM nightly_nights ORDER BY id DESC LIMIT 1")" = REGRESSION &&
	test "$(( $(mails_of next) - mails0 ))" = 1 &&
	night --config resumed.conf && test "$rc" = 0 &&
	grep -q " 0 regressions, " out &&
	test "$(( $(mails_of next) - mails0 ))" = 1
'

# A nightly of a repository here, refused before it fetches: its lines after $1.
refused_conf() {
	printf "[core]\n\tdb = %s/refused.db\n[run]\n\trunner = local\n[nightly \"r\"]\n\trepository = %s/wl\n\tbranch = main\n" \
		"$PWD" "$PWD" &&
	printf "\t%s\n" "$@"
}

test_expect_success 'mail addresses that are not plain are refused when lab.conf is read, in one line' '
	git init -q -b main wl && git -C wl commit -q --allow-empty -m x &&
	refused_conf "smtp = smtp://127.0.0.1:1" "mailTo = \"a@x>\\nRCPT TO:<v@evil\"" >inject.conf &&
	rc=0 && "$LAB" nightly --config inject.conf >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: bad value .a@x>\\\\x0aRCPT TO:<v@evil. for .nightly\.r\.mailto. in config inject.conf line 9: expected plain addresses such as lab@example.org, comma-separated (no names, no <>)$" &&
	refused_conf "smtp = smtp://127.0.0.1:1" "mailTo = mm@example.org" \
		"mailFrom = \"Lab <lab@x>\\nBcc: v@evil\"" >from.conf &&
	test_expect_code 2 "$LAB" nightly --config from.conf 2>err &&
	expect_one_line_naming err "^lab: bad value .Lab <lab@x>\\\\x0aBcc: v@evil. for .nightly\.r\.mailfrom. in config from.conf line 10: expected one plain address" &&
	refused_conf "smtp = smtp://127.0.0.1:1" "mailTo = \"a@b.c,\\n\\nx@y.z\"" >blank-line.conf &&
	test_expect_code 2 "$LAB" nightly --config blank-line.conf 2>err &&
	expect_one_line_naming err "^lab: bad value .a@b.c,\\\\x0a\\\\x0ax@y.z. for .nightly\.r\.mailto. in config blank-line.conf line 9: expected plain addresses" &&
	refused_conf "mailTo = \"a@example.org, Name <b@example.org>\"" >list.conf &&
	test_expect_code 2 "$LAB" nightly --config list.conf 2>err &&
	expect_one_line_naming err "nightly\.r\.mailto" &&
	refused_conf | sed "s/branch = main/branch = \"ma\\\\nin\"/" >branch.conf &&
	test_expect_code 2 "$LAB" nightly --config branch.conf 2>err &&
	expect_one_line_naming err "^lab: bad value .ma\\\\x0ain. for .nightly\.r\.branch. in config branch.conf line 7: expected a branch name" &&
	refused_conf "webhook = \"http://h/\\nX: y\"" >hook.conf &&
	test_expect_code 2 "$LAB" nightly --config hook.conf 2>err &&
	expect_one_line_naming err "for .nightly\.r\.webhook. in config hook.conf" &&
	test ! -e mirrors/r.git && test ! -e refused.db
'

test_expect_success 'the credentials file is checked when the night starts: a fifo, one open to others, a bad line' '
	mkfifo creds.fifo &&
	refused_conf "credentials = $PWD/creds.fifo" >fifo.conf &&
	rc=0 && timeout 20 "$LAB" nightly --config fifo.conf >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: credentials file .$PWD/creds.fifo. is a fifo, not a regular file$" &&
	printf "token = t\n" >creds.open && chmod 644 creds.open &&
	refused_conf "credentials = $PWD/creds.open" >open.conf &&
	test_expect_code 2 "$LAB" nightly --config open.conf 2>err &&
	expect_one_line_naming err "^lab: credentials file .$PWD/creds.open. is open to group or others (mode 0644): refusing it; chmod 600 it$" &&
	printf "token\n" >creds.bad && chmod 600 creds.bad &&
	refused_conf "credentials = $PWD/creds.bad" >badcreds.conf &&
	test_expect_code 2 "$LAB" nightly --config badcreds.conf 2>err &&
	expect_one_line_naming err "^lab: credentials file .$PWD/creds.bad. line 1: expected " &&
	test ! -e mirrors/r.git && test ! -e refused.db
'

test_expect_success 'bad input: no nightly, an unknown one, a bad key' '
	printf "[run]\n\titers = 3\n" >none.conf &&
	test_expect_code 2 "$LAB" nightly --config none.conf 2>err &&
	expect_one_line_naming err "^lab: no nightly in none.conf: add a \[nightly \"NAME\"\] section with its repository$" &&
	printf "[nightly \"a\"]\n\trepository = x\n" >one.conf &&
	test_expect_code 2 "$LAB" nightly --config one.conf b 2>err &&
	expect_one_line_naming err "^lab: unknown nightly .b. in one.conf (known: a)$" &&
	printf "[nightly \"a\"]\n\tpolicy = sometimes\n" >bad.conf &&
	test_expect_code 2 "$LAB" nightly --config bad.conf 2>err &&
	expect_one_line_naming err "^lab: bad value .sometimes. for .nightly.a.policy. in config bad.conf line 2: expected head or new$"
'

test_expect_success 'a nightly naming no known workload is refused before it fetches; a section is known' '
	test -d wl || { git init -q -b main wl && git -C wl commit -q --allow-empty -m x; } &&
	cat >wl.conf <<-EOF &&
	[core]
		db = $PWD/wl.db
	[run]
		runner = local
	[workload "pf"]
		program = /bin/true
	[nightly "wl"]
		repository = $PWD/wl
		branch = main
		workloads = nosuch
	EOF
	rc=0 && "$LAB" nightly --config wl.conf wl >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(cat err)" = "lab: unknown workload '\''nosuch'\'' (known: zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR, pf)" &&
	test ! -e mirrors/wl.git
'

test_done
