/*
 * lib/numfmt: what CSV and JSON write reads back as the very double
 * written, in the fewest digits that do; a page's digits never have an
 * exponent.
 */
#include <math.h>
#include <stdlib.h>

#include "numfmt.h"
#include "strbuf.h"
#include "tap.h"

static void exact(double v, const char *want, const char *name)
{
	char buf[NUMFMT_EXACT_SIZE];

	numfmt_exact(buf, sizeof(buf), v);
	is_str(buf, want, name);
	ok(strtod(buf, NULL) == v, "  ... and reads back as the same double");
}

static void plain(double v, int digits, const char *want, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	numfmt_plain_sb(&sb, v, digits);
	is_str(strbuf_str(&sb), want, name);
	strbuf_release(&sb);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;

	exact(0.1, "0.1", "0.1 stays 0.1, not 0.10000000000000001");
	exact(1.0000000000000002, "1.0000000000000002", "the double after 1: %.15g would say 1");
	exact(123456.78901234567, "123456.78901234567", "17 digits when 16 do not read back");
	exact(0.146743, "0.146743", "a stored time: its own digits");
	exact(455.0676, "455.0676", "455.0676");
	exact(1e-7, "1e-07", "small: an exponent, which CSV and JSON read");
	exact(2.0 / 3.0, "0.6666666666666666", "2/3 in 16 digits");
	exact(25600, "25600", "a whole number without a point");

	numfmt_exact_sb(&sb, NAN);
	is_str(strbuf_str(&sb), "", "not finite: nothing, an empty CSV field");
	numfmt_exact_sb(&sb, -0.5);
	is_str(strbuf_str(&sb), "-0.5", "appended to a strbuf");
	strbuf_release(&sb);

	plain(100.271, 6, "100.271", "six digits");
	plain(0.0309225, 6, "0.0309225", "small, as %.6g writes it");
	plain(4.54973e-06, 6, "0.00000454973", "4.5e-6: its digits, no exponent");
	plain(-1.5e-7, 6, "-0.00000015", "negative and tiny: no trailing zeros");
	plain(15000000, 6, "15000000", "large: whole, no exponent");
	plain(1234567.4, 6, "1234567", "the part before the point all there");
	plain(0.999999999, 6, "1", "rounded up to a whole number");
	plain(1e-7, 0, "0.0000001", "0 digits: exact, still no exponent");
	plain(1.0000000000000002, 0, "1.0000000000000002", "0 digits: every digit it takes");
	return done_testing();
}
