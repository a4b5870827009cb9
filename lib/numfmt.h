#ifndef NUMFMT_H
#define NUMFMT_H
/*
 * Numbers written for reading back: CSV and JSON give the fewest
 * significant digits that strtod() turns into the very same double (0.1,
 * not 0.10000000000000001; 1.0000000000000002, where %.15g would say 1),
 * and a page's title gives digits without an exponent. What a person
 * reads is textfmt.h's. Pure: the caller owns every buffer.
 */
#include <stddef.h>

#include "strbuf.h"

/* Room for any numfmt_exact(): sign, 17 digits, point, exponent, NUL. */
#define NUMFMT_EXACT_SIZE 32

/*
 * v as %g writes it in the fewest of 15, 16 and 17 significant digits that
 * read back as v: "0.1", "455.0676", "1e-07", "123456.78901234567".
 * "nan", "inf" or "-inf" when it is not finite.
 */
void numfmt_exact(char *buf, size_t size, double v);
/* The same appended to sb; nothing when v is not finite (an empty CSV field). */
void numfmt_exact_sb(struct strbuf *sb, double v);
/*
 * v in digits significant digits (0: numfmt_exact()'s, so that it reads
 * back as v) and never an exponent: "0.00000454973", "100.271"; the part
 * before the point is written whole ("15000000", "1234567" in six
 * digits). v must be finite.
 */
void numfmt_plain_sb(struct strbuf *sb, double v, int digits);

#endif
