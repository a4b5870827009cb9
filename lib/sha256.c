/* SHA-256 through libcrypto's EVP, in hex (sha256.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "regfile.h"
#include "sha256.h"

static int finish(EVP_MD_CTX *c, char out[SHA256_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (!EVP_DigestFinal_ex(c, md, &len) || len * 2 != SHA256_HEX_LEN)
		return -1;
	for (unsigned int i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int sha256_hex(char out[SHA256_HEX_LEN + 1], const void *data, size_t len)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ret = -1;

	if (c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) && EVP_DigestUpdate(c, data, len))
		ret = finish(c, out);
	EVP_MD_CTX_free(c);
	return ret;
}

int sha256_file(const char *path, char out[SHA256_HEX_LEN + 1])
{
	unsigned char buf[65536];
	EVP_MD_CTX *c = NULL;
	int fd = regfile_open(path, 0, NULL, NULL, NULL), ret = -1, err = EIO;
	ssize_t n;

	if (fd < 0)
		return -1;
	c = EVP_MD_CTX_new();
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL))
		goto out;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			goto out;
		}
		if (!EVP_DigestUpdate(c, buf, (size_t)n))
			goto out;
	}
	ret = finish(c, out);
out:
	EVP_MD_CTX_free(c);
	close(fd);
	if (ret)
		errno = err;
	return ret;
}
