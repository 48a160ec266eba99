// SPDX-License-Identifier: GPL-2.0
/*
 * sac_iova: what the PCI SAC trick costs the DMA map path as a device's
 * 32-bit IOVA space fills up.
 *
 * With CONFIG_IOMMU_DMA_PCI_SAC=y (or iommu.forcedac=0) the IOMMU DMA layer
 * first tries to allocate a PCI device's IOVA below 4 GiB, and only then
 * from the whole range the device's mask allows. While the 32-bit space
 * has room that costs nothing; once it is full, every map of a 64-bit
 * device pays for a failed 32-bit attempt first.
 *
 * The module binds the bench device, named by its PCI address (bdf=), and
 * never touches the device itself: it only maps and unmaps memory for it.
 * At load, for each fill level, it
 *   - fills the device's IOVA space below 4 GiB to that fraction, with the
 *     DMA mask temporarily at 32 bits: one 2 MiB physically contiguous
 *     buffer mapped over and over (each mapping takes fresh IOVA space),
 *     and, for 100 %, single pages until a 32-bit allocation fails, so no
 *     4 KiB gap is left;
 *   - puts the mask back to 64 bits (what the driver of a modern NIC
 *     claims), keeps a ring of outstanding mappings like a NIC's and
 *     churns it: each op unmaps the oldest and maps a new buffer. Each map
 *     and unmap is timed with ktime_get_ns().
 * Fractions are of the space 2 MiB mappings can take (found by filling it
 * once first and emptying it again): reserved windows leave the rest.
 *
 * Levels are filled incrementally within one module load, so one boot
 * gives one curve.
 *
 * resize_kib= replays a NIC's MTU change before each level's churn: a
 * ring of that size is mapped, turned once and freed, the way a driver
 * reallocates its ring at another buffer size. Sizes up to 128 KiB go
 * back to the per-CPU IOVA cache, which keeps them allocated: cached
 * IOVAs of the old size pin 32-bit space that the new size cannot use,
 * the pathology mainline's adaptive SAC cites.
 *
 * Under TCG the guest's speed follows the host's load, by up to a factor
 * of two between one fill level and the next. So a second device of the
 * same kind (ctl_bdf=, optional), whose IOVA space is never filled, runs
 * the same churn interleaved op by op: at each level bench/control is the
 * cost the fill adds, measured under the same host conditions.
 *
 * The results are in /sys/kernel/debug/sac_iova/report as key=value
 * lines, and one dev_info() line per level. Loading succeeds whatever the
 * numbers are: the report is the product.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

/* The fill buffer: mapped whole, many times, to take IOVA space fast. */
#define SAC_IOVA_CHUNK_ORDER	9
#define SAC_IOVA_CHUNK_SIZE	(PAGE_SIZE << SAC_IOVA_CHUNK_ORDER)

/* 4 GiB of 2 MiB chunks, and single pages to plug what they leave. */
#define SAC_IOVA_MAX_CHUNKS	(SZ_4G / SAC_IOVA_CHUNK_SIZE)
#define SAC_IOVA_MAX_PLUGS	BIT(17)

#define SAC_IOVA_MAX_LEVELS	8
#define SAC_IOVA_MAX_OPS	100000
#define SAC_IOVA_MAX_RING	8192
#define SAC_IOVA_QUICK_OPS	200
#define SAC_IOVA_QUICK_RING	64
#define SAC_IOVA_ERR_LEN	96

static char *bdf;
module_param(bdf, charp, 0444);
MODULE_PARM_DESC(bdf, "PCI address of the bench device, e.g. 0000:00:11.0 (required)");

static char *fill_levels = "0,50,90,99,100";
module_param(fill_levels, charp, 0444);
MODULE_PARM_DESC(fill_levels, "increasing fill percentages of the 32-bit IOVA space to measure at");

static char *ctl_bdf;
module_param(ctl_bdf, charp, 0444);
MODULE_PARM_DESC(ctl_bdf, "PCI address of a control device whose IOVA space stays empty (optional)");

static unsigned int ops = 3000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "timed map+unmap ops per fill level");

static unsigned int ring = 512;
module_param(ring, uint, 0444);
MODULE_PARM_DESC(ring, "outstanding mappings during the churn (a NIC ring)");

static unsigned int map_kib = 4;
module_param(map_kib, uint, 0444);
MODULE_PARM_DESC(map_kib, "size of each churn mapping in KiB: 4 .. 2048, a power of two (> 128 bypasses the IOVA rcache)");

static unsigned int resize_kib;
module_param(resize_kib, uint, 0444);
MODULE_PARM_DESC(resize_kib, "MTU change: the old ring's mapping size in KiB, 4 .. 128, freed into the IOVA cache before each level's churn (0: none)");

static bool quick;
module_param(quick, bool, 0444);
MODULE_PARM_DESC(quick, "test mode: few ops and a small ring");

/* A device named by a parameter, and the one that probe bound for it. */
struct sac_iova_target {
	const char *param;
	unsigned int domain, bus, devfn;
	struct pci_dev *pdev;
};

enum { SAC_IOVA_BENCH, SAC_IOVA_CTL, SAC_IOVA_NTARGETS };

static struct sac_iova_target sac_iova_targets[SAC_IOVA_NTARGETS] = {
	[SAC_IOVA_BENCH]	= { .param = "bdf" },
	[SAC_IOVA_CTL]		= { .param = "ctl_bdf" },
};

struct sac_iova_level {
	unsigned int pct;
	unsigned long fill_pages;	/* 32-bit IOVA pages the fill holds */
	u64 fill_ms;
	u64 map_p50, map_p99, unmap_p50, unmap_p99, pair_p50, pair_p99;
	u64 ctl_map_p50, ctl_unmap_p50;	/* the control device, same ops */
	u64 ops_s;
	unsigned int above4g;		/* timed maps that landed above 4 GiB */
	unsigned int done;		/* timed ops completed */
};

/* A NIC-like ring of outstanding mappings for one device. */
struct sac_iova_ring {
	struct device *dev;
	dma_addr_t *slots;
	u64 *map_ns, *unmap_ns;
};

struct sac_iova {
	struct device *dev;		/* the bench device */
	struct page *chunk;
	size_t map_size;
	unsigned int ops, ring;

	dma_addr_t *fill;		/* 2 MiB fill mappings */
	unsigned int nfill, chunks_max;
	dma_addr_t *plug;		/* single-page fill mappings */
	unsigned int nplug;

	struct sac_iova_ring bench, ctl;	/* ctl.dev NULL: no control */
	size_t resize_size;		/* the old ring's, 0: no MTU change */
	u64 *pair_ns;
	dma_addr_t first_iova;		/* a 64-bit map into an empty space */

	struct sac_iova_level level[SAC_IOVA_MAX_LEVELS];
	unsigned int nlevels, measured;
	u64 total_ms;
	char error[SAC_IOVA_ERR_LEN];
	struct dentry *dir;
};

static struct sac_iova *sac_iova_state;

static bool sac_iova_below4g(dma_addr_t iova, size_t size)
{
	return iova + size - 1 <= DMA_BIT_MASK(32);
}

/* Parses "0,50,90" into sac->level[]: strictly increasing, at most 100. */
static int sac_iova_parse_levels(struct sac_iova *sac, const char *text)
{
	char *copy, *cur, *tok;
	unsigned int pct, n = 0;
	int ret = 0;

	copy = kstrdup(text, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((tok = strsep(&cur, ",")) != NULL) {
		if (n == SAC_IOVA_MAX_LEVELS || kstrtouint(tok, 10, &pct) ||
		    pct > 100 || (n && pct <= sac->level[n - 1].pct)) {
			ret = -EINVAL;
			break;
		}
		sac->level[n++].pct = pct;
	}
	kfree(copy);
	if (!ret && !n)
		ret = -EINVAL;
	sac->nlevels = n;
	return ret;
}

static int sac_iova_check_params(struct sac_iova *sac)
{
	unsigned long kib = map_kib;

	sac->ops = quick ? min_t(unsigned int, ops, SAC_IOVA_QUICK_OPS) : ops;
	sac->ring = quick ? min_t(unsigned int, ring, SAC_IOVA_QUICK_RING) : ring;
	if (!sac->ops || sac->ops > SAC_IOVA_MAX_OPS) {
		pr_err("ops=%u: must be 1..%u\n", ops, SAC_IOVA_MAX_OPS);
		return -EINVAL;
	}
	if (!sac->ring || sac->ring > SAC_IOVA_MAX_RING) {
		pr_err("ring=%u: must be 1..%u\n", ring, SAC_IOVA_MAX_RING);
		return -EINVAL;
	}
	if (!is_power_of_2(kib) || kib * SZ_1K < PAGE_SIZE ||
	    kib * SZ_1K > SAC_IOVA_CHUNK_SIZE) {
		pr_err("map_kib=%u: must be a power of two, page size .. 2048\n",
		       map_kib);
		return -EINVAL;
	}
	sac->map_size = kib * SZ_1K;
	if (resize_kib && (!is_power_of_2(resize_kib) ||
			   resize_kib * SZ_1K < PAGE_SIZE || resize_kib > 128)) {
		pr_err("resize_kib=%u: must be 0 or a power of two, page size .. 128\n",
		       resize_kib);
		return -EINVAL;
	}
	sac->resize_size = resize_kib * SZ_1K;
	if (sac_iova_parse_levels(sac, fill_levels)) {
		pr_err("fill_levels=%s: want increasing percentages 0..100, at most %d\n",
		       fill_levels, SAC_IOVA_MAX_LEVELS);
		return -EINVAL;
	}
	return 0;
}

static void *sac_iova_array(unsigned int n, size_t elem)
{
	return kvcalloc(n, elem, GFP_KERNEL);
}

static int sac_iova_ring_alloc(struct sac_iova *sac, struct sac_iova_ring *r)
{
	r->slots = sac_iova_array(sac->ring, sizeof(dma_addr_t));
	r->map_ns = sac_iova_array(sac->ops, sizeof(u64));
	r->unmap_ns = sac_iova_array(sac->ops, sizeof(u64));
	return r->slots && r->map_ns && r->unmap_ns ? 0 : -ENOMEM;
}

static void sac_iova_ring_free(struct sac_iova_ring *r)
{
	kvfree(r->unmap_ns);
	kvfree(r->map_ns);
	kvfree(r->slots);
}

static int sac_iova_alloc(struct sac_iova *sac)
{
	sac->chunk = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
				 SAC_IOVA_CHUNK_ORDER);
	sac->fill = sac_iova_array(SAC_IOVA_MAX_CHUNKS, sizeof(dma_addr_t));
	sac->plug = sac_iova_array(SAC_IOVA_MAX_PLUGS, sizeof(dma_addr_t));
	sac->pair_ns = sac_iova_array(sac->ops, sizeof(u64));
	if (!sac->chunk || !sac->fill || !sac->plug || !sac->pair_ns ||
	    sac_iova_ring_alloc(sac, &sac->bench) ||
	    (sac->ctl.dev && sac_iova_ring_alloc(sac, &sac->ctl)))
		return -ENOMEM;
	return 0;
}

static void sac_iova_free(struct sac_iova *sac)
{
	sac_iova_ring_free(&sac->ctl);
	sac_iova_ring_free(&sac->bench);
	kvfree(sac->pair_ns);
	kvfree(sac->plug);
	kvfree(sac->fill);
	if (sac->chunk)
		__free_pages(sac->chunk, SAC_IOVA_CHUNK_ORDER);
}

/*
 * Every mapping is of (part of) the same buffer: only the IOVA matters.
 * The CPU never touches the buffer, so no cache maintenance is wanted.
 */
static dma_addr_t sac_iova_map_dev(struct sac_iova *sac, struct device *dev,
				   size_t off, size_t size)
{
	return dma_map_page_attrs(dev, sac->chunk, off, size,
				  DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
}

static void sac_iova_unmap_dev(struct device *dev, dma_addr_t iova,
			       size_t size)
{
	dma_unmap_page_attrs(dev, iova, size, DMA_BIDIRECTIONAL,
			     DMA_ATTR_SKIP_CPU_SYNC);
}

/* The fill and the probes work on the bench device. */
static dma_addr_t sac_iova_map(struct sac_iova *sac, size_t off, size_t size)
{
	return sac_iova_map_dev(sac, sac->dev, off, size);
}

static void sac_iova_unmap(struct sac_iova *sac, dma_addr_t iova, size_t size)
{
	sac_iova_unmap_dev(sac->dev, iova, size);
}

static int sac_iova_set_mask(struct sac_iova *sac, struct device *dev,
			     unsigned int bits)
{
	int ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits));

	if (ret)
		snprintf(sac->error, sizeof(sac->error),
			 "%s: cannot set a %u-bit mask: %d", dev_name(dev), bits,
			 ret);
	return ret;
}

/* One more 2 MiB fill mapping below 4 GiB; false when none fits. */
static bool sac_iova_fill_chunk(struct sac_iova *sac)
{
	dma_addr_t iova;

	if (sac->nfill == SAC_IOVA_MAX_CHUNKS)
		return false;
	iova = sac_iova_map(sac, 0, SAC_IOVA_CHUNK_SIZE);
	if (dma_mapping_error(sac->dev, iova))
		return false;
	sac->fill[sac->nfill++] = iova;
	return true;
}

static void sac_iova_unfill(struct sac_iova *sac)
{
	while (sac->nplug)
		sac_iova_unmap(sac, sac->plug[--sac->nplug], PAGE_SIZE);
	while (sac->nfill)
		sac_iova_unmap(sac, sac->fill[--sac->nfill],
			       SAC_IOVA_CHUNK_SIZE);
}

/*
 * Whether the kernel uses the trick here: where a map with the 64-bit
 * mask lands while the 32-bit space is still empty.
 */
static int sac_iova_probe_sac(struct sac_iova *sac)
{
	int ret;

	ret = sac_iova_set_mask(sac, sac->dev, 64);
	if (ret)
		return ret;
	sac->first_iova = sac_iova_map(sac, 0, PAGE_SIZE);
	if (dma_mapping_error(sac->dev, sac->first_iova)) {
		sac->first_iova = 0;
		snprintf(sac->error, sizeof(sac->error),
			 "a 64-bit map failed on an empty IOVA space");
		return -ENOMEM;
	}
	sac_iova_unmap(sac, sac->first_iova, PAGE_SIZE);
	return 0;
}

/*
 * How many 2 MiB mappings fit below 4 GiB: fill until one fails, then
 * empty again. Large frees bypass the IOVA rcache, so this leaves the
 * allocator as it found it.
 */
static int sac_iova_probe_capacity(struct sac_iova *sac)
{
	int ret;

	ret = sac_iova_set_mask(sac, sac->dev, 32);
	if (ret)
		return ret;
	while (sac_iova_fill_chunk(sac))
		cond_resched();
	sac->chunks_max = sac->nfill;
	sac_iova_unfill(sac);
	if (!sac->chunks_max) {
		snprintf(sac->error, sizeof(sac->error),
			 "no 2 MiB mapping fits below 4 GiB");
		return -ENOSPC;
	}
	return 0;
}

/* Single pages until a 32-bit allocation fails: no 4 KiB gap is left. */
static int sac_iova_plug_gaps(struct sac_iova *sac)
{
	dma_addr_t iova;

	while (sac->nplug < SAC_IOVA_MAX_PLUGS) {
		iova = sac_iova_map(sac, 0, PAGE_SIZE);
		if (dma_mapping_error(sac->dev, iova))
			return 0;
		sac->plug[sac->nplug++] = iova;
		if (!(sac->nplug % 256))
			cond_resched();
	}
	snprintf(sac->error, sizeof(sac->error),
		 "more than %lu gaps below 4 GiB", SAC_IOVA_MAX_PLUGS);
	return -ENOSPC;
}

/* Grows the fill to lv->pct of the 32-bit space, with a 32-bit mask. */
static int sac_iova_fill_to(struct sac_iova *sac, struct sac_iova_level *lv)
{
	unsigned int want = DIV_ROUND_UP(sac->chunks_max * lv->pct, 100);
	u64 t0 = ktime_get_ns();
	int ret = 0;

	ret = sac_iova_set_mask(sac, sac->dev, 32);
	if (ret)
		return ret;
	while (sac->nfill < want && sac_iova_fill_chunk(sac))
		cond_resched();
	if (lv->pct == 100)
		ret = sac_iova_plug_gaps(sac);
	lv->fill_pages = ((unsigned long)sac->nfill << SAC_IOVA_CHUNK_ORDER) +
			 sac->nplug;
	lv->fill_ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	return ret;
}

/* The churn buffer for ring slot i: any part of the chunk will do. */
static size_t sac_iova_slot_off(struct sac_iova *sac, unsigned int i)
{
	return (i * sac->map_size) & (SAC_IOVA_CHUNK_SIZE - 1);
}

static int sac_iova_ring_fill(struct sac_iova *sac, struct sac_iova_ring *r)
{
	unsigned int i;

	for (i = 0; i < sac->ring; i++) {
		r->slots[i] = sac_iova_map_dev(sac, r->dev,
					       sac_iova_slot_off(sac, i),
					       sac->map_size);
		if (dma_mapping_error(r->dev, r->slots[i]))
			goto unwind;
	}
	return 0;

unwind:
	while (i--)
		sac_iova_unmap_dev(r->dev, r->slots[i], sac->map_size);
	snprintf(sac->error, sizeof(sac->error),
		 "%s: a 64-bit map failed while filling the ring",
		 dev_name(r->dev));
	return -ENOMEM;
}

static void sac_iova_ring_empty(struct sac_iova *sac, struct sac_iova_ring *r)
{
	unsigned int i;

	for (i = 0; i < sac->ring; i++)
		if (!dma_mapping_error(r->dev, r->slots[i]))
			sac_iova_unmap_dev(r->dev, r->slots[i], sac->map_size);
}

/*
 * Op n: replace the oldest mapping of ring r with a new one. The times go
 * to slot i of r's samples when i is not negative.
 */
static int sac_iova_churn_one(struct sac_iova *sac, struct sac_iova_ring *r,
			      unsigned int n, int i)
{
	unsigned int slot = n % sac->ring;
	u64 t0, t1, t2;
	dma_addr_t iova;

	t0 = ktime_get_ns();
	sac_iova_unmap_dev(r->dev, r->slots[slot], sac->map_size);
	t1 = ktime_get_ns();
	iova = sac_iova_map_dev(sac, r->dev, sac_iova_slot_off(sac, n),
				sac->map_size);
	t2 = ktime_get_ns();
	r->slots[slot] = iova;
	if (dma_mapping_error(r->dev, iova)) {
		snprintf(sac->error, sizeof(sac->error),
			 "%s: a 64-bit map failed", dev_name(r->dev));
		return -ENOMEM;
	}
	if (i >= 0) {
		r->unmap_ns[i] = t1 - t0;
		r->map_ns[i] = t2 - t1;
	}
	return 0;
}

/* Op n on the bench ring and, interleaved, on the control ring. */
static int sac_iova_churn_both(struct sac_iova *sac, unsigned int n, int i)
{
	int ret = sac_iova_churn_one(sac, &sac->bench, n, i);

	if (!ret && sac->ctl.dev)
		ret = sac_iova_churn_one(sac, &sac->ctl, n, i);
	return ret;
}

static int sac_iova_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n samples; sorts them. */
static u64 sac_iova_pct(u64 *v, unsigned int n, unsigned int pct)
{
	unsigned int rank = DIV_ROUND_UP(n * pct, 100);

	sort(v, n, sizeof(*v), sac_iova_cmp_u64, NULL);
	return v[rank ? rank - 1 : 0];
}

static void sac_iova_summarise(struct sac_iova *sac, struct sac_iova_level *lv,
			       u64 elapsed)
{
	unsigned int n = lv->done;

	unsigned int i;

	for (i = 0; i < n; i++)
		sac->pair_ns[i] = sac->bench.map_ns[i] + sac->bench.unmap_ns[i];
	lv->map_p50 = sac_iova_pct(sac->bench.map_ns, n, 50);
	lv->map_p99 = sac_iova_pct(sac->bench.map_ns, n, 99);
	lv->unmap_p50 = sac_iova_pct(sac->bench.unmap_ns, n, 50);
	lv->unmap_p99 = sac_iova_pct(sac->bench.unmap_ns, n, 99);
	lv->pair_p50 = sac_iova_pct(sac->pair_ns, n, 50);
	lv->pair_p99 = sac_iova_pct(sac->pair_ns, n, 99);
	if (sac->ctl.dev) {
		lv->ctl_map_p50 = sac_iova_pct(sac->ctl.map_ns, n, 50);
		lv->ctl_unmap_p50 = sac_iova_pct(sac->ctl.unmap_ns, n, 50);
	}
	lv->ops_s = elapsed ? div64_u64((u64)n * NSEC_PER_SEC, elapsed) : 0;
}

/* Time the control's ops take, to leave out of the bench's ops/s. */
static u64 sac_iova_ctl_ns(struct sac_iova *sac, unsigned int n)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; sac->ctl.dev && i < n; i++)
		sum += sac->ctl.map_ns[i] + sac->ctl.unmap_ns[i];
	return sum;
}

/*
 * The timed part, with 64-bit masks: one untimed turn of the rings
 * first, so that the IOVA caches are in their steady state.
 */
static int sac_iova_churn(struct sac_iova *sac, struct sac_iova_level *lv)
{
	unsigned int i, slot;
	u64 start, elapsed;
	int ret;

	for (i = 0; i < sac->ring; i++) {
		ret = sac_iova_churn_both(sac, i, -1);
		if (ret)
			return ret;
	}
	start = ktime_get_ns();
	for (i = 0; i < sac->ops; i++) {
		ret = sac_iova_churn_both(sac, sac->ring + i, i);
		if (ret)
			break;
		slot = (sac->ring + i) % sac->ring;
		if (!sac_iova_below4g(sac->bench.slots[slot], sac->map_size))
			lv->above4g++;
		lv->done++;
		if (!(i % 64))
			cond_resched();
	}
	elapsed = ktime_get_ns() - start - sac_iova_ctl_ns(sac, lv->done);
	if (lv->done)
		sac_iova_summarise(sac, lv, elapsed);
	return ret;
}

/*
 * The MTU change: the bench ring at the old size, turned once and freed
 * into the IOVA cache, before the ring at the new size is timed.
 */
static int sac_iova_old_ring(struct sac_iova *sac)
{
	size_t new_size = sac->map_size;
	unsigned int i;
	int ret;

	sac->map_size = sac->resize_size;
	ret = sac_iova_ring_fill(sac, &sac->bench);
	if (!ret) {
		for (i = 0; !ret && i < sac->ring; i++)
			ret = sac_iova_churn_one(sac, &sac->bench,
						 sac->ring + i, -1);
		sac_iova_ring_empty(sac, &sac->bench);
	}
	sac->map_size = new_size;
	return ret;
}

static int sac_iova_measure(struct sac_iova *sac, struct sac_iova_level *lv)
{
	int ret;

	ret = sac_iova_set_mask(sac, sac->dev, 64);
	if (ret)
		return ret;
	if (sac->resize_size) {
		ret = sac_iova_old_ring(sac);
		if (ret)
			return ret;
	}
	ret = sac_iova_ring_fill(sac, &sac->bench);
	if (ret)
		return ret;
	if (sac->ctl.dev) {
		ret = sac_iova_ring_fill(sac, &sac->ctl);
		if (ret)
			goto empty_bench;
	}
	ret = sac_iova_churn(sac, lv);
	if (sac->ctl.dev)
		sac_iova_ring_empty(sac, &sac->ctl);
empty_bench:
	sac_iova_ring_empty(sac, &sac->bench);
	return ret;
}

static void sac_iova_log_level(struct sac_iova *sac, struct sac_iova_level *lv)
{
	dev_info(sac->dev,
		 "fill %u%% (%lu pages): map p50 %llu ns p99 %llu ns, unmap p50 %llu ns, %llu ops/s, %u/%u above 4 GiB; control map p50 %llu ns\n",
		 lv->pct, lv->fill_pages, lv->map_p50, lv->map_p99,
		 lv->unmap_p50, lv->ops_s, lv->above4g, lv->done,
		 lv->ctl_map_p50);
}

static void sac_iova_run(struct sac_iova *sac)
{
	u64 t0 = ktime_get_ns();
	struct sac_iova_level *lv;
	int ret;

	ret = sac->ctl.dev ? sac_iova_set_mask(sac, sac->ctl.dev, 64) : 0;
	if (!ret)
		ret = sac_iova_probe_sac(sac);
	if (!ret)
		ret = sac_iova_probe_capacity(sac);
	for (; !ret && sac->measured < sac->nlevels; sac->measured++) {
		lv = &sac->level[sac->measured];
		ret = sac_iova_fill_to(sac, lv);
		if (!ret)
			ret = sac_iova_measure(sac, lv);
		if (lv->done)
			sac_iova_log_level(sac, lv);
	}
	sac_iova_unfill(sac);
	sac->total_ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	if (sac->error[0])
		dev_warn(sac->dev, "stopped: %s\n", sac->error);
}

static void sac_iova_show_level(struct seq_file *m, struct sac_iova_level *lv)
{
	unsigned int p = lv->pct;

	seq_printf(m, "fill%u.pages=%lu\nfill%u.fill_ms=%llu\n", p,
		   lv->fill_pages, p, lv->fill_ms);
	seq_printf(m, "fill%u.ops=%u\nfill%u.above4g=%u\nfill%u.ops_s=%llu\n",
		   p, lv->done, p, lv->above4g, p, lv->ops_s);
	seq_printf(m, "fill%u.map_p50_ns=%llu\nfill%u.map_p99_ns=%llu\n", p,
		   lv->map_p50, p, lv->map_p99);
	seq_printf(m, "fill%u.unmap_p50_ns=%llu\nfill%u.unmap_p99_ns=%llu\n", p,
		   lv->unmap_p50, p, lv->unmap_p99);
	seq_printf(m, "fill%u.pair_p50_ns=%llu\nfill%u.pair_p99_ns=%llu\n", p,
		   lv->pair_p50, p, lv->pair_p99);
	seq_printf(m, "fill%u.ctl_map_p50_ns=%llu\nfill%u.ctl_unmap_p50_ns=%llu\n",
		   p, lv->ctl_map_p50, p, lv->ctl_unmap_p50);
}

static int sac_iova_report_show(struct seq_file *m, void *unused)
{
	struct sac_iova *sac = m->private;
	unsigned int i;

	seq_printf(m, "bdf=%s\nctl_bdf=%s\nmap_kib=%zu\nresize_kib=%zu\nring=%u\nops=%u\n",
		   dev_name(sac->dev),
		   sac->ctl.dev ? dev_name(sac->ctl.dev) : "none",
		   sac->map_size / SZ_1K, sac->resize_size / SZ_1K, sac->ring,
		   sac->ops);
	seq_printf(m, "chunk_kib=%lu\nchunks_max=%u\n",
		   SAC_IOVA_CHUNK_SIZE / SZ_1K, sac->chunks_max);
	seq_printf(m, "first_iova=%pad\nsac=%d\n", &sac->first_iova,
		   sac->first_iova ? sac_iova_below4g(sac->first_iova, 1) : -1);
	for (i = 0; i < sac->measured; i++)
		if (sac->level[i].done)
			sac_iova_show_level(m, &sac->level[i]);
	seq_printf(m, "levels_measured=%u\ntotal_ms=%llu\n", sac->measured,
		   sac->total_ms);
	seq_printf(m, "status=%s\n", sac->error[0] ? sac->error : "ok");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sac_iova_report);

/* Binds the devices named by bdf= and ctl_bdf=; the work is done in init. */
static int sac_iova_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct sac_iova_target *t;
	unsigned int i;

	for (i = 0; i < SAC_IOVA_NTARGETS; i++) {
		t = &sac_iova_targets[i];
		if (t->param && pci_domain_nr(pdev->bus) == t->domain &&
		    pdev->bus->number == t->bus && pdev->devfn == t->devfn) {
			t->pdev = pdev;
			return 0;
		}
	}
	return -ENODEV;
}

static void sac_iova_remove(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < SAC_IOVA_NTARGETS; i++)
		if (sac_iova_targets[i].pdev == pdev)
			sac_iova_targets[i].pdev = NULL;
}

/*
 * Any device will do, since only its IOMMU domain is used; bdf= picks the
 * one. Binding it as its driver (rather than borrowing an unbound device)
 * is what sets its DMA ops up on every architecture. The table gets the
 * named devices' IDs at init, so no other kind of device is ever offered
 * to the probe (on arm64 an offer alone puts a device into an IOMMU
 * group).
 */
static struct pci_device_id sac_iova_ids[SAC_IOVA_NTARGETS + 1];

static struct pci_driver sac_iova_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= sac_iova_ids,
	.probe		= sac_iova_probe,
	.remove		= sac_iova_remove,
};

/*
 * Parses one address parameter and fills its ID table entry from the
 * device there, which must be free. A NULL value leaves the target out.
 */
static int __init sac_iova_find(struct sac_iova_target *t, const char *val,
				struct pci_device_id *id)
{
	unsigned int dom, bus, slot, fn;
	struct pci_dev *pdev;
	int ret = 0;
	char end;

	if (!val) {
		t->param = NULL;
		return 0;
	}
	if (sscanf(val, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &end) != 4 ||
	    slot > 31 || fn > 7) {
		pr_err("%s=%s: want a PCI address, DDDD:BB:SS.F\n", t->param,
		       val);
		return -EINVAL;
	}
	t->domain = dom;
	t->bus = bus;
	t->devfn = PCI_DEVFN(slot, fn);
	pdev = pci_get_domain_bus_and_slot(dom, bus, t->devfn);
	if (!pdev) {
		pr_err("%s=%s: no PCI device there\n", t->param, val);
		return -ENODEV;
	}
	if (pdev->dev.driver) {
		pr_err("%s=%s: already bound to %s\n", t->param, val,
		       pdev->dev.driver->name);
		ret = -EBUSY;
	}
	id->vendor = pdev->vendor;
	id->device = pdev->device;
	id->subvendor = PCI_ANY_ID;
	id->subdevice = PCI_ANY_ID;
	pci_dev_put(pdev);
	return ret;
}

static int __init sac_iova_find_all(void)
{
	struct sac_iova_target *bench = &sac_iova_targets[SAC_IOVA_BENCH];
	struct sac_iova_target *ctl = &sac_iova_targets[SAC_IOVA_CTL];
	int ret;

	if (!bdf || !*bdf) {
		pr_err("bdf= is required (the PCI address of the bench device)\n");
		return -EINVAL;
	}
	if (ctl_bdf && !strcmp(ctl_bdf, bdf)) {
		pr_err("ctl_bdf= must name another device than bdf=\n");
		return -EINVAL;
	}
	ret = sac_iova_find(bench, bdf, &sac_iova_ids[0]);
	if (!ret)
		ret = sac_iova_find(ctl, ctl_bdf && *ctl_bdf ? ctl_bdf : NULL,
				    &sac_iova_ids[1]);
	return ret;
}

static int __init sac_iova_bound(void)
{
	unsigned int i;

	for (i = 0; i < SAC_IOVA_NTARGETS; i++) {
		if (sac_iova_targets[i].param && !sac_iova_targets[i].pdev) {
			pr_err("%s did not bind\n", sac_iova_targets[i].param);
			return -ENODEV;
		}
	}
	return 0;
}

static int __init sac_iova_start(void)
{
	struct pci_dev *ctl = sac_iova_targets[SAC_IOVA_CTL].pdev;
	struct sac_iova *sac;
	int ret;

	sac = kzalloc(sizeof(*sac), GFP_KERNEL);
	if (!sac)
		return -ENOMEM;
	sac->dev = &sac_iova_targets[SAC_IOVA_BENCH].pdev->dev;
	sac->bench.dev = sac->dev;
	sac->ctl.dev = ctl ? &ctl->dev : NULL;
	ret = sac_iova_check_params(sac);
	if (!ret)
		ret = sac_iova_alloc(sac);
	if (ret) {
		sac_iova_free(sac);
		kfree(sac);
		return ret;
	}
	sac_iova_run(sac);
	sac->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("report", 0444, sac->dir, sac,
			    &sac_iova_report_fops);
	sac_iova_state = sac;
	return 0;
}

static int __init sac_iova_init(void)
{
	int ret;

	ret = sac_iova_find_all();
	if (ret)
		return ret;
	ret = pci_register_driver(&sac_iova_driver);
	if (ret)
		return ret;
	ret = sac_iova_bound();
	if (!ret)
		ret = sac_iova_start();
	if (ret)
		pci_unregister_driver(&sac_iova_driver);
	return ret;
}
module_init(sac_iova_init);

static void __exit sac_iova_exit(void)
{
	struct sac_iova *sac = sac_iova_state;

	debugfs_remove_recursive(sac->dir);
	sac_iova_free(sac);
	kfree(sac);
	pci_unregister_driver(&sac_iova_driver);
}
module_exit(sac_iova_exit);

MODULE_DESCRIPTION("IOVA allocation cost versus 32-bit IOVA space fill, SAC trick on or off");
MODULE_LICENSE("GPL");
