/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The farm drivers' side of QEMU's edu device (sac_edu, sac_fwload):
 * bringing the device up with the DMA mask the driver believes in, and
 * one polled transfer of its DMA engine. Static inlines, so each module
 * built from this directory carries its own copy and no module depends
 * on another.
 */
#ifndef SAC_EDU_DMA_H
#define SAC_EDU_DMA_H

#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/pci.h>

#include "edu.h"

/* edu starts a transfer 100 ms (virtual) after the command; TCG is slow */
#define EDU_DMA_POLL_US		1000
#define EDU_DMA_TIMEOUT_US	(3 * USEC_PER_SEC)

/*
 * Enable the device, map its registers into *regs and set the DMA mask
 * to dma_bits: where a driver believes, or not, its data sheet.
 */
static inline int edu_dma_setup(struct pci_dev *pdev, unsigned int dma_bits,
				void __iomem **regs)
{
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;

	*regs = pcim_iomap_table(pdev)[0];
	pci_set_master(pdev);

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(dma_bits));
	if (ret)
		dev_err(&pdev->dev, "no usable %u-bit DMA mask\n", dma_bits);
	return ret;
}

/* Whether the engine is (or within the timeout goes) idle. */
static inline bool edu_dma_idle(void __iomem *regs)
{
	u32 val;

	return !readl_poll_timeout(regs + EDU_REG_DMA_CMD, val,
				   !(val & EDU_DMA_RUN), EDU_DMA_POLL_US,
				   EDU_DMA_TIMEOUT_US);
}

/* Program one transfer and poll for it; edu raises no interrupt unasked. */
static inline int edu_dma_run(void __iomem *regs, u64 src, u64 dst, u32 size,
			      u32 cmd)
{
	/* edu decodes only full 64-bit accesses at these offsets */
	writeq(src, regs + EDU_REG_DMA_SRC);
	writeq(dst, regs + EDU_REG_DMA_DST);
	writeq(size, regs + EDU_REG_DMA_CNT);
	writel(cmd | EDU_DMA_RUN, regs + EDU_REG_DMA_CMD);
	return edu_dma_idle(regs) ? 0 : -ETIMEDOUT;
}

#endif /* SAC_EDU_DMA_H */
