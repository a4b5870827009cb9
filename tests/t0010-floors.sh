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
# and its length, and non-zero if any.
check_sizes() {
	local root=$1 bad=0 file n
	while IFS= read -r file; do
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

test_expect_success 'no source file is over 800 lines' '
	check_sizes "$TOP" >out || { cat out; false; }
'

test_expect_success 'a file over 800 lines is named with its length, the statistics too' '
	copy_sources big &&
	seq 801 | sed "s|^|// |" >big/lab/plans/made-up.c &&
	seq 800 | sed "s|^|// |" >big/lab/plans/made-up-too.c &&
	seq 900 | sed "s|^|// |" >>big/results/stats.c &&
	! check_sizes big >out &&
	grep -Fx "size: lab/plans/made-up.c has 801 lines, more than 800" out &&
	grep -x "size: results/stats.c has [0-9]* lines, more than 800" out &&
	! grep "made-up-too" out
'

# call_edges DIR: "caller callee symbol" for the lab's object files under
# DIR (a build: lib/ ... lab/, not the static guest), one line per symbol
# that one file uses and another defines.
call_edges() {
	local o
	(cd "$1" && find $FOLDERS -name '*.o' ! -path '*/guest/*' 2>/dev/null | LC_ALL=C sort) \
		>"$TRASH/.objs"
	while IFS= read -r o; do
		nm -u "$1/$o" | awk -v f="${o%.o}" '{ print $NF, f }'
	done <"$TRASH/.objs" | LC_ALL=C sort >"$TRASH/.uses"
	while IFS= read -r o; do
		nm -g --defined-only "$1/$o" | awk -v f="${o%.o}" '{ print $NF, f }'
	done <"$TRASH/.objs" | LC_ALL=C sort >"$TRASH/.defs"
	LC_ALL=C join "$TRASH/.uses" "$TRASH/.defs" | awk '$2 != $3 { print $2, $3, $1 }'
}

# check_loops DIR: one line per call back into a whole from a part of it,
# and non-zero if any. A file's parts are the files of its folder named
# after it with a dash (nightly-changes.c of nightly.c); a part that calls
# the whole which calls it, directly or through its other parts, is a loop:
# what both need belongs in a part below them (nightly-night.c).
check_loops() {
	call_edges "$1" | awk '
		function whole(f,   d, b) {
			d = f; sub("/[^/]*$", "", d); b = substr(f, length(d) + 2)
			return index(b, "-") ? d "/" substr(b, 1, index(b, "-") - 1) : f
		}
		whole($1) == whole($2) { calls[$1, $2] = $3; out[$1] = out[$1] " " $2; node[$1]; node[$2] }
		END {
			for (w in node) {
				if (whole(w) != w) continue
				delete seen; n = split(out[w], q, " "); for (i = 1; i <= n; i++) seen[q[i]]
				for (changed = 1; changed;) {
					changed = 0
					for (p in seen) { m = split(out[p], r, " ")
						for (j = 1; j <= m; j++) if (!(r[j] in seen)) { seen[r[j]]; changed = 1 } }
				}
				for (p in seen) if ((p, w) in calls)
					print "loops: " p ".c calls " calls[p, w] "() of " w ".c, which calls it"
			}
		}' | LC_ALL=C sort >"$TRASH/.loops"
	cat "$TRASH/.loops"
	test ! -s "$TRASH/.loops"
}

test_lazy_prereq BUILT 'test -f "$TOP/build/liblab.a"'

test_expect_success BUILT 'no file calls back into the one it is a part of' '
	check_loops "$TOP/build" >out || { cat out; false; }
'

test_expect_success 'a part calling back its whole, through another part too, is named; a part under it is not' '
	mkdir -p objs/lab/plans objs/lib &&
	printf "void madeup_two(void);\nvoid madeup(void) { madeup_two(); }\n" >madeup.c &&
	printf "void madeup_three(void);\nvoid madeup_two(void) { madeup_three(); }\n" >madeup-two.c &&
	printf "void madeup(void);\nvoid madeup_three(void) { madeup(); }\n" >madeup-three.c &&
	printf "void madeup(void);\nvoid madeup_four(void) { madeup(); }\n" >madeup-four.c &&
	for f in madeup madeup-two madeup-three madeup-four; do
		cc -c -o objs/lab/plans/$f.o $f.c || exit 1
	done &&
	printf "void madeup_two(void);\nvoid helper(void) { madeup_two(); }\n" >helper.c &&
	cc -c -o objs/lib/helper.o helper.c &&
	! check_loops objs >out &&
	echo "loops: lab/plans/madeup-three.c calls madeup() of lab/plans/madeup.c, which calls it" >want &&
	diff -u want out
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
