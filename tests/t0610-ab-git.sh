#!/bin/bash
# lab ab on git refs and on a patch series (file and URL), with a project
# whose build.command makes a program the local runner runs.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

test_expect_success 'setup: a project whose build makes a measurable program' '
	git init -q -b main repo && cd repo &&
	git config user.name "A U Thor" && git config user.email author@example.com &&
	cat >build.sh <<-\EOS &&
	#!/bin/sh
	mkdir -p out && printf "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s\n" "$(cat scale)" >out/image &&
	chmod +x out/image
	EOS
	chmod +x build.sh && echo 1.00 >scale && git add . && git commit -q -m base && git tag base &&
	echo 1.15 >scale && git commit -q -am "slow down" && git tag slow &&
	git checkout -q -b fix && echo 1.00 >scale &&
	git -c user.name="Pat Cher" -c user.email=pat@example.com commit -q -am "mm: speed it up again" &&
	git format-patch -q -1 --stdout >../fix.mbox && git checkout -q main && cd .. &&
	local_conf "$PWD/repo" >lab.conf
'

test_expect_success 'refs: the slower commit is a REGRESSION' '
	rc=0 && "$LAB" ab --db lab.db --a base --b slow --workload zeroing --boots 3 --iters 20 >out 2>err || rc=$? &&
	cat err out && test "$rc" = 1 &&
	grep -q " REGRESSION$" out &&
	test "$(sql lab.db "SELECT group_concat(git_ref) FROM variants WHERE experiment_id = 1 ORDER BY name")" = "base,slow" &&
	test "$(sql lab.db "SELECT k.git_commit FROM variants v JOIN kernels k ON k.id = v.kernel_id WHERE v.experiment_id = 1 AND v.name = '\''B'\''")" = "$(git -C repo rev-parse slow)"
'

test_expect_success 'a patch file: B is A plus the series, as a commit with its author' '
	rc=0 && "$LAB" ab --db lab.db --a slow --patch fix.mbox --workload zeroing --boots 3 --iters 20 >out 2>err || rc=$? &&
	cat err out && test "$rc" = 0 &&
	grep -q " IMPROVEMENT$" out &&
	commit=$(sql lab.db "SELECT k.git_commit FROM variants v JOIN kernels k ON k.id = v.kernel_id WHERE v.experiment_id = 2 AND v.name = '\''B'\''") &&
	git -C repo cat-file -p "$commit" | grep -q "^author Pat Cher <pat@example.com>" &&
	git -C repo log -1 --format=%s "$commit" | grep -qx "mm: speed it up again" &&
	test "$(git -C repo rev-parse "$commit^")" = "$(git -C repo rev-parse slow)" &&
	test "$(git -C repo rev-parse HEAD)" = "$(git -C repo rev-parse main)"
'

port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")

test_expect_success 'a patch from a URL served on loopback; 404 and non-mbox are clear errors' '
	mkdir www && echo "<html>hello</html>" >www/page.html && cp fix.mbox www/ &&
	{ python3 -m http.server "$port" --bind 127.0.0.1 --directory www >server.log 2>&1 & } &&
	server=$! &&
	test_when_finished "kill $server" &&
	test_wait_until 60 "curl -s -o /dev/null http://127.0.0.1:$port/ || ! kill -0 $server" &&
	{ kill -0 $server || { cat server.log; exit 1; }; } &&
	rc=0 && "$LAB" ab --db lab.db --a slow --patch "http://127.0.0.1:$port/fix.mbox" --workload zeroing --boots 3 --iters 20 >out 2>err || rc=$? &&
	test "$rc" = 0 && grep -q " IMPROVEMENT$" out &&
	rc=0 && "$LAB" ab --db lab.db --a slow --patch "http://127.0.0.1:$port/nothere.mbox" --workload zeroing 2>err || rc=$? &&
	test "$rc" = 2 && expect_one_line_naming err "HTTP 404" &&
	rc=0 && "$LAB" ab --db lab.db --a slow --patch "http://127.0.0.1:$port/page.html" --workload zeroing 2>err || rc=$? &&
	test "$rc" = 2 && expect_one_line_naming err "not an mbox"
'

test_expect_success 'a patch that does not apply is named' '
	sed "s/^-1.15/-7.77/" fix.mbox >bad.mbox &&
	rc=0 && "$LAB" ab --db lab.db --a base --patch bad.mbox --workload zeroing 2>err || rc=$? &&
	cat err && test "$rc" = 2 && grep -q "patch 1/1 '\''mm: speed it up again'\'' does not apply" err
'

test_done
