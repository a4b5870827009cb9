#!/bin/bash
# The manual is shaped like git's: a short README.md, one page per command
# under docs/ (lab bisect-step shares lab-bisect.md), and docs/lab-config.md
# with every key the config and recipe readers accept. The commands, their
# options and the keys are asked of lab itself, so that a new one without
# its documentation fails here.
. "$(dirname "$0")/lib.sh"

DOCS=$TOP/docs

# The page of a command: bisect-step lives in lab-bisect.md.
page_of() {
	case "$1" in
	bisect-step) echo "$DOCS/lab-bisect.md" ;;
	*) echo "$DOCS/lab-$1.md" ;;
	esac
}

# The words inside "(known: ...)" of an error message on stdin (its wrapped lines joined back),
# one a line.
known_words() {
	unwrapped /dev/stdin | sed -n 's/.*(known: \(.*\))$/\1/p' | tr ',' '\n' |
		sed 's/^ *//; s/ *$//' | grep .
}

test_expect_success 'README.md is at most 150 lines, none over 100 columns' '
	test "$(wc -l <"$TOP/README.md")" -le 150 &&
	LC_ALL=C.UTF-8 awk "length > 100 { print FILENAME \":\" FNR \": \" length; bad = 1 }
			    END { exit bad }" "$TOP/README.md"
'

test_expect_success 'lab lists its commands' '
	"$LAB" --list-commands | tr " " "\n" | grep . >commands &&
	grep -qx run commands && grep -qx bisect-step commands
'

test_expect_success 'every command has its page, with the parts of a manual page' '
	for cmd in $(grep -vx help commands); do
		page=$(page_of "$cmd") &&
		test -f "$page" || { echo "no page for lab $cmd: $page"; return 1; }
		for part in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
			grep -qx "## $part" "$page" ||
			{ echo "$page has no $part"; return 1; }
		done
		grep -q "lab $cmd" "$page" || { echo "$page does not name lab $cmd"; return 1; }
	done
'

test_lazy_prereq MAN 'command -v man && command -v go-md2man'

test_expect_success MAN 'every page is a manual page man renders: commands in 1, lab.conf in 5' '
	for cmd in $(grep -vx help commands); do
		page=$(basename "$(page_of "$cmd")" .md) &&
		MANWIDTH=100 man -l "$TOP/build/man/$page.1" >man.txt 2>man.err &&
		grep -q "^$page(1) .* lab manual " man.txt &&
		grep -q "^SYNOPSIS" man.txt && grep -q "lab $cmd" man.txt &&
		! grep -q "\.md\b" man.txt ||
		{ echo "the manual page of lab $cmd:"; cat man.err; return 1; }
	done &&
	MANWIDTH=100 man -l "$TOP/build/man/lab-config.5" | grep -q "^lab-config(5)" &&
	MANWIDTH=100 man -l "$TOP/build/man/lab.1" | grep -q "^lab(1)" &&
	for cmd in $(grep -vx help commands); do
		grep -q "lab $cmd\b" "$DOCS/lab.md" || { echo "lab(1) does not list lab $cmd"; return 1; }
	done &&
	for md in "$DOCS"/*.md; do
		case $(basename "$md") in lab-*|lab.md) continue ;; esac
		page=lab-$(basename "$md" .md).7 &&
		MANWIDTH=100 man -l "$TOP/build/man/$page" | grep -q "^${page%.7}(7)" ||
		{ echo "no manual page $page of $md"; return 1; }
	done
'

test_expect_success 'every long option of every command is on its page' '
	for cmd in $(grep -vx help commands); do
		page=$(page_of "$cmd") &&
		"$LAB" "$cmd" --completion-helper >opts &&
		test -s opts || { echo "lab $cmd --completion-helper printed nothing"; return 1; }
		for opt in $(cat opts); do
			grep -qe "\`$opt[\` =]" "$page" ||
			{ echo "$page lacks $opt"; return 1; }
		done
	done
'

test_expect_success 'README.md links every page under docs/, and each link leads to a page' '
	for page in "$DOCS"/*.md; do
		grep -qF "(docs/$(basename "$page")" "$TOP/README.md" ||
		{ echo "README.md does not link docs/$(basename "$page")"; return 1; }
	done &&
	grep -o "](docs/[^)#]*" "$TOP/README.md" | sed "s/^](//" | sort -u >links &&
	test -s links &&
	while read -r link; do
		test -f "$TOP/$link" || { echo "README.md links $link, not there"; return 1; }
	done <links
'

test_expect_success 'a link between pages under docs/ leads to a page' '
	grep -o "](\([a-z0-9-]*\.md\)" "$DOCS"/*.md | sed "s/:](/ /" | sort -u >links &&
	test -s links &&
	while read -r from to; do
		test -f "$DOCS/$to" || { echo "$from links $to, not there"; return 1; }
	done <links
'

# An unknown section's error lists the sections; an unknown key's, the keys of
# its section: as section.key for the keys of the reader's table, as plain
# keys for the sections with a name ([nightly "N"], [target "N"], ...).
test_expect_success 'the config reader lists its sections and keys' '
	printf "[nosuchsection]\n\tkey = 1\n" >bad.conf &&
	test_must_fail "$LAB" run --config bad.conf --kernel k --workload boot 2>err &&
	known_words <err >sections &&
	grep -qx core sections && grep -qx nightly sections &&
	: >keys &&
	for s in $(cat sections); do
		printf "[%s \"n\"]\n\tnosuchkey = 1\n[%s]\n\tnosuchkey = 1\n" "$s" "$s" >bad.conf &&
		test_must_fail "$LAB" run --config bad.conf --kernel k --workload boot 2>err &&
		known_words <err >known &&
		test -s known || { echo "no known keys for [$s]: $(cat err)"; return 1; }
		while read -r k; do
			case "$k" in
			*.*) echo "$k" ;;
			*) echo "$s.<name>.$k" ;;
			esac
		done <known >>keys
	done &&
	grep -qx core.repo keys && grep -qx build.jobs keys && grep -qx build.timeout keys &&
	grep -qx "nightly.<name>.iters" keys && grep -qx "workload.<name>.arg" keys
'

test_expect_success 'every config key is in docs/lab-config.md' '
	while read -r k; do
		grep -qiF "\`$k\`" "$DOCS/lab-config.md" ||
		{ echo "docs/lab-config.md lacks $k"; return 1; }
	done <keys
'

test_expect_success 'every recipe key is in docs/lab-config.md' '
	printf "[nosuchsection]\n\tkey = 1\n" >bad.recipe &&
	test_must_fail "$LAB" recipe bad.recipe 2>err &&
	known_words <err >sections &&
	grep -qx recipe sections && grep -qx variant sections &&
	for s in $(cat sections); do
		printf "[%s \"n\"]\n\tnosuchkey = 1\n" "$s" >bad.recipe &&
		test "$s" != recipe || printf "[recipe]\n\tnosuchkey = 1\n" >bad.recipe &&
		test_must_fail "$LAB" recipe bad.recipe 2>err &&
		known_words <err >known &&
		test -s known || { echo "no known keys for [$s] of a recipe: $(cat err)"; return 1; }
		while read -r k; do
			if test "$s" != recipe; then k="$s.<name>.$k"; fi &&
			grep -qiF "\`$k\`" "$DOCS/lab-config.md" ||
			{ echo "docs/lab-config.md lacks the recipe key $k"; return 1; }
		done <known
	done
'

test_done
