#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cpio.h"
#include "host-root.h"
#include "log.h"
#include "modules.h"
#include "regfile.h"
#include "strbuf.h"
#include "strvec.h"

/* Under kernel/: what a root disk, its filesystem and a NIC may need. */
static const char *const wanted[] = {
	"drivers/block/", "drivers/nvme/", "drivers/ata/", "drivers/scsi/", "drivers/md/",
	"drivers/mmc/", "drivers/ufs/", "drivers/virtio/", "drivers/net/", "fs/", NULL,
};

/* Links no server's root or ssh goes over. */
static const char *const unwanted[] = {
	"drivers/net/wireless/", "drivers/net/usb/", "drivers/net/can/", "drivers/net/wan/",
	"drivers/net/wwan/", "drivers/net/ppp/", "drivers/net/slip/", "drivers/net/hamradio/",
	"drivers/net/ieee802154/", "drivers/net/arcnet/", "drivers/net/fddi/",
	"drivers/net/plip/", NULL,
};

static int under(const char *path, const char *const *dirs)
{
	for (size_t i = 0; dirs[i]; i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return 1;
	return 0;
}

int initramfs_wants_module(const char *path)
{
	if (strncmp(path, "kernel/", 7))
		return 0;
	path += 7;
	return under(path, wanted) && !under(path, unwanted);
}

struct module {
	char *path;		/* relative to lib/modules/<release>/ */
	struct strvec deps;
	int state;		/* 0 not seen, 1 being placed, 2 placed */
};

struct module_set {
	struct module *v;
	size_t nr, alloc;
	struct strvec order;	/* paths, each after its dependencies */
};

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct module *)a)->path, ((const struct module *)b)->path);
}

static struct module *lookup(struct module_set *s, const char *path)
{
	struct module key = { .path = (char *)path };

	return s->nr ? bsearch(&key, s->v, s->nr, sizeof(*s->v), by_path) : NULL;
}

/* "a.ko: b.ko c.ko" lines, as depmod writes them. */
static void parse_dep(struct module_set *s, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		struct module *m;

		if (!colon || colon == line)
			continue;
		*colon = '\0';
		ALLOC_GROW(s->v, s->nr + 1, s->alloc);
		m = &s->v[s->nr++];
		memset(m, 0, sizeof(*m));
		m->path = xstrdup(line);
		strvec_split(&m->deps, colon + 1);
	}
	if (s->nr)
		qsort(s->v, s->nr, sizeof(*s->v), by_path);
}

/* m after what it depends on; a cycle (depmod refuses them) is broken where found. */
static void place(struct module_set *s, struct module *m)
{
	if (m->state)
		return;
	m->state = 1;
	for (size_t i = 0; i < m->deps.nr; i++) {
		struct module *d = lookup(s, m->deps.v[i]);

		if (d)
			place(s, d);
	}
	m->state = 2;
	strvec_push(&s->order, m->path);
}

static void module_set_release(struct module_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->v[i].path);
		strvec_release(&s->v[i].deps);
	}
	free(s->v);
	strvec_release(&s->order);
}

/* The one release installed under root/lib/modules, into rel. */
static int find_release(struct strbuf *rel, const char *root)
{
	struct strbuf dir = STRBUF_INIT;
	struct dirent *e;
	DIR *d;
	int n = 0;

	strbuf_addf(&dir, "%s/lib/modules", root);
	d = opendir(dir.buf);
	if (!d) {
		error("cannot read the modules of the build in '%s': %s", dir.buf, strerror(errno));
		strbuf_release(&dir);
		return -1;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && n++ == 0)
			strbuf_addstr(rel, e->d_name);
	closedir(d);
	if (n != 1)
		error("'%s' holds %d releases, not one: which are the build's?", dir.buf, n);
	strbuf_release(&dir);
	return n == 1 ? 0 : -1;
}

int initramfs_add_modules(struct cpio *c, struct strvec *made, const char *root)
{
	struct strbuf rel = STRBUF_INIT, path = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf list = STRBUF_INIT, name = STRBUF_INIT;
	struct module_set s = { 0 };
	int ret = -1;

	if (find_release(&rel, root))
		goto out;
	strbuf_addf(&path, "%s/lib/modules/%s/modules.dep", root, rel.buf);
	if (strbuf_read_file(&text, path.buf, 0) < 0) {
		error("cannot read '%s': %s", path.buf, strerror(errno));
		goto out;
	}
	parse_dep(&s, text.buf);
	for (size_t i = 0; i < s.nr; i++)
		if (initramfs_wants_module(s.v[i].path))
			place(&s, &s.v[i]);
	for (size_t i = 0; i < s.order.nr; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "lib/modules/%s/%s", rel.buf, s.order.v[i]);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", root, name.buf);
		if (cpio_add_parents(c, made, name.buf) ||
		    cpio_add_file_from_path(c, name.buf, 0644, path.buf)) {
			error("cannot add module '%s' to the initramfs: %s", path.buf, strerror(errno));
			goto out;
		}
		strbuf_addf(&list, "/%s\n", name.buf);
	}
	if (cpio_add_file(c, "modules", 0644, list.buf, list.len)) {
		error("cannot add the list of modules to the initramfs: %s", strerror(errno));
		goto out;
	}
	ret = (int)s.order.nr;
out:
	module_set_release(&s);
	strbuf_release_all(&rel, &path, &text, &list, &name);
	return ret;
}

struct kexec_extras {
	const char *root;
	const struct strbuf *host_root;
	const char *host;
};

static int add_extras(struct cpio *c, void *data)
{
	const struct kexec_extras *x = data;
	struct strvec made = STRVEC_INIT;
	int n = 0;

	initramfs_dirs(&made);
	if (x->root)
		n = initramfs_add_modules(c, &made, x->root);
	if (n >= 0 && x->host_root)
		n = initramfs_add_host_root(c, &made, x->host_root, x->host);
	strvec_release(&made);
	return n < 0 ? -1 : 0;
}

int initramfs_write_modules(const char *out_path, const char *init_binary, const char *root,
			    const struct strbuf *host_root, const char *host)
{
	struct kexec_extras x = { root, host_root, host };

	return initramfs_write_with(out_path, init_binary, root || host_root ? add_extras : NULL,
				    &x);
}
