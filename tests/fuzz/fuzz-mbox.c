/*
 * The mbox reader (patch_series_parse) on arbitrary bytes: no crash, no
 * leak, and what it returns is consistent with what it says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbox.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patch_series series = PATCH_SERIES_INIT;
	struct strbuf why = STRBUF_INIT;
	char *buf = malloc(size ? size : 1);
	int ret;

	if (!buf)
		abort();
	/* exactly size bytes, no NUL after them: the reader takes a length */
	memcpy(buf, data, size);
	ret = patch_series_parse(&series, buf, size, &why);
	if (ret < 0 && (series.nr || !why.len))
		abort();
	if (!ret && !series.nr)
		abort();
	for (size_t i = 0; i < series.nr; i++) {
		const struct patch *p = &series.v[i];
		if (!p->author_name || !p->author_email || !p->subject || !p->body ||
		    !p->diff || !p->diff_len)
			abort();
	}
	patch_series_release(&series);
	strbuf_release(&why);
	free(buf);
	return 0;
}
