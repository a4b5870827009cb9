#!/bin/bash
# lab build on a small repository made here, with build.command standing in
# for make: refs, the lab's own work tree, the artifact cache, failures.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: a repository with a build script' '
	git init -q -b main repo && cd repo &&
	git config user.name "A U Thor" && git config user.email author@example.com &&
	cat >build.sh <<-\EOS &&
	#!/bin/sh
	echo build >>"$BUILD_COUNT"
	grep -q "^broken" src/a.c && { echo "error: src/a.c is broken" >&2; exit 1; }
	mkdir -p out && cat src/*.c >out/image
	EOS
	chmod +x build.sh && mkdir src &&
	for i in 1 2 3 4 5 6 7 8; do echo "int f$i;" >src/f$i.c; done &&
	echo "int a = 1;" >src/a.c && git add . && git commit -q -m base && git tag base &&
	echo "int a = 2;" >src/a.c && git commit -q -am "change a" &&
	echo "int b = 3;" >src/b.c && git add src/b.c && git commit -q -m "add b" &&
	echo "broken" >src/a.c && git commit -q -am "break the build" &&
	cd .. &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n" "$PWD" >lab.conf
'
export BUILD_COUNT=$TRASH/builds

test_expect_success 'a ref builds and prints the cached image' '
	"$LAB" build --db lab.db base >path 2>err && cat err &&
	test -f "$(cat path)" &&
	grep -q "int a = 1;" "$(cat path)" &&
	! grep -q "compiler cache" err &&
	test "$(wc -l <"$BUILD_COUNT")" = 1 &&
	test "$(sql lab.db "SELECT git_commit FROM kernels")" = "$(git -C repo rev-parse base)"
'

test_expect_success 'asking again is a cache hit: no checkout, no build' '
	"$LAB" build --db lab.db "$(git -C repo rev-parse --short base)" >path2 2>err &&
	cmp path path2 && grep -q CACHED err &&
	test "$(wc -l <"$BUILD_COUNT")" = 1
'

test_expect_success 'the image is hashed as it is copied: the entry keeps the hash, the store the commit' '
	dir=$(dirname "$(cat path)") &&
	test "$(cat "$dir/hash")" = "$(git hash-object "$(cat path)")" &&
	test "$(sql lab.db "SELECT count(*) FROM kernels")" = 1 &&
	test "$(sql lab.db "SELECT hash || \" \" || git_commit FROM kernels")" = \
		"$(git hash-object "$(cat path)") $(git -C repo rev-parse base)"
'

test_expect_success 'a cache hit takes the kept hash: the image is not read' '
	dir=$(dirname "$(cat path)") &&
	test_when_finished "git hash-object \"$(cat path)\" >\"$dir/hash\"" &&
	echo 0123456789abcdef0123456789abcdef01234567 >"$dir/hash" &&
	LAB_DEBUG=1 "$LAB" build --db lab.db base >path4 2>err && cat err &&
	cmp path path4 &&
	unwrapped err | grep -q "lab: debug: kernel .* cached from .*hash 0123456789abcdef0123456789abcdef01234567"
'

test_expect_success 'moving to the next commit rewrites only the file that differs' '
	tree=$TRASH/trees/repo/src &&
	test -f "$tree/src/f1.c" &&
	find "$tree" -path "$tree/out" -prune -o -type f -exec touch -d "2001-01-01" {} + &&
	"$LAB" build --db lab.db main~2 >/dev/null 2>err &&
	cat err &&
	changed=$(find "$tree" -path "$tree/out" -prune -o -type f -newermt "2001-01-02" -print | sed "s|$tree/||" | sort | tr "\n" " ") &&
	echo "changed: $changed" &&
	test "$changed" = "src/a.c "
'

test_expect_success 'a work tree of the layout before trees/<repo>/src is moved there, not checked out again' '
	tree=$TRASH/trees/repo &&
	mv "$tree/src" "$TRASH/trees/old" && mv "$tree/index" "$TRASH/trees/old.index" &&
	rmdir "$tree" && mv "$TRASH/trees/old" "$tree" && mv "$TRASH/trees/old.index" "$tree.index" &&
	find "$tree" -path "$tree/out" -prune -o -type f -exec touch -d "2001-01-01" {} + &&
	git -C repo checkout -q -b moved base && echo "int m;" >repo/src/m.c &&
	git -C repo add src/m.c && git -C repo commit -q -m "add m" && git -C repo checkout -q main &&
	"$LAB" build --db lab.db moved >/dev/null 2>err && cat err &&
	grep -q "moved the work tree '\''$tree'\'' to '\''$tree/src'\''" err &&
	test ! -e "$tree.index" && test -f "$tree/index" && test ! -e "$tree.moving" &&
	changed=$(find "$tree/src" -path "$tree/src/out" -prune -o -type f -newermt "2001-01-02" -print |
		sed "s|$tree/src/||" | sort | tr "\n" " ") &&
	echo "changed: $changed" &&
	test "$changed" = "src/a.c src/m.c "
'

test_expect_success 'the user'\''s repository is untouched' '
	test -z "$(git -C repo status --porcelain)" &&
	test "$(git -C repo rev-parse HEAD)" = "$(git -C repo rev-parse main)" &&
	test "$(git -C repo symbolic-ref HEAD)" = refs/heads/main &&
	test "$(cat repo/src/a.c)" = broken
'

test_expect_success 'dirty and foreign files in the lab'\''s work tree are reset' '
	tree=$TRASH/trees/repo/src &&
	echo junk >"$tree/src/foreign.c" && echo "int a = 99;" >"$tree/src/a.c" &&
	"$LAB" build --db lab.db main~1 >path3 2>err && cat err &&
	test ! -e "$tree/src/foreign.c" && test "$(cat "$tree/src/a.c")" = "int a = 2;" &&
	! grep -q junk "$(cat path3)" && grep -q "int b = 3;" "$(cat path3)"
'

test_expect_success 'a bad ref is one line naming it, exit 2' '
	rc=0 && "$LAB" build --db lab.db v9.99 2>err || rc=$? &&
	test "$rc" = 2 && expect_one_line_naming err "cannot resolve '\''v9.99'\''"
'

test_expect_success 'a failing build is BUILD_FAILED with its log kept and its tail shown' '
	rc=0 && "$LAB" build --db lab.db main >out 2>err || rc=$? &&
	cat err && test "$rc" = 1 &&
	grep -q BUILD_FAILED err && grep -q "src/a.c is broken" err &&
	log=$(sed -n "s/^  log: //p" err) && grep -q "src/a.c is broken" "$log" &&
	test ! -s out
'

test_expect_success 'no repository configured is one line, exit 2' '
	: >empty.conf &&
	rc=0 && "$LAB" build --config empty.conf --db lab.db base 2>err || rc=$? &&
	test "$rc" = 2 && expect_one_line_naming err "no kernel repository"
'

test_expect_success 'two labs asking for one build: one builds, the other waits and finds it cached' '
	git -C repo checkout -q -b slow base &&
	sed -i "1a sleep 3" repo/build.sh && echo "int c = 4;" >repo/src/c.c &&
	git -C repo add . && git -C repo commit -q -m "a slow build" &&
	git -C repo checkout -q main &&
	before=$(wc -l <"$BUILD_COUNT") &&
	{ "$LAB" build --db lab.db slow >first.path 2>first.err & } &&
	pid=$! &&
	for i in $(seq 50); do grep -qx "$pid" kbuild.lock && break; sleep 0.1; done &&
	"$LAB" build --db lab.db slow >second.path 2>second.err &&
	wait $pid && cat first.err second.err &&
	grep -q "waiting for another lab (pid $pid): building in " second.err &&
	grep -q CACHED second.err && cmp first.path second.path &&
	test "$(wc -l <"$BUILD_COUNT")" = $((before + 1))
'

# The lab's compiler cache, with a build command that compiles through ccache
# as make would: absolute paths and -g, so that without CCACHE_BASEDIR and
# CCACHE_NOHASHDIR a tree at another path would miss every object.
test_lazy_prereq CCACHE 'test -x /usr/bin/ccache'

test_expect_success CCACHE 'setup: a project compiled through ccache, and its copy at another path' '
	git init -q -b main cc && cd cc &&
	git config user.name "A U Thor" && git config user.email author@example.com &&
	cat >build.sh <<-\EOS &&
	#!/bin/sh
	env | grep "^CCACHE_" | sort >"$CC_ENV"
	mkdir -p out &&
	for f in src/*.c; do ccache gcc -g -O2 -c -o "out/$(basename "$f" .c).o" "$PWD/$f" || exit 1; done &&
	cat out/*.o >out/image
	EOS
	chmod +x build.sh && mkdir src &&
	for i in 1 2 3; do echo "int f$i(int x) { return x * $i; }" >src/f$i.c; done &&
	git add . && git commit -q -m base &&
	cd .. && mkdir elsewhere && git clone -q cc elsewhere/cc-copy &&
	echo "the same source" >elsewhere/cc-copy/README &&
	git -C elsewhere/cc-copy add README &&
	git -C elsewhere/cc-copy -c user.name=A -c user.email=a@example.com commit -q -m readme &&
	mkdir ccstate &&
	printf "[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n\tccacheSize = 64M\n" >cc.conf
'
export CC_ENV=$TRASH/cc-env

test_expect_success CCACHE 'the build command gets the lab'\''s cache: its directory under the state root, the root as base' '
	"$LAB" build --config cc.conf --db ccstate/lab.db --repo cc main >path 2>err && cat err &&
	root=$(cd ccstate && pwd -P) &&
	cat >expect <<-EOF &&
	CCACHE_BASEDIR=$root
	CCACHE_DIR=$root/ccache
	CCACHE_MAXSIZE=64Mi
	CCACHE_NOHASHDIR=1
	EOF
	grep -v "^CCACHE_STATSLOG=" "$CC_ENV" >got && diff -u expect got &&
	log=$(sed -n "s/^CCACHE_STATSLOG=//p" "$CC_ENV") &&
	case $log in "$root/ccache/"*) ;; *) echo "stats log $log"; false ;; esac &&
	test ! -e "$log" && test -d "$root/ccache"
'

test_expect_success CCACHE 'a build says its own hits and misses: the first tree missed each object' '
	grep -x "  compiler cache: 0 hits, 3 misses, 0.0 % hits" err &&
	test "$(grep -c "compiler cache" err)" = 1
'

test_expect_success CCACHE 'the same source at another path finds every object in the cache' '
	"$LAB" build --config cc.conf --db ccstate/lab.db --repo elsewhere/cc-copy main >path2 2>err &&
	cat err && grep -q BUILT err &&
	test "$(dirname "$(cat path)")" != "$(dirname "$(cat path2)")" &&
	grep -x "  compiler cache: 3 hits, 0 misses, 100.0 % hits" err
'

test_done
