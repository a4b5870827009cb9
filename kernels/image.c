#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "log.h"

int kernel_image_arch(const char **arch, const char *path)
{
	unsigned char hdr[0x210];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot read kernel '%s': %s", path, strerror(errno));
	n = read(fd, hdr, sizeof(hdr));
	close(fd);
	if (n < 0)
		return error("cannot read kernel '%s': %s", path, strerror(errno));
	if (n >= 0x206 && !memcmp(hdr + 0x202, "HdrS", 4)) {
		*arch = "x86_64";
		return 0;
	}
	if (n >= 0x3c && !memcmp(hdr + 0x38, "ARM\x64", 4)) {
		*arch = "aarch64";
		return 0;
	}
	return error("'%s' is not a kernel image (neither an x86 bzImage nor an arm64 Image)",
		     path);
}
