/* The kernel options of the drivers lab target check names on a host. */
#include <string.h>

#include "host-drivers.h"
#include "tap.h"

static const char *first(const char *driver)
{
	const char *const *o = host_driver_options(driver);

	return o ? o[0] : "(none)";
}

int main(void)
{
	const char *const *o;

	is_str(first("virtio_blk"), "VIRTIO_BLK", "a module's name");
	is_str(first("virtio-pci"), "VIRTIO_PCI", "a built-in driver's, '-' for '_'");
	is_str(first("nvme"), "BLK_DEV_NVME", "a name unlike its option's");
	is_str(first("pcieport"), "PCIEPORTBUS", "a bus's driver on the way to the device");
	o = host_driver_options("mlx5_core");
	ok(o && !strcmp(o[0], "MLX5_CORE") && !strcmp(o[1], "MLX5_CORE_EN") && !o[2],
	   "a NIC whose Ethernet part is an option of its own: both");
	ok(!host_driver_options("virtio") && !host_driver_options("virtio_blk2") &&
	   !host_driver_options(""), "a name the table does not hold is unknown, not a prefix");
	return done_testing();
}
