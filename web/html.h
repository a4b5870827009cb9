#ifndef HTML_H
#define HTML_H
/*
 * The pieces every page of the report is built of, appended to sb. Text
 * goes through escape_html() (lib/escape.h); a value that is missing
 * (NULL or "" text, a number that is not finite, a count < 0) is shown
 * as a dash.
 */
#include "strbuf.h"

void html_text(struct strbuf *sb, const char *text);
void html_num(struct strbuf *sb, double v);		/* %.6g, never an exponent */
void html_count(struct strbuf *sb, long long v);
void html_time(struct strbuf *sb, double epoch);	/* local time, to the second */
/* A verdict, outcome or status, coloured by its class: prefix and the word in lower case. */
void html_badge(struct strbuf *sb, const char *prefix, const char *word);
/* A commit id or hash, cut to 12, as code. */
void html_commit(struct strbuf *sb, const char *hex);
/* The same with the whole of it as its title; a dash when hex is "". */
void html_hash(struct strbuf *sb, const char *hex);

/*
 * A run's variant: as stored, but a bisection's one-letter names say
 * what they stand for in a title (G the good end, B the bad end, P the
 * culprit's parent); html_variants_legend() writes the same as a line.
 */
void html_variant(struct strbuf *sb, const char *name, int bisect);
void html_variants_legend(struct strbuf *sb);

/* The page's head, its navigation and title as h1; html_page_end() closes it. */
void html_page_begin(struct strbuf *sb, const char *title);
void html_page_end(struct strbuf *sb);
/* A table with its header cells (trusted HTML); html_table_end() closes it. */
void html_table_begin(struct strbuf *sb, const char *head);
void html_table_end(struct strbuf *sb);
/* The same under a section headed title (trusted HTML) as h2; html_section_end() closes both. */
void html_section_table(struct strbuf *sb, const char *title, const char *head);
void html_section_end(struct strbuf *sb);

/*
 * A whole table cell of one value, written as the functions above write
 * it: <td>, or <td class="cls"> when cls is not NULL, the value, </td>.
 */
void html_cell_text(struct strbuf *sb, const char *cls, const char *text);
void html_cell_badge(struct strbuf *sb, const char *prefix, const char *word);
void html_cell_time(struct strbuf *sb, double epoch);
void html_cell_count(struct strbuf *sb, const char *cls, long long v);
void html_cell_num(struct strbuf *sb, double v);	/* of class "num" */
/*
 * numbers_quantity() in a cell of class "num", its exact value (every digit
 * it takes to read back as v, no exponent) and stored unit as its title.
 */
void html_cell_quantity(struct strbuf *sb, double v, const char *unit, double ref);
/* A whole fact of a list of facts (<dl>): <dt>name</dt><dd>, the value, </dd> and a newline. */
void html_fact_text(struct strbuf *sb, const char *name, const char *text);
void html_fact_badge(struct strbuf *sb, const char *name, const char *prefix, const char *word);
void html_fact_time(struct strbuf *sb, const char *name, double epoch);

#endif
