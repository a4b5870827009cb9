#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "gitutil.h"
#include "host.h"
#include "image.h"
#include "log.h"
#include "regfile.h"
#include "strbuf.h"
#include "xalloc.h"

/* XEN_ELFNOTE_PHYS32_ENTRY: the 32-bit entry point QEMU jumps to (PVH) */
#define PVH_NOTE_TYPE 18
/* no kernel has more program headers than this; more is a damaged file */
#define MAX_PHDRS 64
/* nor notes larger than this */
#define MAX_NOTES (1 << 20)

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);
	return n == (ssize_t)len ? 0 : -1;
}

/* Whether one PT_NOTE segment holds the Xen note of type 18. */
static int notes_have_pvh(const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, p + off, sizeof(nh));
		off += sizeof(nh);
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > len - off || desc > len - off - name)
			return 0;
		if (nh.n_type == PVH_NOTE_TYPE && nh.n_namesz == 4 &&
		    !memcmp(p + off, "Xen", 4))
			return 1;
		off += name + desc;
	}
	return 0;
}

/* 1 PVH, 0 not, for an open x86_64 ELF64 file whose header is eh. */
static int elf_has_pvh(int fd, const Elf64_Ehdr *eh)
{
	Elf64_Phdr ph[MAX_PHDRS];
	unsigned char *notes = NULL;
	int found = 0;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum || eh->e_phnum > MAX_PHDRS ||
	    read_at(fd, ph, eh->e_phnum * sizeof(Elf64_Phdr), (off_t)eh->e_phoff))
		return 0;
	for (int i = 0; i < eh->e_phnum && !found; i++) {
		if (ph[i].p_type != PT_NOTE || !ph[i].p_filesz || ph[i].p_filesz > MAX_NOTES)
			continue;
		notes = malloc(ph[i].p_filesz);
		if (!notes)
			return 0;
		if (!read_at(fd, notes, ph[i].p_filesz, (off_t)ph[i].p_offset))
			found = notes_have_pvh(notes, ph[i].p_filesz);
		free(notes);
	}
	return found;
}

/* 1 with *eh filled when the file is a little-endian ELF64 of some machine. */
static int read_elf64(int fd, Elf64_Ehdr *eh)
{
	if (read_at(fd, eh, sizeof(*eh), 0))
		return 0;
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB;
}

/* A --kernel that is a fifo or a device is refused, not waited on. */
static int open_kernel(const char *path)
{
	struct strbuf why = STRBUF_INIT;
	int fd = regfile_open(path, 0, NULL, "kernel", &why);

	if (fd < 0)
		error("%s", why.buf);
	strbuf_release(&why);
	return fd;
}

int kernel_image_pvh(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open_kernel(path), ret;

	if (fd < 0)
		return -1;
	ret = read_elf64(fd, &eh) && eh.e_machine == EM_X86_64 && elf_has_pvh(fd, &eh);
	close(fd);
	return ret;
}

/* The arch from the header, and whether QEMU enters it through PVH: one open. */
static int read_header(const char **arch, int *is_pvh, const char *path)
{
	unsigned char hdr[0x210];
	Elf64_Ehdr eh;
	ssize_t n;
	int fd = open_kernel(path), elf, pvh = 0;

	if (fd < 0)
		return -1;
	n = read(fd, hdr, sizeof(hdr));
	if (n < 0) {
		close(fd);
		return error("cannot read kernel '%s': %s", path, strerror(errno));
	}
	elf = read_elf64(fd, &eh);
	if (elf && eh.e_machine == EM_X86_64)
		pvh = elf_has_pvh(fd, &eh);
	close(fd);
	*is_pvh = 0;
	if (n >= 0x206 && !memcmp(hdr + 0x202, "HdrS", 4)) {
		*arch = "x86_64";
		return 0;
	}
	if (n >= 0x3c && !memcmp(hdr + 0x38, "ARM\x64", 4)) {
		*arch = "aarch64";
		return 0;
	}
	if (pvh) {
		*arch = "x86_64";
		*is_pvh = 1;
		return 0;
	}
	if (elf && eh.e_machine == EM_X86_64)
		return error("'%s' is an x86 vmlinux without the PVH entry point: QEMU cannot "
			     "boot it (build with CONFIG_PVH=y, or boot its bzImage)", path);
	if (elf && eh.e_machine == EM_AARCH64)
		return error("'%s' is an arm64 vmlinux: boot its Image (arch/arm64/boot/Image)",
			     path);
	return error("'%s' is not a kernel image (neither an x86 bzImage, an x86 vmlinux with "
		     "the PVH entry point, nor an arm64 Image)", path);
}

void kernel_image_find_modules(struct kernel_image *k)
{
	struct strbuf mods = STRBUF_INIT;
	const char *slash = strrchr(k->path, '/');
	struct stat st;

	if (slash)
		strbuf_add(&mods, k->path, (size_t)(slash - k->path));
	else
		strbuf_addch(&mods, '.');
	strbuf_addstr(&mods, "/modules/lib/modules");
	if (!stat(mods.buf, &st) && S_ISDIR(st.st_mode)) {
		strbuf_setlen(&mods, mods.len - strlen("/lib/modules"));
		xstrset(&k->modules, mods.buf);
	}
	strbuf_release(&mods);
}

int kernel_image_resolve(struct kernel_image *k, const char *path, int boots)
{
	const char *arch = host_arch();
	int pvh = 0;
	git_oid oid;

	kernel_image_init(k);
	if (boots && read_header(&arch, &pvh, path))
		return -1;
	if (git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB))
		return error("cannot read kernel '%s': %s", path, lab_git_message(strerror(errno)));
	k->path = xstrdup(path);
	k->arch = arch;
	k->pvh = pvh;
	k->origin = KERNEL_FILE;
	git_oid_tostr(k->hash, sizeof(k->hash), &oid);
	kernel_image_find_modules(k);
	debug("kernel '%s' resolved: %s%s, hash %s", path, arch, pvh ? " (pvh)" : "", k->hash);
	return 0;
}
