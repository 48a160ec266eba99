// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads "edu-pressure" and "edu-pressure-group": the lying edu device
 * (decodes 32 address bits, its driver claims 64) once the 32-bit IOVA
 * space of its IOMMU domain is exhausted. A lying device is safe under a
 * try-32-bit-first choice only while that space has room; here it has
 * none, filled through the device's own mappings (edu-pressure) or
 * through pci-testdev, a busy sibling in the same IOMMU group as the
 * other function of edu's slot (edu-pressure-group). The kernel's choice is
 * the cell's variant (farm/workloads.json): the flavour's global mode,
 * adaptive, the device listed as sac, or a strict 32-bit limit.
 *
 * The edu test itself is wl-edu.c's, with sac_edu's fill=. This side adds
 * what the kernel decided for the device: its iommu_dma_sac/ policy and
 * tripped flag (patches 0003, 0005), and the adaptive notice lines
 * ("Using N-bit DMA addresses") naming it in the kernel log, counted and
 * the first one kept. The classifier quotes the notice in the cell's
 * reason from the console.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "workloads.h"

#define PRESSURE_NOTICE		"-bit DMA addresses"
#define PRESSURE_BDF_MAX	32

struct pressure_notices {
	const char *bdf;
	unsigned int found;
	char first[256];
};

static void pressure_notice(const char *rec, void *arg)
{
	struct pressure_notices *pn = arg;
	const char *msg = strchr(rec, ';');

	if (!msg || !strstr(msg, pn->bdf) || !strstr(msg, "Using ") ||
	    !strstr(msg, PRESSURE_NOTICE))
		return;
	if (!pn->found++)
		snprintf(pn->first, sizeof(pn->first), "%.*s",
			 (int)strcspn(msg + 1, "\n"), msg + 1);
}

/*
 * What the kernel decided for edu, as details and metrics. A kernel
 * without the series (a stock one) has no iommu_dma_sac/: its notices
 * are all there is.
 */
static void pressure_report(struct sac_result *r, const char *bdf)
{
	struct pressure_notices pn = { .bdf = bdf };
	char policy[32], tripped[8];

	if (!sac_pci_attr(bdf, "iommu_dma_sac/policy", policy, sizeof(policy)) &&
	    !sac_pci_attr(bdf, "iommu_dma_sac/tripped", tripped,
			  sizeof(tripped))) {
		sac_detail(r, "sac", "%s policy=%s tripped=%s", bdf, policy,
			   tripped);
		sac_metric(r, "tripped", !strcmp(tripped, "1"));
	} else {
		sac_detail(r, "sac", "%s has no iommu_dma_sac/", bdf);
	}
	sac_kmsg_each(pressure_notice, &pn);
	sac_metric(r, "notices", pn.found);
	if (pn.found)
		sac_detail(r, "notice", "%s", pn.first);
}

static void pressure_run(struct sac_result *r, unsigned int fill)
{
	char bdf[PRESSURE_BDF_MAX];

	sac_edu_run(r, 64, fill);
	if (r->status == SAC_SKIP || !sac_edu_find(bdf, sizeof(bdf)))
		return;
	pressure_report(r, bdf);
}

void wl_edu_pressure(struct sac_result *r)
{
	pressure_run(r, SAC_EDU_FILL_SELF);
}

void wl_edu_pressure_group(struct sac_result *r)
{
	pressure_run(r, SAC_EDU_FILL_GROUP);
}
