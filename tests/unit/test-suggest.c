/*
 * lib/suggest.c: distances worked by hand, and which word a typo gets.
 */
#include <string.h>

#include "suggest.h"
#include "tap.h"

static const char *const commands[] = {
	"run", "list", "show", "build", "bisect", "bisect-step", "ab",
	"compare", "report", "nightly", "recipe", "target",
};
#define NR (sizeof(commands) / sizeof(commands[0]))

static const char *closest(const char *w)
{
	return suggest_closest(w, commands, NR);
}

int main(void)
{
	is_int(suggest_distance("", ""), 0, "empty to empty");
	is_int(suggest_distance("", "abc"), 3, "empty to abc: three inserts");
	is_int(suggest_distance("kitten", "sitting"), 3, "kitten to sitting: 3");
	is_int(suggest_distance("ab", "ba"), 1, "a transposition is one edit");
	is_int(suggest_distance("ca", "abc"), 3, "ca to abc: 3 under optimal alignment");
	is_int(suggest_distance("RUN", "run"), 0, "case does not count");

	is_str(closest("runn"), "run", "runn: run");
	is_str(closest("rpeort"), "report", "rpeort: report (a swap)");
	is_str(closest("bisetc"), "bisect", "bisetc: bisect");
	is_str(closest("bis"), "bisect", "a prefix: the first it begins");
	is_str(closest("nigthly"), "nightly", "nigthly: nightly");
	is_str(closest("shw"), "show", "shw: show");
	ok(!closest("frobnicate"), "nothing near frobnicate");
	ok(!closest("x"), "one letter is near nothing it does not begin");
	ok(!closest(""), "the empty word gets no suggestion");
	{
		char near[32];

		ok(suggest_in_list(near, sizeof(near), "zeroin", "zeroing, demote, boot") &&
		   !strcmp(near, "zeroing"), "a list as a message writes it: its nearest word");
		ok(!suggest_in_list(near, sizeof(near), "xyz", "zeroing, demote, boot") && !*near,
		   "none near enough: 0 and empty");
		ok(suggest_in_list(near, sizeof(near), "demote_page_wal", "demote_page_wall,touch") &&
		   !strcmp(near, "demote_page_wall"), "commas without spaces");
	}
	return done_testing();
}
