#!/bin/bash
# Secrets inside addresses never leave the lab (lib/redact.h): a LAVA
# server's url with a password, a nightly's repository, smtp and webhook
# addresses with theirs. Each command that shows or stores an address is
# run, then every channel the lab writes to is searched for the secret:
# stdout, stderr, the databases, the report's site, the state directory.
# And LAVA servers the lab must not trust (tests/fixtures/fake-lava.py's
# FAKE_LAVA_HOSTILE): an answer of 200 MB, a redirect, a detail of 1 MB.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-lava.sh"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

SECRET=pw-$$-Zq7x
lava_fake
PORT=${URL##*:}
SHOWN="http://***@127.0.0.1:$PORT"
trap 'kill $FAKE $(cat "$TRASH/hostile.pids" 2>/dev/null) 2>/dev/null; rm -rf "$TRASH"' EXIT
URL="http://lab:$SECRET@127.0.0.1:$PORT/" lava_conf file:///nonexistent
export LAB_CONFIG=$TRASH/lab.conf

# Nothing the lab wrote holds the secret: every file here but the configs, and the databases' text.
no_secret_anywhere() {
	for db in $(find . -name "*.db"); do
		sqlite3 "$db" .dump >"$db.dump" || return 1
	done &&
	if grep -rl -- "$SECRET" . | grep -v "\.conf$"; then
		echo "the secret is in the files above"; return 1
	fi
}

test_expect_success 'lab target list shows the LAVA server without its password' '
	"$LAB" target list >out 2>err &&
	grep "^lava1 " out | grep -qF "  x86_64   $SHOWN, qemu" &&
	! grep -q -- "$SECRET" out err
'

test_expect_success 'lab target check: the server named without its password, ready or refused' '
	"$LAB" target check lava1 >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(cat out)" = "$(printf "target '\''lava1'\'' (lava, %s, qemu): ready\n  user: lab" "$SHOWN")" &&
	echo wrong >bad-token && chmod 600 bad-token &&
	sed "s|token = .*|token = $TRASH/bad-token|" lab.conf >bad.conf &&
	test_expect_code 1 "$LAB" target check --config bad.conf lava1 >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qxF "target '\''lava1'\'' (lava, $SHOWN, qemu): missing a token the server accepts (LAVA server '\''$SHOWN'\'' refused the token: HTTP 403 (Invalid token.))" out &&
	! grep -q -- "$SECRET" out err
'

test_expect_success 'a bad url is shown on one line without its password' '
	printf "[target \"l\"]\n\trunner = lava\n\turl = \"http://u:%s@h/?x\"\n" "$SECRET" >badurl.conf &&
	test_expect_code 2 "$LAB" target list --config badurl.conf 2>err &&
	expect_one_line_naming err "^lab: bad value .http://\*\*\*@h/?x. for .target\.l\.url. in config badurl.conf line 3: " &&
	! grep -q -- "$SECRET" err
'

test_expect_success 'a webhook refused for a stray blank is shown without its path, where its secret is' '
	printf "[run]\n\trunner = local\n[nightly \"n\"]\n\trepository = /nonexistent\n\tbranch = main\n\twebhook = \"https://hooks.example.com/services/T0/B0/%s \"\n" \
		"$SECRET" >badhook.conf &&
	test_expect_code 2 "$LAB" nightly --config badhook.conf 2>err &&
	expect_one_line_naming err "^lab: bad value .https://hooks\.example\.com/\*\*\* . for .nightly\.n\.webhook. in config badhook.conf line 6: expected an http:// or https:// URL$" &&
	! grep -q -- "$SECRET" err
'

test_lazy_prereq KERNEL 'test -n "$(debian_kernel)"'

test_expect_success KERNEL 'a LAVA run: run_meta lava.url and the run'\''s error without the password' '
	test_expect_code 1 "$LAB" run --target lavabad --kernel "$(debian_kernel)" --workload zeroing \
		--iters 1 --mem 1G >out 2>err &&
	id=$(sql state/lab.db "SELECT max(id) FROM runs") &&
	test "$(sql state/lab.db "SELECT status FROM runs WHERE id = $id")" = INFRA &&
	job=$(sql state/lab.db "SELECT value FROM run_meta WHERE run_id = $id AND key = '\''lava.job'\''") &&
	test "$(sql state/lab.db "SELECT value FROM run_meta WHERE run_id = $id AND key = '\''lava.url'\''")" = \
		"$SHOWN/scheduler/job/$job" &&
	! grep -q -- "$SECRET" out err
'

test_expect_success 'a nightly whose repository, smtp and webhook carry secrets: none in its output, store or summary' '
	cat >night.conf <<-EOF &&
	[core]
		db = $TRASH/state/night.db
		state = $TRASH/state
	[run]
		runner = local
	[nightly "n"]
		repository = http://git:$SECRET@127.0.0.1:$(free_port)/r.git
		branch = main
		smtp = smtp://lab:$SECRET@127.0.0.1:1
		mailTo = mm@example.org
		webhook = http://127.0.0.1:1/hook?token=$SECRET
	EOF
	rc=0 && "$LAB" nightly --config night.conf >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	grep -q "^nightly n: night 1, branch main of http://\*\*\*@127.0.0.1:[0-9]*/r.git$" out &&
	grep -q "^infrastructure: cannot fetch branch .main. of .http://\*\*\*@127.0.0.1:[0-9]*/r.git.: " out &&
	grep -q "cannot fetch branch .main. of .http://\*\*\*@" <(sql state/night.db "SELECT summary FROM nightly_nights") &&
	! grep -q -- "$SECRET" out err
'

test_expect_success 'the report'\''s site, the databases, the state: the secret is nowhere' '
	"$LAB" report --db state/lab.db --out site >out 2>err &&
	"$LAB" report --db state/night.db --out night-site >>out 2>>err &&
	test -s site/index.html && test -s night-site/index.html &&
	grep -rq "scheduler/job/" site &&
	no_secret_anywhere
'

test_expect_success 'a run_meta address an older lab stored with its password: lab report and lab show mask it' '
	sqlite3 old-meta.db <"$TOP/schema.sql" &&
	sql old-meta.db "INSERT INTO runs(runner, workloads, cmdline, started, status) VALUES (\"lava\", \"zeroing\", \"\", 1, \"INFRA\")" &&
	sql old-meta.db "INSERT INTO run_meta VALUES (1, \"lava.url\", \"http://lab:$SECRET@127.0.0.1:9/scheduler/job/7\")" &&
	"$LAB" report --db old-meta.db --out old-meta-site >out 2>err &&
	grep -qxF "<tr><th scope=\"row\">lava.url</th><td class=\"wrap\">http://***@127.0.0.1:9/scheduler/job/7</td></tr>" old-meta-site/r1.html &&
	! grep -rq -- "$SECRET" old-meta-site out err &&
	"$LAB" show --db old-meta.db 1 >out 2>err &&
	grep -qxF "  lava.url                     http://***@127.0.0.1:9/scheduler/job/7" out &&
	"$LAB" show --db old-meta.db --format json 1 >json 2>>err &&
	grep -qF "\"lava.url\": \"http://***@127.0.0.1:9/scheduler/job/7\"" json &&
	! grep -q -- "$SECRET" out json err
'

# A second stand-in, hostile as $1 says, and a config whose lava1 is it.
hostile() {
	# each test runs in a subshell: the pids go in a file the EXIT trap reads
	[ ! -s "$TRASH/hostile.pids" ] || kill $(cat "$TRASH/hostile.pids") 2>/dev/null
	HPORT=$(free_port) &&
	{ FAKE_LAVA_HOSTILE=$1 python3 "$TOP/tests/fixtures/fake-lava.py" "$HPORT" token \
		>hostile.log 2>&1 & echo $! >"$TRASH/hostile.pids"; } &&
	for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$HPORT/" && break; sleep 0.1; done &&
	sed "s|url = .*|url = http://127.0.0.1:$HPORT|" lab.conf >hostile.conf
}

test_expect_success 'an answer of 200 MB: refused at 16 MiB, said with its size and the server' '
	hostile huge &&
	test_expect_code 1 timeout 60 "$LAB" target check --config hostile.conf lava1 >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qxF "target '\''lava1'\'' (lava, http://127.0.0.1:$HPORT, qemu): missing the server'\''s own answer (LAVA server '\''http://127.0.0.1:$HPORT'\'' answered GET system/whoami/ with more than 16 MiB: refused (the lab reads at most that))" out &&
	test "$(wc -c <out)" -lt 400
'

test_expect_success 'a redirect: said as one, not followed with the token, not called a refused token' '
	hostile redirect &&
	test_expect_code 1 "$LAB" target check --config hostile.conf lava1 >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qxF "target '\''lava1'\'' (lava, http://127.0.0.1:$HPORT, qemu): missing the server'\''s own answer (LAVA server '\''http://127.0.0.1:$HPORT'\'' redirects the token (HTTP 302) to '\''http://elsewhere.example/api/v0.2/system/whoami/'\'': not followed, since the token would go along; set url to the address it leads to)" out
'

test_expect_success 'a refusal whose detail is 1 MB with terminal controls: a short excerpt, one line' '
	hostile detail &&
	test_expect_code 1 "$LAB" target check --config hostile.conf lava1 >wrapped 2>err &&
	# a word wider than a line stands whole on a line of its own, wider than the columns
	LC_ALL=C.UTF-8 awk "length > 100" wrapped >wide &&
	test "$(wc -l <wide)" = 1 && grep -qx " *[^ ]*" wide &&
	unwrapped wrapped >out &&
	test "$(wc -l <out)" = 1 && test "$(wc -c <wrapped)" -lt 500 &&
	grep -q "refused the token: HTTP 403 (\\\\x1b\[2Jy*\.\.\.))$" out
'

test_expect_success 'a token file that is a fifo is refused at once; token = ~/ is in HOME' '
	mkfifo token.fifo &&
	sed "s|token = .*|token = $TRASH/token.fifo|" lab.conf >fifo.conf &&
	test_expect_code 1 timeout 20 "$LAB" target check --config fifo.conf lava1 >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qxF "target '\''lava1'\'' (lava, $SHOWN, qemu): missing token file '\''$TRASH/token.fifo'\'' is a fifo, not a regular file" out &&
	mkdir home && cp token home/lava-token &&
	sed "s|token = .*|token = ~/lava-token|" lab.conf >home.conf &&
	HOME=$TRASH/home "$LAB" target check --config home.conf lava1 >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "): ready$" out
'

test_done
