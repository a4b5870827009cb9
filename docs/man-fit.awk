# docs/man-fit.awk: go-md2man's roff made to fit a terminal of `cols`
# columns, the width every output of lab keeps to (t0480 renders every
# page at 100). man(1) sets text at 7 columns, a table at 8 and a code
# block at 14, and tbl takes each cell's whole length as its column's
# width: a wide table ran to 500 columns and more. Here each table's
# columns get widths that fit (the narrow ones their own, the wide ones
# an equal share, none under its longest word), every cell a text block
# that wraps in them; and a code block wider than what is left of the
# line starts further left, at the margin at the most.
#
# go-md2man 2.0.2 also ends a text block cell with a newline (T} then a
# line of the row's next cells): those lines are joined back into one row.
# Widths are counted in bytes where awk does so: a column or a shift a
# little wider than needed, never too narrow.

# What a line of roff shows: its width in characters.
function shown(s) {
	gsub(/\\f(\(..|\[[^]]*\]|.)/, "", s)
	gsub(/\\\(../, "x", s)
	gsub(/\\\[[^]]*\]/, "x", s)
	gsub(/\\&/, "", s)
	gsub(/\\e/, "x", s)
	gsub(/\\\\/, "x", s)
	gsub(/\\-/, "-", s)
	return length(s)
}

# The longest word of a cell: the narrowest its column can be.
function longest_word(s,    n, w, i, m) {
	n = split(s, w, " ")
	for (i = 1; i <= n; i++)
		if (shown(w[i]) > m)
			m = shown(w[i])
	return m
}

function clamp(x, lo, hi) {
	return x < lo ? lo : x > hi ? (hi > lo ? hi : lo) : x
}

function flush_table(    i, j, c, n, left, share, fmt) {
	for (j = 1; j <= ncols; j++) {
		want[j] = 0
		least[j] = 1
	}
	for (i = 1; i <= nrows; i++)
		for (j = 1; j <= ncols; j++) {
			c = cell[i, j]
			if (shown(c) > want[j])
				want[j] = shown(c)
			if (longest_word(c) > least[j])
				least[j] = longest_word(c)
		}
	# allbox: a rule and a space either side of each column
	left = cols - indent - 3 * ncols - 3
	# the largest equal share such that each column, its share held
	# between its longest word and its whole length, still fits
	for (share = left; share > 1; share--) {
		n = 0
		for (j = 1; j <= ncols; j++)
			n += clamp(share, least[j], want[j])
		if (n <= left)
			break
	}
	for (j = 1; j <= ncols; j++)
		width[j] = clamp(share, least[j], want[j])
	fmt = ""
	for (j = 1; j <= ncols; j++)
		fmt = fmt (j > 1 ? " " : "") "lw(" width[j] "n)"
	print fmt "."
	for (i = 1; i <= nrows; i++) {
		for (j = 1; j <= ncols; j++)
			printf "%sT{\n%s\nT}", (j > 1 ? "\t" : ""), cell[i, j]
		printf "\n"
	}
	print ".TE\n.ad\n.hy"
}

# Split one row of tbl input (text blocks joined into one line) into cells.
function add_row(s,    n, parts, j) {
	gsub(/\\\\\|/, "|", s)	# markdown's \| in a cell, which go-md2man keeps
	n = split(s, parts, "\t")
	nrows++
	for (j = 1; j <= n; j++)
		cell[nrows, j] = parts[j]
	for (; j <= ncols; j++)
		cell[nrows, j] = ""
}

BEGIN { indent = 8 }	# where man(1) sets a table

# A table, set ragged and unhyphenated in its narrow columns: its options
# line, its format lines up to the one that ends in ".", its rows.
/^\.TS/ { print ".nh\n.na\n.TS"; table = 1; nrows = 0; fmtdone = 0; row = ""; inblock = 0; next }
table && !fmtdone && /;$/ { print; next }
table && !fmtdone {
	if (/\.$/) {
		fmtdone = 1
		sub(/\.$/, "")
		ncols = split($0, f, " ")
	}
	next
}
table && /^\.TE/ {
	if (row != "")
		add_row(row)
	flush_table()
	table = 0
	next
}
table {
	line = $0
	if (inblock) {
		if (line ~ /^T}/) {
			inblock = 0
			row = row substr(line, 3)
		} else {
			row = row (row ~ /[^\t]$/ ? " " : "") line
		}
	} else if (line ~ /^\t/ && row != "") {
		row = row line		# the rest of a row after a text block
	} else {
		if (row != "")
			add_row(row)
		row = line
	}
	if (!inblock && row ~ /T\{$/) {
		sub(/T\{$/, "", row)
		inblock = 1
	}
	next
}

# A code block: go-md2man writes .RS, an empty line, .nf ... .fi, .RE.
/^\.nf$/ { code = 1; ncode = 0; wide = 0; next }
code && /^\.fi$/ {
	shift = 14 + wide - cols
	if (shift > 14)
		shift = 14
	print ".nf"
	if (shift > 0)
		print ".in -" shift "n"
	for (i = 1; i <= ncode; i++)
		print text[i]
	if (shift > 0)
		print ".in +" shift "n"
	print ".fi"
	code = 0
	next
}
code { text[++ncode] = $0; if (shown($0) > wide) wide = shown($0); next }
{ print }
