/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's edu PCI device, as the farm knows it: the IDs the farm's
 * drivers (sac_edu, sac_provoke, sac_fwload) bind and that the guest agent
 * (farm/guest, through agent.h) looks for on the PCI bus to find the edu
 * devices a workload booted with, and the DMA registers the drivers
 * program. One definition shared by the modules and the agent, so they
 * cannot disagree about which device is edu. Plain #defines: this file
 * is built both by kbuild (copied next to the module's sources) and as
 * userspace C; the drivers' shared code is in edu_dma.h.
 */
#ifndef SAC_EDU_H
#define SAC_EDU_H

#define EDU_VENDOR_ID	0x1234	/* QEMU's; not in 6.1's pci_ids.h */
#define EDU_DEVICE_ID	0x11e8

/* BAR0's DMA registers (QEMU docs/specs/edu.rst), for the farm's drivers */
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_DMA_RUN		0x1
#define EDU_DMA_TO_RAM		0x2	/* clear: RAM -> edu, set: edu -> RAM */

/* edu's internal DMA buffer, as seen from the DMA engine */
#define EDU_BUF_BASE		0x40000
#define EDU_BUF_SIZE		0x1000

#endif /* SAC_EDU_H */
