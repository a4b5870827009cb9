#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "suggest.h"
#include "xalloc.h"

size_t suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b), ret;
	/* three rows of the (n+1) x (m+1) table: i-2, i-1 and i */
	size_t *row = xcalloc(3 * (m + 1), sizeof(*row));
	size_t *pp = row, *p = row + m + 1, *c = row + 2 * (m + 1), *t;

	for (size_t j = 0; j <= m; j++)
		p[j] = j;
	for (size_t i = 1; i <= n; i++) {
		c[0] = i;
		for (size_t j = 1; j <= m; j++) {
			int ai = tolower((unsigned char)a[i - 1]);
			int bj = tolower((unsigned char)b[j - 1]);
			size_t best = p[j - 1] + (ai != bj);

			if (p[j] + 1 < best)
				best = p[j] + 1;
			if (c[j - 1] + 1 < best)
				best = c[j - 1] + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			c[j] = best;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	ret = p[m];
	free(row);
	return ret;
}

const char *suggest_closest(const char *word, const char *const *candidates,
			    size_t nr)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, wl = strlen(word);

	if (!wl)
		return NULL;
	for (size_t i = 0; i < nr; i++) {
		size_t cl = strlen(candidates[i]);
		size_t d = suggest_distance(word, candidates[i]);
		size_t limit = (wl > cl ? wl : cl) / 3;

		if (limit < 1)
			limit = 1;
		if (!strncasecmp(word, candidates[i], wl))
			d = cl > wl ? 1 : 0;
		else if (d > limit)
			continue;
		if (d < best_d) {
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}

int suggest_in_list(char *buf, size_t size, const char *word, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *w;
	const char **words = NULL;
	const char *near;
	size_t n = 0;

	for (w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		words = xreallocarray(words, n + 1, sizeof(*words));
		words[n++] = w;
	}
	near = suggest_closest(word, words, n);
	snprintf(buf, size, "%s", near ? near : "");
	free(words);
	free(copy);
	return near != NULL;
}
