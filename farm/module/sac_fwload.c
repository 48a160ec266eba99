// SPDX-License-Identifier: GPL-2.0
/*
 * sac_fwload: QEMU's edu PCI device (1234:11e8) driven like a GPU whose
 * driver loads firmware at probe, the shape of the 2022 amdgpu boot hang.
 *
 * The farm boots edu with dma_mask=0xffffffff: the device decodes only 32
 * address bits and silently truncates wider ones. This driver, like one
 * written from a wrong data sheet, claims dma_bits=64. With the PCI SAC
 * trick the IOMMU still hands the device IOVAs below 4 GiB, so the lie
 * never shows: the firmware goes RAM -> edu -> RAM intact, its checksum
 * matches, the device "accepts" it and /dev/sac-fw0 appears. Without the
 * trick the IOVAs sit above 4 GiB, the device truncates them, the IOMMU
 * faults or the data lands elsewhere, the checksum is wrong and the
 * firmware is "rejected". Probe retries like real firmware loaders do,
 * then gives up and leaves the device unbound; whatever waits for
 * /dev/sac-fw0 (a systemd unit, as a display manager waits for the GPU)
 * waits for good.
 *
 * The driver is bound by modalias (udev autoloads it); the outcome is in
 * the kernel log and, when the firmware was accepted, in the PCI device's
 * fw_status attribute and in what /dev/sac-fwN reads back.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "edu_dma.h"

/*
 * The blob lives in an EDU_BUF_SIZE buffer but stops short of its end:
 * QEMU 7.2's edu range check is off by one and hw_error()s, killing the
 * VM, on a transfer that ends exactly at EDU_BUF_BASE + EDU_BUF_SIZE.
 */
#define SAC_FW_LEN		(EDU_BUF_SIZE - 64)

#define SAC_FW_LINE_LEN		128
#define SAC_FW_NAME_LEN		20	/* "sac-fw" and any int */
#define SAC_FW_MAX_TRIES	100
#define SAC_FW_MAX_RETRY_MS	60000

static unsigned int dma_bits = 64;
module_param(dma_bits, uint, 0444);
MODULE_PARM_DESC(dma_bits, "DMA mask width the driver claims, 24..64 (64 = the lie, 32 = honest)");

static unsigned int fw_tries = 5;
module_param(fw_tries, uint, 0444);
MODULE_PARM_DESC(fw_tries, "firmware load attempts before probe gives up, 1..100");

static unsigned int fw_retry_ms = 500;
module_param(fw_retry_ms, uint, 0444);
MODULE_PARM_DESC(fw_retry_ms, "pause between firmware load attempts in ms, 0..60000");

static DEFINE_IDA(sac_fw_ida);

struct sac_fw {
	struct pci_dev *pdev;
	void __iomem *regs;
	unsigned int dma_bits;
	unsigned int tries;
	u8 *blob;		/* the firmware, as the CPU wrote it */
	u8 *readback;		/* the firmware, as the device returned it */
	bool busy;		/* a transfer never finished: keep the buffers */
	unsigned int accepted_try;
	dma_addr_t blob_dma;	/* of the accepted attempt */
	dma_addr_t readback_dma;
	int id;
	char name[SAC_FW_NAME_LEN];
	struct miscdevice misc;
};

/* One load attempt: fresh mappings, fresh pattern */
struct sac_fw_try {
	unsigned int nr;	/* 1-based */
	dma_addr_t blob_dma;
	dma_addr_t readback_dma;
	u32 want;		/* checksum of the blob */
	u32 got;		/* checksum of what came back */
};

/* Seeded per attempt, so a stale buffer from an earlier one never passes */
static u8 sac_fw_pattern(u32 seed, size_t i)
{
	u32 x = seed ^ ((u32)i * 0x9e3779b1);

	x ^= x >> 15;
	x *= 0x2c1b3c6d;
	x ^= x >> 12;
	return x & 0xff;
}

static u32 sac_fw_checksum(const u8 *buf)
{
	return crc32_le(~0, buf, SAC_FW_LEN);
}

static int sac_fw_dma(struct sac_fw *fw, u64 src, u64 dst, u32 cmd)
{
	return edu_dma_run(fw->regs, src, dst, SAC_FW_LEN, cmd);
}

static void sac_fw_prepare(struct sac_fw *fw, struct sac_fw_try *t)
{
	u32 seed = t->nr * 0x85ebca6b;
	size_t i;

	for (i = 0; i < SAC_FW_LEN; i++)
		fw->blob[i] = sac_fw_pattern(seed, i);
	/* Zeroed, so bytes the device never wrote count against it */
	memset(fw->readback, 0, SAC_FW_LEN);
	t->want = sac_fw_checksum(fw->blob);
}

static int sac_fw_map(struct sac_fw *fw, struct sac_fw_try *t)
{
	struct device *dev = &fw->pdev->dev;

	t->blob_dma = dma_map_single(dev, fw->blob, SAC_FW_LEN, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, t->blob_dma))
		return -ENOMEM;

	t->readback_dma = dma_map_single(dev, fw->readback, SAC_FW_LEN,
					 DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, t->readback_dma)) {
		dma_unmap_single(dev, t->blob_dma, SAC_FW_LEN, DMA_TO_DEVICE);
		return -ENOMEM;
	}
	return 0;
}

static void sac_fw_unmap(struct sac_fw *fw, struct sac_fw_try *t)
{
	struct device *dev = &fw->pdev->dev;

	dma_unmap_single(dev, t->readback_dma, SAC_FW_LEN, DMA_FROM_DEVICE);
	dma_unmap_single(dev, t->blob_dma, SAC_FW_LEN, DMA_TO_DEVICE);
}

/* RAM -> edu's buffer, then back into the read-back buffer */
static int sac_fw_transfer(struct sac_fw *fw, struct sac_fw_try *t)
{
	int ret;

	ret = sac_fw_dma(fw, t->blob_dma, EDU_BUF_BASE, 0);
	if (ret)
		return ret;
	return sac_fw_dma(fw, EDU_BUF_BASE, t->readback_dma, EDU_DMA_TO_RAM);
}

/* A late transfer may still land: unmap only once the engine is idle */
static int sac_fw_timed_out(struct sac_fw *fw, struct sac_fw_try *t)
{
	struct device *dev = &fw->pdev->dev;

	if (!edu_dma_idle(fw->regs)) {
		fw->busy = true;
		dev_err(dev, "DMA engine stuck (try %u/%u): dma %pad, leaking the firmware buffers\n",
			t->nr, fw->tries, &t->blob_dma);
		return -EBUSY;
	}
	sac_fw_unmap(fw, t);
	dev_warn(dev, "firmware DMA timed out (try %u/%u): dma %pad\n",
		 t->nr, fw->tries, &t->blob_dma);
	return -EAGAIN;
}

/*
 * 0: accepted. -EBADMSG or -EAGAIN: this attempt failed, another may not.
 * -ENOMEM or -EBUSY: retrying cannot help.
 */
static int sac_fw_attempt(struct sac_fw *fw, struct sac_fw_try *t)
{
	struct device *dev = &fw->pdev->dev;
	int ret;

	sac_fw_prepare(fw, t);
	ret = sac_fw_map(fw, t);
	if (ret) {
		dev_err(dev, "mapping the firmware buffers failed (try %u/%u)\n",
			t->nr, fw->tries);
		return ret;
	}

	ret = sac_fw_transfer(fw, t);
	if (ret)
		return sac_fw_timed_out(fw, t);

	dma_sync_single_for_cpu(dev, t->readback_dma, SAC_FW_LEN,
				DMA_FROM_DEVICE);
	t->got = sac_fw_checksum(fw->readback);
	sac_fw_unmap(fw, t);

	if (t->got != t->want) {
		dev_warn(dev, "firmware rejected (try %u/%u): dma %pad checksum 0x%08x != 0x%08x (readback dma %pad)\n",
			 t->nr, fw->tries, &t->blob_dma, t->got, t->want,
			 &t->readback_dma);
		return -EBADMSG;
	}
	return 0;
}

static void sac_fw_accepted(struct sac_fw *fw, const struct sac_fw_try *t)
{
	fw->accepted_try = t->nr;
	fw->blob_dma = t->blob_dma;
	fw->readback_dma = t->readback_dma;
	dev_info(&fw->pdev->dev, "firmware accepted (try %u/%u) at dma %pad\n",
		 t->nr, fw->tries, &t->blob_dma);
}

static int sac_fw_load(struct sac_fw *fw)
{
	struct sac_fw_try t = { };
	int ret;

	for (t.nr = 1; ; t.nr++) {
		ret = sac_fw_attempt(fw, &t);
		if (!ret) {
			sac_fw_accepted(fw, &t);
			return 0;
		}
		if (ret == -ENOMEM)
			return ret;
		if (ret == -EBUSY || t.nr >= fw->tries)
			break;
		msleep(fw_retry_ms);
	}

	dev_err(&fw->pdev->dev, "firmware load failed after %u tries, giving up\n",
		t.nr);
	return -ETIMEDOUT;
}

static int sac_fw_alloc_buffers(struct sac_fw *fw)
{
	/* Not devm: after a wedged transfer they must outlive a failed probe */
	fw->blob = kmalloc(EDU_BUF_SIZE, GFP_KERNEL);
	fw->readback = kmalloc(EDU_BUF_SIZE, GFP_KERNEL);
	if (fw->blob && fw->readback)
		return 0;

	kfree(fw->readback);
	kfree(fw->blob);
	return -ENOMEM;
}

/* Once the load is over the device has no business with them */
static void sac_fw_free_buffers(struct sac_fw *fw)
{
	if (fw->busy)
		return;
	kfree(fw->readback);
	kfree(fw->blob);
	fw->readback = NULL;
	fw->blob = NULL;
}

static int sac_fw_load_firmware(struct sac_fw *fw)
{
	int ret;

	ret = sac_fw_alloc_buffers(fw);
	if (ret)
		return ret;

	ret = sac_fw_load(fw);
	sac_fw_free_buffers(fw);
	return ret;
}

/* The status line, without its newline; returns its length */
static int sac_fw_format(const struct sac_fw *fw, char *buf, size_t len)
{
	return scnprintf(buf, len,
			 "accepted try=%u tries=%u dma=%pad readback_dma=%pad dma_bits=%u",
			 fw->accepted_try, fw->tries, &fw->blob_dma,
			 &fw->readback_dma, fw->dma_bits);
}

static ssize_t fw_status_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	char line[SAC_FW_LINE_LEN];

	sac_fw_format(dev_get_drvdata(dev), line, sizeof(line));
	return sysfs_emit(buf, "%s\n", line);
}
static DEVICE_ATTR_RO(fw_status);

static struct attribute *sac_fw_attrs[] = {
	&dev_attr_fw_status.attr,
	NULL
};
ATTRIBUTE_GROUPS(sac_fw);

/*
 * misc_open() calls this under misc_mtx, which misc_deregister() takes
 * too, so fw is alive here; later reads use the copy, which outlives it.
 */
static int sac_fw_open(struct inode *inode, struct file *file)
{
	struct sac_fw *fw = container_of(file->private_data, struct sac_fw,
					 misc);
	char *line;
	int n;

	line = kzalloc(SAC_FW_LINE_LEN, GFP_KERNEL);
	if (!line)
		return -ENOMEM;

	/* Room is left for the newline; kzalloc() provides the NUL */
	n = sac_fw_format(fw, line, SAC_FW_LINE_LEN - 1);
	line[n] = '\n';
	file->private_data = line;
	return 0;
}

static ssize_t sac_fw_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	const char *line = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, line, strlen(line));
}

static int sac_fw_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations sac_fw_fops = {
	.owner		= THIS_MODULE,
	.open		= sac_fw_open,
	.read		= sac_fw_read,
	.release	= sac_fw_release,
	.llseek		= default_llseek,
};

/* The node userspace waits for: it exists only for accepted firmware */
static int sac_fw_publish(struct sac_fw *fw)
{
	int ret;

	fw->id = ida_alloc(&sac_fw_ida, GFP_KERNEL);
	if (fw->id < 0)
		return fw->id;

	snprintf(fw->name, sizeof(fw->name), "sac-fw%d", fw->id);
	fw->misc.minor = MISC_DYNAMIC_MINOR;
	fw->misc.name = fw->name;
	fw->misc.fops = &sac_fw_fops;
	fw->misc.parent = &fw->pdev->dev;

	ret = misc_register(&fw->misc);
	if (ret)
		goto err_free_id;
	return 0;

err_free_id:
	ida_free(&sac_fw_ida, fw->id);
	return ret;
}

static int sac_fw_setup_device(struct pci_dev *pdev, struct sac_fw *fw)
{
	/* This is where the driver believes the wrong data sheet */
	int ret = edu_dma_setup(pdev, fw->dma_bits, &fw->regs);

	if (ret)
		return ret;

	/* A transfer left running by a previous driver would eat ours */
	if (!edu_dma_idle(fw->regs)) {
		dev_err(&pdev->dev, "DMA engine busy before the firmware load\n");
		return -EBUSY;
	}
	return 0;
}

static int sac_fw_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct sac_fw *fw;
	int ret;

	fw = devm_kzalloc(&pdev->dev, sizeof(*fw), GFP_KERNEL);
	if (!fw)
		return -ENOMEM;

	fw->pdev = pdev;
	fw->dma_bits = dma_bits;
	fw->tries = fw_tries;

	ret = sac_fw_setup_device(pdev, fw);
	if (ret)
		return ret;

	ret = sac_fw_load_firmware(fw);
	if (ret)
		return ret;

	pci_set_drvdata(pdev, fw);
	return sac_fw_publish(fw);
}

/*
 * The buffers went at the end of probe, once every transfer had finished;
 * nothing the device could still write to is left to free here.
 */
static void sac_fw_remove(struct pci_dev *pdev)
{
	struct sac_fw *fw = pci_get_drvdata(pdev);

	misc_deregister(&fw->misc);
	ida_free(&sac_fw_ida, fw->id);
}

static const struct pci_device_id sac_fw_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR_ID, EDU_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, sac_fw_ids);

static struct pci_driver sac_fw_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= sac_fw_ids,
	.probe		= sac_fw_probe,
	.remove		= sac_fw_remove,
	.dev_groups	= sac_fw_groups,
};

static int __init sac_fw_check_params(void)
{
	if (dma_bits < 24 || dma_bits > 64) {
		pr_err("dma_bits=%u: must be 24..64\n", dma_bits);
		return -EINVAL;
	}
	if (fw_tries < 1 || fw_tries > SAC_FW_MAX_TRIES) {
		pr_err("fw_tries=%u: must be 1..%u\n", fw_tries,
		       SAC_FW_MAX_TRIES);
		return -EINVAL;
	}
	if (fw_retry_ms > SAC_FW_MAX_RETRY_MS) {
		pr_err("fw_retry_ms=%u: must be 0..%u\n", fw_retry_ms,
		       SAC_FW_MAX_RETRY_MS);
		return -EINVAL;
	}
	return 0;
}

static int __init sac_fw_init(void)
{
	int ret;

	ret = sac_fw_check_params();
	if (ret)
		return ret;
	return pci_register_driver(&sac_fw_driver);
}
module_init(sac_fw_init);

static void __exit sac_fw_exit(void)
{
	pci_unregister_driver(&sac_fw_driver);
	ida_destroy(&sac_fw_ida);
}
module_exit(sac_fw_exit);

MODULE_DESCRIPTION("QEMU edu device as a GPU whose firmware load needs 32-bit DMA");
MODULE_LICENSE("GPL");
