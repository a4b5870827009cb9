#!/bin/bash
# lab report as a person first sees it, in a headless browser: the index,
# an experiment and a bisection each lead, in their first screen, with the
# worst metric and its change; the pixels of an A/B's plot put A and B
# apart on one axis when B is 455 times A, and keep a 0.04 % spread narrow.
# Screenshots are kept in tests/out/t0815.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
SHOTS=$TOP/tests/out/t0815
METRICS=demote_page_wall,alloc_wall,free_wall,split_wall

cp "$TOP/tests/fixtures/png.py" .

test_expect_success 'setup: a 0.04 % A/B, a bisection, then a 455x A/B of four metrics' '
	rc=0 && "$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline "scale=1.0 cv=0.0004" --b-cmdline "scale=1.0002 cv=0.0004" \
		--boots 3 --iters 10 >out 2>err || rc=$? &&
	test "$rc" -le 1 &&
	fake_project repo "$FAKE_IMAGE" && fake_history repo 5 scale_from repo 3 1.30 &&
	local_conf "$PWD/repo" >lab.conf &&
	"$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err &&
	test "$(sql lab.db "SELECT culprit FROM bisections")" = "$(git -C repo rev-parse culprit)" &&
	rc=0 && "$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline "scale=1.0 metrics=$METRICS" --b-cmdline "scale=455 metrics=$METRICS" \
		--boots 3 --iters 10 >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = 3 AND verdict = '\''REGRESSION'\''")" = 4 &&
	"$LAB" report --db lab.db --out site >out 2>err && test ! -s err
'

test_expect_success 'the index row leads with the worst metric, its change and verdict, then the others' '
	cat >check-lead.py <<-\EOF &&
	import re, sqlite3
	db = sqlite3.connect("lab.db")
	# the worst: the largest change of the regressions, either way
	ratio, metric = db.execute("SELECT ratio, metric FROM verdicts WHERE experiment_id = 3 "
	                           "ORDER BY max(ratio, 1.0 / ratio) DESC, id LIMIT 1").fetchone()
	page = open("site/index.html", encoding="utf-8").read()
	rows = re.findall(r"<tr><td><a href=\"e3.html\">E3</a></td><td class=\"wrap lead\">(.*?)</td>", page)
	want = ("<strong class=\"metric\">zeroing.%s</strong> <span class=\"change\">%.3g\u00d7</span> "
	        "<span class=\"badge v-regression\">REGRESSION</span><br/><span class=\"more\">+3 other "
	        "metrics</span>" % (metric, ratio))
	assert rows == [want, want], (rows, want)
	# a bisection: its metric, effect, outcome, culprit with its subject, its ends with their refs
	culprit, effect = db.execute("SELECT culprit, effect FROM bisections").fetchone()
	row = re.search(r"<a href=\"b2.html\">E2</a></td><td class=\"wrap lead\">(.*?)</td>.*?"
	                r"<td class=\"wrap\">(good .*?)</td></tr>", page).groups()
	assert row[0] == ("<strong class=\"metric\">zeroing.t</strong> <span class=\"change\">+%.1f %%"
	                  "</span> <span class=\"badge v-found\">FOUND</span><br/>culprit <code>%s</code> "
	                  "<span class=\"subject\">change 3</span>" % (100 * (effect - 1), culprit[:12])), row
	assert re.fullmatch(r"good <span class=\"ref\">base</span> \(<code>[0-9a-f]{12}</code>\) "
	                    r"<span class=\"subject\">base</span><br/>bad <span class=\"ref\">main</span> "
	                    r"\(<code>[0-9a-f]{12}</code>\) <span class=\"subject\">change 5</span>", row[1]), row
	EOF
	python3 check-lead.py
'

# screens.py PAGE W H SHOT SELECTOR...: PAGE as chromium lays it out in a
# window W x H: each SELECTOR's first element's box and text ("x0 y0 x1 y1
# text" a line, measured by a script in a copy of the page), and the page
# itself as a screenshot in SHOT.
cat >screens.py <<\EOF
import html, json, os, re, subprocess, sys, tempfile
page, w, h, shot, sels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=%s,%s" % (w, h)]
def chromium(*args):
    return subprocess.run(["chromium"] + flags + ["--user-data-dir=" + tempfile.mkdtemp()] +
                          list(args), capture_output=True, text=True, timeout=120).stdout
JS = """<script>
const out = [];
for (const s of %s) {
  const e = document.querySelector(s);
  if (!e) { out.push(null); continue; }
  const r = e.getBoundingClientRect();
  out.push([r.left, r.top, r.right, r.bottom, (e.innerText ?? e.textContent).replace(/\\s+/g, " ").trim()]);
}
document.body.setAttribute("data-boxes", JSON.stringify(out));
</script></body>""" % json.dumps(sels)
measured = page[:-len(".html")] + "-measured.html"
with open(page) as f, open(measured, "w") as g:
    g.write(f.read().replace("</body>", JS))
dom = chromium("--dump-dom", "file://" + os.path.abspath(measured))
os.remove(measured)
boxes = json.loads(html.unescape(re.search(r'data-boxes="([^"]*)"', dom).group(1)))
for s, b in zip(sels, boxes):
    assert b, s + ": not on the page"
    print("%.0f %.0f %.0f %.0f %s" % tuple(b))
chromium("--screenshot=" + shot, "file://" + os.path.abspath(page))
EOF

# marks.py SHOT AXIS PLOT apart|narrow: where, between the ends of the
# axis (AXIS: "x0 y0 x1 y1") and within the plot's height (PLOT, the same),
# the screenshot has A's colour and B's (the first and last column of each
# and its count of pixels, a line each); then whether they are drawn as
# asked: apart, A in the axis' left tenth and B in its right one; narrow,
# each in a twentieth of the axis, a third of it away from either end.
cat >marks.py <<\EOF
import sys
import png
COLOUR = {"A": (0x09, 0x69, 0xda), "B": (0xbc, 0x4c, 0x00)}    # --a and --b of style.css
w, h, px = png.read(sys.argv[1])
ax0, _, ax1, _ = (round(float(v)) for v in sys.argv[2].split()[:4])
_, py0, _, py1 = (round(float(v)) for v in sys.argv[3].split()[:4])
cols = {}
for side, c in COLOUR.items():
    xs = [x for y in range(py0, min(py1, h)) for x in range(ax0, ax1 + 1)
          if sum(abs(a - b) for a, b in zip(px[y][x], c)) < 30]
    assert len(xs) > 20, (side, len(xs))
    cols[side] = (min(xs), max(xs))
    print(side, min(xs), max(xs), len(xs))
width = ax1 - ax0
(alo, ahi), (blo, bhi) = cols["A"], cols["B"]
if sys.argv[4] == "apart":
    assert ahi - ax0 < width / 10 and ax1 - blo < width / 10, (cols, ax0, ax1)
else:
    assert ahi - alo < width / 20 and bhi - blo < width / 20, (cols, ax0, ax1)
    assert min(alo, blo) - ax0 > width / 3 and ax1 - max(ahi, bhi) > width / 3, (cols, ax0, ax1)
EOF

test_expect_success CHROMIUM 'chromium: the index shows the worst metric and its change in its first screen' '
	rm -rf "$SHOTS" && mkdir -p "$SHOTS" &&
	python3 screens.py site/index.html 1280 900 "$SHOTS/index.png" \
		".attention td.lead" ".attention td.lead .badge" >boxes &&
	cat boxes && test "$(wc -l <boxes)" = 2 &&
	worst=$(sql lab.db "SELECT metric || '\'' '\'' || printf('\''%.3g'\'', ratio) FROM verdicts WHERE experiment_id = 3
		ORDER BY max(ratio, 1.0 / ratio) DESC, id LIMIT 1") &&
	read -r x0 y0 x1 y1 text <boxes &&
	test "$text" = "zeroing.${worst}× REGRESSION +3 other metrics" &&
	test "$y1" -le 900 &&
	cat >badge.py <<-\EOF &&
	import sys
	import png
	w, h, px = png.read(sys.argv[1])
	x0, y0, x1, y1 = (int(v) for v in sys.argv[2:6])
	red = [(x, y) for y in range(y0, y1) for x in range(x0, x1)
	       if sum(abs(a - b) for a, b in zip(px[y][x], (0xb3, 0x26, 0x1e))) < 40]
	print(len(red))
	EOF
	sed -n 2p boxes | { read -r bx0 by0 bx1 by1 _ && python3 badge.py "$SHOTS/index.png" $bx0 $by0 $bx1 $by1; } >red &&
	test "$(cat red)" -gt 20
'

test_expect_success CHROMIUM 'chromium: the 455x page leads with its worst metric; its plot draws A and B apart on one axis' '
	python3 screens.py site/e3.html 1280 900 "$SHOTS/e3.png" "p.headline" >boxes &&
	worst=$(sql lab.db "SELECT metric || '\'' '\'' || printf('\''%.3g'\'', ratio) FROM verdicts WHERE experiment_id = 3
		ORDER BY max(ratio, 1.0 / ratio) DESC, id LIMIT 1") &&
	read -r x0 y0 x1 y1 text <boxes &&
	test "$text" = "zeroing.${worst}× REGRESSION +3 other metrics" && test "$y1" -le 900 &&
	python3 screens.py site/e3.html 1280 1700 "$SHOTS/e3-plot.png" "svg.plot:not(.ratio) line.axis" \
		"svg.plot:not(.ratio)" >boxes &&
	cat boxes && python3 marks.py "$SHOTS/e3-plot.png" "$(sed -n 1p boxes)" "$(sed -n 2p boxes)" apart
'

test_expect_success CHROMIUM 'chromium: a 0.04 % A/B is drawn narrow on its axis, A and B in their colours' '
	python3 screens.py site/e1.html 1280 1700 "$SHOTS/e1-plot.png" "svg.plot:not(.ratio) line.axis" \
		"svg.plot:not(.ratio)" >boxes &&
	grep -q "the scale spans at least &#177;2 % around A" site/e1.html &&
	cat boxes && python3 marks.py "$SHOTS/e1-plot.png" "$(sed -n 1p boxes)" "$(sed -n 2p boxes)" narrow
'

test_expect_success CHROMIUM 'chromium: the bisection page leads with its metric, effect and culprit' '
	python3 screens.py site/b2.html 1280 900 "$SHOTS/b2.png" "p.headline" "dd.culprit" >boxes &&
	cat boxes &&
	culprit=$(sql lab.db "SELECT culprit FROM bisections") &&
	effect=$(sql lab.db "SELECT printf('\''%+.1f'\'', 100 * (effect - 1)) FROM bisections") &&
	read -r x0 y0 x1 y1 text <boxes &&
	test "$text" = "zeroing.t $effect % FOUND culprit ${culprit:0:12} change 3" && test "$y1" -le 900 &&
	sed -n 2p boxes | { read -r _ _ _ cy1 ctext && test "$cy1" -le 900 &&
		test "$ctext" = "$culprit change 3"; }
'

test_done
