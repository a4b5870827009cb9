#!/bin/bash
# The floors of the source tree: lib < results < runners, kernels < web <
# lab/config < lab/plans < lab/commands. A file may include headers of its
# own floor and of lower ones, never of a higher one, and two folders of one
# floor (runners, kernels) may not include each other both ways. Includes
# are flat (-Ilib -Iresults ...), so a header is found as the compiler
# finds it: beside the file first, then in the folders in -I order, and
# no header includes itself through others. A command calls plans, never
# another command's file; no two files call each other. Each check reads
# the tree in one pass.
. "$(dirname "$0")/lib.sh"

FOLDERS="lib results runners kernels web lab/config lab/plans lab/commands"

# The lab's own C files under ROOT: the folders and runners/guest/, never
# the kernel trees, builds and fixtures that the lab keeps under state/
# (or results/, for a lab from before core.state).
sources() {
	(cd "$1" && find $FOLDERS -maxdepth 2 -name '*.[ch]' 2>/dev/null | LC_ALL=C sort)
}

# scan ROOT PROGRAM: the awk PROGRAM over every source file under ROOT in
# one pass, run in ROOT (FILENAME is lib/strbuf.c), with the list of the
# sources in the array known and the folders in folders.
scan() {
	local root=$1 prog=$2 files
	sources "$root" >"$TRASH/.sources"
	mapfile -t files <"$TRASH/.sources"
	(cd "$root" && awk -v folders="$FOLDERS" -v list="$TRASH/.sources" '
		BEGIN { while ((getline f < list) > 0) known[f] = 1 }
		'"$prog" "${files[@]}")
}

# check_floors ROOT: one line per wrong include on stdout, and non-zero if
# any: an include of a higher floor, two folders of one floor including
# each other (a circle), or headers including each other, directly or
# through others (an include cycle: what comes first depends on who is
# included first).
check_floors() {
	scan "$1" '
	BEGIN {
		floor["lib"] = 0; floor["results"] = 1; floor["runners"] = 2; floor["kernels"] = 2
		floor["web"] = 3; floor["lab/config"] = 4; floor["lab/plans"] = 5
		floor["lab/commands"] = 6
	}
	# lab/plans/ab.c is in lab/plans, runners/guest/exec.c in runners
	function folder_of(f,   d) {
		d = f
		if (f ~ /^lab\/.*\//)
			sub(/\/[^\/]*$/, "", d)
		else
			sub(/\/.*/, "", d)
		return d
	}
	# the file a header name included from f is, as the compiler finds it:
	# beside f first, then in the folders in -I order; "": not the lab'"'"'s
	function header_of(f, name,   d, i, n, dirs) {
		d = f; sub(/\/[^\/]*$/, "", d)
		if ((d "/" name) in known)
			return d "/" name
		n = split(folders, dirs, " ")
		for (i = 1; i <= n; i++)
			if ((dirs[i] "/" name) in known)
				return dirs[i] "/" name
		return ""
	}
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
		h = header_of(FILENAME, name)
		if (h == "")
			next	# a system or test header
		from = folder_of(FILENAME); to = folder_of(h)
		if (floor[to] > floor[from])
			print "floors: " FILENAME " includes " name " of " to "/, a higher floor than " from "/"
		else if (to != from && !((from, to) in first))
			first[from, to] = FILENAME " includes " name
		if (!((FILENAME, h) in inc)) {
			inc[FILENAME, h]; out[FILENAME] = out[FILENAME] " " h
		}
	}
	END {
		for (k in first) {
			split(k, a, SUBSEP)
			if (a[1] < a[2] && ((a[2], a[1]) in first))
				circles[++nc] = "floors: circle between " a[1] "/ and " a[2] "/: " \
					first[a[1], a[2]] ", " first[a[2], a[1]]
		}
		# what each header reaches through its includes
		for (f in out) {
			if (f !~ /\.h$/)
				continue
			delete seen; nq = split(out[f], q, " ")
			for (i = 1; i <= nq; i++)
				seen[q[i]]
			for (i = 1; i <= nq; i++) {
				m = split(out[q[i]], r, " ")
				for (j = 1; j <= m; j++)
					if (!(r[j] in seen)) { seen[r[j]]; q[++nq] = r[j] }
			}
			for (g in seen)
				reach[f, g]
		}
		for (f in out) {
			if (!((f, f) in reach))
				continue
			line = ""; smallest = 1
			for (g in out)
				if ((f, g) in reach && (g, f) in reach) {
					if (g < f) smallest = 0
					members[++nm] = g
				}
			for (i = 2; i <= nm; i++)	# a few names: insertion sort
				for (j = i; j > 1 && members[j] < members[j - 1]; j--) {
					t = members[j]; members[j] = members[j - 1]; members[j - 1] = t
				}
			for (i = 1; i <= nm; i++)
				line = line (i > 1 ? ", " : "") members[i]
			if (smallest)
				circles[++nc] = "floors: include cycle among " line
			nm = 0
		}
		for (i = 1; i <= nc; i++)
			print circles[i]
	}' >"$TRASH/.floors" || return 1
	cat "$TRASH/.floors"
	test ! -s "$TRASH/.floors"
}

# check_sizes ROOT: one line per source file over 800 lines, naming it
# and its length, and non-zero if any.
check_sizes() {
	scan "$1" '
	FNR == 1 { order[++n] = FILENAME }
	{ lines[FILENAME] = FNR }
	END {
		for (i = 1; i <= n; i++)
			if (lines[order[i]] > 800)
				print "size: " order[i] " has " lines[order[i]] " lines, more than 800"
	}' >"$TRASH/.sizes" || return 1
	cat "$TRASH/.sizes"
	test ! -s "$TRASH/.sizes"
}

# check_sql ROOT: one line per file outside results/ that speaks to sqlite
# itself (includes <sqlite3.h> or store-private.h, or prepares a statement),
# and non-zero if any: the store owns the database.
check_sql() {
	scan "$1" '
	FNR == 1 { order[++n] = FILENAME }
	FILENAME ~ /^results\// { next }
	/^[ \t]*#[ \t]*include[ \t]*<sqlite3\.h>/ { bad[FILENAME, 1] = "includes sqlite3.h" }
	/^[ \t]*#[ \t]*include[ \t]*"store-private\.h"/ { bad[FILENAME, 2] = "includes store-private.h" }
	/sqlite3_prepare/ { bad[FILENAME, 3] = "prepares SQL" }
	END {
		for (i = 1; i <= n; i++)
			for (k = 1; k <= 3; k++)
				if ((order[i], k) in bad)
					print "sql: " order[i] " " bad[order[i], k] ", which only results/ may"
	}' >"$TRASH/.sql" || return 1
	cat "$TRASH/.sql"
	test ! -s "$TRASH/.sql"
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
	local objs
	mapfile -t objs < <(cd "$1" && find $FOLDERS -name '*.o' ! -path '*/guest/*' 2>/dev/null |
		LC_ALL=C sort)
	[ ${#objs[@]} -gt 0 ] || return 0
	# nm -A: "lib/strbuf.o:  U regfile_read", "lib/regfile.o:0000 T regfile_read"
	(cd "$1" && nm -A -u "${objs[@]}") |
		awk '{ f = $1; sub(/\.o:.*/, "", f); print $NF, f }' | LC_ALL=C sort >"$TRASH/.uses"
	(cd "$1" && nm -A -g --defined-only "${objs[@]}") |
		awk '{ f = $1; sub(/\.o:.*/, "", f); print $NF, f }' | LC_ALL=C sort >"$TRASH/.defs"
	LC_ALL=C join "$TRASH/.uses" "$TRASH/.defs" | awk '$2 != $3 { print $2, $3, $1 }'
}

# check_loops DIR: one line per loop of calls, and non-zero if any. Two
# files that call each other are a loop, whatever their names: what both
# need belongs in a file below them, or is passed down to the one that
# calls back. A file's parts are the files of its folder named after it
# with a dash (nightly-changes.c of nightly.c); a part that calls the
# whole which calls it, directly or through its other parts, is a loop
# too (nightly-night.c holds what they share).
check_loops() {
	call_edges "$1" | awk '
		function whole(f,   d, b) {
			d = f; sub("/[^/]*$", "", d); b = substr(f, length(d) + 2)
			return index(b, "-") ? d "/" substr(b, 1, index(b, "-") - 1) : f
		}
		!(($1, $2) in any) { any[$1, $2] = $3 }
		whole($1) == whole($2) { calls[$1, $2] = $3; out[$1] = out[$1] " " $2; node[$1]; node[$2] }
		END {
			for (k in any) {
				split(k, e, SUBSEP)
				if (e[1] < e[2] && ((e[2], e[1]) in any) && whole(e[1]) != whole(e[2]))
					print "loops: " e[1] ".c and " e[2] ".c call each other: " \
						any[k] "() of " e[2] ".c, " any[e[2], e[1]] "() of " e[1] ".c"
			}
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

test_expect_success 'two files of unrelated names calling each other are named, with what they call' '
	mkdir -p pair/lib pair/results &&
	printf "void made_up_b(void);\nvoid made_up_a(void) { made_up_b(); }\n" >a.c &&
	printf "void made_up_a(void);\nvoid made_up_b(void) { made_up_a(); }\n" >b.c &&
	printf "void made_up_a(void);\nvoid below(void) { made_up_a(); }\n" >below.c &&
	cc -c -o pair/lib/made-up-a.o a.c && cc -c -o pair/results/made-up-b.o b.c &&
	cc -c -o pair/results/below.o below.c &&
	! check_loops pair >out &&
	echo "loops: lib/made-up-a.c and results/made-up-b.c call each other: made_up_b() of results/made-up-b.c, made_up_a() of lib/made-up-a.c" >want &&
	diff -u want out
'

test_expect_success 'two headers including each other, directly or through a third, are an include cycle' '
	copy_sources cycle &&
	printf "#include \"made-up-b.h\"\n" >cycle/lib/made-up-a.h &&
	printf "#include \"made-up-a.h\"\n" >cycle/lib/made-up-b.h &&
	printf "#include \"made-up-d.h\"\n" >cycle/results/made-up-c.h &&
	printf "#include \"made-up-e.h\"\n" >cycle/results/made-up-d.h &&
	printf "#include \"made-up-c.h\"\n#include \"strbuf.h\"\n" >cycle/results/made-up-e.h &&
	printf "#include \"made-up-a.h\"\n#include \"made-up-c.h\"\n" >cycle/results/made-up.c &&
	! check_floors cycle >out &&
	cat >want <<-\EOF &&
	floors: include cycle among lib/made-up-a.h, lib/made-up-b.h
	floors: include cycle among results/made-up-c.h, results/made-up-d.h, results/made-up-e.h
	EOF
	sort out | diff -u want -
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
