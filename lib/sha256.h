#ifndef SHA256_H
#define SHA256_H
/*
 * SHA-256 (FIPS 180-4) of a file, as 64 lower-case hex digits: what
 * identifies a workload program's build in a run's provenance, the same
 * digest sha256sum prints.
 */
#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_hex(struct sha256 *s, char out[SHA256_HEX_LEN + 1]);

/* Returns 0, or -1 with errno set when path cannot be read. */
int sha256_file(const char *path, char out[SHA256_HEX_LEN + 1]);

#endif
