/*
 * Driver names to the kernel options that build them (host-drivers.h),
 * from the Makefiles of Linux 6.1 (obj-$(CONFIG_X) += name.o) and the
 * names sysfs gives built-in drivers. A driver whose folder is entered
 * by an option of its own (obj-$(CONFIG_HNS3) += hns3/), or that works
 * only with a module beside it (hisi_sas_main, hclge, ThunderX's nicpf and
 * bgx under a nicvf port), needs those too.
 */
#include <stddef.h>
#include <string.h>

#include "array.h"
#include "host-drivers.h"

struct driver_options {
	const char *name;
	const char *options[4];
};

static const struct driver_options table[] = {
	/* storage, and the buses on the way to it */
	{ "virtio_blk", { "VIRTIO_BLK" } },
	{ "virtio_scsi", { "SCSI_VIRTIO" } },
	{ "virtio_pci", { "VIRTIO_PCI" } },
	{ "virtio_mmio", { "VIRTIO_MMIO" } },
	{ "nvme", { "BLK_DEV_NVME" } },
	{ "ahci", { "SATA_AHCI" } },
	{ "ahci_platform", { "SATA_AHCI_PLATFORM" } },
	{ "ata_piix", { "ATA_PIIX" } },
	{ "sd", { "BLK_DEV_SD" } },
	{ "sd_mod", { "BLK_DEV_SD" } },
	{ "mpt3sas", { "SCSI_MPT3SAS" } },
	{ "megaraid_sas", { "MEGARAID_SAS" } },
	{ "smartpqi", { "SCSI_SMARTPQI" } },
	{ "hisi_sas_v1_hw", { "SCSI_HISI_SAS" } },
	{ "hisi_sas_v2_hw", { "SCSI_HISI_SAS" } },
	{ "hisi_sas_v3_hw", { "SCSI_HISI_SAS", "SCSI_HISI_SAS_PCI" } },
	{ "qla2xxx", { "SCSI_QLA_FC" } },
	{ "lpfc", { "SCSI_LPFC" } },
	{ "hpsa", { "SCSI_HPSA" } },
	{ "mmc_block", { "MMC_BLOCK" } },
	{ "xen_blkfront", { "XEN_BLKDEV_FRONTEND" } },
	{ "hv_storvsc", { "HYPERV_STORAGE" } },
	{ "pcieport", { "PCIEPORTBUS" } },
	/* network */
	{ "virtio_net", { "VIRTIO_NET" } },
	{ "e1000", { "E1000" } },
	{ "e1000e", { "E1000E" } },
	{ "igb", { "IGB" } },
	{ "igc", { "IGC" } },
	{ "ixgbe", { "IXGBE" } },
	{ "ixgbevf", { "IXGBEVF" } },
	{ "i40e", { "I40E" } },
	{ "ice", { "ICE" } },
	{ "iavf", { "IAVF" } },
	{ "mlx4_core", { "MLX4_CORE", "MLX4_EN" } },
	{ "mlx5_core", { "MLX5_CORE", "MLX5_CORE_EN" } },
	{ "bnxt_en", { "BNXT" } },
	{ "tg3", { "TIGON3" } },
	/* hns3 drives the PCI function, hclge (its engine) makes it a NIC */
	{ "hns3", { "HNS3", "HNS3_HCLGE", "HNS3_ENET" } },
	{ "hclge", { "HNS3", "HNS3_HCLGE" } },
	{ "hns-nic", { "HNS_DSAF", "HNS_ENET" } },
	{ "hinic", { "HINIC" } },
	/* ThunderX's ports are VFs (nicvf) on a PF that drives the BGX block */
	{ "nicpf", { "THUNDER_NIC_PF", "THUNDER_NIC_BGX" } },
	{ "nicvf", { "THUNDER_NIC_VF", "THUNDER_NIC_PF", "THUNDER_NIC_BGX" } },
	{ "thunder_bgx", { "THUNDER_NIC_BGX" } },
	{ "amd_xgbe", { "AMD_XGBE" } },
	{ "xgene_enet", { "NET_XGENE" } },
	{ "r8169", { "R8169" } },
	{ "qede", { "QEDE" } },
	{ "sfc", { "SFC" } },
	{ "atlantic", { "AQTION" } },
	{ "ena", { "ENA_ETHERNET" } },
	{ "gve", { "GVE" } },
	{ "vmxnet3", { "VMXNET3" } },
	{ "hv_netvsc", { "HYPERV_NET" } },
	{ "xen_netfront", { "XEN_NETDEV_FRONTEND" } },
};

static int same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(strchr("-_", *a) && strchr("-_", *b)))
			return 0;
	return !*a && !*b;
}

const char *const *host_driver_options(const char *driver)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (same_name(table[i].name, driver))
			return table[i].options;
	return NULL;
}
