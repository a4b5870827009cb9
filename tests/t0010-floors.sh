#!/bin/bash
# The floors of the source tree: lib < results < runners, kernels < web <
# lab/config < lab/plans < lab/commands. A file may include headers of its
# own floor and of lower ones, never of a higher one, and two folders of one
# floor (runners, kernels) may not include each other both ways. Includes
# are flat (-Ilib -Iresults ...), so a header is found as the compiler
# finds it: beside the file first, then in the folders in -I order. A
# command calls plans, never another command's file.
. "$(dirname "$0")/lib.sh"

FOLDERS="lib results runners kernels web lab/config lab/plans lab/commands"

floor_of() {
	case $1 in
	lib) echo 0 ;;
	results) echo 1 ;;
	runners | kernels) echo 2 ;;
	web) echo 3 ;;
	lab/config) echo 4 ;;
	lab/plans) echo 5 ;;
	lab/commands) echo 6 ;;
	esac
}

# The folder (of FOLDERS) a file under the root is in: lab/plans/ab.c is
# in lab/plans, runners/guest/exec.c in runners.
folder_of() {
	case $1 in
	lab/*/*) echo "${1%/*}" ;;
	*) echo "${1%%/*}" ;;
	esac
}

# The lab's own C files under ROOT: the folders and runners/guest/, never
# the kernel trees, builds and fixtures that the lab keeps under state/
# (or results/, for a lab from before core.state).
sources() {
	(cd "$1" && find $FOLDERS -maxdepth 2 -name '*.[ch]' 2>/dev/null | LC_ALL=C sort)
}

# The folder (of FOLDERS) holding header $2 as included from file $1 under root $3.
header_folder() {
	local file=$1 name=$2 root=$3 d
	if [ -f "$root/$(dirname "$file")/$name" ]; then
		folder_of "$file"
		return
	fi
	for d in $FOLDERS; do
		if [ -f "$root/$d/$name" ]; then
			echo "$d"
			return
		fi
	done
}

# check_floors ROOT: one line per wrong include on stdout, and non-zero if any.
check_floors() {
	local root=$1 bad=0 file name from to
	: >"$TRASH/.edges"
	while IFS= read -r file; do
		from=$(folder_of "$file")
		while IFS= read -r name; do
			to=$(header_folder "$file" "$name" "$root")
			[ -n "$to" ] || continue	# not the lab's: a system or test header
			if [ "$(floor_of "$to")" -gt "$(floor_of "$from")" ]; then
				echo "floors: $file includes $name of $to/, a higher floor than $from/"
				bad=1
			elif [ "$to" != "$from" ]; then
				echo "$from $to $file $name" >>"$TRASH/.edges"
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$root/$file")
	done < <(sources "$root")
	# two folders of one floor including each other: a circle
	awk '{ k = $1 " " $2; if (!(k in first)) first[k] = $3 " includes " $4 }
	     END { for (k in first) { split(k, a, " "); r = a[2] " " a[1]
		     if (a[1] < a[2] && (r in first))
			     print "floors: circle between " a[1] "/ and " a[2] "/: " first[k] ", " first[r] } }' \
		"$TRASH/.edges" >"$TRASH/.circles"
	if [ -s "$TRASH/.circles" ]; then
		cat "$TRASH/.circles"
		bad=1
	fi
	return $bad
}

# check_sizes ROOT: one line per source file over 800 lines, naming it
# and its length, and non-zero if any. The statistics are one subject and
# may be longer.
check_sizes() {
	local root=$1 bad=0 file n
	while IFS= read -r file; do
		[ "$file" != results/stats.c ] || continue
		n=$(wc -l <"$root/$file")
		if [ "$n" -gt 800 ]; then
			echo "size: $file has $n lines, more than 800"
			bad=1
		fi
	done < <(sources "$root")
	return $bad
}

# check_sql ROOT: one line per file outside results/ that speaks to sqlite
# itself (includes <sqlite3.h> or store-private.h, or prepares a statement),
# and non-zero if any: the store owns the database.
check_sql() {
	local root=$1 bad=0 file
	while IFS= read -r file; do
		case $file in results/*) continue ;; esac
		if grep -q "^[[:space:]]*#[[:space:]]*include[[:space:]]*<sqlite3\.h>" "$root/$file"; then
			echo "sql: $file includes sqlite3.h, which only results/ may"
			bad=1
		fi
		if grep -q "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"store-private\.h\"" "$root/$file"; then
			echo "sql: $file includes store-private.h, which only results/ may"
			bad=1
		fi
		if grep -q "sqlite3_prepare" "$root/$file"; then
			echo "sql: $file prepares SQL, which only results/ may"
			bad=1
		fi
	done < <(sources "$root")
	return $bad
}

# A copy of the sources only, to break on purpose.
copy_sources() {
	local dst=$PWD/$1
	mkdir -p "$dst"
	sources "$TOP" | (cd "$TOP" && cpio -pdm --quiet "$dst")
}

test_expect_success 'every include of the tree is of its own floor or a lower one' '
	check_floors "$TOP" >out || { cat out; false; }
	test ! -s out
'

test_expect_success 'the Makefile searches the floors lowest first, each of them' '
	printf "print-includes:\n\t@echo \$(filter -I%%,\$(CPPFLAGS))\n" >print.mk &&
	make -s -C "$TOP" --no-print-directory -f Makefile -f "$PWD/print.mk" print-includes >got &&
	echo "-I${FOLDERS// / -I}" >want &&
	diff -u want got
'

test_expect_success 'a ground-floor file including a results header is refused, naming both' '
	copy_sources up &&
	check_floors up >before &&
	printf "#include <stdio.h>\n#include \"strbuf.h\"\n#include \"store.h\"\n" >up/lib/made-up.c &&
	! check_floors up >out &&
	echo "floors: lib/made-up.c includes store.h of results/, a higher floor than lib/" >want &&
	diff -u want out
'

test_expect_success 'a kernels header including the lab context is refused' '
	copy_sources ctx &&
	printf "#include \"context.h\"\n" >ctx/kernels/made-up.h &&
	! check_floors ctx >out &&
	grep -Fx "floors: kernels/made-up.h includes context.h of lab/config/, a higher floor than kernels/" out
'

test_expect_success 'the configuration including a plan, or a plan a command, is refused' '
	copy_sources rooms &&
	printf "#include \"boot.h\"\n" >rooms/lab/config/made-up.c &&
	printf "#include \"table.h\"\n" >rooms/lab/plans/made-up.c &&
	printf "#include \"ab.h\"\n#include \"context.h\"\n" >rooms/lab/commands/made-up.c &&
	! check_floors rooms >out &&
	cat >want <<-\EOF &&
	floors: lab/config/made-up.c includes boot.h of lab/plans/, a higher floor than lab/config/
	floors: lab/plans/made-up.c includes table.h of lab/commands/, a higher floor than lab/plans/
	EOF
	diff -u want out
'

# check_commands ROOT: one line per function a command file defines for
# others (not static, not its cmd_ entry) or calls from another command's
# file, and non-zero if any.
check_commands() {
	local root=$1 bad=0 file fn
	for file in "$root"/lab/commands/cmd-*.c; do
		while IFS= read -r fn; do
			case $fn in cmd_*) continue ;; esac
			echo "commands: ${file#$root/} gives $fn() to others; a plan should"
			bad=1
		done < <(sed -n "/^static/!s/^[a-z][a-z0-9_ ]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p" "$file")
	done
	return $bad
}

test_expect_success 'no command file gives a function to another; each defines only its cmd_ entry' '
	check_commands "$TOP" >out || { cat out; false; }
'

test_expect_success 'a command file that gives a helper to another is named' '
	copy_sources shared &&
	printf "int ab_command_line(void) { return 0; }\nstatic int quiet(void) { return 0; }\n" \
		>>shared/lab/commands/cmd-ab.c &&
	! check_commands shared >out &&
	echo "commands: lab/commands/cmd-ab.c gives ab_command_line() to others; a plan should" >want &&
	diff -u want out
'

test_expect_success 'runners and kernels may not include each other both ways' '
	copy_sources circle &&
	printf "#include \"image.h\"\n" >circle/runners/made-up.c &&
	printf "#include \"runner.h\"\n" >circle/kernels/made-up.c &&
	! check_floors circle >out &&
	grep -Fx "floors: circle between kernels/ and runners/: kernels/made-up.c includes runner.h, runners/made-up.c includes image.h" out
'

test_expect_success 'the report and its plots take their escaping from lib/escape, not from each other' '
	grep -q "^void escape_html(" "$TOP/lib/escape.h" &&
	files=$(cd "$TOP" && grep -l "escape_html(" web/*.c) &&
	for f in web/html.c web/svg.c; do
		case " $(echo $files) " in *" $f "*) ;; *) echo "$f: no escape_html"; exit 1 ;; esac
	done &&
	for f in $files; do
		grep -q "^#include \"escape.h\"" "$TOP/$f" || { echo "$f: no escape.h"; exit 1; }
	done &&
	! grep -n "^#include \"\(report\|pages\|html\)\.h\"" "$TOP/web/svg.c" &&
	! grep -rn "html_escape\|^void escape_html" "$TOP/web"
'

test_expect_success 'no source file is over 800 lines, the statistics aside' '
	check_sizes "$TOP" >out || { cat out; false; }
'

test_expect_success 'a file over 800 lines is named with its length' '
	copy_sources big &&
	seq 801 | sed "s|^|// |" >big/lab/plans/made-up.c &&
	seq 800 | sed "s|^|// |" >big/lab/plans/made-up-too.c &&
	seq 900 | sed "s|^|// |" >>big/results/stats.c &&
	! check_sizes big >out &&
	grep -Fx "size: lab/plans/made-up.c has 801 lines, more than 800" out &&
	! grep "made-up-too\|stats\.c" out
'

test_expect_success 'only results/ includes sqlite3.h or store-private.h, or prepares SQL' '
	check_sql "$TOP" >out || { cat out; false; } &&
	test ! -s out &&
	! grep -n "sqlite3" "$TOP/results/store.h"
'

test_expect_success 'a command preparing its own SQL is refused, naming it' '
	copy_sources sql &&
	printf "#include <sqlite3.h>\n" >sql/web/made-up.h &&
	printf "#include \"store-private.h\"\nint f(void) { return sqlite3_prepare_v2(0, 0, 0, 0, 0); }\n" \
		>sql/lab/commands/made-up.c &&
	printf "#include <sqlite3.h>\n" >sql/results/made-up.c &&
	! check_sql sql >out &&
	cat >want <<-\EOF &&
	sql: lab/commands/made-up.c includes store-private.h, which only results/ may
	sql: lab/commands/made-up.c prepares SQL, which only results/ may
	sql: web/made-up.h includes sqlite3.h, which only results/ may
	EOF
	diff -u want out
'

test_done
