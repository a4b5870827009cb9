/*
 * web/html.c's pieces: a number as a page writes it (six digits, never an
 * exponent) and a bisection's variant letters, which say what they are.
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
	strbuf_release(&sb);
	return done_testing();
}
