#!/bin/bash
# Effects as small as virtual time resolves: three histories of 120 commits
# on Debian's 6.1 source (the fixture's base), each with one commit that
# slows the zeroing path by about 0.3 %, a different function in each,
# among commits that change nothing the kernel runs. lab bisect --delta
# 0.1% must name that commit in each, in virtual time; every step's boots
# and wall time are printed, with the whole bisection's.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
DB=$TOP/state/check-kernel.db
N=120

# history NAME AT FILE MESSAGE PERL: fixture-base, then N commits to a text
# file, the one numbered AT also editing FILE with PERL (which must change it).
history() {
	git -C linux checkout -q -b "$1" fixture-base &&
	for i in $(seq "$N"); do
		echo "$1 $i" >linux/Documentation/k0520.txt
		if [ "$i" = "$2" ]; then
			cp "linux/$3" before && perl -0pi -e "$5" "linux/$3" &&
			! cmp -s before "linux/$3" || return 1
			git -C linux add -A && git -C linux commit -q -m "$4" || return 1
		else
			git -C linux add -A && git -C linux commit -q -m "docs: note $i of $1" || return 1
		fi
	done &&
	git -C linux rev-parse "$1~$(( N - $2 ))" >"$1.culprit"
}

# bisected NAME: lab bisect --delta 0.1% names the commit history NAME slowed.
bisected() {
	start=$(date +%s) &&
	"$LAB" bisect --db "$DB" --repo "$PWD/linux" --good fixture-base --bad "$1" \
		--workload zeroing --iters 5 --clock icount --metric touch --delta 0.1% \
		>"$1.out" 2>"$1.err" || { cat "$1.out" "$1.err"; return 1; }
	cat "$1.out" && grep "^step " "$1.err" &&
	echo "$1: bisected in $(( $(date +%s) - start )) s" &&
	grep -q "^culprit: $(cat "$1.culprit")" "$1.out"
}

test_expect_success 'setup: three histories of 120 commits, one 0.3 % slowdown in each' '
	# a cold 6.1 build on a loaded 2-core machine can pass the default hour
	printf "[build]\n\ttimeout = 4h\n" >lab.conf &&
	git clone -q --shared --no-checkout "$FIXTURE" linux &&
	git -C linux config user.name "A U Thor" && git -C linux config user.email author@example.com &&
	history s1 37 mm/memory.c "mm: clear_huge_page reads back every 160th word" \
		"s/(\tprocess_huge_page\(addr_hint, pages_per_huge_page, clear_subpage, page\);\n)/\$1\tfor (unsigned long i = 0; i < pages_per_huge_page * PAGE_SIZE \/ sizeof(long); i += 160)\n\t\t(void)READ_ONCE(((unsigned long *)page_address(page))[i]);\n/" &&
	history s2 71 mm/huge_memory.c "mm: do_huge_pmd_anonymous_page waits a little" \
		"s/(\n\tif \(!transhuge_vma_suitable\(vma, haddr\)\)\n\t\treturn VM_FAULT_FALLBACK;\n\tif \(unlikely\(anon_vma_prepare)/\n\tfor (int i = 0; i < 5000; i++)\n\t\tbarrier();\$1/" &&
	history s3 102 mm/memory.c "mm: handle_mm_fault relaxes before it faults" \
		"s/(vm_fault_t handle_mm_fault\([^{]*\{\n(?:\t[^\n]*;\n)*)/\$1\n\tfor (int i = 0; i < 3000; i++)\n\t\tcpu_relax();\n/" &&
	test "$(git -C linux rev-list --count fixture-base..s3)" = "$N"
'

test_expect_success 'clear_huge_page 0.3 % slower at commit 37 of 120: found with --delta 0.1%' '
	bisected s1
'

test_expect_success 'do_huge_pmd_anonymous_page slower at commit 71: found' '
	bisected s2
'

test_expect_success 'handle_mm_fault slower at commit 102: found' '
	bisected s3
'

test_done
