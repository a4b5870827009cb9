/*
 * web/html.c's pieces: a number as a page writes it (six digits, never an
 * exponent), a bisection's variant letters, which say what they are, and
 * whole cells and facts, each value written as its own piece writes it.
 */
#include <math.h>
#include <string.h>

#include "html.h"
#include "strbuf.h"
#include "tap.h"

static void num(double v, const char *want, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	html_num(&sb, v);
	is_str(strbuf_str(&sb), want, name);
	strbuf_release(&sb);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;

	num(100.271, "100.271", "six digits");
	num(0.0309225, "0.0309225", "small, as %.6g writes it");
	num(4.54973e-06, "0.00000454973", "a std deviation of 4.5e-6: its digits, no exponent");
	num(-1.5e-7, "-0.00000015", "negative and tiny: no trailing zeros");
	num(15000000, "15000000", "large: whole, no exponent");
	num(NAN, "&#8211;", "not a number: a dash");

	html_variant(&sb, "P", 1);
	is_str(strbuf_str(&sb), "<abbr title=\"the culprit's parent (culprit^), measured again to "
	       "confirm the culprit\">P</abbr>", "a bisection's P says what it is");
	strbuf_reset(&sb);
	html_variant(&sb, "P", 0);
	is_str(strbuf_str(&sb), "P", "an A/B's variant named P is only a name");
	strbuf_reset(&sb);
	html_variant(&sb, "<b>", 1);
	is_str(strbuf_str(&sb), "&lt;b&gt;", "any other name escaped");
	strbuf_reset(&sb);

	html_cell_text(&sb, NULL, "a<b");
	html_cell_text(&sb, "wrap", "");
	html_cell_count(&sb, "num", 7);
	html_cell_count(&sb, NULL, -1);
	html_cell_num(&sb, 0.5);
	html_cell_badge(&sb, "s-", "BOOT_FAILED");
	is_str(strbuf_str(&sb), "<td>a&lt;b</td><td class=\"wrap\">&#8211;</td><td class=\"num\">7</td>"
	       "<td>&#8211;</td><td class=\"num\">0.5</td>"
	       "<td><span class=\"badge s-bootfailed\">BOOT_FAILED</span></td>",
	       "cells: text escaped, a missing value a dash, a class where one is given");
	strbuf_reset(&sb);
	html_cell_quantity(&sb, 0.000123456789012345, "ms", 0.0001);
	is_str(strbuf_str(&sb), "<td class=\"num\" title=\"0.000123456789012345 ms\">123.5 ns</td>",
	       "a quantity: scaled in the cell, its stored value exactly, unit and all, in the title");
	strbuf_reset(&sb);
	html_fact_text(&sb, "workloads", "zeroing");
	html_fact_badge(&sb, "status", "s-", "OK");
	html_fact_time(&sb, "started", NAN);
	is_str(strbuf_str(&sb), "<dt>workloads</dt><dd>zeroing</dd>\n"
	       "<dt>status</dt><dd><span class=\"badge s-ok\">OK</span></dd>\n"
	       "<dt>started</dt><dd>&#8211;</dd>\n", "facts: a line each, name then value");
	strbuf_reset(&sb);
	html_hash(&sb, "0123456789abcdef");
	html_hash(&sb, "");
	is_str(strbuf_str(&sb), "<span title=\"0123456789abcdef\"><code>0123456789ab</code></span>"
	       "&#8211;", "a hash cut to 12, whole in its title; none, a dash");
	strbuf_reset(&sb);
	html_section_table(&sb, "Runs", "<th>Run</th>");
	html_section_end(&sb);
	is_str(strbuf_str(&sb), "<section>\n<h2>Runs</h2>\n<div class=\"scroll\"><table>\n"
	       "<thead><tr><th>Run</th></tr></thead>\n<tbody>\n</tbody></table></div>\n</section>\n",
	       "a section of one table, closed together");
	strbuf_release(&sb);
	return done_testing();
}
