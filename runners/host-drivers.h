#ifndef HOST_DRIVERS_H
#define HOST_DRIVERS_H
/*
 * The kernel options that build a driver a host runs its root disk or its
 * network on, by the name lab target check gives it (a module's, or a
 * built-in driver's as sysfs names it: virtio_blk, virtio-pci, nvme,
 * mlx5_core), so that the check can say which of them a kernel built from
 * given config fragments would lack. The table holds the storage and
 * network drivers of common servers and virtual machines, with the bus
 * drivers on their way (pcieport); a name it does not hold is unknown,
 * never taken as built. Each option is named without CONFIG_.
 */

/*
 * The options driver needs, all of them (mlx5_core's Ethernet part is an
 * option of its own), NULL-terminated; NULL when the table does not know
 * driver. '-' and '_' are the same in a name, as for modprobe.
 */
const char *const *host_driver_options(const char *driver);

#endif
