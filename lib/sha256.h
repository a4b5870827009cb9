#ifndef SHA256_H
#define SHA256_H
/*
 * SHA-256 of a file or of bytes, as 64 lower-case hex digits: what
 * identifies a workload program's build in a run's provenance, the same
 * digest sha256sum prints (stored runs compare by it). libcrypto's
 * (OpenSSL's EVP), which the lab links for libcurl already.
 */
#include <stddef.h>

#define SHA256_HEX_LEN 64

/* Returns 0, or -1 when libcrypto fails (no memory). */
int sha256_hex(char out[SHA256_HEX_LEN + 1], const void *data, size_t len);
/* Returns 0, or -1 with errno set when path cannot be read. */
int sha256_file(const char *path, char out[SHA256_HEX_LEN + 1]);

#endif
