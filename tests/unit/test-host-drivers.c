/* The kernel options of the drivers lab target check names on a host. */
#include <stdio.h>
#include <string.h>

#include "host-drivers.h"
#include "tap.h"

static const char *first(const char *driver)
{
	const char *const *o = host_driver_options(driver);

	return o ? o[0] : "(none)";
}

/* Whether the fragment sets every option driver needs to y. */
static int fragment_builds(const char *fragment, const char *driver)
{
	const char *const *o = host_driver_options(driver);
	char line[256], want[128];
	int found = o != NULL;

	for (; found && *o; o++) {
		FILE *f = fopen(fragment, "r");

		found = 0;
		snprintf(want, sizeof(want), "CONFIG_%s=y\n", *o);
		while (f && !found && fgets(line, sizeof(line), f))
			found = !strcmp(line, want);
		if (f)
			fclose(f);
	}
	return found;
}

int main(void)
{
	static const char *const server[] = {
		"nvme", "ahci", "mpt3sas", "megaraid_sas", "smartpqi", "hisi_sas_v2_hw",
		"hisi_sas_v3_hw", "mlx5_core", "ixgbe", "ixgbevf", "i40e", "ice", "igb",
		"bnxt_en", "tg3", "hns3", "hns-nic", "hinic", "nicpf", "nicvf", "amd_xgbe",
		"ena", "gve", "virtio_net", "virtio_blk",
	};
	const char *const *o;
	char name[80];

	is_str(first("virtio_blk"), "VIRTIO_BLK", "a module's name");
	is_str(first("virtio-pci"), "VIRTIO_PCI", "a built-in driver's, '-' for '_'");
	is_str(first("nvme"), "BLK_DEV_NVME", "a name unlike its option's");
	is_str(first("pcieport"), "PCIEPORTBUS", "a bus's driver on the way to the device");
	o = host_driver_options("mlx5_core");
	ok(o && !strcmp(o[0], "MLX5_CORE") && !strcmp(o[1], "MLX5_CORE_EN") && !o[2],
	   "a NIC whose Ethernet part is an option of its own: both");
	o = host_driver_options("hisi_sas_v3_hw");
	ok(o && !strcmp(o[0], "SCSI_HISI_SAS") && !strcmp(o[1], "SCSI_HISI_SAS_PCI") && !o[2],
	   "HiSilicon's SAS on PCI: the PCI part and the main module it needs");
	o = host_driver_options("hns3");
	ok(o && !strcmp(o[0], "HNS3") && !strcmp(o[1], "HNS3_HCLGE") && !strcmp(o[2], "HNS3_ENET") &&
	   !o[3], "HiSilicon's NIC: its folder's option, its engine and the driver itself");
	/* the storage and NICs of common arm64 servers and clouds */
	is_str(first("hisi-sas-v2-hw"), "SCSI_HISI_SAS", "HiSilicon's older SAS, on the platform bus");
	is_str(first("hns-nic"), "HNS_DSAF", "HiSilicon's older NIC, its engine first");
	is_str(first("hinic"), "HINIC", "Huawei's NIC");
	is_str(first("ahci"), "SATA_AHCI", "AHCI");
	is_str(first("ixgbe"), "IXGBE", "Intel's 10G");
	is_str(first("ixgbevf"), "IXGBEVF", "its virtual function");
	is_str(first("i40e"), "I40E", "Intel's 40G");
	is_str(first("ice"), "ICE", "Intel's 100G");
	is_str(first("igb"), "IGB", "Intel's 1G");
	is_str(first("bnxt_en"), "BNXT", "Broadcom's NetXtreme-C/E");
	is_str(first("thunder_bgx"), "THUNDER_NIC_BGX", "Cavium ThunderX's interface block");
	is_str(first("ena"), "ENA_ETHERNET", "AWS's NIC");
	is_str(first("virtio_net"), "VIRTIO_NET", "virtio's NIC");
	is_str(first("virtio_scsi"), "SCSI_VIRTIO", "virtio's SCSI");
	is_str(first("qla2xxx"), "SCSI_QLA_FC", "a QLogic Fibre Channel HBA");
	is_str(first("lpfc"), "SCSI_LPFC", "an Emulex one");
	o = host_driver_options("nicvf");
	ok(o && !strcmp(o[0], "THUNDER_NIC_VF") && !strcmp(o[1], "THUNDER_NIC_PF") &&
	   !strcmp(o[2], "THUNDER_NIC_BGX") && !o[3],
	   "a ThunderX port: the VF, and the PF and BGX block under it");
	for (size_t i = 0; i < sizeof(server) / sizeof(server[0]); i++) {
		snprintf(name, sizeof(name), "the server fragment builds %s", server[i]);
		ok(fragment_builds("kernels/configs/arm64-server.config", server[i]), name);
	}
	ok(!fragment_builds("kernels/configs/arm64-server.config", "lpfc"),
	   "and leaves Fibre Channel to a fragment of your own");
	ok(!host_driver_options("virtio") && !host_driver_options("virtio_blk2") &&
	   !host_driver_options(""), "a name the table does not hold is unknown, not a prefix");
	return done_testing();
}
