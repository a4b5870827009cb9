/*
 * lib/sha256: FIPS 180-4's examples, and a file of a million a's read in
 * pieces, give the digests sha256sum prints, which stored runs keep as a
 * workload program's identity; a file that is not there is -1 and ENOENT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "tap.h"

int main(void)
{
	char hex[SHA256_HEX_LEN + 1], path[] = "/tmp/lab-test-sha256.XXXXXX", thousand[1000];
	FILE *f;
	int fd;

	ok(!sha256_hex(hex, "abc", 3), "sha256 of abc");
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "... its digest");
	ok(!sha256_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56),
	   "sha256 of 56 bytes");
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "... two blocks of padding");
	ok(!sha256_hex(hex, "", 0), "sha256 of nothing");
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "... its digest");

	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	memset(thousand, 'a', sizeof(thousand));
	for (int i = 0; f && i < 1000; i++)
		fwrite(thousand, 1, sizeof(thousand), f);
	ok(f && !fclose(f), "a file of a million a's");
	ok(!sha256_file(path, hex), "sha256_file reads it");
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "... in pieces, the digest of a million a's");
	unlink(path);
	errno = 0;
	ok(sha256_file(path, hex) == -1 && errno == ENOENT, "a file not there: -1, ENOENT");
	return done_testing();
}
