#!/bin/bash
# lab report owns its site: a marker, .lab-site, names the database that
# wrote it and lists the files it wrote. A folder another database wrote,
# or one with files of someone else, is refused unless --force; nothing in
# the site is followed through a symlink; only files of the manifest are
# ever removed. Console logs are published capped (their tail), escaped,
# and only when they are the lab's own: one link, not someone else's
# private file.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
ESC=$(printf '\033')
CAP=1048576

# runs DB N: N runs of the fake guest stored in DB
runs() {
	for i in $(seq 1 "$2"); do
		"$LAB" run --db "$1" --runner local --guest "$FAKE" --workload zeroing --iters 3 \
			>/dev/null 2>err || return 1
	done
}

# listing DIR: every file under DIR with its bytes' sum, symlinks as such
listing() {
	(cd "$1" && find . \( -type f -o -type l \) -printf "%p %y %l\n" | LC_ALL=C sort &&
	 find . -type f -exec md5sum {} + | LC_ALL=C sort -k 2)
}

test_expect_success 'setup: two databases in one folder, three runs and two, a site of the first' '
	mkdir dbs && runs dbs/a.db 3 && runs dbs/b.db 2 &&
	test "$(sql dbs/a.db "SELECT count(*) FROM runs")" = 3 &&
	test -s dbs/logs/a/run-3.log && test -s dbs/logs/b/run-2.log &&
	"$LAB" report --db dbs/a.db --out sa >out 2>err && test ! -s err
'

test_expect_success 'two databases in one folder get a site each; neither touches the other'"'"'s' '
	"$LAB" report --db dbs/a.db >out 2>err && test ! -s err &&
	grep -q "^dbs/site-a/index.html: [0-9]* files* written, 0 unchanged, 0 removed\$" out &&
	listing dbs/site-a >a.before &&
	"$LAB" report --db dbs/b.db >out 2>err && test ! -s err &&
	grep -q "^dbs/site-b/index.html: " out &&
	listing dbs/site-a >a.after && diff a.before a.after &&
	test -s dbs/site-a/r3.html && test ! -e dbs/site-b/r3.html && test -s dbs/site-b/r2.html &&
	cmp dbs/site-a/logs/r1.txt dbs/logs/a/run-1.log && cmp dbs/site-b/logs/r1.txt dbs/logs/b/run-1.log &&
	head -n 2 dbs/site-a/.lab-site >marker &&
	printf "lab-site 1\ndatabase %s\n" "$TRASH/dbs/a.db" >want && diff want marker
'

test_expect_success 'a site another database wrote is refused, naming both; --force takes it over' '
	listing sa >a.before &&
	test_expect_code 2 "$LAB" report --db dbs/b.db --out sa >out 2>err &&
	test "$(unwrapped err)" = "lab: site '\''sa'\'' was written from database '\''$TRASH/dbs/a.db'\'', not '\''$TRASH/dbs/b.db'\''; use --force or --out" &&
	test ! -s out && listing sa >a.after && diff a.before a.after &&
	cp -a sa taken &&
	"$LAB" report --db dbs/b.db --out taken --force >out 2>err && test ! -s err &&
	grep -q "^taken/index.html: .*, 2 removed\$" out && test ! -e taken/r3.html &&
	test ! -e taken/logs/r3.txt && cmp taken/logs/r2.txt dbs/logs/b/run-2.log &&
	grep -qx "database $TRASH/dbs/b.db" taken/.lab-site &&
	"$LAB" report --db dbs/b.db --out taken >out 2>err && test ! -s err
'

test_expect_success 'a moved database keeps its site; a copy of it does not' '
	mv dbs/b.db dbs/b2.db &&
	"$LAB" report --db dbs/b2.db --out taken >out 2>err &&
	grep -q "^taken/index.html: 0 files written, [0-9]* unchanged, 0 removed\$" out &&
	grep -qx "database $TRASH/dbs/b2.db" taken/.lab-site &&
	mv dbs/b2.db dbs/b.db &&
	cp dbs/b.db dbs/copy.db &&
	test_expect_code 2 "$LAB" report --db dbs/copy.db --out taken 2>err &&
	unwrapped err | grep -q "^lab: site '\''taken'\'' was written from database '\''$TRASH/dbs/b2.db'\'', not '\''$TRASH/dbs/copy.db'\''"
'

test_expect_success 'a marker naming a database with terminal controls and a tab: the refusal shows each as \xHH' '
	mkdir hostile &&
	printf "lab-site 1\ndatabase /x\033[2J\033]0;pwned\a\t.db\n" >hostile/.lab-site &&
	test_expect_code 2 "$LAB" report --db dbs/b.db --out hostile >out 2>err &&
	test "$(unwrapped err)" = "lab: site '\''hostile'\'' was written from database '\''/x\\x1b[2J\\x1b]0;pwned\\x07\\x09.db'\'', not '\''$TRASH/dbs/b.db'\''; use --force or --out" &&
	! grep -q "$(printf "[\033\t]")" err && test ! -e hostile/index.html
'

test_expect_success 'a folder of someone else'"'"'s is refused; --force overwrites the pages, removes nothing' '
	mkdir foreign foreign/logs &&
	for f in index.html style.css r9.html e3.html logs/r1.txt logs/notes.txt; do
		echo "mine: $f" >foreign/$f || exit 1
	done &&
	listing foreign >before &&
	test_expect_code 2 "$LAB" report --db dbs/a.db --out foreign >out 2>err &&
	test "$(cat err)" = "lab: site '\''foreign'\'' is not empty and lab report did not make it; use --force or --out" &&
	listing foreign >after && diff before after &&
	"$LAB" report --db dbs/a.db --out foreign --force >out 2>err && test ! -s err &&
	grep -q "^foreign/index.html: .*, 0 removed\$" out &&
	grep -q "<h1>" foreign/index.html && ! grep -q mine foreign/style.css &&
	cmp foreign/logs/r1.txt dbs/logs/a/run-1.log &&
	for f in r9.html e3.html logs/notes.txt; do
		test "$(cat foreign/$f)" = "mine: $f" || { echo "foreign/$f changed"; exit 1; }
	done &&
	"$LAB" report --db dbs/a.db --out foreign >out 2>err && test ! -s err &&
	grep -q "^foreign/index.html: 0 files written, .*, 0 removed\$" out &&
	test "$(cat foreign/r9.html)" = "mine: r9.html" && test "$(cat foreign/e3.html)" = "mine: e3.html"
'

test_expect_success 'a file, or an empty folder, is made a site; a file in the way is refused' '
	mkdir empty && "$LAB" report --db dbs/a.db --out empty >out 2>err && test ! -s err &&
	test -s empty/r1.html && grep -qx "file r1.html" empty/.lab-site &&
	echo text >plain &&
	test_expect_code 2 "$LAB" report --db dbs/a.db --out plain 2>err &&
	test "$(cat err)" = "lab: cannot open site '\''plain'\'': Not a directory"
'

test_expect_success 'pages of gone rows are removed only when the manifest lists them' '
	cp -a sa pruned && cp dbs/a.db dbs/p.db &&
	sql dbs/p.db "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 3" &&
	grep -v "^file r2.html\$" pruned/.lab-site >m && cat m >pruned/.lab-site &&
	sql dbs/p.db "DELETE FROM runs WHERE id = 2" &&
	"$LAB" report --db dbs/p.db --out pruned --force >out 2>err && test ! -s err &&
	grep -q "^pruned/index.html: .*, 3 removed\$" out &&
	test ! -e pruned/r3.html && test ! -e pruned/logs/r3.txt && test ! -e pruned/logs/r2.txt &&
	test -s pruned/r2.html && ! grep -q "^file r2.html\$" pruned/.lab-site &&
	! grep -q "r3" pruned/.lab-site
'

test_expect_success 'a marker listing names outside the report'"'"'s removes none of them' '
	mkdir -p outside/site && cp -a sa outside/site/s && echo keep >outside/victim &&
	echo keep >outside/site/notes.txt && mkdir outside/site/s/sub && echo keep >outside/site/s/sub/r1.html &&
	printf "file ../victim\nfile ../notes.txt\nfile sub/r1.html\nfile logs/../../notes.txt\nfile /etc/passwd\nfile .lab-site\n" >>outside/site/s/.lab-site &&
	"$LAB" report --db dbs/a.db --out outside/site/s >out 2>err && test ! -s err &&
	grep -q ", 0 removed\$" out &&
	test "$(cat outside/victim outside/site/notes.txt outside/site/s/sub/r1.html)" = "keep
keep
keep" && test -s /etc/passwd && ! grep -q "^file \(\.\./\|sub/\|/\|logs/\.\.\)" outside/site/s/.lab-site
'

test_expect_success 'a logs symlink in the site is refused, never written through' '
	cp -a sa linked && mkdir other && echo "other: r1" >other/r1.txt && echo "other: r9" >other/r9.txt &&
	rm -r linked/logs && ln -s ../other linked/logs &&
	listing other >before && listing linked >site.before &&
	test_expect_code 2 "$LAB" report --db dbs/a.db --out linked >out 2>err &&
	test "$(cat err)" = "lab: site '\''linked'\'': logs is a symbolic link: not followed" &&
	listing other >after && diff before after &&
	listing linked >site.after && diff site.before site.after
'

test_expect_success 'a page that is a symlink is replaced, its target left alone' '
	cp -a sa paged && echo "victim" >victim.html && echo "victim" >victim.txt &&
	ln -sf ../victim.html paged/r1.html && ln -sf ../../victim.txt paged/logs/r1.txt &&
	ln -sf ../victim.html paged/r3.html &&
	cp dbs/a.db dbs/gone.db && sql dbs/gone.db "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 3" &&
	"$LAB" report --db dbs/a.db --out paged >out 2>err && test ! -s err &&
	test "$(cat victim.html victim.txt)" = "victim
victim" &&
	test ! -L paged/r1.html && grep -q "<h1>Run 1</h1>" paged/r1.html &&
	test ! -L paged/logs/r1.txt && cmp paged/logs/r1.txt dbs/logs/a/run-1.log &&
	ln -sf ../victim.html paged/r3.html &&
	"$LAB" report --db dbs/gone.db --out paged --force >out 2>err && test ! -s err &&
	test -L paged/r3.html && test "$(cat victim.html)" = victim
'

test_expect_success 'a 3 GB sparse log: its last MiB published, memory small, a first line saying what was cut' '
	big=dbs/logs/a/big.log &&
	truncate -s 3G $big && seq 1 200000 | sed "s/^/line /" >>$big && echo "THE END" >>$big &&
	size=$(stat -c %s $big) &&
	sql dbs/a.db "UPDATE runs SET console_log = '\''$TRASH/$big'\'' WHERE id = 2" &&
	/usr/bin/time -v -o time.txt "$LAB" report --db dbs/a.db --out sa >out 2>err && test ! -s err &&
	rss=$(sed -n "s/^[[:space:]]*Maximum resident set size (kbytes): //p" time.txt) &&
	echo "max RSS $rss KiB" && test "$rss" -lt 100000 &&
	copy=sa/logs/r2.txt && n=$(stat -c %s $copy) &&
	test "$n" -le $((CAP + 200)) && test "$n" -ge $((CAP - 100)) &&
	tail -n +2 $copy >body && test "$(stat -c %s body)" -le $CAP &&
	cmp body <(tail -c "$(stat -c %s body)" $big) &&
	test "$(tail -n 1 $copy)" = "THE END" &&
	cut=$((size - $(stat -c %s body))) &&
	test "$(head -n 1 $copy)" = "lab: the first $cut of the log'\''s $size bytes are cut; its end follows" &&
	grep -qF "<p><a href=\"logs/r2.txt\">The console log'\''s last $(stat -c %s body) bytes</a> (of $size); its end:</p>" sa/r2.html
'

test_expect_success 'a log of control bytes alone still fits the cap, escaped' '
	ctl=dbs/logs/a/ctl.log &&
	head -c 3000000 /dev/zero | tr "\0" "\033" >$ctl &&
	sql dbs/a.db "UPDATE runs SET console_log = '\''$TRASH/$ctl'\'' WHERE id = 2" &&
	"$LAB" report --db dbs/a.db --out sa >out 2>err && test ! -s err &&
	copy=sa/logs/r2.txt && test "$(stat -c %s $copy)" -le $((CAP + 200)) &&
	! grep -q "$ESC" $copy && tail -n +2 $copy >body &&
	test "$(stat -c %s body)" -ge $((CAP * 3 / 4)) &&
	test -z "$(tr -d "\\\\x1b" <body)"
'

test_expect_success 'a hard link to a private file is not published' '
	echo "SECRET-$$-hard" >secret && chmod 600 secret && ln secret dbs/logs/a/hard.log &&
	sql dbs/a.db "UPDATE runs SET console_log = '\''$TRASH/dbs/logs/a/hard.log'\'' WHERE id = 1" &&
	"$LAB" report --db dbs/a.db --out sa >out 2>err &&
	test "$(unwrapped err)" = "lab: warning: run 1: console log '\''$TRASH/dbs/logs/a/hard.log'\'' has 2 links: not published" &&
	test ! -e sa/logs/r1.txt && ! grep -r "SECRET-$$" sa &&
	grep -q "The console log is missing" sa/r1.html
'

test_lazy_prereq ROOT 'test "$(id -u)" = 0'

test_expect_success ROOT 'another user'"'"'s private log is not published' '
	echo "SECRET-$$-theirs" >dbs/logs/a/theirs.log && chmod 600 dbs/logs/a/theirs.log &&
	chown 65534 dbs/logs/a/theirs.log &&
	sql dbs/a.db "UPDATE runs SET console_log = '\''$TRASH/dbs/logs/a/theirs.log'\'' WHERE id = 3" &&
	"$LAB" report --db dbs/a.db --out sa >out 2>err &&
	test "$(unwrapped err | wc -l)" = 2 &&
	unwrapped err | grep -qx "lab: warning: run 3: console log '\''$TRASH/dbs/logs/a/theirs.log'\'' is another user'\''s and not readable by all: not published" &&
	test ! -e sa/logs/r3.txt && ! grep -r "SECRET-$$" sa &&
	chmod 604 dbs/logs/a/theirs.log &&
	"$LAB" report --db dbs/a.db --out sa >out 2>err && test "$(unwrapped err | wc -l)" = 1 &&
	cmp sa/logs/r3.txt dbs/logs/a/theirs.log
'

test_expect_success 'a log with escape sequences is published without them' '
	esc=dbs/logs/b/esc.log &&
	printf "boot\r\n\033[2J\033]0;title\007 c1 \302\233 nul \000 bad \377 end\n" >$esc &&
	sql dbs/b.db "UPDATE runs SET console_log = '\''$TRASH/$esc'\'' WHERE id = 1" &&
	"$LAB" report --db dbs/b.db --out sb >out 2>err && test ! -s err &&
	printf "%s\n" "boot" "\\x1b[2J\\x1b]0;title\\x07 c1 \\xc2\\x9b nul \\x00 bad \\xff end" >want &&
	cmp want sb/logs/r1.txt &&
	! grep -q "$ESC" sb/r1.html
'

test_done
