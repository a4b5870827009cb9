/*
 * kernels/image.c on small files written here: which images are x86
 * vmlinux files QEMU can boot through PVH (the Xen ELF note of type 18),
 * and the message for those it cannot; the resolver that reads a kernel
 * file once into a struct kernel_image.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitutil.h"
#include "host.h"
#include "image.h"
#include "strbuf.h"
#include "capture.h"
#include "rmtree.h"
#include "tap.h"

static char dir[] = "/tmp/test-image.XXXXXX";

struct note {
	const char *name;
	unsigned type;
	const char *desc;
	unsigned namesz;	/* 0: strlen(name) + 1; else as written, for damaged notes */
};

static size_t put_note(unsigned char *p, const struct note *n)
{
	Elf64_Nhdr nh;
	size_t name = strlen(n->name) + 1, desc = strlen(n->desc) + 1, off = sizeof(nh);

	nh.n_namesz = n->namesz ? n->namesz : (Elf64_Word)name;
	nh.n_descsz = (Elf64_Word)desc;
	nh.n_type = n->type;
	memcpy(p, &nh, sizeof(nh));
	memcpy(p + off, n->name, name);
	off += (name + 3) & ~(size_t)3;
	memcpy(p + off, n->desc, desc);
	off += (desc + 3) & ~(size_t)3;
	return off;
}

/* An ELF64 file of machine with one PT_NOTE segment holding notes. */
static char *write_elf(const char *file, unsigned machine, const struct note *notes, size_t nr)
{
	unsigned char buf[4096];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t off = sizeof(eh) + sizeof(ph), start = off;
	struct strbuf path = STRBUF_INIT;
	FILE *f;

	memset(buf, 0, sizeof(buf));
	memset(&eh, 0, sizeof(eh));
	memset(&ph, 0, sizeof(ph));
	for (size_t i = 0; i < nr; i++)
		off += put_note(buf + off, &notes[i]);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = (Elf64_Half)machine;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_NOTE;
	ph.p_offset = start;
	ph.p_filesz = off - start;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	strbuf_addf(&path, "%s/%s", dir, file);
	f = fopen(path.buf, "wb");
	if (!f || fwrite(buf, 1, off, f) != off || fclose(f)) {
		perror(path.buf);
		exit(2);
	}
	return strbuf_detach(&path);
}

static char *write_bzimage(void)
{
	unsigned char buf[0x400];
	struct strbuf path = STRBUF_INIT;
	FILE *f;

	memset(buf, 0, sizeof(buf));
	memcpy(buf + 0x202, "HdrS", 4);
	strbuf_addf(&path, "%s/bzImage", dir);
	f = fopen(path.buf, "wb");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f)) {
		perror(path.buf);
		exit(2);
	}
	return strbuf_detach(&path);
}

/* A file of len zero bytes with magic at off. */
static char *write_magic(const char *file, size_t len, size_t off, const char *magic)
{
	unsigned char buf[0x400];
	struct strbuf path = STRBUF_INIT;
	FILE *f;

	memset(buf, 0, sizeof(buf));
	memcpy(buf + off, magic, strlen(magic));
	strbuf_addf(&path, "%s/%s", dir, file);
	f = fopen(path.buf, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path.buf);
		exit(2);
	}
	return strbuf_detach(&path);
}

/* kernel_image_resolve's status and what it printed, in one line. */
static int resolve(struct kernel_image *k, const char *path, int boots, struct strbuf *err)
{
	struct capture cap;
	int ret;

	capture_start(&cap);
	ret = kernel_image_resolve(k, path, boots);
	capture_end(&cap, err);
	strbuf_trim(err);
	return ret;
}

static void test_resolve(void)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct kernel_image k;
	char *path;

	/* the hashes are `git hash-object` of the same bytes */
	path = write_magic("bzImage", 0x400, 0x202, "HdrS");
	is_int(resolve(&k, path, 1, &err), 0, "resolve: an x86 bzImage");
	is_str(k.path, path, "its path");
	is_str(k.arch, "x86_64", "arch x86_64 from its header");
	is_int(k.pvh, 0, "not entered through PVH");
	is_str(k.hash, "0bcf327e4d81d38e7978a34b80bc804431fad55f", "its content's git blob id");
	is_str(kernel_origin_name(k.origin), "file", "a file the user named");
	is_str(strbuf_str(&err), "", "without a word");
	kernel_image_release(&k);
	unlink(path);
	free(path);

	path = write_magic("Image", 0x400, 0x38, "ARM\x64");
	is_int(resolve(&k, path, 1, &err), 0, "resolve: an arm64 Image");
	is_str(k.arch, "aarch64", "arch aarch64 from its header");
	is_str(k.hash, "e28aa61d9d5ce22faf567ea2cdb995da1bc861bc", "its hash");
	kernel_image_release(&k);
	unlink(path);
	free(path);

	{
		static const struct note pvh[] = { { "Xen", 18, "\x50\x08\x00\x01", 0 } };
		path = write_elf("vmlinux-pvh", EM_X86_64, pvh, 1);
		is_int(resolve(&k, path, 1, &err), 0, "resolve: an x86 vmlinux with PVH");
		is_int(k.pvh, 1, "entered through PVH, as the qemu runner reads it");
		kernel_image_release(&k);
		unlink(path);
		free(path);
	}

	path = write_magic("garbage", 0x100, 0, "garbage");
	is_int(resolve(&k, path, 1, &err), -1, "resolve: a garbage file is refused");
	strbuf_addf(&want, "lab: '%s' is not a kernel image (neither an x86 bzImage, an x86 "
		    "vmlinux with the PVH entry point, nor an arm64 Image)", path);
	is_str(strbuf_str(&err), want.buf, "in one line naming it");
	ok(!k.path && !k.hash[0], "and nothing resolved");
	/* the local runner runs a program: no header to read, the host's arch */
	is_int(resolve(&k, path, 0, &err), 0, "the same file as the local runner's program");
	is_str(k.arch, host_arch(), "of the host's arch");
	is_int((int)strlen(k.hash), KERNEL_IMAGE_HASH_LEN, "hashed all the same");
	kernel_image_release(&k);
	unlink(path);
	free(path);

	is_int(resolve(&k, "/nonexistent/bzImage", 0, &err), -1, "resolve: a missing file");
	ok(!strncmp(strbuf_str(&err), "lab: cannot read kernel '/nonexistent/bzImage': ", 48) &&
	   !strchr(err.buf, '\n'), "one line naming it");
	strbuf_release(&err);
	strbuf_release(&want);
}

/* kernel_image_resolve()'s status, the arch it read, and what it printed. */
static int arch_of(const char *path, const char **arch, struct strbuf *err)
{
	struct kernel_image k;
	struct capture cap;
	int ret;

	*arch = NULL;
	capture_start(&cap);
	ret = kernel_image_resolve(&k, path, 1);
	capture_end(&cap, err);
	strbuf_trim(err);
	if (!ret)
		*arch = k.arch;
	kernel_image_release(&k);
	return ret;
}

int main(void)
{
	static const struct note pvh[] = {
		{ "Xen", 6, "linux", 0 },
		{ "GNU", 3, "0123456789abcdef", 0 },
		{ "Xen", 18, "\x50\x08\x00\x01", 0 },
	};
	static const struct note xen_pv[] = {
		{ "Xen", 6, "linux", 0 },
		{ "Xen", 17, "\x01\x88", 0 },
	};
	static const struct note gnu18[] = { { "GNU", 18, "abc", 0 } };
	static const struct note damaged[] = { { "Xen", 18, "abc", 0x7fffffff } };
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	const char *arch;
	char *path;

	if (!mkdtemp(dir) || lab_git_init()) {
		perror("mkdtemp");
		return 2;
	}
	test_resolve();

	path = write_elf("vmlinux-pvh", EM_X86_64, pvh, 3);
	is_int(kernel_image_pvh(path), 1, "an x86 vmlinux with the Xen note 18 boots through PVH");
	is_int(arch_of(path, &arch, &err), 0, "and is a kernel image");
	is_str(arch, "x86_64", "of x86_64");
	is_str(strbuf_str(&err), "", "without a word");
	unlink(path);
	free(path);

	path = write_elf("vmlinux-pv", EM_X86_64, xen_pv, 2);
	is_int(kernel_image_pvh(path), 0, "Xen notes without type 18: no PVH entry");
	is_int(arch_of(path, &arch, &err), -1, "refused as a kernel image");
	strbuf_addf(&want, "lab: '%s' is an x86 vmlinux without the PVH entry point: QEMU "
		    "cannot boot it (build with CONFIG_PVH=y, or boot its bzImage)", path);
	is_str(strbuf_str(&err), want.buf, "the message names the file and says why");
	unlink(path);
	free(path);

	path = write_elf("vmlinux-gnu", EM_X86_64, gnu18, 1);
	is_int(kernel_image_pvh(path), 0, "type 18 of another owner than Xen is no PVH entry");
	unlink(path);
	free(path);

	path = write_elf("vmlinux-damaged", EM_X86_64, damaged, 1);
	is_int(kernel_image_pvh(path), 0, "a note whose name runs past its segment is not read");
	unlink(path);
	free(path);

	path = write_elf("vmlinux-arm64", EM_AARCH64, pvh, 3);
	is_int(kernel_image_pvh(path), 0, "an arm64 ELF is never PVH");
	is_int(arch_of(path, &arch, &err), -1, "an arm64 vmlinux is refused");
	strbuf_reset(&want);
	strbuf_addf(&want, "lab: '%s' is an arm64 vmlinux: boot its Image "
		    "(arch/arm64/boot/Image)", path);
	is_str(strbuf_str(&err), want.buf, "pointing at the Image");
	unlink(path);
	free(path);

	path = write_bzimage();
	is_int(kernel_image_pvh(path), 0, "a bzImage is not booted through PVH");
	is_int(arch_of(path, &arch, &err), 0, "but is an x86_64 kernel image");
	is_str(arch, "x86_64", "of x86_64");
	unlink(path);
	free(path);

	{
		struct capture cap;
		int r;

		capture_start(&cap);
		r = kernel_image_pvh("/nonexistent/vmlinux");
		capture_end(&cap, &err);
		is_int(r, -1, "a missing file is an error");
		ok(strstr(strbuf_str(&err), "cannot read kernel '/nonexistent/vmlinux'"),
		   "naming it");
	}

	{
		/* a cache entry's layout: the image, and modules/lib/modules/<release> beside it */
		struct kernel_image k;
		struct strbuf p = STRBUF_INIT;

		path = write_bzimage();
		is_int(kernel_image_resolve(&k, path, 1), 0, "an image without modules resolves");
		ok(!k.modules, "... with none");
		kernel_image_release(&k);
		strbuf_addf(&p, "%s/modules", dir);
		mkdir(p.buf, 0755);
		is_int(kernel_image_resolve(&k, path, 1), 0, "a modules/ folder without lib/modules");
		ok(!k.modules, "... is not the build's modules");
		kernel_image_release(&k);
		strbuf_addstr(&p, "/lib");
		mkdir(p.buf, 0755);
		strbuf_addstr(&p, "/modules");
		mkdir(p.buf, 0755);
		is_int(kernel_image_resolve(&k, path, 1), 0, "with modules/lib/modules beside it");
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/modules", dir);
		is_str(k.modules, p.buf, "... the image brings them: their INSTALL_MOD_PATH");
		kernel_image_release(&k);
		unlink(path);
		free(path);
		strbuf_release(&p);
	}

	if (rmtree(dir) < 0)
		perror(dir);
	strbuf_release(&err);
	strbuf_release(&want);
	return done_testing();
}
