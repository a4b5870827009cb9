/*
 * lib/escape: text from outside the lab is printed on a terminal with
 * every byte the terminal could act on shown as \xHH, and nothing else
 * changed; error() lines go through the same.
 */
#include <string.h>

#include "capture.h"
#include "escape.h"
#include "log.h"
#include "strbuf.h"
#include "tap.h"

static const char *term(struct strbuf *sb, const char *s, enum escape_term_flags flags)
{
	strbuf_reset(sb);
	escape_term(sb, s, flags);
	return strbuf_str(sb);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct capture cap;
	const char *plain = "mm: fix \\n in 'x' \"quoted\" ~ caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7";

	/* printable text, backslashes and valid UTF-8 pass as they are */
	is_str(term(&sb, plain, 0), plain, "printable ASCII and UTF-8: unchanged");
	ok(term_safe(plain) == plain, "term_safe: clean text is returned itself");
	ok(term_safe(NULL) == NULL, "term_safe: NULL stays NULL");
	is_str(term(&sb, NULL, 0), "", "escape_term: NULL appends nothing");

	/* the subject of issue 24: a title set and the screen cleared */
	is_str(term(&sb, "evil \033]0;PWN\007\033[2J", 0), "evil \\x1b]0;PWN\\x07\\x1b[2J",
	       "OSC title and clear screen: ESC and BEL shown");
	is_str(term_safe("evil \033]0;PWN\007\033[2J"), "evil \\x1b]0;PWN\\x07\\x1b[2J",
	       "term_safe: the same");
	is_str(term(&sb, "a\tb\nc\rd\x7f" "e\x01", 0), "a\\x09b\\x0ac\\x0dd\\x7fe\\x01",
	       "C0 and DEL: tab and newline too, by default");
	is_str(term(&sb, "a\tb\nc\rd", ESCAPE_TERM_LINES), "a\tb\nc\\x0dd",
	       "ESCAPE_TERM_LINES: tab and newline kept, carriage return not");
	is_str(term(&sb, "one\r\ntwo\r\r\n\033[m", ESCAPE_TERM_LINES), "one\ntwo\\x0d\n\\x1b[m",
	       "ESCAPE_TERM_LINES: a console's \\r\\n is a newline, a lone \\r shown");
	is_str(term(&sb, "one\r\n", 0), "one\\x0d\\x0a", "without flags: \\r\\n shown");

	/* C1 controls as UTF-8 (U+009B is CSI, U+0080 and U+009F the ends) */
	is_str(term(&sb, "x\xc2\x9b" "2Jy", 0), "x\\xc2\\x9b2Jy", "U+009B (CSI): both bytes shown");
	is_str(term(&sb, "\xc2\x80\xc2\x9f\xc2\xa0", 0), "\\xc2\\x80\\xc2\\x9f\xc2\xa0",
	       "U+0080 and U+009F shown, U+00A0 kept");

	/* bytes that are not UTF-8, each shown alone */
	is_str(term(&sb, "a\x9b" "b", 0), "a\\x9bb", "raw C1 byte (8-bit CSI)");
	is_str(term(&sb, "\xff\xfe", 0), "\\xff\\xfe", "0xff and 0xfe");
	is_str(term(&sb, "\xc3(", 0), "\\xc3(", "lead byte without continuation");
	is_str(term(&sb, "caf\xc3", 0), "caf\\xc3", "sequence cut short at the end");
	is_str(term(&sb, "\xc0\xaf", 0), "\\xc0\\xaf", "overlong '/'");
	is_str(term(&sb, "\xe0\x80\xaf", 0), "\\xe0\\x80\\xaf", "overlong three-byte form");
	is_str(term(&sb, "\xed\xa0\x80", 0), "\\xed\\xa0\\x80", "UTF-16 surrogate");
	is_str(term(&sb, "\xf4\x90\x80\x80", 0), "\\xf4\\x90\\x80\\x80", "past U+10FFFF");
	is_str(term(&sb, "\xe2\x82\x1b[m", 0), "\\xe2\\x82\\x1b[m",
	       "cut short by ESC: the lead bytes and the ESC shown");

	/* appending: what is already in the buffer stays */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "subject: ");
	escape_term(&sb, "\033[2J", 0);
	is_str(sb.buf, "subject: \\x1b[2J", "appends to what the buffer holds");

	/* term_safe: eight results live at once */
	{
		const char *r[8];
		char in[8][4];
		int same = 1;

		for (int i = 0; i < 8; i++) {
			in[i][0] = '\033';
			in[i][1] = (char)('0' + i);
			in[i][2] = '\0';
			r[i] = term_safe(in[i]);
		}
		for (int i = 0; i < 8; i++) {
			char want[8] = "\\x1b?";
			want[4] = (char)('0' + i);
			same &= !strcmp(r[i], want);
		}
		ok(same, "term_safe: eight results in a row are all still valid");
	}

	/* error(): the whole line, its quoted input too */
	capture_start(&cap);
	error("cannot resolve '%s': reference not found", "v1\033]0;PWN\007");
	capture_end(&cap, &sb);
	is_str(sb.buf, "lab: cannot resolve 'v1\\x1b]0;PWN\\x07': reference not found\n",
	       "error(): ESC and BEL of a quoted ref shown");
	capture_start(&cap);
	warning("two lines:\n\tsecond \xc2\x9b");
	capture_end(&cap, &sb);
	is_str(sb.buf, "lab: warning: two lines:\n\tsecond \\xc2\\x9b\n",
	       "warning(): its own newline and tab kept, C1 shown");

	strbuf_release(&sb);
	return done_testing();
}
