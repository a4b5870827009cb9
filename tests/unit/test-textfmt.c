/* lib/textfmt.c: numbers for a 100-column terminal, checked against values worked by hand. */
#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "tap.h"
#include "textfmt.h"

static const char *value(double v)
{
	static char buf[32];

	textfmt_value(buf, sizeof(buf), v);
	return buf;
}

static const char *ratio(double r)
{
	static char buf[32];

	textfmt_ratio(buf, sizeof(buf), r);
	return buf;
}

static const char *change(double r, double lo, double hi)
{
	static char buf[96];

	textfmt_change(buf, sizeof(buf), r, lo, hi);
	return buf;
}

static const char *cut(const char *s, size_t w, int tail)
{
	static char buf[64];

	textfmt_cut(buf, sizeof(buf), s, w, tail);
	return buf;
}

static const char *wrap(const char *first, const char *indent, const char *text)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	textfmt_wrap_sb(&sb, first, indent, text);
	return sb.buf;
}

/* A word no line holds (a path, a URL): alone on its line, whole, so that it can be pasted. */
static void test_wrap_long_word(void)
{
	char path[160], text[256];

	snprintf(path, sizeof(path), "/srv/lab/state/%s/console.log",
		 "experiment-0042-demote-pages-aarch64-6.13-rc1-ccache-c3c5b2d1f0a9e8d7c6b5a4f3e2d1c0b9"
		 "a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4");
	snprintf(text, sizeof(text), "cannot open console log %s: no such file", path);
	is_str(wrap("lab: ", "    ", text),
	       "lab: cannot open console log\n"
	       "    /srv/lab/state/experiment-0042-demote-pages-aarch64-6.13-rc1-ccache-"
	       "c3c5b2d1f0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4/console.log:\n"
	       "    no such file\n",
	       "a path wider than a line is alone on its line, whole, the prose around it wrapped");
	is_str(wrap("", "  ", path + 1), "srv/lab/state/experiment-0042-demote-pages-aarch64-6.13-rc1-"
	       "ccache-c3c5b2d1f0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4/console.log\n",
	       "a line of one word is that word whole");
	is_str(wrap("", "  ", "  https://example.org/a/very/long/url/that/goes/on/and/on/and/"
		    "on/past/the/hundredth/column/of/any/terminal/index.html see"),
	       "  https://example.org/a/very/long/url/that/goes/on/and/on/and/on/past/the/"
	       "hundredth/column/of/any/terminal/index.html\n  see\n",
	       "a line's leading spaces are no place to break it");
	is_str(wrap("", "    ", "a short line"), "a short line\n", "a short line stays whole");
	is_str(wrap("", "    ", "vm-missing    vm-missing    qemu     x86_64   /srv/qemu/build-for-the-lab-"
		    "with-every-target/bin/qemu-system-x86_64, accel kvm"),
	       "vm-missing    vm-missing    qemu     x86_64\n    /srv/qemu/build-for-the-lab-with-every-"
	       "target/bin/qemu-system-x86_64, accel kvm\n",
	       "a table's row broken between its columns: no space left at the line's end");
}

int main(void)
{
	char buf[64];

	/* the digits a CI supports: down to its half-width's leading digit */
	is_int(textfmt_ci_decimals(1.9, 2.3), 1, "[+1.9, +2.3]: one decimal");
	is_int(textfmt_ci_decimals(2.0, 2.0001), 5, "a width of 0.0001: five decimals");
	is_int(textfmt_ci_decimals(1.5, 2.5), 1, "half-width 0.5: one decimal");
	is_int(textfmt_ci_decimals(-10, 30), 0, "half-width 20: none");
	is_int(textfmt_ci_decimals(1, 1 + 1e-12), 6, "at most six");
	is_int(textfmt_ci_decimals(2, 1), 1, "an empty interval: one");
	is_int(textfmt_ci_decimals(0, 1.0 / 0.0), 1, "not finite: one");

	is_str(change(1.021, 1.019, 1.023), "+2.1 % [+1.9, +2.3]", "a percentage as the CI supports");
	is_str(change(1.02, 1.019999, 1.020001), "+2.0000 % [+1.9999, +2.0001]",
	       "a narrow CI: more digits");
	is_str(change(0.9, 0.85, 0.95), "-10 % [-15, -5]", "a wide CI: none");
	is_str(change(455.0676, 448.98, 459.80), "455× [449×, 460×]", "a doubling and more: a multiple");
	is_str(change(12.34, 11.5, 13.01), "12.3× [11.5×, 13.0×]", "three digits of a multiple");
	is_str(change(2.5, 2.4, 2.6), "2.50× [2.40×, 2.60×]", "2.5 times: a multiple");
	is_str(change(1.95, 1.90, 2.01), "+95 % [+90, +101]", "under a doubling: a percentage");
	is_str(change(0.005050, 0.005025, 0.005076), "1/198× [1/199×, 1/197×]",
	       "a speed-up as a multiple, as a slow-down is");
	is_str(change(0.4, 0.3, 0.55), "1/2.50× [1/3.33×, 1/1.82×]", "under a half: a multiple");
	is_str(change(0.6, 0.55, 0.65), "-40 % [-45, -35]", "over a half: a percentage");
	is_str(change(0.0 / 0.0, 1, 1), "-", "no ratio: a dash");
	is_str(change(0.99999, 0.97, 1.03), "0 % [-3, +3]", "a tiny drop that rounds to zero: no sign");
	is_str(change(1.00001, 0.97, 1.03), "0 % [-3, +3]", "a tiny rise reads the same");
	is_str(change(0.9999, 0.9998, 1.0004), "-0.01 % [-0.02, +0.04]",
	       "digits enough: the sign stays");
	is_str(change(1.000001, 0.99999, 1.00001), "0.000 % [-0.001, +0.001]",
	       "zero in the digits shown: no sign, decimals kept");
	is_str(change(1.00001, 0.999996, 1.000036), "+0.001 % [0.000, +0.004]",
	       "an end of the CI that rounds to zero: no sign");
	is_str(ratio(0.9999), "0.0 %", "a ratio that rounds to zero: no sign");
	textfmt_p(buf, sizeof(buf), 3.06366e-09);
	is_str(buf, "< 0.001", "a tiny p: no exponent");
	textfmt_p(buf, sizeof(buf), 0.0123);
	is_str(buf, "0.012", "p under 0.01: three decimals");
	textfmt_p(buf, sizeof(buf), 0.41);
	is_str(buf, "0.41", "p: two decimals");
	textfmt_percent(buf, sizeof(buf), 0.004321);
	is_str(buf, "0.0043 %", "a small percentage in two digits, no exponent");
	textfmt_percent(buf, sizeof(buf), 12.4);
	is_str(buf, "12 %", "a percentage of ten and more: whole");
	is_str(ratio(455.07), "455×", "a ratio without its interval");
	is_str(ratio(1 / 198.0), "1/198×", "a drop without its interval");
	is_str(ratio(1.051), "+5.1 %", "a small change: one decimal of a percent");

	is_str(value(100.09), "100.1", "four digits");
	is_str(value(45702.1), "45702", "no decimals from 1000");
	is_str(value(0.1234), "0.1234", "four decimals under 1");
	is_str(value(4.24264e-06), "4.24µ", "small: an SI prefix, no exponent");
	is_str(value(455067600), "455.1M", "large: an SI prefix");
	is_str(value(0), "0", "zero");
	is_str(value(99.998), "100.0", "rounding up to 100 drops a decimal");
	is_str(value(0.99996), "1.000", "rounding up to 1 too");
	is_str(value(-3.5), "-3.500", "negative");
	is_str(value(1e308), ">999E", "beyond the last prefix: a bound, not 31 cut digits");
	is_str(value(-1e300), "<-999E", "and below it");
	is_str(value(9007199254740992.0), "9.01P", "2^53: peta");
	is_str(value(9.9994e20), "999.9E", "the largest with a prefix");
	is_str(value(4.2e13), "42.00T", "tera, as before");
	{
		textfmt_duration(buf, sizeof(buf), 10800e9, "+");
		is_str(buf, "+10800 s", "three hours: seconds, not 1.08e+04");
		textfmt_duration(buf, sizeof(buf), 1e308, "");
		is_str(buf, ">999E s", "a duration past the prefixes: bounded");
		textfmt_duration(buf, sizeof(buf), 24.31e9, "+");
		is_str(buf, "+24.31 s", "seconds as before");
	}

	is_int(textfmt_width("455× [449×, 460×]"), 17, "width counts characters, not bytes");
	is_str(cut("zeroing,demote,boot", 10, 0), "zeroing,d…", "cut at the end");
	is_str(cut("/boot/vmlinuz-6.1.0-27-cloud-amd64", 12, 1), "…cloud-amd64", "cut at the start");
	is_str(cut("short", 10, 0), "short", "short text stays");
	/* a unit scaled to the value, one unit for a row */
	textfmt_quantity(buf, sizeof(buf), 0.000397, "ms", 0.000397);
	is_str(buf, "397.0 ns", "397.0µ ms is 397.0 ns");
	textfmt_quantity(buf, sizeof(buf), 45694, "ms", 45694);
	is_str(buf, "45.69 s", "45694 ms is 45.69 s");
	textfmt_quantity(buf, sizeof(buf), 45694, "ms", 100.1);
	is_str(buf, "45694 ms", "a row's unit follows its ref");
	textfmt_quantity(buf, sizeof(buf), 0.0123, "s", 0.0123);
	is_str(buf, "12.30 ms", "seconds down to ms");
	textfmt_quantity(buf, sizeof(buf), 5.5, "us", 5.5);
	is_str(buf, "5.500 µs", "microseconds as µs");
	textfmt_quantity(buf, sizeof(buf), 12300, "ops/s", 12300);
	is_str(buf, "12300 ops/s", "another unit stays");
	textfmt_quantity(buf, sizeof(buf), 0, "ms", 0);
	is_str(buf, "0 ms", "zero keeps its unit");
	textfmt_quantity(buf, sizeof(buf), 86400, "s", 86400);
	is_str(buf, "86400 s", "no unit past seconds");

	test_wrap_long_word();
	return done_testing();
}
