#include <stdio.h>
#include <string.h>

#include "kconfig.h"
#include "strbuf.h"

/*
 * The option a .config line sets: "CONFIG_X=v" and "# CONFIG_X is not set"
 * both name CONFIG_X; *len is its length, 0 for any other line.
 */
static const char *config_option(const char *line, size_t *len)
{
	const char *name = line;

	*len = 0;
	if (!strncmp(line, "# CONFIG_", 9))
		name = line + 2;
	else if (strncmp(line, "CONFIG_", 7))
		return NULL;
	while (name[*len] && name[*len] != '=' && name[*len] != ' ')
		(*len)++;
	if (name == line ? name[*len] != '=' : strcmp(name + *len, " is not set"))
		*len = 0;
	return *len ? name : NULL;
}

int kconfig_has(const char *cfg, const char *line)
{
	struct strbuf want = STRBUF_INIT;
	size_t len;
	const char *name = config_option(line, &len);
	int ok;

	if (name != line && name) {
		/* "is not set": no assignment at all */
		strbuf_addf(&want, "\n%.*s=", (int)len, name);
		ok = !strstr(cfg, want.buf);
	} else {
		strbuf_addf(&want, "\n%s\n", line);
		ok = strstr(cfg, want.buf) != NULL;
	}
	strbuf_release(&want);
	return ok;
}

/* Does a line of text set the option name (len bytes)? */
static int sets_option(const char *text, const char *name, size_t len)
{
	struct strbuf line = STRBUF_INIT;
	const char *p = text, *nl;
	int found = 0;

	for (; !found && *p; p = *nl ? nl + 1 : nl) {
		const char *other;
		size_t olen;
		nl = strchrnul(p, '\n');
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		other = config_option(line.buf, &olen);
		found = other && olen == len && !strncmp(other, name, len);
	}
	strbuf_release(&line);
	return found;
}

/*
 * Names in why the option lines of text (split in place) that cfg
 * does not hold, skipping those whose option overrides sets; returns the
 * count of missing lines so far.
 */
static int check_lines(struct strbuf *why, const char *cfg, struct strbuf *text,
		       const char *overrides, int missing)
{
	char *save = NULL, *line;

	if (!text->len)
		return missing;
	for (line = strtok_r(text->buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;
		const char *name = config_option(line, &len);

		if (!name || (overrides && sets_option(overrides, name, len)) ||
		    kconfig_has(cfg, line))
			continue;
		strbuf_addstr(why, missing++ ? " " : "options did not stick after olddefconfig: ");
		strbuf_addstr(why, line);
	}
	return missing;
}

int kconfig_unstuck(struct strbuf *why, const char *cfg, struct strbuf *required,
		    struct strbuf *fragments, size_t n)
{
	struct strbuf frags = STRBUF_INIT, later = STRBUF_INIT, next = STRBUF_INIT, tmp;
	int missing;

	for (size_t i = 0; i < n; i++) {
		strbuf_add(&frags, fragments[i].buf ? fragments[i].buf : "", fragments[i].len);
		strbuf_addch(&frags, '\n');
	}
	/* the required lines a fragment leaves alone, then each fragment's own */
	missing = check_lines(why, cfg, required, strbuf_str(&frags), 0);
	for (size_t i = n; i-- > 0;) {
		strbuf_reset(&next);
		strbuf_add(&next, fragments[i].buf ? fragments[i].buf : "", fragments[i].len);
		strbuf_addch(&next, '\n');
		if (later.len)
			strbuf_add(&next, later.buf, later.len);
		missing = check_lines(why, cfg, &fragments[i], strbuf_str(&later), missing);
		tmp = later;
		later = next;
		next = tmp;
	}
	strbuf_release_all(&frags, &later, &next);
	return missing;
}

int kconfig_builds(const char *text, const char *option)
{
	size_t olen = strlen(option);
	int built = 0;

	for (const char *p = text, *nl; *p; p = *nl ? nl + 1 : nl) {
		const char *name;
		char line[256];
		size_t len;

		nl = strchrnul(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		name = config_option(line, &len);
		if (!name || len != olen + 7 || strncmp(name + 7, option, olen))
			continue;
		/* the last line wins, as when the fragments are merged */
		built = name == line && (name[len + 1] == 'y' || name[len + 1] == 'm') &&
			(!name[len + 2] || name[len + 2] == ' ' || name[len + 2] == '\t');
	}
	return built;
}
