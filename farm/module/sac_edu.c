// SPDX-License-Identifier: GPL-2.0
/*
 * sac_edu: a driver for QEMU's "edu" PCI device (1234:11e8) that plays
 * "the lying device".
 *
 * QEMU's edu device can only drive as many DMA address bits as its
 * dma_mask property says (the farm boots it with dma_mask=0xffffffff, a
 * 32-bit device) and silently clamps anything wider. A driver whose author
 * trusted a wrong data sheet claims 64 bits (dma_bits=64): it works only
 * while the IOMMU layer keeps handing PCI devices 32-bit IOVAs (the "PCI
 * SAC trick", CONFIG_IOMMU_DMA_PCI_SAC=y). The honest driver (dma_bits=32)
 * works either way.
 *
 * At probe the driver maps a working set of streaming buffers plus one
 * coherent buffer each way, bounces a few patterns RAM -> edu -> RAM through
 * them, verifies every byte and publishes what happened in
 * /sys/kernel/debug/sac_edu/<pci-name>/report as key=value lines. Probe
 * succeeds whatever the data looks like: the report is the product.
 * bdf= limits the driver to one device, leaving any other edu alone.
 *
 * declare_dac=1 makes the driver vouch for its mask the way a driver for
 * known-good hardware would (iommu_dma_declare_dac_capable(), patch 0002
 * of our series); the farm boots edu with a 64-bit dma_mask for that.
 *
 * fill= puts the device under pressure first: it exhausts the 32-bit IOVA
 * space of the device's IOMMU domain, through the device's own mappings
 * (fill=self) or through another device in its IOMMU group (fill=<PCI
 * address>, bound to any driver, e.g. pci-stub), and keeps those mappings
 * until the driver goes. Every try-32-bit-first policy then falls back
 * above 4 GiB, where a lying device truncates; a strict per-device limit
 * (iommu.sac_devices=...:bits=32) makes the mapping fail instead, which
 * the report records as map_failed=1 with no transfer run.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/iopoll.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "edu_dma.h"

#define SAC_EDU_MIN_BUFS	8
#define SAC_EDU_MAX_BUFS	16384
#define SAC_EDU_COHERENT_SIZE	SZ_4K
#define SAC_EDU_LINE_LEN	320

/* The fill: one 2 MiB buffer mapped over and over, then single pages */
#define SAC_EDU_FILL_ORDER	9
#define SAC_EDU_FILL_CHUNKS	(SZ_4G >> (PAGE_SHIFT + SAC_EDU_FILL_ORDER))
#define SAC_EDU_FILL_PLUGS	BIT(17)

static unsigned int dma_bits = 64;
module_param(dma_bits, uint, 0444);
MODULE_PARM_DESC(dma_bits, "DMA mask width the driver claims (64 = the lie, 32 = honest)");

static unsigned int buffers = 64;
module_param(buffers, uint, 0444);
MODULE_PARM_DESC(buffers, "streaming buffers kept mapped at once (working set)");

static bool corrupt;
module_param(corrupt, bool, 0444);
MODULE_PARM_DESC(corrupt, "test hook: flip one received byte before verifying");

static bool declare_dac;
module_param(declare_dac, bool, 0444);
MODULE_PARM_DESC(declare_dac, "declare the device able to use its whole DMA mask (needs the per-device SAC policy patch)");

static char *bdf;
module_param(bdf, charp, 0444);
MODULE_PARM_DESC(bdf, "bind only the edu device at this PCI address (default: every one)");

static char *fill;
module_param(fill, charp, 0444);
MODULE_PARM_DESC(fill, "exhaust the 32-bit IOVA space first: \"self\", or the PCI address of another device in the IOMMU group");

static struct dentry *sac_edu_root;

enum sac_edu_kind {
	SAC_EDU_STREAM,		/* streaming buffer -> streaming buffer */
	SAC_EDU_COHERENT,	/* coherent buffer -> coherent buffer */
	SAC_EDU_MIXED,		/* streaming buffer -> coherent buffer */
};

static const char * const sac_edu_kind_name[] = {
	[SAC_EDU_STREAM]	= "stream",
	[SAC_EDU_COHERENT]	= "coherent",
	[SAC_EDU_MIXED]		= "mixed",
};

struct sac_edu_plan {
	enum sac_edu_kind kind;
	u32 size;
	u32 dev_off;	/* offset into edu's buffer */
};

/*
 * Every transfer ends strictly before the end of edu's buffer: QEMU 7.2's
 * range check is off by one and hw_error()s on a transfer that ends exactly
 * at EDU_BUF_BASE + EDU_BUF_SIZE, taking the whole VM down.
 */
static const struct sac_edu_plan sac_edu_plan[] = {
	{ SAC_EDU_STREAM,	64,	0x000 },
	{ SAC_EDU_STREAM,	512,	0x100 },
	{ SAC_EDU_STREAM,	2048,	0x600 },
	{ SAC_EDU_STREAM,	4000,	0x008 },
	{ SAC_EDU_COHERENT,	2048,	0x400 },
	{ SAC_EDU_MIXED,	1000,	0xc00 },
};

#define SAC_EDU_NR_XFERS	ARRAY_SIZE(sac_edu_plan)

struct sac_edu_buf {
	void *cpu;
	dma_addr_t iova;
	struct page *page;	/* NULL for a coherent buffer */
};

enum sac_edu_status {
	SAC_EDU_OK,
	SAC_EDU_WRONG,
	SAC_EDU_TIMEOUT,
};

static const char * const sac_edu_status_name[] = {
	[SAC_EDU_OK]		= "ok",
	[SAC_EDU_WRONG]		= "wrong",
	[SAC_EDU_TIMEOUT]	= "timeout",
};

struct sac_edu_xfer {
	const struct sac_edu_plan *plan;
	dma_addr_t src_iova;
	dma_addr_t dst_iova;
	enum sac_edu_status status;
	u32 bytes_wrong;
};

/* The mappings that exhaust the 32-bit IOVA space, and whose they are */
struct sac_edu_fill {
	struct device *dev;	/* NULL: no fill */
	struct pci_dev *sibling;	/* a reference, when not self */
	struct page *chunk;
	dma_addr_t *chunks, *plugs;
	unsigned int nchunks, nplugs;
	int error;		/* why the fill stopped short, or 0 */
};

struct sac_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	unsigned int dma_bits;
	unsigned int nbufs;
	bool corrupt;
	bool busy;		/* a transfer timed out and may still run */
	bool map_failed;	/* after a fill: the kernel refused a mapping */
	struct sac_edu_fill fill;
	struct sac_edu_buf *ws;
	struct sac_edu_buf coh_tx;
	struct sac_edu_buf coh_rx;
	unsigned int nr_xfers;	/* transfers run, in sac_edu_plan order */
	struct sac_edu_xfer xfers[SAC_EDU_NR_XFERS];
	struct dentry *dir;
};

static bool sac_edu_above_4g(dma_addr_t iova)
{
	return upper_32_bits(iova) != 0;
}

/* One pattern per transfer, so stale data from an earlier one never matches */
static u8 sac_edu_pattern(unsigned int seed, size_t i)
{
	return (u8)(i * 31 + seed * 97 + 1);
}

static bool sac_edu_inside_buffer(const struct sac_edu_plan *p)
{
	return p->size && p->dev_off < EDU_BUF_SIZE &&
	       p->size < EDU_BUF_SIZE - p->dev_off;
}

static int sac_edu_dma(struct sac_edu *sac, u64 src, u64 dst, u32 size,
		       u32 cmd)
{
	int ret = edu_dma_run(sac->regs, src, dst, size, cmd);

	if (ret)
		sac->busy = true;
	return ret;
}

static int sac_edu_map_page(struct device *dev, struct sac_edu_buf *buf)
{
	buf->page = alloc_page(GFP_KERNEL);
	if (!buf->page)
		return -ENOMEM;

	buf->cpu = page_address(buf->page);
	buf->iova = dma_map_page(dev, buf->page, 0, PAGE_SIZE,
				 DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, buf->iova)) {
		__free_page(buf->page);
		buf->page = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void sac_edu_unmap_page(struct device *dev, struct sac_edu_buf *buf)
{
	dma_unmap_page(dev, buf->iova, PAGE_SIZE, DMA_BIDIRECTIONAL);
	__free_page(buf->page);
}

static void sac_edu_free_working_set(struct sac_edu *sac, unsigned int n)
{
	struct device *dev = &sac->pdev->dev;

	while (n--)
		sac_edu_unmap_page(dev, &sac->ws[n]);
	kfree(sac->ws);
	sac->ws = NULL;
}

/* The mappings stay outstanding together, like the ring of a NIC */
static int sac_edu_alloc_working_set(struct sac_edu *sac)
{
	struct device *dev = &sac->pdev->dev;
	unsigned int i;
	int ret;

	sac->ws = kcalloc(sac->nbufs, sizeof(*sac->ws), GFP_KERNEL);
	if (!sac->ws)
		return -ENOMEM;

	for (i = 0; i < sac->nbufs; i++) {
		ret = sac_edu_map_page(dev, &sac->ws[i]);
		if (ret)
			goto err_unwind;
	}
	return 0;

err_unwind:
	dev_err(dev, "mapping streaming buffer %u of %u failed\n", i,
		sac->nbufs);
	sac_edu_free_working_set(sac, i);
	return ret;
}

static int sac_edu_alloc_coherent(struct device *dev, struct sac_edu_buf *buf)
{
	buf->cpu = dma_alloc_coherent(dev, SAC_EDU_COHERENT_SIZE, &buf->iova,
				      GFP_KERNEL);
	return buf->cpu ? 0 : -ENOMEM;
}

static void sac_edu_free_coherent(struct device *dev, struct sac_edu_buf *buf)
{
	dma_free_coherent(dev, SAC_EDU_COHERENT_SIZE, buf->cpu, buf->iova);
}

static int sac_edu_alloc_buffers(struct sac_edu *sac)
{
	struct device *dev = &sac->pdev->dev;
	int ret;

	ret = sac_edu_alloc_working_set(sac);
	if (ret)
		return ret;

	ret = sac_edu_alloc_coherent(dev, &sac->coh_tx);
	if (ret)
		goto err_free_ws;

	ret = sac_edu_alloc_coherent(dev, &sac->coh_rx);
	if (ret)
		goto err_free_tx;
	return 0;

err_free_tx:
	sac_edu_free_coherent(dev, &sac->coh_tx);
err_free_ws:
	sac_edu_free_working_set(sac, sac->nbufs);
	return ret;
}

static void sac_edu_free_buffers(struct sac_edu *sac)
{
	struct device *dev = &sac->pdev->dev;

	sac_edu_free_coherent(dev, &sac->coh_rx);
	sac_edu_free_coherent(dev, &sac->coh_tx);
	sac_edu_free_working_set(sac, sac->nbufs);
}

/* Maps size bytes of the fill buffer for the fill device, if any fits. */
static bool sac_edu_fill_one(struct sac_edu_fill *f, size_t size,
			     dma_addr_t *iova)
{
	*iova = dma_map_page_attrs(f->dev, f->chunk, 0, size,
				   DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	return !dma_mapping_error(f->dev, *iova);
}

/* 2 MiB mappings until none fits, then single pages for the gaps left. */
static int sac_edu_fill_map(struct sac_edu_fill *f)
{
	while (f->nchunks < SAC_EDU_FILL_CHUNKS &&
	       sac_edu_fill_one(f, PAGE_SIZE << SAC_EDU_FILL_ORDER,
				&f->chunks[f->nchunks])) {
		f->nchunks++;
		cond_resched();
	}
	while (f->nplugs < SAC_EDU_FILL_PLUGS) {
		if (!sac_edu_fill_one(f, PAGE_SIZE, &f->plugs[f->nplugs]))
			return 0;
		if (!(++f->nplugs % 256))
			cond_resched();
	}
	return -ENOSPC;
}

/* Safe on a fill that never started or stopped half way. */
static void sac_edu_fill_release(struct sac_edu_fill *f)
{
	while (f->nplugs)
		dma_unmap_page_attrs(f->dev, f->plugs[--f->nplugs], PAGE_SIZE,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	while (f->nchunks)
		dma_unmap_page_attrs(f->dev, f->chunks[--f->nchunks],
				     PAGE_SIZE << SAC_EDU_FILL_ORDER,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	kvfree(f->plugs);
	kvfree(f->chunks);
	if (f->chunk)
		__free_pages(f->chunk, SAC_EDU_FILL_ORDER);
	pci_dev_put(f->sibling);
	memset(f, 0, sizeof(*f));
}

static bool sac_edu_same_group(struct device *a, struct device *b)
{
	struct iommu_group *ga = iommu_group_get(a);
	struct iommu_group *gb = iommu_group_get(b);
	bool same = ga && ga == gb;

	iommu_group_put(gb);
	iommu_group_put(ga);
	return same;
}

/* fill=: edu itself, or a bound device in its IOMMU group. */
static int sac_edu_fill_target(struct sac_edu *sac)
{
	struct sac_edu_fill *f = &sac->fill;
	struct device *dev = &sac->pdev->dev;
	unsigned int dom, bus, slot, fn;
	char end;

	if (!strcmp(fill, "self")) {
		f->dev = dev;
		return 0;
	}
	if (sscanf(fill, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &end) != 4 ||
	    slot > 31 || fn > 7) {
		dev_err(dev, "fill=%s: want self or a PCI address\n", fill);
		return -EINVAL;
	}
	f->sibling = pci_get_domain_bus_and_slot(dom, bus, PCI_DEVFN(slot, fn));
	if (!f->sibling || !f->sibling->dev.driver) {
		/* unbound, it may have no DMA ops (arm64) */
		dev_err(dev, "fill=%s: no PCI device bound to a driver there\n",
			fill);
		return -ENODEV;
	}
	if (!sac_edu_same_group(dev, &f->sibling->dev)) {
		dev_err(dev, "fill=%s: not in this device's IOMMU group\n",
			fill);
		return -EXDEV;
	}
	f->dev = &f->sibling->dev;
	return 0;
}

/*
 * Exhausts the 32-bit IOVA space of edu's domain. The fill device's mask
 * is 32 bits meanwhile, so that every policy allocates below 4 GiB; edu's
 * own goes back to what the driver claims.
 */
static int sac_edu_exhaust(struct sac_edu *sac)
{
	struct sac_edu_fill *f = &sac->fill;
	int ret;

	ret = sac_edu_fill_target(sac);
	if (ret)
		return ret;
	f->chunk = alloc_pages(GFP_KERNEL | __GFP_NOWARN, SAC_EDU_FILL_ORDER);
	f->chunks = kvcalloc(SAC_EDU_FILL_CHUNKS, sizeof(*f->chunks),
			     GFP_KERNEL);
	f->plugs = kvcalloc(SAC_EDU_FILL_PLUGS, sizeof(*f->plugs), GFP_KERNEL);
	if (!f->chunk || !f->chunks || !f->plugs)
		return -ENOMEM;
	ret = dma_set_mask_and_coherent(f->dev, DMA_BIT_MASK(32));
	if (!ret)
		ret = sac_edu_fill_map(f);
	if (f->dev == &sac->pdev->dev && !ret)
		ret = dma_set_mask_and_coherent(f->dev,
						DMA_BIT_MASK(sac->dma_bits));
	if (ret)
		dev_err(&sac->pdev->dev, "fill=%s failed: %d\n", fill, ret);
	return ret;
}

/*
 * Streaming transfers use buffers from both ends of the working set: the
 * first mapped and the last mapped sit at opposite ends of the IOVA range
 * the allocator handed out.
 */
static void sac_edu_pick(struct sac_edu *sac, unsigned int idx,
			 struct sac_edu_buf **src, struct sac_edu_buf **dst)
{
	unsigned int n = sac->nbufs;

	switch (sac_edu_plan[idx].kind) {
	case SAC_EDU_STREAM:
		*src = &sac->ws[idx % n];
		*dst = &sac->ws[n - 1 - idx % n];
		break;
	case SAC_EDU_COHERENT:
		*src = &sac->coh_tx;
		*dst = &sac->coh_rx;
		break;
	case SAC_EDU_MIXED:
		*src = &sac->ws[n / 2];
		*dst = &sac->coh_rx;
		break;
	}
}

static void sac_edu_sync_for_device(struct sac_edu *sac,
				    struct sac_edu_buf *buf, u32 size)
{
	if (buf->page)
		dma_sync_single_for_device(&sac->pdev->dev, buf->iova, size,
					   DMA_BIDIRECTIONAL);
}

static void sac_edu_sync_for_cpu(struct sac_edu *sac, struct sac_edu_buf *buf,
				 u32 size)
{
	if (buf->page)
		dma_sync_single_for_cpu(&sac->pdev->dev, buf->iova, size,
					DMA_BIDIRECTIONAL);
}

static void sac_edu_fill(struct sac_edu_buf *src, struct sac_edu_buf *dst,
			 unsigned int seed, u32 size)
{
	u8 *s = src->cpu, *d = dst->cpu;
	u32 i;

	/* The destination starts as the complement: untouched bytes count */
	for (i = 0; i < size; i++) {
		s[i] = sac_edu_pattern(seed, i);
		d[i] = ~s[i];
	}
}

static u32 sac_edu_verify(struct sac_edu_buf *dst, unsigned int seed,
			  u32 size)
{
	const u8 *d = dst->cpu;
	u32 i, wrong = 0;

	for (i = 0; i < size; i++)
		wrong += d[i] != sac_edu_pattern(seed, i);
	return wrong;
}

/* RAM -> edu from one buffer, then edu -> RAM into another, then compare */
static void sac_edu_xfer(struct sac_edu *sac, unsigned int idx)
{
	const struct sac_edu_plan *p = &sac_edu_plan[idx];
	struct sac_edu_xfer *x = &sac->xfers[idx];
	u64 dev_addr = EDU_BUF_BASE + p->dev_off;
	struct sac_edu_buf *src, *dst;

	sac_edu_pick(sac, idx, &src, &dst);
	x->plan = p;
	x->src_iova = src->iova;
	x->dst_iova = dst->iova;

	sac_edu_fill(src, dst, idx, p->size);
	sac_edu_sync_for_device(sac, src, p->size);
	sac_edu_sync_for_device(sac, dst, p->size);

	if (sac_edu_dma(sac, src->iova, dev_addr, p->size, 0) ||
	    sac_edu_dma(sac, dev_addr, dst->iova, p->size, EDU_DMA_TO_RAM)) {
		x->status = SAC_EDU_TIMEOUT;
		return;
	}

	sac_edu_sync_for_cpu(sac, dst, p->size);
	if (sac->corrupt && idx == 0)
		((u8 *)dst->cpu)[p->size / 2] ^= 0xff;

	x->bytes_wrong = sac_edu_verify(dst, idx, p->size);
	x->status = x->bytes_wrong ? SAC_EDU_WRONG : SAC_EDU_OK;
}

/* A timed-out engine ignores new commands until it finishes, so stop there */
static void sac_edu_run(struct sac_edu *sac)
{
	unsigned int i;

	for (i = 0; i < SAC_EDU_NR_XFERS && !sac->busy; i++) {
		if (WARN_ON_ONCE(!sac_edu_inside_buffer(&sac_edu_plan[i])))
			break;
		sac_edu_xfer(sac, i);
		sac->nr_xfers = i + 1;
	}
}

struct sac_edu_totals {
	unsigned int failed;
	unsigned int timeouts;
	unsigned int above_4g;
	u64 bytes_wrong;
	u64 bytes_total;
	dma_addr_t iova_min;
	dma_addr_t iova_max;
	unsigned long fill_pages;
};

static void sac_edu_add_iova(struct sac_edu_totals *t, dma_addr_t iova)
{
	t->iova_min = min(t->iova_min, iova);
	t->iova_max = max(t->iova_max, iova);
}

static void sac_edu_totals(const struct sac_edu *sac, struct sac_edu_totals *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->iova_min = sac->nr_xfers ? DMA_MAPPING_ERROR : 0;
	t->fill_pages = ((unsigned long)sac->fill.nchunks << SAC_EDU_FILL_ORDER) +
			sac->fill.nplugs;

	for (i = 0; i < sac->nr_xfers; i++) {
		const struct sac_edu_xfer *x = &sac->xfers[i];

		sac_edu_add_iova(t, x->src_iova);
		sac_edu_add_iova(t, x->dst_iova);
		t->above_4g += sac_edu_above_4g(x->src_iova) ||
			       sac_edu_above_4g(x->dst_iova);
		t->failed += x->status != SAC_EDU_OK;
		t->timeouts += x->status == SAC_EDU_TIMEOUT;
		t->bytes_wrong += x->bytes_wrong;
		t->bytes_total += x->plan->size;
	}
}

/* The one summary line, shared by dev_info() and the debugfs report */
static void sac_edu_summary(const struct sac_edu *sac, char *buf, size_t len)
{
	struct sac_edu_totals t;

	sac_edu_totals(sac, &t);
	scnprintf(buf, len,
		  "dma_bits=%u buffers=%u corrupt=%d planned=%zu transfers=%u failed=%u timeouts=%u bytes_wrong=%llu bytes_total=%llu iova_min=0x%llx iova_max=0x%llx above_4g=%u fill=%s fill_pages=%lu map_failed=%d",
		  sac->dma_bits, sac->nbufs, sac->corrupt, SAC_EDU_NR_XFERS,
		  sac->nr_xfers, t.failed, t.timeouts, t.bytes_wrong,
		  t.bytes_total, (u64)t.iova_min, (u64)t.iova_max, t.above_4g,
		  sac->fill.dev ? fill : "none", t.fill_pages, sac->map_failed);
}

static void sac_edu_show_working_set(struct seq_file *s,
				     const struct sac_edu *sac)
{
	dma_addr_t lo = DMA_MAPPING_ERROR, hi = 0;
	unsigned int i, above = 0;

	for (i = 0; i < sac->nbufs; i++) {
		lo = min(lo, sac->ws[i].iova);
		hi = max(hi, sac->ws[i].iova);
		above += sac_edu_above_4g(sac->ws[i].iova);
	}
	seq_printf(s, "working_set=%u ws_iova_min=0x%llx ws_iova_max=0x%llx ws_above_4g=%u coherent_tx_iova=0x%llx coherent_rx_iova=0x%llx\n",
		   sac->nbufs, (u64)lo, (u64)hi, above, (u64)sac->coh_tx.iova,
		   (u64)sac->coh_rx.iova);
}

static void sac_edu_show_xfer(struct seq_file *s, unsigned int idx,
			      const struct sac_edu_xfer *x)
{
	seq_printf(s, "xfer=%u kind=%s dir=ram-edu-ram size=%u dev_off=0x%x src_iova=0x%llx dst_iova=0x%llx above_4g=%d status=%s bytes_wrong=%u\n",
		   idx, sac_edu_kind_name[x->plan->kind], x->plan->size,
		   x->plan->dev_off, (u64)x->src_iova, (u64)x->dst_iova,
		   sac_edu_above_4g(x->src_iova) ||
		   sac_edu_above_4g(x->dst_iova),
		   sac_edu_status_name[x->status], x->bytes_wrong);
}

static int sac_edu_report_show(struct seq_file *s, void *unused)
{
	const struct sac_edu *sac = s->private;
	char line[SAC_EDU_LINE_LEN];
	unsigned int i;

	sac_edu_summary(sac, line, sizeof(line));
	seq_printf(s, "%s\n", line);
	if (!sac->map_failed)
		sac_edu_show_working_set(s, sac);
	for (i = 0; i < sac->nr_xfers; i++)
		sac_edu_show_xfer(s, i, &sac->xfers[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sac_edu_report);

/*
 * CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS exists only in kernels carrying the
 * per-device policy patch, which is also what adds the declaration.
 */
#ifdef CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS
static int sac_edu_declare_dac(struct pci_dev *pdev)
{
	return iommu_dma_declare_dac_capable(&pdev->dev);
}
#else
static int sac_edu_declare_dac(struct pci_dev *pdev)
{
	dev_err(&pdev->dev, "declare_dac: this kernel has no per-device SAC policy\n");
	return -EOPNOTSUPP;
}
#endif

static int sac_edu_setup_device(struct pci_dev *pdev, struct sac_edu *sac)
{
	int ret = edu_dma_setup(pdev, sac->dma_bits, &sac->regs);

	if (ret)
		return ret;
	return declare_dac ? sac_edu_declare_dac(pdev) : 0;
}

static int sac_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	char line[SAC_EDU_LINE_LEN];
	struct sac_edu *sac;
	int ret;

	/* Another edu may be some other workload's (the IOVA bench's) */
	if (bdf && strcmp(pci_name(pdev), bdf))
		return -ENODEV;

	sac = devm_kzalloc(&pdev->dev, sizeof(*sac), GFP_KERNEL);
	if (!sac)
		return -ENOMEM;

	sac->pdev = pdev;
	sac->dma_bits = dma_bits;
	sac->nbufs = buffers;
	sac->corrupt = corrupt;

	ret = sac_edu_setup_device(pdev, sac);
	if (ret)
		return ret;

	if (fill && *fill) {
		ret = sac_edu_exhaust(sac);
		if (ret)
			goto err_release_fill;
	}

	/* Under a fill, a refused mapping is an outcome, not a failure */
	ret = sac_edu_alloc_buffers(sac);
	if (ret && !sac->fill.dev)
		return ret;
	sac->map_failed = ret;
	if (!sac->map_failed)
		sac_edu_run(sac);
	sac_edu_summary(sac, line, sizeof(line));
	dev_info(&pdev->dev, "%s\n", line);

	sac->dir = debugfs_create_dir(pci_name(pdev), sac_edu_root);
	debugfs_create_file("report", 0444, sac->dir, sac,
			    &sac_edu_report_fops);
	pci_set_drvdata(pdev, sac);
	return 0;

err_release_fill:
	sac_edu_fill_release(&sac->fill);
	return ret;
}

static void sac_edu_remove(struct pci_dev *pdev)
{
	struct sac_edu *sac = pci_get_drvdata(pdev);

	debugfs_remove_recursive(sac->dir);

	/*
	 * Freeing memory the device may still write to is worse than a leak;
	 * that includes the fill, where truncated addresses land.
	 */
	if (sac->busy && !edu_dma_idle(sac->regs)) {
		dev_err(&pdev->dev, "DMA engine still busy, leaking its buffers\n");
		return;
	}
	if (!sac->map_failed)
		sac_edu_free_buffers(sac);
	sac_edu_fill_release(&sac->fill);
}

static const struct pci_device_id sac_edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR_ID, EDU_DEVICE_ID) },
	{ }
};

/*
 * No MODULE_DEVICE_TABLE: the agent loads this driver with the job's
 * parameters. Without a modalias, udev in an installed system (where
 * every farm module sits in lib/modules) leaves edu to sac_fwload.
 */

static struct pci_driver sac_edu_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= sac_edu_ids,
	.probe		= sac_edu_probe,
	.remove		= sac_edu_remove,
};

static int __init sac_edu_check_params(void)
{
	if (dma_bits < 24 || dma_bits > 64) {
		pr_err("dma_bits=%u: must be 24..64\n", dma_bits);
		return -EINVAL;
	}
	if (buffers < SAC_EDU_MIN_BUFS || buffers > SAC_EDU_MAX_BUFS) {
		pr_err("buffers=%u: must be %u..%u\n", buffers,
		       SAC_EDU_MIN_BUFS, SAC_EDU_MAX_BUFS);
		return -EINVAL;
	}
	return 0;
}

static int __init sac_edu_init(void)
{
	int ret;

	ret = sac_edu_check_params();
	if (ret)
		return ret;

	sac_edu_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = pci_register_driver(&sac_edu_driver);
	if (ret)
		debugfs_remove_recursive(sac_edu_root);
	return ret;
}
module_init(sac_edu_init);

static void __exit sac_edu_exit(void)
{
	pci_unregister_driver(&sac_edu_driver);
	debugfs_remove_recursive(sac_edu_root);
}
module_exit(sac_edu_exit);

MODULE_DESCRIPTION("QEMU edu device as a lying 64-bit DMA device");
MODULE_LICENSE("GPL");
