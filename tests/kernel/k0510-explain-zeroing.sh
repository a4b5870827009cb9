#!/bin/bash
# lab explain on three histories of the zeroing path: Debian's 6.1 source
# (the fixture's base) and one commit that slows one function by a few
# percent, a different function in each. Each explanation, one profiled
# boot a side in virtual time, must name the function its commit touched
# among its first three.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
DB=$TOP/state/check-kernel.db
ZEROING="--workload zeroing --iters 10 --clock icount --top 3"

# commit BRANCH FILE MESSAGE PERL: fixture-base plus one commit on BRANCH
# that edits FILE with PERL, which must change it.
commit() {
	git -C linux checkout -q -b "$1" fixture-base &&
	cp "linux/$2" before &&
	perl -0pi -e "$4" "linux/$2" &&
	! cmp -s before "linux/$2" &&
	git -C linux commit -q -a -m "$3"
}

# explained BRANCH FUNCTION: lab explain fixture-base against BRANCH, FUNCTION
# in its top three.
explained() {
	start=$(date +%s) &&
	"$LAB" explain --db "$DB" --repo "$PWD/linux" --a fixture-base --b "$1" $ZEROING \
		>"$1.out" 2>"$1.err" || { cat "$1.err"; return 1; }
	cat "$1.out" && echo "$1: built and explained in $(( $(date +%s) - start )) s" &&
	sed -n "/^function /,/^\$/p" "$1.out" | sed 1d | grep . | awk "{ print \$1 }" >"$1.top3" &&
	test "$(wc -l <"$1.top3")" = 3 &&
	grep -qx "$2" "$1.top3"
}

test_expect_success 'setup: three histories, one function of the zeroing path slowed in each' '
	git clone -q --shared --no-checkout "$FIXTURE" linux &&
	git -C linux config user.name "A U Thor" && git -C linux config user.email author@example.com &&
	commit h1 mm/memory.c "mm: clear_huge_page reads the cleared page back" \
		"s/(\tprocess_huge_page\(addr_hint, pages_per_huge_page, clear_subpage, page\);\n)/\$1\tfor (unsigned long i = 0; i < pages_per_huge_page * PAGE_SIZE \/ sizeof(long); i += 16)\n\t\t(void)READ_ONCE(((unsigned long *)page_address(page))[i]);\n/" &&
	commit h2 mm/huge_memory.c "mm: do_huge_pmd_anonymous_page waits a little" \
		"s/(\n\tif \(!transhuge_vma_suitable\(vma, haddr\)\)\n\t\treturn VM_FAULT_FALLBACK;\n\tif \(unlikely\(anon_vma_prepare)/\n\tfor (int i = 0; i < 20000; i++)\n\t\tbarrier();\$1/" &&
	commit h3 mm/memory.c "mm: handle_mm_fault relaxes before it faults" \
		"s/(vm_fault_t handle_mm_fault\([^{]*\{\n(?:\t[^\n]*;\n)*)/\$1\n\tfor (int i = 0; i < 10000; i++)\n\t\tcpu_relax();\n/" &&
	git -C linux show h3 | grep -q "cpu_relax();"
'

test_expect_success 'clear_huge_page slowed: named in the top three' '
	explained h1 clear_huge_page
'

test_expect_success 'do_huge_pmd_anonymous_page slowed: named in the top three' '
	explained h2 do_huge_pmd_anonymous_page
'

test_expect_success 'handle_mm_fault slowed: named in the top three' '
	explained h3 handle_mm_fault
'

test_done
