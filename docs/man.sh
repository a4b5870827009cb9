#!/bin/sh
# docs/man.sh PAGE.md OUT VERSION: one page of docs/ as a manual page, made
# by go-md2man. OUT's suffix is its section: 1 for a command (lab-ab.md),
# 5 for lab.conf (lab-config.md), 7 for the other pages (clocks.md is
# lab-clocks(7)), and lab.md is lab(1). The page's first heading becomes the title line (and,
# on a page without a NAME section, its NAME line), and a link to another
# page becomes that page's manual name.
set -eu
in=$1 out=$2 version=$3
name=$(basename "$out")
section=${name##*.}
name=${name%.*}
tmp=$out.tmp
# whatis(1) and apropos(1) read a page's NAME line
awk -v name="$name" 'NR == 1 && !/^# / { print; next }
	NR == 1 { title = substr($0, 3); print; next }
	NR == 2 && title != "" && !named { print "\n## NAME\n\n" name " - " title }
	{ print }' named="$(grep -c '^## NAME' "$in" || true)" "$in" |
sed -E \
	-e "1s/^# .*/# $name $section \"\" \"lab $version\" \"lab manual\"/" \
	-e 's/\[([^]]*)\]\(#[^)]*\)/\1/g' \
	-e 's/\[[a-z-]+\.md\]\(([a-z-]+)\.md(#[^)]*)?\)/lab-\1(7)/g' \
	-e 's/\[([^]]*)\]\(lab\.md(#[^)]*)?\)/\1 (lab(1))/g' \
	-e 's/\[([^]]*)\]\(lab-config\.md(#[^)]*)?\)/\1 (lab-config(5))/g' \
	-e 's/\[([^]]*)\]\((lab-[a-z-]+)\.md(#[^)]*)?\)/\1 (\2(1))/g' \
	-e 's/\[([^]]*)\]\(([a-z-]+)\.md(#[^)]*)?\)/\1 (lab-\2(7))/g' \
	| go-md2man -out "$tmp.md"
# a line that begins with a quote would be read as a request; tables and
# code blocks made to fit 100 columns
sed "s/^'/\\\\\&'/" "$tmp.md" >"$tmp.quoted"
awk -v cols=100 -f "$(dirname "$0")/man-fit.awk" "$tmp.quoted" >"$tmp"
rm -f "$tmp.md" "$tmp.quoted"
mv "$tmp" "$out"
