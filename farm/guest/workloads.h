/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload table. Adding a workload: write farm/guest/wl-NAME.c with a
 * function taking a struct sac_result, declare it here and add one line
 * to the table in workloads.c. guest.mk builds every wl-*.c.
 */
#ifndef SAC_WORKLOADS_H
#define SAC_WORKLOADS_H

#include "agent.h"

struct sac_workload {
	const char *name;
	/* Runs in a child process; fills r. r->status starts as pass. */
	void (*run)(struct sac_result *r);
};

extern const struct sac_workload sac_workloads[];
extern const size_t sac_nworkloads;

void wl_boot(struct sac_result *r);	/* wl-basic.c */
void wl_blk(struct sac_result *r);	/* wl-blk.c */
void wl_nvme(struct sac_result *r);	/* wl-blk.c */
void wl_root_blk(struct sac_result *r);	/* wl-blk.c */
void wl_installed_boot(struct sac_result *r);	/* wl-installed.c */
void wl_installed_fw(struct sac_result *r);	/* wl-installed.c */
void wl_net(struct sac_result *r);	/* wl-net.c */
void wl_iova(struct sac_result *r);	/* wl-iova.c */
void wl_provoke(struct sac_result *r);	/* wl-provoke.c */
void wl_edu_lying(struct sac_result *r);	/* wl-edu.c */
void wl_edu_honest(struct sac_result *r);	/* wl-edu.c */
void wl_edu_listed(struct sac_result *r);	/* wl-sacpol.c */
void wl_edu_declared(struct sac_result *r);	/* wl-sacpol.c */
void wl_sac_list_bad(struct sac_result *r);	/* wl-sacpol.c */
void wl_sac_race(struct sac_result *r);	/* wl-sacpol.c */
void wl_edu_pressure(struct sac_result *r);	/* wl-pressure.c */
void wl_edu_pressure_group(struct sac_result *r);	/* wl-pressure.c */

/* QEMU's pci-testdev: a second device for a workload to bind to pci-stub */
#define SAC_TESTDEV_VENDOR	0x1b36
#define SAC_TESTDEV_DEVICE	0x0005

/* wl-edu.c: the edu DMA test, for the workloads built on it */
#define SAC_EDU_DECLARE_DAC	0x1	/* the driver vouches for its mask */
#define SAC_EDU_STAY_BOUND	0x2	/* leave the driver bound afterwards */
/* exhaust the 32-bit IOVA space first: through edu's own mappings... */
#define SAC_EDU_FILL_SELF	0x4
/* ...or through pci-testdev in edu's IOMMU group, bound to pci-stub */
#define SAC_EDU_FILL_GROUP	0x8
void sac_edu_run(struct sac_result *r, unsigned int dma_bits,
		 unsigned int flags);
void sac_edu_unload(void);
/* The unbound edu device with the lowest PCI address, into bdf. */
bool sac_edu_find(char *bdf, size_t cap);

#endif /* SAC_WORKLOADS_H */
