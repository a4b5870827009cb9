#ifndef SUGGEST_H
#define SUGGEST_H
/*
 * "Did you mean": the words of a list closest to a word that was not
 * found in it, for the one-line refusal of an unknown command or option.
 *
 * Closeness is the optimal string alignment distance (Levenshtein with
 * adjacent transpositions, each edit costing 1), case-insensitive. A
 * candidate is suggested when its distance is at most a third of the
 * longer word's length (at least 1), or when the word is a prefix of it.
 * Of those, suggest_closest() returns the nearest, first in list order
 * on a tie; NULL when none is near enough. The strings stay the caller's.
 */
#include <stddef.h>

/* The distance between a and b (case-insensitive). */
size_t suggest_distance(const char *a, const char *b);

/* The nearest of the nr candidates to word, or NULL. */
const char *suggest_closest(const char *word, const char *const *candidates,
			    size_t nr);

/*
 * The nearest to word of the words of list, a list as a message writes it
 * ("zeroing, demote, boot"): into buf, and 1; 0 (buf "") when none is
 * near enough.
 */
int suggest_in_list(char *buf, size_t size, const char *word, const char *list);

#endif
