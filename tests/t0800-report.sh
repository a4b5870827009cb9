#!/bin/bash
# lab report: a static site of an A/B experiment and a bisection, checked by
# an HTML parser, by its links, against the database, for stable mtimes, for
# escaping, and in a headless browser (screenshots kept in tests/out/t0800),
# with a 455x A/B whose plot is measured as chromium lays it out.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
SHOTS=$TOP/tests/out/t0800
HOSTILE='<script>alert(1)</script>'

# Tags HTML5 and SVG have that libxml2's HTML 4 parser does not know; it
# names them and goes on. Anything else it says fails the test.
html5_tags='header|nav|main|section|svg|g|title|text|circle|line|rect|polyline'

chromium() {
	profile=$(mktemp -d "$TRASH/chromium.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@"
}

test_expect_success 'setup: an A/B experiment with a regression' '
	rc=0 && "$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=1.0 --b-cmdline scale=1.10 --boots 3 --iters 20 >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 1")" = REGRESSION
'

# fake_history's step: 10 % slower from change 4 on, whose subject is hostile
history_step() {
	if [ $i = 4 ]; then echo 1.10 >repo/scale; subject=$HOSTILE; fi
}

test_expect_success 'setup: a bisection whose culprit has a hostile subject' '
	fake_project repo "$FAKE_IMAGE" && fake_history repo 7 history_step &&
	local_conf "$PWD/repo" >lab.conf &&
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 2")" = \
	     "$(git -C repo log --format=%H --grep=alert)"
'

test_expect_success 'two nights of a nightly in a database of its own: its page, linked from the index, pruned when gone, and only its own' '
	git -C repo branch followed main~4 &&
	mkdir nightly &&
	cat >nightly.conf <<-EOF &&
	[core]
		db = $PWD/nightly/lab.db
	[build]
		command = ./build.sh
		artifact = out/image
	[run]
		runner = local
		iters = 3
	[nightly "followed"]
		repository = $PWD/repo
		branch = followed
		boots = 2
	EOF
	"$LAB" nightly --config nightly.conf >out 2>err &&
	git -C repo branch -f followed main &&
	"$LAB" nightly --config nightly.conf >out 2>err &&
	test "$(sql nightly/lab.db "SELECT count(*) FROM nightly_points")" = 2 &&
	"$LAB" report --db nightly/lab.db >out 2>err && test ! -s err &&
	test -s nightly/site/n1.html && grep -q "href=\"n1.html\">followed</a>" nightly/site/index.html &&
	grep -q "<h1>Nightly followed</h1>" nightly/site/n1.html &&
	grep -q "<td class=\"num\">0</td><td class=\"wrap-s lead\">&#8211;</td></tr>" nightly/site/index.html &&
	grep -qx "file n1.html" nightly/site/.lab-site &&
	echo mine >nightly/site/n7.html && echo mine >nightly/site/n8.html && echo mine >nightly/site/n01.html &&
	echo "file n7.html" >>nightly/site/.lab-site &&
	"$LAB" report --db nightly/lab.db >out 2>err &&
	grep -q ": 0 files written, .* unchanged, 1 removed" out &&
	test ! -e nightly/site/n7.html && test -s nightly/site/n1.html &&
	test "$(cat nightly/site/n8.html nightly/site/n01.html)" = "mine
mine" && rm nightly/site/n8.html nightly/site/n01.html
'

test_expect_success 'lab report writes every page' '
	"$LAB" report --db lab.db --out site >out 2>err &&
	cat out err && test ! -s err &&
	for f in index.html e1.html b2.html style.css; do test -s site/$f || { echo "no $f"; exit 1; }; done &&
	for id in $(sql lab.db "SELECT id FROM runs"); do
		test -s site/r$id.html || { echo "no r$id.html"; exit 1; }
	done &&
	test -s site/logs/r1.txt && cmp site/logs/r1.txt "$(sql lab.db "SELECT console_log FROM runs WHERE id = 1")"
'

test_expect_success 'the default site is site/ beside the database, the same pages as --out' '
	mkdir -p elsewhere && cp lab.db elsewhere/ &&
	"$LAB" report --db elsewhere/lab.db >out 2>err &&
	grep -q "^elsewhere/site/index.html: [0-9]* files* written" out &&
	(cd site && find . -name "*.html" | sort) >pages.out &&
	(cd elsewhere/site && find . -name "*.html" | sort) >pages.default &&
	test "$(wc -l <pages.out)" -gt 3 && diff -u pages.out pages.default &&
	cmp site/index.html elsewhere/site/index.html && cmp site/e1.html elsewhere/site/e1.html
'

test_expect_success 'a version 1 database (no bisection tables) is upgraded, then reported' '
	mkdir old && sqlite3 lab.db ".backup old/lab.db" &&
	sql old/lab.db "DROP TABLE bisect_steps; DROP TABLE bisections; PRAGMA user_version = 1" &&
	"$LAB" report --db old/lab.db --out old/site >/dev/null 2>err &&
	test "$(sql old/lab.db "PRAGMA user_version")" = "$(sql lab.db "PRAGMA user_version")" &&
	test -s old/site/e1.html
'

test_expect_success 'every page parses as HTML and as XML, without errors' '
	for f in site/*.html nightly/site/*.html; do
		xmllint --html --noout "$f" 2>"$f.err" || { cat "$f.err"; exit 1; }
		if grep -E "^$f:[0-9]+: " "$f.err" | grep -Ev ": HTML parser error : Tag ($html5_tags) invalid\$"; then
			echo "$f: HTML errors"; exit 1
		fi
		xmllint --noout "$f" || { echo "$f: not well-formed"; exit 1; }
	done
'

test_expect_success 'every local href and src resolves to a file in the site; nothing remote' '
	for f in site/*.html nightly/site/*.html; do
		grep -oE "(href|src)=\"[^\"]*\"" "$f" | sed -E "s/^(href|src)=\"//; s/\"\$//" | sort -u >links
		test -s links || { echo "$f: no links"; exit 1; }
		while read -r l; do
			case $l in
			*://*|//*) echo "$f: remote link $l"; exit 1 ;;
			esac
			test -f "${f%/*}/${l%%#*}" || { echo "$f: broken link $l"; exit 1; }
		done <links
	done &&
	! grep -l "<script" site/*.html &&
	grep -q "href=\"style.css\"" site/index.html &&
	grep -q "<meta name=\"viewport\"" site/index.html
'

test_expect_success 'the experiment page shows the database ratio, CI and verdict' '
	want=$(sql lab.db "SELECT 100 * (ratio - 1) FROM verdicts WHERE experiment_id = 1") &&
	sed -n "s|.*<dd class=\"ratio\">\(+[0-9.]*\) % \[+[0-9.]*, +[0-9.]*\] (95% CI)</dd>.*|\1|p" \
		site/e1.html >shown &&
	test "$(wc -l <shown)" = 1 &&
	awk -v want="$want" "{ d = \$1 - want; exit !(d < 0.5 && d > -0.5) }" shown &&
	verdict=$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 1") &&
	grep -F "<dd class=\"verdict\"><span class=\"badge v-regression\">$verdict</span>" site/e1.html &&
	grep -F "Number of iterations</th><td class=\"num\">60</td><td class=\"num\">60</td>" site/e1.html &&
	test "$(grep -c "<svg class=\"plot\"" site/e1.html)" = "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = 1")" &&
	test "$(grep -c "<circle class=\"pt\"" site/e1.html)" = "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = 1 AND r.status = '\''OK'\'' AND s.flags & 1 = 0")" &&
	for id in $(sql lab.db "SELECT id FROM runs WHERE experiment_id = 1"); do
		grep -q "href=\"r$id.html\"" site/e1.html || { echo "no link to r$id"; exit 1; }
	done &&
	grep -q "href=\"e1.html\">E1</a>" site/index.html && grep -q "href=\"b2.html\">E2</a>" site/index.html &&
	grep -q "v-regression\">REGRESSION" site/index.html && grep -q "v-found\">FOUND" site/index.html
'

test_expect_success 'the bisection page shows the steps in order and the culprit' '
	culprit=$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 2") &&
	grep -F "<dd class=\"culprit\"><code>$culprit</code>" site/b2.html &&
	grep -q "class=\"culprit\" cx=" site/b2.html &&
	grep -q "<td><abbr title=\"the culprit'\''s parent (culprit^), measured again to confirm the culprit\">P</abbr></td>" site/b2.html &&
	grep -q "^<p class=\"legend\">Variant: <strong>G</strong> the good end; <strong>B</strong> the bad end; <strong>P</strong> " site/b2.html &&
	steps=$(sql lab.db "SELECT count(*) FROM bisect_steps WHERE experiment_id = 2") &&
	test "$steps" -ge 1 &&
	sql lab.db "SELECT substr(git_commit, 1, 12) FROM bisect_steps WHERE experiment_id = 2 ORDER BY seq" >want &&
	grep -oE "^<tr( class=\"is-culprit\")?><td class=\"num\">[0-9]+</td><td><code>[0-9a-f]{12}" site/b2.html |
		grep -oE "[0-9a-f]{12}\$" >got &&
	diff want got &&
	effect=$(sql lab.db "SELECT 100 * (effect - 1) FROM bisections WHERE experiment_id = 2") &&
	sed -n "s|.*<dd class=\"effect\">\(+[0-9.]*\) % \[+[0-9.]*, +[0-9.]*\] (9[0-9.]*% CI)</dd>.*|\1|p" \
		site/b2.html >shown &&
	test "$(wc -l <shown)" = 1 &&
	awk -v want="$effect" "{ d = \$1 - want; exit !(d < 0.5 && d > -0.5) }" shown
'

test_expect_success 'the hostile subject is text, escaped, never a tag' '
	grep -F "&lt;script&gt;alert(1)&lt;/script&gt;" site/b2.html &&
	! grep -rF "$HOSTILE" site/*.html
'

test_expect_success 'subjects come from the database: a report after the repository moved away' '
	culprit=$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 2") &&
	test "$(sql lab.db "SELECT author FROM commits WHERE id = '\''$culprit'\''")" = "A U Thor <author@example.com>" &&
	test "$(sql lab.db "SELECT date FROM commits WHERE id = '\''$culprit'\''")" = "$(git -C repo log -1 --format=%at.0 $culprit)" &&
	mv repo repo.moved &&
	rc=0 && "$LAB" report --config lab.conf --db lab.db --out moved >out 2>err || rc=$? &&
	mv repo.moved repo &&
	test "$rc" = 0 && test ! -s err &&
	grep -F "&lt;script&gt;alert(1)&lt;/script&gt;" moved/b2.html &&
	grep -q "<span class=\"subject\">change [0-9]</span>" moved/b2.html
'

test_expect_success 'a second report changes no file and no mtime' '
	find site -type f -printf "%p %T@\n" | sort >before &&
	"$LAB" report --db lab.db --out site >out 2>err &&
	grep -q ": 0 files written" out &&
	find site -type f -printf "%p %T@\n" | sort >after &&
	diff before after
'

test_expect_success 'a new run rewrites the pages it shows, and only those' '
	find site -type f -printf "%p %T@\n" | sort >before &&
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 5 >out 2>err &&
	"$LAB" report --db lab.db --out site >out 2>err &&
	new=$(sql lab.db "SELECT max(id) FROM runs") &&
	test -s site/r$new.html &&
	find site -type f -printf "%p %T@\n" | sort >after &&
	changed=$(diff before after | sed -n "s/^> \([^ ]*\) .*/\1/p" | LC_ALL=C sort | tr "\n" " ") &&
	test "$changed" = "site/.lab-site site/index.html site/logs/r$new.txt site/r$new.html " || { echo "changed: $changed"; exit 1; }
'

test_expect_success 'the index draws each kernel measured more than once, with its latest median' '
	cat >check-series.py <<-\EOF &&
	import re, sqlite3, statistics, xml.etree.ElementTree as ET
	db = sqlite3.connect("lab.db")
	want = {}
	for kid, commit in db.execute(
	        "SELECT r.kernel_id, k.git_commit FROM runs r JOIN kernels k ON k.id = r.kernel_id "
	        "WHERE r.status = \"OK\" GROUP BY r.kernel_id, r.cmdline, r.mem_mib, r.cpus "
	        "HAVING count(*) > 1"):
	    runs = [r for (r,) in db.execute("SELECT id FROM runs WHERE kernel_id = ? AND "
	                                     "status = \"OK\" ORDER BY started, id", (kid,))]
	    last = runs[-1]
	    median = statistics.median(v for (v,) in db.execute(
	        "SELECT value FROM samples WHERE run_id = ? AND workload = \"zeroing\" AND "
	        "metric = \"t\" AND flags & 1 = 0", (last,)))
	    want[commit[:12]] = ("%d of %d" % (len(runs), len(runs)), "r%d.html" % last, median)
	assert len(want) >= 2, want
	root = ET.parse("site/index.html").getroot()
	section = [s for s in root.iter("section") if s.findtext("h2") == "Kernels measured more than once"]
	assert len(section) == 1
	assert section[0].findtext("h3") == "zeroing.t"
	got = {}
	for tr in section[0].iter("tr"):
	    td = tr.findall("td")
	    if not td:
	        continue
	    assert td[4].find("{http://www.w3.org/2000/svg}svg") is not None
	    a = td[5].find("a")
	    # the latest median in four digits of the unit it reads best in
	    m = re.fullmatch(r"([0-9.]+) (ms|µs|s)", a.text)
	    assert td[5].text is None and a.tail is None and m, (a.text, a.tail)
	    v = float(m.group(1)) * {"s": 1e3, "ms": 1, "µs": 1e-3}[m.group(2)]
	    got[td[0].findtext("code")] = (td[3].text, a.get("href"), v)
	assert got.keys() == want.keys(), (got, want)
	for k in want:
	    assert got[k][:2] == want[k][:2] and abs(got[k][2] - want[k][2]) <= 5e-4 * want[k][2], (got, want)
	EOF
	python3 check-series.py &&
	test "$(grep -c "<svg class=\"spark\"" site/index.html)" = "$(sql lab.db "SELECT count(*) FROM (SELECT 1 FROM runs WHERE kernel_id IS NOT NULL AND status = '\''OK'\'' GROUP BY kernel_id, cmdline, mem_mib, cpus HAVING count(*) > 1)")"
'

test_expect_success 'a memory sweep: a row per variant, a column per size, the database medians and % against A' '
	mkdir sweep &&
	rc=0 && "$LAB" ab --db sweep/lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=1.0 --b-cmdline scale=1.10 --boots 2 --iters 10 --mem 1G,2G,4G >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	"$LAB" report --db sweep/lab.db >out 2>err && test ! -s err &&
	xmllint --noout sweep/site/e1.html &&
	"$LAB" show --db sweep/lab.db E1 >show.txt &&
	cat >check-sweep.py <<-\EOF &&
	import re, sqlite3, statistics, xml.etree.ElementTree as ET
	db = sqlite3.connect("sweep/lab.db")
	rows = db.execute("SELECT mem_mib, median_a, median_b, verdict, unit_compared FROM verdicts "
	                  "WHERE experiment_id = 1 AND workload = \"zeroing\" AND metric = \"t\" "
	                  "ORDER BY mem_mib").fetchall()
	assert [r[0] for r in rows] == [1024, 2048, 4096], rows
	# the stored medians are those of what each side ran at each size
	for mem, ma, mb, verdict, units in rows:
	    assert units == "samples", units
	    for side, m in (("A", ma), ("B", mb)):
	        v = [x for (x,) in db.execute(
	            "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run_id JOIN variants v "
	            "ON v.id = r.variant_id WHERE r.experiment_id = 1 AND v.name = ? AND "
	            "r.mem_mib = ? AND r.status = \"OK\" AND s.flags & 1 = 0", (side, mem))]
	        assert len(v) == 20 and abs(statistics.median(v) - m) <= 1e-9 * m, (side, mem, m, v)
	root = ET.parse("sweep/site/e1.html").getroot()
	section = [s for s in root.iter("section") if s.findtext("h2") == "Memory sweep"]
	assert len(section) == 1
	assert section[0].findtext("h3") == "zeroing.t, median, 1 cpu", section[0].findtext("h3")
	table = section[0].find(".//table")
	head = [th.text for th in table.find("thead/tr")]
	assert head == ["Variant", "1024M", "2048M", "4096M"], head
	body = table.findall("tbody/tr")
	assert [tr.findtext("th") for tr in body] == ["A", "B"]
	a = ["".join(td.itertext()) for td in body[0].findall("td")]
	b = ["".join(td.itertext()) for td in body[1].findall("td")]
	# in four digits of the unit the smallest median reads best in, the change as lab ab says it
	per_ms = {"s": 1e-3, "ms": 1, "µs": 1e3, "ns": 1e6}
	unit = re.fullmatch(r"[0-9.]+ (\S+)", a[0]).group(1)
	for i, r in enumerate(rows):
	    m = re.fullmatch(r"([0-9.]+) " + unit, a[i])
	    assert m and abs(float(m.group(1)) - r[1] * per_ms[unit]) <= 5e-4 * r[1] * per_ms[unit], (a, rows)
	    m = re.fullmatch(r"([0-9.]+) %s \(([+-][0-9.]+) %%\) (\w+)" % unit, b[i])
	    assert m and abs(float(m.group(1)) - r[2] * per_ms[unit]) <= 5e-4 * r[2] * per_ms[unit], (b, rows)
	    assert m.group(2) == "%+.1f" % (100 * (r[2] / r[1] - 1)) and m.group(3) == r[3], (b, rows)
	assert all(r[3] == "REGRESSION" for r in rows), rows
	# lab show lays out the same numbers as text, to four significant digits
	show = open("show.txt").read()
	line_a = re.search(r"^  A +([0-9.]+) +([0-9.]+) +([0-9.]+)$", show, re.M)
	line_b = re.search(r"^  B +([0-9.]+) ([+-][0-9.]+) % +([0-9.]+) ([+-][0-9.]+) % +"
	                   r"([0-9.]+) ([+-][0-9.]+) %$", show, re.M)
	assert line_a and line_b, show
	for i, r in enumerate(rows):
	    assert abs(float(line_a.group(i + 1)) - r[1]) <= 5e-4 * r[1], (line_a.group(0), rows)
	    assert abs(float(line_b.group(2 * i + 1)) - r[2]) <= 5e-4 * r[2], (line_b.group(0), rows)
	    pct = 100 * (r[2] / r[1] - 1)
	    assert abs(float(line_b.group(2 * i + 2)) - pct) <= 0.051, (line_b.group(0), pct)
	EOF
	python3 check-sweep.py
'

test_expect_success 'past 400 samples a side, points even in rank stand for the rest, the extremes among them' '
	mkdir big &&
	rc=0 && "$LAB" ab --db big/lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=1.0 --b-cmdline scale=1.10 --boots 2 --iters 300 >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	"$LAB" report --db big/lab.db >out 2>err && test ! -s err &&
	test "$(sql big/lab.db "SELECT n_a || \" \" || n_b FROM verdicts")" = "600 600" &&
	test "$(grep -c "<circle class=\"pt\"" big/site/e1.html)" = 800 &&
	test "$(grep -c ">400 of 600 points</text>" big/site/e1.html)" = 2 &&
	cat >check-thinned.py <<-\EOF &&
	import sqlite3, statistics, xml.etree.ElementTree as ET
	SVG = "{http://www.w3.org/2000/svg}"
	db = sqlite3.connect("big/lab.db")
	plots = [p for p in ET.parse("big/site/e1.html").getroot().iter(SVG + "svg")
	         if p.get("class") == "plot"]
	assert len(plots) == 1, plots
	axis = [l for l in plots[0].iter(SVG + "line") if l.get("class") == "axis"]
	x0, x1 = float(axis[0].get("x1")), float(axis[0].get("x2"))
	side = {}
	for name in ("A", "B"):
	    side[name] = sorted(v for (v,) in db.execute(
	        "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run_id JOIN variants v "
	        "ON v.id = r.variant_id WHERE r.experiment_id = 1 AND v.name = ? AND "
	        "r.status = \"OK\" AND s.flags & 1 = 0", (name,)))
	lo = min(v[0] for v in side.values())
	hi = max(v[-1] for v in side.values())
	# the axis holds the band of delta around the median of A, then 3 % more each side
	(delta,) = db.execute("SELECT delta FROM verdicts").fetchone()
	ma = statistics.median(side["A"])
	lo, hi = min(lo, ma / (1 + delta)), max(hi, ma * (1 + delta))
	lo, hi = lo - 0.03 * (hi - lo), hi + 0.03 * (hi - lo)
	for g in plots[0].iter(SVG + "g"):
	    v = side[g.findtext(SVG + "text")]
	    got = [float(c.get("cx")) for c in g.iter(SVG + "circle") if c.get("class") == "pt"]
	    # the values of ranks 0, (n - 1) / 399, ..., n - 1 along the axis
	    ranks = [int(j * (len(v) - 1) / (len(got) - 1) + 0.5) for j in range(len(got))]
	    want = [x0 + (v[k] - lo) / (hi - lo) * (x1 - x0) for k in ranks]
	    assert len(got) == 400 and ranks[0] == 0 and ranks[-1] == len(v) - 1, (len(got), ranks)
	    bad = [(w, x) for w, x in zip(want, got) if abs(w - x) > 0.051]
	    assert not bad, bad[:5]
	EOF
	python3 check-thinned.py &&
	grep -F "Number of iterations</th><td class=\"num\">600</td><td class=\"num\">600</td>" big/site/e1.html
'

test_expect_success 'rows deleted from the database take their pages along, and nothing else, a copy of the database with --force' '
	cp lab.db prune.db && cp -a site prune-site &&
	echo mine >prune-site/notes.html && echo mine >prune-site/e01.html &&
	echo mine >prune-site/r1.html.orig && echo mine >prune-site/logs/notes.txt &&
	mkdir prune-site/r999.html &&
	run=$(sql prune.db "SELECT max(id) FROM runs WHERE experiment_id IS NULL") &&
	test -s prune-site/logs/r$run.txt &&
	gone="prune-site/e1.html prune-site/logs/r$run.txt prune-site/r$run.html" &&
	for id in $(sql prune.db "SELECT id FROM runs WHERE experiment_id = 1"); do
		gone="$gone prune-site/r$id.html prune-site/logs/r$id.txt"
	done &&
	sqlite3 prune.db "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = $run OR experiment_id = 1; DELETE FROM experiments WHERE id = 1" &&
	find prune-site -type f -printf "%p %T@\n" | sort >before &&
	test_expect_code 2 "$LAB" report --db prune.db --out prune-site >out 2>err &&
	unwrapped err | grep -q "^lab: site '\''prune-site'\'' was written from database '\''$TRASH/lab.db'\'', not '\''$TRASH/prune.db'\''" &&
	"$LAB" report --db prune.db --out prune-site --force >out 2>err &&
	cat out && test ! -s err && grep -qx "database $TRASH/prune.db" prune-site/.lab-site &&
	grep -q ": 1 file written, .* unchanged, $(echo $gone | wc -w) removed" out &&
	for f in $gone; do test ! -e $f || { echo "$f is still there"; exit 1; }; done &&
	for f in notes.html e01.html r1.html.orig logs/notes.txt; do test -f prune-site/$f; done &&
	test -d prune-site/r999.html &&
	find prune-site -type f -printf "%p %T@\n" | sort >after &&
	printf "%s\n" $gone | LC_ALL=C sort >want &&
	diff before after | sed -n "s/^< \([^ ]*\) .*/\1/p" |
		grep -v "^prune-site/\(index.html\|.lab-site\)\$" | LC_ALL=C sort >got &&
	diff want got &&
	test "$(diff before after | grep "^>" | cut -d" " -f2 | LC_ALL=C sort | tr "\n" " ")" = \
		"prune-site/.lab-site prune-site/index.html "
'

test_expect_success CHROMIUM 'chromium: the bisection DOM holds the subject as text and no script' '
	chromium --dump-dom "file://$TRASH/site/b2.html" >dom 2>chromium.err &&
	grep -q "Bisection E2" dom &&
	grep -F "&lt;script&gt;alert(1)&lt;/script&gt;" dom &&
	! grep -i "<script" dom
'

# png.py (tests/fixtures): a PNG's size; png.read(), its pixels.
cp "$TOP/tests/fixtures/png.py" .
# ink.py PNG: fails on a page drawn blank: dark text in its top 150 rows
# (a heading) and, over the whole page, more than 1 % of pixels off the
# background's colour.
cat >ink.py <<\EOF
import sys, collections, png
w, h, px = png.read(sys.argv[1])
counts = collections.Counter(c for row in px for c in row)
bg, n = counts.most_common(1)[0]
off = 1 - n / (w * h)
dark = sum(1 for row in px[:150] for (r, g, b) in row if r + g + b < 300)
print("%s: %.1f %% off the background, %d dark pixels in the heading" % (sys.argv[1], 100 * off, dark))
sys.exit(0 if off > 0.01 and dark > 100 else 1)
EOF

test_expect_success CHROMIUM 'chromium: screenshots of index, experiment, bisection, run and nightly pages, at the window size' '
	rm -rf "$SHOTS" && mkdir -p "$SHOTS" &&
	for p in index e1 b2 r1 nightly/n1; do
		page=site/$p.html && case $p in nightly/*) page=nightly/site/${p#*/}.html ;; esac
		p=${p#*/}
		chromium --screenshot="$SHOTS/$p.png" --window-size=1280,900 --hide-scrollbars \
			--force-device-scale-factor=1 "file://$TRASH/$page" >/dev/null 2>chromium.err ||
			{ cat chromium.err; exit 1; }
		size=$(python3 png.py "$SHOTS/$p.png") || { cat chromium.err; exit 1; }
		test "$size" = "1280 900" || { echo "$p.png is $size"; exit 1; }
		python3 ink.py "$SHOTS/$p.png" || exit 1
	done
'

# measure-wide.py WIDTH PAGE...: each page with a script that lists, as
# chromium lays it out at that width, the page or the table boxes that
# are wider than the window; "PAGE WIDTH what scrolls" a line.
cat >measure-wide.py <<\EOF
import os, re, subprocess, sys, tempfile
JS = """<script>
const d = document.documentElement, out = [];
if (d.scrollWidth > d.clientWidth + 1) out.push("page " + d.scrollWidth + ">" + d.clientWidth);
for (const e of document.querySelectorAll(".scroll, pre"))
  if (e.scrollWidth > e.clientWidth + 1) {
    const s = e.closest("section"), h = s ? s.querySelector("h2") : null;
    out.push((h ? h.textContent : e.tagName) + " " + e.scrollWidth + ">" + e.clientWidth);
  }
document.body.setAttribute("data-wide", out.join("; "));
</script></body>"""
width = sys.argv[1]
for page in sys.argv[2:]:
    measured = page[:-len(".html")] + "-wide.html"
    with open(page) as f, open(measured, "w") as g:
        g.write(f.read().replace("</body>", JS))
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--user-data-dir=" + tempfile.mkdtemp(),
        "--window-size=%s,900" % width, "--dump-dom", "file://" + os.path.abspath(measured)],
        capture_output=True, text=True, timeout=120).stdout
    os.remove(measured)
    m = re.search(r'data-wide="([^"]*)"', dom)
    print(page, width, m.group(1) if m else "not measured")
EOF

test_expect_success CHROMIUM 'chromium: at 1280 px no page and no table scrolls sideways; at 400 px only tables do, in their boxes' '
	pages="site/index.html site/e1.html site/b2.html site/r1.html nightly/site/n1.html" &&
	python3 measure-wide.py 1280 $pages >wide-1280 &&
	cat wide-1280 && test "$(wc -l <wide-1280)" = 5 &&
	! grep -v " 1280 $" wide-1280 &&
	python3 measure-wide.py 400 $pages >wide-400 &&
	test "$(wc -l <wide-400)" = 5 &&
	! grep -e "not measured" -e " 400 page " -e "; page " wide-400
'

# The first plot of the experiment page alone, one pixel a unit: a point
# is drawn at each sample's place, and its band is empty beside them.
test_expect_success CHROMIUM 'chromium: the experiment plot draws its points where the samples are, nothing beside them' '
	mkdir shot && cp site/style.css shot/ &&
	{
		echo "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/><link rel=\"stylesheet\" href=\"style.css\"/>" &&
		echo "<style>body { margin: 0; } svg.plot { width: 640px; max-width: none; margin: 0; }</style>" &&
		echo "</head><body>" &&
		sed -n "/<svg class=\"plot\"/,/<\/svg>/{p;/<\/svg>/q}" site/e1.html &&
		echo "</body></html>"
	} >shot/plot.html &&
	height=$(sed -n "s/.*<svg class=\"plot\" viewBox=\"0 0 640 \([0-9]*\)\".*/\1/p" shot/plot.html) &&
	test -n "$height" &&
	chromium --screenshot="$SHOTS/e1-plot.png" --window-size=640,$height --hide-scrollbars \
		--force-device-scale-factor=1 "file://$TRASH/shot/plot.html" >/dev/null 2>chromium.err ||
		{ cat chromium.err; exit 1; }
	cat >check-plot.py <<-\EOF &&
	import collections, sys, xml.etree.ElementTree as ET
	import png
	SVG = "{http://www.w3.org/2000/svg}"
	w, h, px = png.read(sys.argv[1])
	svg = ET.parse("shot/plot.html").getroot().find(".//" + SVG + "svg")
	assert (w, h) == (640, int(svg.get("viewBox").split()[3])), (w, h)
	background = collections.Counter(p for row in px for p in row).most_common(1)[0][0]
	n = 0
	for g in svg.iter(SVG + "g"):
	    pts = [(float(c.get("cx")), float(c.get("cy"))) for c in g.iter(SVG + "circle")
	           if c.get("class") == "pt"]
	    assert pts, g.get("class")
	    for x, y in pts:
	        p = px[round(y)][round(x)]
	        assert sum(abs(a - b) for a, b in zip(p, background)) > 60, (g.get("class"), x, y, p)
	    n += len(pts)
	    xs, ys = [x for x, _ in pts], [y for _, y in pts]
	    for y in range(round(min(ys)), round(max(ys)) + 1):
	        for x in list(range(0, round(min(xs)) - 4)) + list(range(round(max(xs)) + 5, w)):
	            assert px[y][x] == background, (g.get("class"), x, y, px[y][x], background)
	print(n)
	EOF
	python3 check-plot.py "$SHOTS/e1-plot.png" >points &&
	test "$(cat points)" = "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id
		WHERE r.experiment_id = 1 AND r.status = '\''OK'\'' AND s.flags & 1 = 0")"
'

# Seed 006's demote regression in small: B 455 times A, each side's noise
# a few per cent. On one linear axis each side was a dot at an edge.
# Every <code> of 12 or 40 hex digits on a page ($1), and those inside a commit's link.
codes() {
	grep -oE "<code>[0-9a-f]{12}([0-9a-f]{28})?</code>" "$1" | wc -l
}
linked() {
	grep -oE "<a class=\"commit\" href=\"https://git.example.org/linux/commit/[?]id=[0-9a-f]{40}\"( title=\"[^\"]*\")?><code>[0-9a-f]{12}([0-9a-f]{28})?</code></a>" "$1" | wc -l
}

test_expect_success 'report.commitUrl: every commit of a bisection, a nightly and the index links to its page, titled by its subject' '
	url="https://git.example.org/linux/commit/?id=%H" &&
	printf "[report]\n\tcommitUrl = %s\n" "$url" >url.conf &&
	"$LAB" report --config url.conf --db lab.db --out site-url >out 2>err && test ! -s err &&
	culprit=$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 2") &&
	grep -qF "<a class=\"commit\" href=\"https://git.example.org/linux/commit/?id=$culprit\" title=\"&lt;script&gt;alert(1)&lt;/script&gt;\"><code>$culprit</code></a>" site-url/b2.html &&
	for page in b2.html index.html; do
		test "$(codes site-url/$page)" -gt 0 &&
		test "$(linked site-url/$page)" = "$(codes site-url/$page)" ||
		{ echo "$page: $(codes site-url/$page) commits, $(linked site-url/$page) linked"; return 1; }
	done &&
	cat nightly.conf url.conf >nightly-url.conf &&
	"$LAB" report --config nightly-url.conf --out nightly-url >out 2>err && test ! -s err &&
	test "$(codes nightly-url/n1.html)" -gt 0 &&
	test "$(linked nightly-url/n1.html)" = "$(codes nightly-url/n1.html)" &&
	! grep -q "<a class=\"commit\"" site/b2.html
'

test_expect_success 'report.commitUrl that is not an http(s) address with one %H is refused, naming its line' '
	for bad in "https://git.example.org/commit/" "javascript:alert(%H)" "https://x/%H/%H"; do
		printf "[report]\n\tcommitUrl = %s\n" "$bad" >bad-url.conf &&
		test_must_fail "$LAB" report --config bad-url.conf --db lab.db --out site-bad 2>err &&
		expect_one_line_naming err "bad-url.conf" && grep -q "commitUrl\|commiturl" err || return 1
	done &&
	test ! -e site-bad
'

test_expect_success 'setup: an A/B whose B is 455 times A' '
	mkdir wide &&
	rc=0 && "$LAB" ab --db wide/lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=1.0 --b-cmdline scale=455 --boots 3 --iters 10 >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	test "$(sql wide/lab.db "SELECT verdict FROM verdicts")" = REGRESSION &&
	"$LAB" report --db wide/lab.db >out 2>err && test ! -s err &&
	test "$(grep -c "<svg class=\"plot ratio\"" wide/site/e1.html)" = 1
'

# The experiment page with a script that writes each plot text's extent,
# as the browser laid it out, into the DOM that chromium then dumps.
test_expect_success CHROMIUM 'chromium: a 455x A/B draws both sides on one log axis, far apart, keeps its labels inside, titles its points' '
	sed "s|</body>|<script>for (const t of document.querySelectorAll(\"svg.plot text\")) { const b = t.getBBox(); t.setAttribute(\"data-x0\", b.x); t.setAttribute(\"data-x1\", b.x + b.width); }</script></body>|" \
		wide/site/e1.html >wide/site/measured.html &&
	grep -q "<script>" wide/site/measured.html &&
	chromium --dump-dom "file://$TRASH/wide/site/measured.html" >wide/dom 2>chromium.err ||
		{ cat chromium.err; exit 1; }
	cat >check-wide.py <<-\EOF &&
	import html.parser, re, sqlite3
	SVG = ("svg", "g", "circle", "text", "title", "line", "rect", "polyline")
	class Plots(html.parser.HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.plots, self.stack, self.title = [], [], None
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if tag == "svg" and "plot" in a.get("class", "").split():
	            self.plots.append({"class": a["class"], "width": float(a["viewbox"].split()[2]),
	                               "texts": [], "axes": [], "points": []})
	        if not self.plots or tag not in SVG:
	            return
	        p = self.plots[-1]
	        side = ([g for g in self.stack if g.startswith("side-")] or [None])[-1]
	        if tag == "text":
	            p["texts"].append(a)
	        elif tag == "line" and a.get("class") == "axis":
	            p["axes"].append((float(a["x1"]), float(a["x2"])))
	        elif tag == "circle" and a.get("class") == "pt":
	            p["points"].append({"side": side, "cx": float(a["cx"]), "title": None})
	            tag = "pt"
	        elif tag == "title" and self.stack and self.stack[-1] == "pt":
	            self.title = p["points"][-1]
	        self.stack.append(a.get("class", tag) if tag == "g" else tag)
	    def handle_endtag(self, tag):
	        if self.stack and tag in SVG and self.plots:
	            self.stack.pop()
	        if tag == "title":
	            self.title = None
	    def handle_data(self, data):
	        if self.title is not None:
	            self.title["title"] = (self.title["title"] or "") + data
	parser = Plots()
	parser.feed(open("wide/dom").read())
	dist = [p for p in parser.plots if p["class"] == "plot"]
	assert len(dist) == 1 and len(parser.plots) == 2, [p["class"] for p in parser.plots]
	# both sides on one axis, far apart on it: A in its left tenth, B in its right one
	assert len(dist[0]["axes"]) == 1, dist[0]["axes"]
	x1, x2 = dist[0]["axes"][0]
	xs = {side: [q["cx"] for q in dist[0]["points"] if q["side"] == side]
	      for side in ("side-a", "side-b")}
	assert len(xs["side-a"]) == 30 and len(xs["side-b"]) == 30, xs
	assert max(xs["side-a"]) < x1 + 0.1 * (x2 - x1), (xs["side-a"], x1, x2)
	assert min(xs["side-b"]) > x2 - 0.1 * (x2 - x1), (xs["side-b"], x1, x2)
	# no text of any plot past its edges, as laid out
	for p in parser.plots:
	    assert p["texts"] and all("data-x0" in t for t in p["texts"]), p["class"]
	    for t in p["texts"]:
	        assert float(t["data-x0"]) >= 0 and float(t["data-x1"]) <= p["width"], (p["class"], t)
	# a point says its value, unit, run and iteration, as stored
	db = sqlite3.connect("wide/lab.db")
	runs = dict(db.execute("SELECT r.id, v.name FROM runs r JOIN variants v ON v.id = r.variant_id"))
	for q in dist[0]["points"]:
	    m = re.fullmatch(r"([0-9.]+) ms, run ([0-9]+), iteration ([0-9]+)", q["title"] or "")
	    assert m, q
	    run, it = int(m.group(2)), int(m.group(3))
	    assert "side-" + runs[run].lower() == q["side"], (q, runs[run])
	    (v,) = db.execute("SELECT value FROM samples WHERE run_id = ? AND iteration = ? AND "
	                      "metric = \"t\"", (run, it)).fetchone()
	    assert abs(float(m.group(1)) - v) <= 1e-8 * v, (q, v)
	EOF
	python3 check-wide.py &&
	test "$(grep -c ">ms (log scale)</text>" wide/site/e1.html)" = 1 &&
	for w in 1280 400; do
		chromium --screenshot="$SHOTS/wide-e1-$w.png" --window-size=$w,900 --hide-scrollbars \
			--force-device-scale-factor=1 "file://$TRASH/wide/site/e1.html" >/dev/null 2>chromium.err ||
			{ cat chromium.err; exit 1; }
	done
'

prof_a=prof=entry:10:2000000,work_fn:1000:1000000,old_fn:5:50000,schedule:10:10
prof_b=prof=entry:10:2300000,work_fn:1000:1100000,helper:1000:200000,schedule:20:900000000

# explained_report DIR A-CMDLINE B-CMDLINE: a regressing A/B in DIR/lab.db,
# explained, and its report in DIR/site, valid HTML
explained_report() {
	mkdir "$1" &&
	test_expect_code 1 "$LAB" ab --db "$1/lab.db" --runner local --guest "$FAKE" \
		--workload zeroing --iters 5 --boots 3 --a-cmdline "$2" --b-cmdline "$3" >out 2>err &&
	"$LAB" explain --db "$1/lab.db" E1 >out 2>err &&
	"$LAB" report --db "$1/lab.db" >out 2>err && test ! -s err &&
	xmllint --noout "$1/site/e1.html"
}

test_expect_success 'an explained A/B: where the time went, its functions in a table and their changes as bars' '
	explained_report explained "scale=1.0 metrics=touch $prof_a" "scale=1.3 metrics=touch $prof_b" &&
	cat >check-explained.py <<-\EOF &&
	import re, sqlite3
	page = open("explained/site/e1.html").read()
	part = page[page.index("<h2>Where the time went</h2>"):]
	part = part[:part.index("</section>")]
	rows = re.findall(r"<tr><td>([^<]*)</td>", part)
	assert rows == ["helper", "entry", "work_fn", "old_fn", "schedule"], rows
	# wall time: five boots a side, each change with its interval
	assert "<th>95% CI</th>" in part and "<strong>Noisy</strong>: wall time, 5 and 5 boots" in part
	assert re.search(r"<tr><td>helper</td><td class=\"num\">&#8211;</td><td class=\"num\">1000</td>", part)
	# the chart names what it leaves out, and by how much it changed
	assert "<p class=\"note\">Not drawn, as they only wait (their bars would dwarf the rest): " \
	       "schedule (+900 ms).</p>" in part, part
	bars = re.findall(r"<g class=\"bar (up|down)\"><title>([^<]*)</title>", part)
	# schedule only waits: in the table, not among the bars
	assert [t.split(":")[0] for _, t in bars] == rows[:4], bars
	assert [k for k, _ in bars] == ["up", "up", "up", "down"], bars
	assert bars[0][1] == "helper: A not called, B 200 us in 1000 calls", bars
	# the function profiler counts calls, exactly
	assert "<th>Function</th><th>Calls A</th><th>Calls B</th><th>Time A</th>" in part, part
	assert "<p>Boots with the kernel\x27s function profiler on (" in part, part
	db = sqlite3.connect("explained/lab.db")
	(a, b) = db.execute("SELECT a_run_id, b_run_id FROM explanations").fetchone()
	assert "href=\"r%d.html\"" % a in part and "href=\"r%d.html\"" % b in part
	EOF
	python3 check-explained.py
'

test_expect_success 'explained by the PMU: its columns are samples of cycles, its times a function.s own' '
	explained_report sampled "scale=1.0 metrics=touch by=pmu prof=work_fn:1000:1000000,old_fn:5:50000" \
		"scale=1.3 metrics=touch by=pmu prof=work_fn:1000:1100000,helper:1000:200000" &&
	cat >check-sampled.py <<-\EOF &&
	import re
	page = open("sampled/site/e1.html").read()
	part = page[page.index("<h2>Where the time went</h2>"):]
	part = part[:part.index("</section>")]
	assert "<th>Function</th><th>Samples of cycles A</th><th>Samples of cycles B</th>" \
	       "<th>Time A</th>" in part, part
	assert "Calls" not in part and "calls" not in part and "profiler" not in part, part
	assert re.search(r"<p>Boots sampled by the PMU \(A: runs <a href=\"r[0-9]+.html\">", part), part
	assert ": sampled cycles (PMU), a sample every 500000 cycles on 1 CPU: 1005 samples of " \
	       "1005 periods counted, 0 lost. A function\x27s samples are those taken while the " \
	       "CPU was in it; its time is its own (callees not in it), its samples times the " \
	       "period. <strong>Noisy</strong>: wall time, 5 and 5 boots" in part, part
	assert "The verdict and its effect come from the boots without sampling.</p>" in part, part
	assert re.search(r"<tr><td>helper</td><td class=\"num\">&#8211;</td><td class=\"num\">1000</td>", part)
	bars = re.findall(r"<g class=\"bar (?:up|down)\"><title>([^<]*)</title>", part)
	assert "helper: A not sampled, B 200 us in 1000 samples" in bars, bars
	EOF
	python3 check-sampled.py
'

test_expect_success 'explained by function_graph: the tracer named, never the function profiler' '
	explained_report graph "scale=1.0 metrics=touch by=graph prof=work_fn:1000:1000000" \
		"scale=1.3 metrics=touch by=graph prof=work_fn:1000:1100000,helper:1000:200000" &&
	cat >check-graph.py <<-\EOF &&
	import re
	page = open("graph/site/e1.html").read()
	part = page[page.index("<h2>Where the time went</h2>"):]
	part = part[:part.index("</section>")]
	assert "<th>Function</th><th>Calls A</th><th>Calls B</th>" in part, part
	assert "function profiler on" not in part and "profiler\x27s cost" not in part, part
	assert re.search(r"<p>Boots with the kernel\x27s function_graph tracer on \(A: runs ", part), part
	assert ": the kernel has no function profiler, function_graph on work_fn old_fn helper: " \
	       "1000 calls, 0 lost, 0 overwritten (a function\x27s time includes its callees)" in part, part
	assert "times include the tracer\x27s cost" in part, part
	EOF
	python3 check-graph.py
'

test_expect_success 'numbers read as lab ab writes them: a scaled unit, a multiple for a speed-up of 500, never an exponent' '
	mkdir tiny &&
	rc=0 && "$LAB" ab --db tiny/lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline scale=0.0002 --b-cmdline scale=0.0000004 --boots 2 --iters 10 >out 2>err || rc=$? &&
	test "$rc" -le 1 &&
	"$LAB" report --db tiny/lab.db >out 2>err && test ! -s err &&
	cat >check-numbers.py <<-\EOF &&
	import glob, re, sqlite3
	from html.parser import HTMLParser
	class Text(HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.stack, self.text, self.cells = [], [], []
	    def handle_starttag(self, tag, attrs):
	        self.stack.append(tag)
	        if tag == "td":
	            self.cells.append("")
	    def handle_endtag(self, tag):
	        while self.stack and self.stack.pop() != tag:
	            pass
	    def handle_data(self, data):
	        if "pre" not in self.stack:
	            self.text.append(data)
	        if "td" in self.stack and self.cells:
	            self.cells[-1] += data
	def parse(path):
	    t = Text()
	    t.feed(open(path, encoding="utf-8").read())
	    return t
	# no number in exponent notation in the text of any page of any site
	pages = glob.glob("site/*.html") + glob.glob("*/site/*.html")
	assert len(pages) > 20, pages
	exponent = re.compile(r"(?<![\w.])[0-9]+(\.[0-9]+)?[eE][+-][0-9]+")
	for path in pages:
	    for line in parse(path).text:
	        assert not exponent.search(line), (path, line)
	# 40 ns against 20 us, stored as ms: in ns, never 0.0000...
	db = sqlite3.connect("tiny/lab.db")
	(ma, mb, ratio) = db.execute("SELECT median_a, median_b, ratio FROM verdicts").fetchone()
	assert mb < 0.0001 and ma / mb > 400, (ma, mb)
	e1 = parse("tiny/site/e1.html")
	page = "".join(e1.text)
	mean = re.search(r"Mean([^\n]*?) ns([^\n]*?) ns", page)
	assert mean, page
	assert not any(c.startswith("0.000") for c in e1.cells), e1.cells
	# the speed-up as a multiple, in the facts and in the ratio chart
	assert re.search(r"B/A ratio1/[0-9]+× \[1/[0-9]+×, 1/[0-9]+×\]", page), page
	assert re.search(r"95% CI 1/[0-9]+× \[1/[0-9]+×, 1/[0-9]+×\]", page), page
	assert re.search(r"B/A 1/%d×" % round(1 / ratio), page), (page, ratio)
	# the run page: the summary of each metric in the unit its median reads in
	for path in glob.glob("tiny/site/r*.html"):
	    cells = parse(path).cells
	    shown = [c for c in cells if re.fullmatch(r"[0-9.]+k? (ns|µs)", c)]
	    assert len(shown) == 7, (path, cells)
	    # and no column names another unit than the cells carry (the stored ms)
	    assert not any(re.fullmatch(r"(ns|us|µs|ms|s)", c) for c in cells), (path, cells)
	    assert "<th>Unit</th>" not in open(path, encoding="utf-8").read(), path
	    assert not any(c.startswith("0.000") for c in cells), (path, cells)
	# 455 times: the chart and the facts say 455×, not 455.1
	wide = "".join(parse("wide/site/e1.html").text)
	assert re.search(r"95% CI [0-9]+× \[[0-9]+×, [0-9]+×\]", wide), wide
	assert not re.search(r"B/A [0-9]+\.[0-9]", wide), wide
	EOF
	python3 check-numbers.py
'

test_done
