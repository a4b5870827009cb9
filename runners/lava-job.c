/*
 * The lava runner's job (lava-api.h): a template of the target's device
 * type filled with a boot's values (the definition it submits), and the
 * images it names, copied where the worker fetches them.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "lava-api.h"
#include "regfile.h"
#include "strbuf.h"
#include "runner.h"
#include "xalloc.h"

/*
 * The URL the worker fetches file from: where it is (file://), or its
 * copy as name in imageDir, by imageUrl (file:// of imageDir without one).
 */
/* Where a boot's copies go and what that folder is to the worker: the lab's server's, or imageDir's. */
static void image_place(const struct lava_config *c, const char **dir, const char **base)
{
	if (!c->serve || lava_serve_where(dir, base)) {
		*dir = c->image_dir;
		*base = c->image_url;
	}
}

int lava_image_url(struct strbuf *url, const struct lava_config *c, const char *file,
		   const char *name, const char *nonce, struct strbuf *why)
{
	struct strbuf dst = STRBUF_INIT, data = STRBUF_INIT;
	const char *dir, *base;
	char real[PATH_MAX];
	FILE *f = NULL;
	int ret = -1;

	image_place(c, &dir, &base);
	if (!dir) {
		if (!realpath(file, real)) {
			strbuf_addf(why, "cannot resolve '%s': %s", file, strerror(errno));
			return -1;
		}
		strbuf_addf(url, "file://%s", real);
		return 0;
	}
	strbuf_addf(&dst, "%s/lab-%s-%s", dir, nonce, name);
	if (strbuf_read_file(&data, file, (size_t)1 << 31)) {
		strbuf_addf(why, "cannot read '%s': %s", file, strerror(errno));
		goto out;
	}
	if (!(f = fopen(dst.buf, "w")) || strbuf_fwrite(&data, f) != data.len) {
		strbuf_addf(why, "cannot write '%s' (the images' folder): %s", dst.buf, strerror(errno));
		goto out;
	}
	if (base)
		strbuf_addf(url, "%s/lab-%s-%s", base, nonce, name);
	else
		strbuf_addf(url, "file://%s", dst.buf);
	ret = 0;
out:
	if (f && fclose(f) && !ret) {
		strbuf_addf(why, "cannot write '%s' (the images' folder): %s", dst.buf, strerror(errno));
		ret = -1;
	}
	strbuf_release(&dst);
	strbuf_release(&data);
	return ret;
}

void lava_remove_images(const struct lava_config *c, const char *nonce)
{
	static const char *const names[] = { "kernel", "initramfs", "dtb", "modules", "rootfs" };
	struct strbuf p = STRBUF_INIT;
	const char *dir, *base;

	image_place(c, &dir, &base);
	for (size_t i = 0; dir && i < ARRAY_SIZE(names); i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/lab-%s-%s", dir, nonce, names[i]);
		unlink(p.buf);
	}
	strbuf_release(&p);
}

/* n bytes of s in a YAML single-quoted scalar: nothing is special there but the quote, doubled. */
static void yaml_escape_n(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '\'')
			strbuf_addch(sb, '\'');
		strbuf_addch(sb, s[i]);
	}
}

static void yaml_escape(struct strbuf *sb, const char *s)
{
	yaml_escape_n(sb, s, strlen(s));
}

static void yaml_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	yaml_escape(sb, s);
	strbuf_addch(sb, '\'');
}

/* A YAML flow list of the comma-separated words of s, each quoted. */
static void flow_list(struct strbuf *y, const char *s)
{
	strbuf_addch(y, '[');
	for (int first = 1; s && *s; first = 0) {
		size_t n = strcspn(s, ",");

		strbuf_addstr(y, first ? "'" : ", '");
		yaml_escape_n(y, s, n);
		strbuf_addch(y, '\'');
		s += n + (s[n] == ',');
	}
	strbuf_addch(y, ']');
}

/*
 * The placeholders a template may name, in the order of enum slot; a
 * string's value goes in as the inside of a single-quoted YAML scalar (the
 * template quotes it), any other's as YAML (a number, a flow list or map).
 * from: where a value comes from, said when a boot has none.
 */
enum slot {
	S_JOB_NAME, S_DEVICE_TYPE, S_PRIORITY, S_VISIBILITY, S_TAGS, S_METADATA,
	S_JOB_MINUTES, S_DEPLOY_MINUTES, S_BOOT_MINUTES,
	S_KERNEL_URL, S_RAMDISK_URL, S_DTB_URL, S_MODULES_URL, S_ROOTFS_URL,
	S_CMDLINE, S_LAB_ARGS, S_QEMU_ARCH, S_MEMORY_MIB, S_NO_KVM, S_QEMU_OPTIONS,
	S_NSLOTS
};
static const struct {
	const char *name, *from;
} slots[S_NSLOTS] = {
	{ "job_name", NULL }, { "device_type", NULL }, { "priority", NULL },
	{ "visibility", NULL }, { "tags", NULL }, { "metadata", NULL },
	{ "job_minutes", NULL }, { "deploy_minutes", NULL }, { "boot_minutes", NULL },
	{ "kernel_url", NULL }, { "ramdisk_url", NULL },
	{ "dtb_url", "dtb = PATH in the target's section" },
	{ "modules_url", "a kernel built with CONFIG_MODULES, or modules = PATH in the target's "
			 "section" },
	{ "rootfs_url", "rootfs = PATH in the target's section" },
	{ "cmdline", NULL }, { "lab_args", NULL }, { "qemu_arch", NULL },
	{ "memory_mib", NULL }, { "no_kvm", NULL }, { "qemu_options", NULL },
};

void lava_job_init(struct lava_job *j)
{
	j->v = xcalloc(S_NSLOTS, sizeof(*j->v));
	for (size_t i = 0; i < S_NSLOTS; i++)
		strbuf_init(&j->v[i], 0);
	j->set = xcalloc(S_NSLOTS, sizeof(*j->set));
}

void lava_job_release(struct lava_job *j)
{
	for (size_t i = 0; j->v && i < S_NSLOTS; i++)
		strbuf_release(&j->v[i]);
	free(j->v);
	free(j->set);
	memset(j, 0, sizeof(*j));
}

static struct strbuf *slot(struct lava_job *j, enum slot s)
{
	j->set[s] = 1;
	return &j->v[s];
}

/*
 * What a farm's admin finds the lab's jobs by, beside their name: whose
 * they are, from which host, and which kernel and boot.
 */
static void metadata(struct strbuf *y, const struct run_spec *spec)
{
	struct passwd *pw = getpwuid(geteuid());
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	strbuf_addstr(y, "{lab.host: ");
	yaml_quote(y, host);
	strbuf_addstr(y, ", lab.user: ");
	yaml_quote(y, pw ? pw->pw_name : "unknown");
	if (spec->kernel) {
		strbuf_addstr(y, ", lab.kernel: ");
		yaml_quote(y, spec->kernel->hash);
		if (spec->kernel->commit[0]) {
			strbuf_addstr(y, ", lab.commit: ");
			yaml_quote(y, spec->kernel->commit);
		}
	}
	if (spec->nonce) {
		strbuf_addstr(y, ", lab.nonce: ");
		yaml_quote(y, spec->nonce);
	}
	strbuf_addch(y, '}');
}

void lava_job_values(struct lava_job *j, const struct run_spec *spec)
{
	const struct lava_config *c = spec->lava;
	char cmdline[4096];
	long minutes = (long)ceil(spec->timeout_s / 60.0) + 1;
	int arm = !strcmp(spec->arch, "aarch64");
	int tcg = spec->accel && !strcmp(spec->accel, "tcg");
	struct strbuf *sb;

	yaml_escape(slot(j, S_DEVICE_TYPE), c->device_type);
	/* the job's name: the target's prefix, the kernel's hash and the boot's nonce */
	sb = slot(j, S_JOB_NAME);
	yaml_escape(sb, c->job_prefix ? c->job_prefix : "lab");
	strbuf_addf(sb, " boot %.12s", spec->kernel ? spec->kernel->hash : "");
	if (spec->nonce)
		strbuf_addf(sb, " %s", spec->nonce);
	strbuf_addstr(slot(j, S_PRIORITY), c->priority ? c->priority : "medium");
	sb = slot(j, S_VISIBILITY);
	if (c->visibility && !strncmp(c->visibility, "group:", 6)) {
		strbuf_addstr(sb, "{group: ");
		flow_list(sb, c->visibility + 6);
		strbuf_addch(sb, '}');
	} else {
		strbuf_addstr(sb, c->visibility ? c->visibility : "public");
	}
	flow_list(slot(j, S_TAGS), c->tags);
	metadata(slot(j, S_METADATA), spec);
	strbuf_addf(slot(j, S_JOB_MINUTES), "%ld", minutes + 5);
	strbuf_addstr(slot(j, S_DEPLOY_MINUTES), "5");
	strbuf_addf(slot(j, S_BOOT_MINUTES), "%ld", minutes);
	run_spec_cmdline(spec, cmdline, sizeof(cmdline));
	sb = slot(j, S_CMDLINE);
	yaml_escape(sb, cmdline);
	if (spec->nonce)
		strbuf_addf(sb, " lab.nonce=%s", spec->nonce);
	/* the lab's own words, for a board whose device type says its console */
	sb = slot(j, S_LAB_ARGS);
	yaml_escape(sb, strstr(cmdline, "panic=") ? strstr(cmdline, "panic=") : cmdline);
	if (spec->nonce)
		strbuf_addf(sb, " lab.nonce=%s", spec->nonce);
	/* the qemu runner's machine, as far as the device type lets the job say */
	strbuf_addstr(slot(j, S_QEMU_ARCH), arm ? "arm64" : "amd64");
	strbuf_addf(slot(j, S_MEMORY_MIB), "%ld", spec->mem_mib);
	strbuf_addstr(slot(j, S_NO_KVM), tcg && !arm ? "true" : "false");
	sb = slot(j, S_QEMU_OPTIONS);
	strbuf_addf(sb, "['-no-reboot', '-smp %d'", spec->cpus > 0 ? spec->cpus : 1);
	if (tcg && !arm)
		strbuf_addstr(sb, ", '-cpu max'");
	if (spec->clock && !strcmp(spec->clock, "icount"))
		strbuf_addf(sb, ", '-icount shift=%d,sleep=off'", spec->icount_shift);
	strbuf_addch(sb, ']');
}

void lava_job_url(struct lava_job *j, const char *name, const char *url)
{
	for (size_t i = 0; i < S_NSLOTS; i++)
		if (!strcmp(slots[i].name, name)) {
			strbuf_reset(&j->v[i]);
			yaml_escape(slot(j, (enum slot)i), url);
		}
}

/*
 * The next placeholder of text at or after p: where its "{{" is in *open,
 * its name (spaces trimmed) in *name and *len, what follows its "}}" in
 * *after. 1, 0 when there is none, -1 when a "{{" has no "}}" on its line.
 */
static int next_placeholder(const char *p, const char **open, const char **name, size_t *len,
			    const char **after)
{
	const char *close, *end;

	if (!(*open = strstr(p, "{{")))
		return 0;
	if (!(close = strstr(*open + 2, "}}")) || memchr(*open, '\n', (size_t)(close - *open)))
		return -1;
	for (*name = *open + 2; **name == ' '; (*name)++)
		;
	for (end = close; end > *name && end[-1] == ' '; end--)
		;
	*len = (size_t)(end - *name);
	*after = close + 2;
	return 1;
}

int lava_job_names(const char *text, const char *name)
{
	const char *open, *n, *after;
	size_t len;

	for (const char *p = text; next_placeholder(p, &open, &n, &len, &after) > 0; p = after)
		if (len == strlen(name) && !strncmp(n, name, len))
			return 1;
	return 0;
}

int lava_job_fill(struct strbuf *y, const struct lava_job *j, const char *what, const char *text,
		  struct strbuf *why)
{
	const char *open, *name, *after;
	size_t len;
	int line = 1, r;

	for (const char *p = text; *p; p = after) {
		size_t i = 0;

		if (!(r = next_placeholder(p, &open, &name, &len, &after))) {
			strbuf_addstr(y, p);
			break;
		}
		for (const char *q = p; q < open; q++)
			line += *q == '\n';
		if (r < 0) {
			strbuf_addf(why, "LAVA job template %s line %d: a '{{' without its '}}'", what,
				    line);
			return -1;
		}
		strbuf_add(y, p, (size_t)(open - p));
		while (i < S_NSLOTS && (strlen(slots[i].name) != len || strncmp(slots[i].name, name, len)))
			i++;
		if (i == S_NSLOTS) {
			strbuf_addf(why, "LAVA job template %s line %d: unknown placeholder '%.*s'",
				    what, line, (int)(after - open), open);
			return -1;
		}
		if (!j->set[i]) {
			strbuf_addf(why, "LAVA job template %s line %d: no value for '{{%s}}'%s%s%s",
				    what, line, slots[i].name, slots[i].from ? " (" : "",
				    slots[i].from ? slots[i].from : "", slots[i].from ? ")" : "");
			return -1;
		}
		strbuf_add(y, j->v[i].buf, j->v[i].len);
	}
	return 0;
}

int lava_job_template(struct strbuf *text, struct strbuf *what, const struct lava_config *c,
		      struct strbuf *why)
{
	const char *name = c->template ? c->template : "qemu";

	strbuf_reset(text);
	strbuf_reset(what);
	if (strchr(name, '/')) {
		strbuf_addf(what, "'%s'", name);
		return regfile_read(text, name, LAVA_TEMPLATE_MAX, 0, "LAVA job template", why);
	}
	for (size_t i = 0; lava_shipped_templates[i].name; i++)
		if (!strcmp(lava_shipped_templates[i].name, name)) {
			strbuf_addf(what, "'%s' (the lab's)", name);
			strbuf_addstr(text, lava_shipped_templates[i].text);
			return 0;
		}
	strbuf_addf(why, "no LAVA job template '%s' in the lab (", name);
	for (size_t i = 0; lava_shipped_templates[i].name; i++)
		strbuf_addf(why, "%s%s", i ? ", " : "", lava_shipped_templates[i].name);
	strbuf_addstr(why, "; or a path to a file of your own)");
	return -1;
}
