/*
 * lib/escape.c's shell words: a word with nothing special stays bare, any
 * other is single-quoted, and a shell splits the line back into the words
 * (t0460 and t0420 run lines through sh; here the exact text), and
 * split_shell_words() gives the words back.
 */
#include <string.h>

#include "escape.h"
#include "strbuf.h"
#include "strvec.h"
#include "tap.h"

static void word(const char *w, const char *want, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	escape_shell(&sb, w);
	is_str(strbuf_str(&sb), want, name);
	strbuf_release(&sb);
}

int main(void)
{
	char *argv[] = { "ab", "--cmdline", "a b", "", "it's", NULL };
	struct strbuf sb = STRBUF_INIT;

	word("--mem=4G,16G", "--mem=4G,16G", "options, lists and paths stay bare");
	word("/srv/lab/x_y@z%+:.", "/srv/lab/x_y@z%+:.", "... with @ % + : . _");
	word("", "''", "an empty word is two quotes");
	word("a b", "'a b'", "a space is quoted");
	word("$(touch x)`y`\\*;|&<>~#!", "'$(touch x)`y`\\*;|&<>~#!'",
	     "nothing is special in single quotes");
	word("it's", "'it'\\''s'", "a quote ends the quotes, is escaped, and they start again");
	word("a\nb", "'a\nb'", "a newline is quoted as it is");

	escape_shell_words(&sb, 5, argv);
	is_str(strbuf_str(&sb), "ab --cmdline 'a b' '' 'it'\\''s'", "words one space apart");

	{
		struct strvec v = STRVEC_INIT;
		int same = 1;

		ok(!split_shell_words(&v, sb.buf), "the line splits");
		is_int((long long)v.nr, 5, "into as many words as were joined");
		for (size_t i = 0; i < v.nr && i < 5; i++)
			same &= !strcmp(v.v[i], argv[i]);
		ok(same, "each the word it was, the empty one and the quote too");
		strvec_release(&v);
		ok(!split_shell_words(&v, " a\\ b \"c \\\"d\\\" $e\" "), "backslashes, double quotes");
		is_int((long long)v.nr, 2, "two words");
		is_str(v.nr == 2 ? v.v[0] : "", "a b", "a backslash keeps a space in the word");
		is_str(v.nr == 2 ? v.v[1] : "", "c \"d\" $e", "double quotes: \\\" is a quote");
		strvec_release(&v);
		ok(split_shell_words(&v, "a 'b") < 0, "an unclosed quote is refused");
		strvec_release(&v);
	}
	strbuf_release(&sb);
	return done_testing();
}
