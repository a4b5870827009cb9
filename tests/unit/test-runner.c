/*
 * The runners by name, what each says it can do (the plans branch on
 * these flags alone), and where each says a target's boots run.
 */
#include "runner-list.h"
#include "runner.h"
#include "ssh.h"
#include "tap.h"

static void test_flags(void)
{
	const struct runner *q = runner_find("qemu"), *v = runner_find("libvirt"),
			    *l = runner_find("local"), *s = runner_find("ssh"),
			    *a = runner_find("lava");

	ok(q && v && l && s && a, "five runners by name");
	ok(!runner_find("lxc") && !runner_find(""), "no runner of another name");
	if (!q || !v || !l || !s || !a)
		return;
	is_int(a->flags, RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS,
	       "lava boots a kernel with the initramfs, in a farm's device");
	is_int(q->flags, RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS | RUNNER_RUNS_QEMU,
	       "qemu boots a kernel with the initramfs, in a QEMU of this host");
	is_int(v->flags, RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS, "libvirt as well");
	is_int(l->flags, RUNNER_THIS_HOST, "local runs on this host");
	is_int(s->flags, RUNNER_KEXECS_HOST, "ssh kexecs a host");
}

static void test_where(void)
{
	struct ssh_config c = { .host = "root@arm", .port = "2222" };
	struct run_spec spec = { .qemu = "/usr/bin/qemu-system-x86_64", .accel = "tcg",
				 .libvirt_uri = "qemu+ssh://h/system", .ssh = &c };
	struct strbuf sb = STRBUF_INIT;

	runner_where(runner_find("qemu"), &spec, &sb);
	is_str(sb.buf, "/usr/bin/qemu-system-x86_64, accel tcg", "qemu: its binary and accelerator");
	strbuf_reset(&sb);
	runner_where(runner_find("libvirt"), &spec, &sb);
	is_str(sb.buf, "qemu+ssh://h/system", "libvirt: its connection");
	strbuf_reset(&sb);
	runner_where(runner_find("ssh"), &spec, &sb);
	is_str(sb.buf, "root@arm:2222", "ssh: its host and port");
	strbuf_reset(&sb);
	c.host = NULL;
	c.port = NULL;
	runner_where(runner_find("ssh"), &spec, &sb);
	is_str(sb.buf, "(no host)", "ssh without a host");
	strbuf_reset(&sb);
	runner_where(runner_find("local"), &spec, &sb);
	is_str(sb.buf, "this machine", "local: this machine");
	strbuf_reset(&sb);
	runner_where(NULL, &spec, &sb);
	is_str(sb.buf, "this machine", "no runner: this machine, as lab target list said");
	strbuf_release(&sb);
}

int main(void)
{
	test_flags();
	test_where();
	return done_testing();
}
