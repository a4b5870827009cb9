/*
 * The runners by name, and what each says it can do: the plans branch on
 * these flags alone.
 */
#include "runner.h"
#include "tap.h"

static void test_flags(void)
{
	const struct runner *q = runner_find("qemu"), *v = runner_find("libvirt"),
			    *l = runner_find("local"), *s = runner_find("ssh");

	ok(q && v && l && s, "four runners by name");
	ok(!runner_find("lava") && !runner_find(""), "no runner of another name");
	if (!q || !v || !l || !s)
		return;
	is_int(q->flags, RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS, "qemu boots a kernel with the initramfs");
	is_int(v->flags, RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS, "libvirt as well");
	is_int(l->flags, RUNNER_THIS_HOST, "local runs on this host");
	is_int(s->flags, RUNNER_KEXECS_HOST, "ssh kexecs a host");
}

int main(void)
{
	test_flags();
	return done_testing();
}
