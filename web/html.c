/* The pieces every page is built of (html.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "html.h"
#include "numbers.h"

/* Text from the database, escaped; a dash when there is none. */
void html_text(struct strbuf *sb, const char *text)
{
	if (!text || !*text)
		strbuf_addstr(sb, "&#8211;");
	else
		escape_html(sb, text);
}

void html_num(struct strbuf *sb, double v)
{
	numbers_exact(sb, v, 6);
}

void html_cell_quantity(struct strbuf *sb, double v, const char *unit, double ref)
{
	strbuf_addstr(sb, "<td class=\"num\"");
	if (isfinite(v)) {
		strbuf_addstr(sb, " title=\"");
		numbers_exact(sb, v, 0);
		if (*unit)
			strbuf_addch(sb, ' ');
		escape_html(sb, unit);
		strbuf_addch(sb, '"');
	}
	strbuf_addch(sb, '>');
	numbers_quantity(sb, v, unit, ref);
	strbuf_addstr(sb, "</td>");
}

/* A count that may not be recorded (< 0). */
void html_count(struct strbuf *sb, long long v)
{
	if (v < 0)
		strbuf_addstr(sb, "&#8211;");
	else
		strbuf_addf(sb, "%lld", v);
}

void html_time(struct strbuf *sb, double epoch)
{
	char when[32];
	time_t t = (time_t)epoch;
	struct tm tm;

	if (!isfinite(epoch)) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	strbuf_addstr(sb, when);
}

/* A word as a class name: prefix, then its letters and digits in lower case. */
static void html_class(struct strbuf *sb, const char *prefix, const char *word)
{
	strbuf_addstr(sb, prefix);
	for (; word && *word; word++)
		if (isalnum((unsigned char)*word))
			strbuf_addch(sb, tolower((unsigned char)*word));
}

/* A verdict, outcome or status: the word itself, coloured by its class. */
void html_badge(struct strbuf *sb, const char *prefix, const char *word)
{
	strbuf_addstr(sb, "<span class=\"badge ");
	html_class(sb, prefix, word);
	strbuf_addstr(sb, "\">");
	if (word && *word)
		escape_html(sb, word);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</span>");
}

void html_commit(struct strbuf *sb, const char *hex)
{
	struct strbuf c = STRBUF_INIT;

	strbuf_add(&c, hex, strnlen(hex, 12));
	strbuf_addstr(sb, "<code>");
	escape_html(sb, c.buf ? c.buf : "");
	strbuf_addstr(sb, "</code>");
	strbuf_release(&c);
}

void html_hash(struct strbuf *sb, const char *hex)
{
	if (!*hex) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	strbuf_addstr(sb, "<span title=\"");
	escape_html(sb, hex);
	strbuf_addstr(sb, "\">");
	html_commit(sb, hex);
	strbuf_addstr(sb, "</span>");
}

static const char *const bisect_variant[][2] = {
	{ "G", "the good end" },
	{ "B", "the bad end" },
	{ "P", "the culprit's parent (culprit^), measured again to confirm the culprit" },
};

void html_variant(struct strbuf *sb, const char *name, int bisect)
{
	for (size_t i = 0; bisect && name && i < sizeof(bisect_variant) / sizeof(*bisect_variant); i++)
		if (!strcmp(name, bisect_variant[i][0])) {
			strbuf_addf(sb, "<abbr title=\"%s\">%s</abbr>", bisect_variant[i][1],
				    bisect_variant[i][0]);
			return;
		}
	html_text(sb, name);
}

void html_variants_legend(struct strbuf *sb)
{
	strbuf_addstr(sb, "<p class=\"legend\">Variant: ");
	for (size_t i = 0; i < sizeof(bisect_variant) / sizeof(*bisect_variant); i++)
		strbuf_addf(sb, "<strong>%s</strong> %s; ", bisect_variant[i][0],
			    bisect_variant[i][1]);
	strbuf_addstr(sb, "a commit id: a step of the bisection.</p>\n");
}

void html_page_begin(struct strbuf *sb, const char *title)
{
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>");
	escape_html(sb, title);
	strbuf_addstr(sb, " &#8211; lab</title>\n<link rel=\"stylesheet\" href=\"style.css\"/>\n"
		      "</head>\n<body>\n<header><nav><a href=\"index.html\">lab results</a></nav></header>\n"
		      "<main>\n<h1>");
	escape_html(sb, title);
	strbuf_addstr(sb, "</h1>\n");
}

void html_page_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</main>\n</body>\n</html>\n");
}

/* Tables scroll sideways inside their wrapper on a narrow screen. */
void html_table_begin(struct strbuf *sb, const char *head)
{
	strbuf_addf(sb, "<div class=\"scroll\"><table>\n<thead><tr>%s</tr></thead>\n<tbody>\n", head);
}

void html_table_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</tbody></table></div>\n");
}

void html_section_table(struct strbuf *sb, const char *title, const char *head)
{
	strbuf_addf(sb, "<section>\n<h2>%s</h2>\n", title);
	html_table_begin(sb, head);
}

void html_section_end(struct strbuf *sb)
{
	html_table_end(sb);
	strbuf_addstr(sb, "</section>\n");
}

static void cell_begin(struct strbuf *sb, const char *cls)
{
	if (cls)
		strbuf_addf(sb, "<td class=\"%s\">", cls);
	else
		strbuf_addstr(sb, "<td>");
}

void html_cell_text(struct strbuf *sb, const char *cls, const char *text)
{
	cell_begin(sb, cls);
	html_text(sb, text);
	strbuf_addstr(sb, "</td>");
}

void html_cell_badge(struct strbuf *sb, const char *prefix, const char *word)
{
	strbuf_addstr(sb, "<td>");
	html_badge(sb, prefix, word);
	strbuf_addstr(sb, "</td>");
}

void html_cell_time(struct strbuf *sb, double epoch)
{
	strbuf_addstr(sb, "<td>");
	html_time(sb, epoch);
	strbuf_addstr(sb, "</td>");
}

void html_cell_count(struct strbuf *sb, const char *cls, long long v)
{
	cell_begin(sb, cls);
	html_count(sb, v);
	strbuf_addstr(sb, "</td>");
}

void html_cell_num(struct strbuf *sb, double v)
{
	cell_begin(sb, "num");
	html_num(sb, v);
	strbuf_addstr(sb, "</td>");
}

void html_fact_text(struct strbuf *sb, const char *name, const char *text)
{
	strbuf_addf(sb, "<dt>%s</dt><dd>", name);
	html_text(sb, text);
	strbuf_addstr(sb, "</dd>\n");
}

void html_fact_badge(struct strbuf *sb, const char *name, const char *prefix, const char *word)
{
	strbuf_addf(sb, "<dt>%s</dt><dd>", name);
	html_badge(sb, prefix, word);
	strbuf_addstr(sb, "</dd>\n");
}

void html_fact_time(struct strbuf *sb, const char *name, double epoch)
{
	strbuf_addf(sb, "<dt>%s</dt><dd>", name);
	html_time(sb, epoch);
	strbuf_addstr(sb, "</dd>\n");
}
