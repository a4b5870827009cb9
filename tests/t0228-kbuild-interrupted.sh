#!/bin/bash
# A kernel build killed halfway (the lab by SIGKILL) leaves what make was
# writing cut off in the build directory: a .cmd file, which every later
# make there includes and stops at ("unterminated variable reference"). The
# next build finds the lab's marker there, removes what the killed one left
# unfinished (a target whose .cmd file is missing, older or cut off), keeps
# what it finished, and builds. The tree's Makefile stands in for kbuild: tinyconfig,
# olddefconfig and bzImage in O=, with a .cmd file per object that make
# includes, and a build that stops writing it halfway while $STALL exists.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: a tree whose make includes the .cmd files it writes' '
	git init -q -b main repo &&
	cat >repo/Makefile <<-\EOF &&
	.RECIPEPREFIX = >
	tinyconfig:
	>printf "# tinyconfig\nCONFIG_TREE_RCU=y\n" >$(O)/.config
	olddefconfig:
	>@:
	-include $(O)/.a.o.cmd $(O)/.b.o.cmd
	bzImage: $(O)/a.o
	>mkdir -p $(O)/arch/x86/boot && cat $(O)/b.o $(O)/a.o >$(O)/arch/x86/boot/bzImage
	$(O)/b.o: b.c
	>cp b.c $@
	>printf "deps_b.o := \$$(wildcard include/config/Y)\n" >$(O)/.b.o.cmd
	$(O)/a.o: a.c $(O)/b.o
	>cp a.c $@
	>if [ -e "$(STALL)" ]; then printf "deps_a.o := \$$(wildc" >$(O)/.a.o.cmd; touch "$(STALL).reached"; sleep 300; fi
	>printf "deps_a.o := \$$(wildcard include/config/X)\n" >$(O)/.a.o.cmd
	.PHONY: tinyconfig olddefconfig bzImage
	EOF
	echo "int a = 1;" >repo/a.c && echo "int b = 1;" >repo/b.c &&
	git -C repo add . &&
	git -C repo -c user.name=A -c user.email=a@example.com commit -q -m base &&
	git -C repo tag base &&
	echo "int a = 2;" >repo/a.c && echo "int b = 2;" >repo/b.c &&
	git -C repo -c user.name=A -c user.email=a@example.com commit -q -am "change a and b" &&
	printf "[core]\n\trepo = %s/repo\n" "$PWD" >lab.conf &&
	"$LAB" build --db lab.db --arch x86_64 base >path 2>err && cat err &&
	grep -qx "int a = 1;" "$(cat path)" && grep -qx "int b = 1;" "$(cat path)"
'
export STALL=$TRASH/stall

test_expect_success 'a build killed while it writes a .cmd file leaves it cut off' '
	touch "$STALL" &&
	{ "$LAB" build --db lab.db --arch x86_64 main >killed.out 2>killed.err & } &&
	pid=$! &&
	for i in $(seq 300); do test -e "$STALL.reached" && break; sleep 0.1; done &&
	test -e "$STALL.reached" &&
	kill -9 $pid && { wait $pid || true; } &&
	rm "$STALL" &&
	cmd=$(ls trees/repo/kbuild/x86_64-*/.a.o.cmd) &&
	test "$(cat "$cmd")" = "deps_a.o := \$(wildc" &&
	stat -c "%i %y" "$(dirname "$cmd")/b.o" >b.stat &&
	test_must_fail make -C trees/repo/src O="$TRASH/$(dirname "$cmd")" bzImage >make.out 2>&1 &&
	grep -q "\.a\.o\.cmd:1: \*\*\* unterminated variable reference" make.out
'

test_expect_success 'the next build removes what the killed one left unfinished, keeps the rest' '
	obj=$(cd trees/repo/kbuild/x86_64-* && pwd) &&
	"$LAB" build --db lab.db --arch x86_64 main >path 2>err && cat err &&
	grep -qx "int a = 2;" "$(cat path)" && grep -qx "int b = 2;" "$(cat path)" &&
	unwrapped err | grep -qx "lab: warning: the last build in '\''$obj'\'' did not finish: removed 2 unfinished files" &&
	stat -c "%i %y" "$obj/b.o" | cmp - b.stat &&
	test "$(cat "$obj/.a.o.cmd")" = "deps_a.o := \$(wildcard include/config/X)" &&
	test ! -e "$obj/.lab-building"
'

test_expect_success 'a build that ended by itself leaves nothing to remove' '
	git -C repo checkout -q -b next main &&
	echo "int a = 3;" >repo/a.c &&
	git -C repo -c user.name=A -c user.email=a@example.com commit -q -am "change a again" &&
	"$LAB" build --db lab.db --arch x86_64 next >path 2>err && cat err &&
	grep -qx "int a = 3;" "$(cat path)" &&
	! grep -q "did not finish" err
'

test_done
