#include <string.h>

#include "kconfig.h"
#include "strbuf.h"
#include "tap.h"

/* kconfig_unstuck() of a .config and texts given as strings. */
static int unstuck(struct strbuf *why, const char *cfg, const char *required,
		   const char *const *frag, size_t n)
{
	struct strbuf req = STRBUF_INIT, f[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int missing;

	strbuf_reset(why);
	strbuf_addstr(&req, required);
	for (size_t i = 0; i < n; i++)
		strbuf_addstr(&f[i], frag[i]);
	missing = kconfig_unstuck(why, cfg, &req, f, n);
	strbuf_release(&req);
	for (size_t i = 0; i < n; i++)
		strbuf_release(&f[i]);
	return missing;
}

int main(void)
{
	struct strbuf why = STRBUF_INIT;
	const char *cfg = "#\n# Automatically generated file\n#\nCONFIG_MODULES=y\n"
			  "CONFIG_VIRTIO_BLK=m\nCONFIG_EXT4_FS=y\n# CONFIG_DEFERRED_STRUCT_PAGE_INIT is not set\n";
	const char *server = "# the server's\nCONFIG_VIRTIO_BLK=y\nCONFIG_EXT4_FS=y\n";
	const char *modular = "CONFIG_MODULES=y\nCONFIG_VIRTIO_BLK=m\n";
	const char *two[2];

	ok(kconfig_has(cfg, "CONFIG_MODULES=y"), "an option set");
	ok(!kconfig_has(cfg, "CONFIG_MODULES=m"), "... not to another value");
	ok(kconfig_has(cfg, "# CONFIG_DEFERRED_STRUCT_PAGE_INIT is not set"), "not set, said so");
	ok(kconfig_has(cfg, "# CONFIG_NUMA is not set"), "not set, by its absence");
	ok(!kconfig_has(cfg, "# CONFIG_EXT4_FS is not set"), "set is not 'not set'");

	is_int(unstuck(&why, cfg, "CONFIG_MODULES=y\n", NULL, 0), 0, "what is required stuck");
	is_int(unstuck(&why, cfg, "CONFIG_NUMA=y\nCONFIG_EXT4_FS=y\n", NULL, 0), 1,
	       "a required option that did not stick");
	is_str(why.buf, "options did not stick after olddefconfig: CONFIG_NUMA=y", "... named");
	is_int(unstuck(&why, cfg, "CONFIG_DEFERRED_STRUCT_PAGE_INIT=y\n",
		       (const char *const[]){ "# CONFIG_DEFERRED_STRUCT_PAGE_INIT is not set\n" }, 1),
	       0, "a fragment may turn a required option off");
	two[0] = server;
	two[1] = modular;
	is_int(unstuck(&why, cfg, "", two, 2), 0,
	       "a later fragment sets again what an earlier one set: the later one counts");
	two[0] = modular;
	two[1] = server;
	is_int(unstuck(&why, cfg, "", two, 2), 1, "the other way round, the later =y did not stick");
	is_str(why.buf, "options did not stick after olddefconfig: CONFIG_VIRTIO_BLK=y", "... named");
	is_int(unstuck(&why, cfg, "", (const char *const[]){ server }, 1), 1,
	       "one fragment: each of its lines must stick");
	strbuf_release(&why);

	ok(kconfig_builds("CONFIG_VIRTIO_BLK=y\nCONFIG_VIRTIO_NET=m\n", "VIRTIO_BLK") &&
	   kconfig_builds("CONFIG_VIRTIO_BLK=y\nCONFIG_VIRTIO_NET=m\n", "VIRTIO_NET"),
	   "=y and =m build an option");
	ok(!kconfig_builds("CONFIG_VIRTIO_BLK=y\n", "VIRTIO") &&
	   !kconfig_builds("CONFIG_VIRTIO=y\n", "VIRTIO_BLK"), "... that option, not one it begins");
	ok(!kconfig_builds("CONFIG_E1000E=y\n# CONFIG_E1000E is not set\n", "E1000E") &&
	   !kconfig_builds("CONFIG_E1000E=m\nCONFIG_E1000E=n\n", "E1000E") &&
	   kconfig_builds("# CONFIG_E1000E is not set\nCONFIG_E1000E=m", "E1000E"),
	   "the last line setting it counts, no newline at the end too");
	ok(!kconfig_builds("# CONFIG_E1000E=y\n", "E1000E") && !kconfig_builds("", "E1000E"),
	   "a comment, or no line, builds nothing");
	return done_testing();
}
