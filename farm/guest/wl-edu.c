// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads "edu-lying" and "edu-honest": QEMU's edu device (1234:11e8),
 * booted with dma_mask=0xffffffff, drives only 32 address bits and clamps
 * the rest. farm/module/sac_edu.ko does the DMA inside the kernel at probe
 * time (a working set of streaming mappings plus a coherent buffer each
 * way, RAM -> edu -> RAM round trips, every byte verified) and writes
 * /sys/kernel/debug/sac_edu/<bdf>/report; this side picks the unbound edu
 * device with the lowest PCI address, loads the module for it (bdf=),
 * reads the report, turns it into one result and unloads the module again,
 * so the next edu workload can load it with other parameters.
 *
 *   edu-lying   dma_bits=64: the driver trusts a data sheet that lies. It
 *               works only while the kernel hands PCI devices 32-bit IOVAs
 *               first (CONFIG_IOMMU_DMA_PCI_SAC=y, no iommu.forcedac=1).
 *   edu-honest  dma_bits=32: works with or without the trick.
 *
 * The module is /lib/modules/<uname -r>/extra/sac_edu.ko in the initramfs
 * (where the runner puts farm modules). Parameters, shared by both
 * workloads: sac.edu.corrupt=1 (the module flips one received byte before
 * verifying, to prove the check), sac.edu.buffers=N (working set, 8..16384).
 *
 * Metrics: transfers, failed, timeouts, bytes_wrong, bytes_total, iova_min,
 * iova_max, above_4g (transfers with an IOVA above 4 GiB), devices, dma_bits.
 * Details: iova_range (exact hex), per device its working set, per
 * transfer its IOVAs (at most EDU_XFER_DETAILS of them).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "workloads.h"

#define EDU_MODULE		"sac_edu"
#define EDU_DEBUGFS		"/sys/kernel/debug/sac_edu"
#define EDU_MAX_DEVS		4
#define EDU_XFER_DETAILS	10
#define EDU_REPORT_MAX		16384
#define EDU_BDF_MAX		32

struct edu_totals {
	unsigned int devices;
	unsigned long long dma_bits;
	unsigned long long planned;
	unsigned long long transfers;
	unsigned long long failed;
	unsigned long long timeouts;
	unsigned long long bytes_wrong;
	unsigned long long bytes_total;
	unsigned long long above_4g;
	unsigned long long iova_min;
	unsigned long long iova_max;
	unsigned long long fill_pages;	/* 0: nobody filled the IOVA space */
	unsigned long long map_failed;	/* devices refused a mapping */
	unsigned int xfer_details;
};

/* The value of " key=" in a line of "key=value key=value" tokens. */
static const char *kv_find(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[n] == '=')
			return p + n + 1;
		p += n;
	}
	return NULL;
}

static unsigned long long kv_u64(const char *line, const char *key)
{
	const char *v = kv_find(line, key);

	return v ? strtoull(v, NULL, 0) : 0;
}

/* Copies the token value of key (up to a space) into buf. */
static const char *kv_str(const char *line, const char *key, char *buf,
			  size_t cap)
{
	const char *v = kv_find(line, key);
	size_t n = v ? strcspn(v, " ") : 0;

	if (n >= cap)
		n = cap - 1;
	memcpy(buf, v ? v : "", n);
	buf[n] = '\0';
	return buf;
}

/*
 * The unbound edu device with the lowest PCI address: a second one at a
 * higher address may be the IOVA bench's (wl-iova.c takes the highest).
 */
bool sac_edu_find(char *bdf, size_t cap)
{
	return sac_pci_find(EDU_VENDOR_ID, EDU_DEVICE_ID, false, bdf, cap);
}

/* sac.edu.KEY as a number in [min, max]; false (and a fail) when bad. */
static bool edu_param(struct sac_result *r, const char *key,
		      unsigned long def, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char full[SAC_NAME_MAX];
	const char *v;
	char *end;

	snprintf(full, sizeof(full), "edu.%s", key);
	v = sac_cmdline_get(sac_get_cmdline(), full);
	*out = def;
	if (!v)
		return true;
	errno = 0;
	*out = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || *out < min ||
	    *out > max) {
		sac_fail(r, "bad-parameter: sac.edu.%s=%.40s (want %lu..%lu)",
			 key, v, min, max);
		return false;
	}
	return true;
}

void sac_edu_unload(void)
{
	int rc = sac_unload_module(EDU_MODULE);

	if (rc)
		sac_log("edu: unloading %s: %s", EDU_MODULE, strerror(-rc));
}

static ssize_t read_report(const char *bdf, char *buf, size_t cap)
{
	char path[sizeof(EDU_DEBUGFS) + 256];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/report", EDU_DEBUGFS, bdf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < (ssize_t)cap - 1 &&
	       (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

static void add_summary(struct edu_totals *t, const char *line)
{
	unsigned long long lo = kv_u64(line, "iova_min");
	unsigned long long hi = kv_u64(line, "iova_max");
	unsigned long long n = kv_u64(line, "transfers");

	t->dma_bits = kv_u64(line, "dma_bits");
	t->planned += kv_u64(line, "planned");
	t->transfers += n;
	t->failed += kv_u64(line, "failed");
	t->timeouts += kv_u64(line, "timeouts");
	t->bytes_wrong += kv_u64(line, "bytes_wrong");
	t->bytes_total += kv_u64(line, "bytes_total");
	t->above_4g += kv_u64(line, "above_4g");
	t->fill_pages += kv_u64(line, "fill_pages");
	t->map_failed += kv_u64(line, "map_failed");
	if (n && (t->iova_min == 0 || lo < t->iova_min))
		t->iova_min = lo;
	if (hi > t->iova_max)
		t->iova_max = hi;
}

static void add_working_set(struct sac_result *r, unsigned int dev,
			    const char *bdf, const char *line)
{
	char name[16];

	snprintf(name, sizeof(name), "dev%u", dev);
	sac_detail(r, name,
		   "%s ws=%llu iova=0x%llx-0x%llx above_4g=%llu coh_tx=0x%llx coh_rx=0x%llx",
		   bdf, kv_u64(line, "working_set"),
		   kv_u64(line, "ws_iova_min"), kv_u64(line, "ws_iova_max"),
		   kv_u64(line, "ws_above_4g"),
		   kv_u64(line, "coherent_tx_iova"),
		   kv_u64(line, "coherent_rx_iova"));
}

static void add_xfer(struct sac_result *r, struct edu_totals *t,
		     unsigned int dev, const char *line)
{
	char name[24], kind[16], status[16];

	if (t->xfer_details == EDU_XFER_DETAILS)
		return;	/* the summary still counts it */
	t->xfer_details++;
	snprintf(name, sizeof(name), "dev%u.xfer%llu", dev,
		 kv_u64(line, "xfer"));
	sac_detail(r, name,
		   "%s size=%llu dev_off=0x%llx src=0x%llx dst=0x%llx %s bytes_wrong=%llu",
		   kv_str(line, "kind", kind, sizeof(kind)),
		   kv_u64(line, "size"), kv_u64(line, "dev_off"),
		   kv_u64(line, "src_iova"), kv_u64(line, "dst_iova"),
		   kv_str(line, "status", status, sizeof(status)),
		   kv_u64(line, "bytes_wrong"));
}

/* One device's report: a summary line, a working-set line, xfer lines. */
static bool parse_report(struct sac_result *r, struct edu_totals *t,
			 const char *bdf, char *text)
{
	bool summary = false;
	char *line, *save;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "dma_bits=", 9)) {
			add_summary(t, line);
			summary = true;
		} else if (!strncmp(line, "working_set=", 12)) {
			add_working_set(r, t->devices, bdf, line);
		} else if (!strncmp(line, "xfer=", 5)) {
			add_xfer(r, t, t->devices, line);
		}
	}
	return summary;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The devices the module bound, in address order, at most EDU_MAX_DEVS. */
static int list_devices(char bdf[][EDU_BDF_MAX])
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir(EDU_DEBUGFS);
	if (!d)
		return -errno;
	while (n < EDU_MAX_DEVS && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= EDU_BDF_MAX)
			continue;
		snprintf(bdf[n++], EDU_BDF_MAX, "%s", e->d_name);
	}
	closedir(d);
	qsort(bdf, n, EDU_BDF_MAX, cmp_name);
	return n;
}

static void collect(struct sac_result *r, struct edu_totals *t)
{
	static char text[EDU_REPORT_MAX];
	char bdf[EDU_MAX_DEVS][EDU_BDF_MAX];
	ssize_t len;
	int i, n;

	n = list_devices(bdf);
	if (n < 0) {
		sac_fail(r, "no report: %s: %s (probe failed? see dmesg)",
			 EDU_DEBUGFS, strerror(-n));
		return;
	}
	for (i = 0; i < n; i++) {
		len = read_report(bdf[i], text, sizeof(text));
		if (len < 0) {
			sac_fail(r, "no report for %s: %s", bdf[i],
				 strerror(-len));
			return;
		}
		if (!parse_report(r, t, bdf[i], text)) {
			sac_fail(r, "report for %s has no summary line", bdf[i]);
			return;
		}
		t->devices++;
	}
}

static void emit(struct sac_result *r, const struct edu_totals *t)
{
	sac_metric(r, "devices", t->devices);
	sac_metric(r, "dma_bits", t->dma_bits);
	sac_metric(r, "transfers", t->transfers);
	sac_metric(r, "failed", t->failed);
	sac_metric(r, "timeouts", t->timeouts);
	sac_metric(r, "bytes_wrong", t->bytes_wrong);
	sac_metric(r, "bytes_total", t->bytes_total);
	sac_metric(r, "iova_min", t->iova_min);
	sac_metric(r, "iova_max", t->iova_max);
	sac_metric(r, "above_4g", t->above_4g);
	if (t->fill_pages) {
		sac_metric(r, "fill_pages", t->fill_pages);
		sac_metric(r, "map_failed", t->map_failed);
	}
	/* metrics are doubles printed with 10 digits: keep the exact range */
	sac_detail(r, "iova_range", "0x%llx-0x%llx", t->iova_min, t->iova_max);
}

/*
 * Wrong data outranks a stuck engine: it is the bug this farm hunts. After
 * a fill, a refused mapping with no wrong byte is what a strict limit is
 * for: the kernel kept the device from an address it cannot decode.
 */
static void judge(struct sac_result *r, const struct edu_totals *t)
{
	if (!t->devices) {
		sac_fail(r, "no report: %s bound no edu device (see dmesg)",
			 EDU_MODULE);
	} else if (t->bytes_wrong) {
		sac_fail(r, "data-corruption: %llu of %llu bytes differ (%llu of %llu transfers)",
			 t->bytes_wrong, t->bytes_total, t->failed,
			 t->transfers);
	} else if (t->timeouts) {
		sac_fail(r, "timeout: edu DMA never completed (%llu of %llu transfers)",
			 t->timeouts, t->transfers);
	} else if (t->map_failed && t->fill_pages) {
		sac_detail(r, "outcome",
			   "clean mapping error: with the 32-bit IOVA space exhausted (%llu pages) the kernel refused to map, no byte was harmed",
			   t->fill_pages);
	} else if (t->map_failed) {
		sac_fail(r, "mapping failed on an IOVA space nobody filled");
	} else if (t->failed || !t->transfers ||
		   t->transfers != t->planned) {
		sac_fail(r, "incomplete: %llu of %llu transfers ran, %llu failed",
			 t->transfers, t->planned, t->failed);
	}
}

/*
 * The device whose mappings fill the 32-bit space, as sac_edu's fill=.
 * A sibling must be bound to a driver to have its DMA set up: pci-stub,
 * built in or loaded from the initramfs, takes it by name.
 */
static bool fill_target(struct sac_result *r, unsigned int flags, char *buf,
			size_t cap)
{
	*buf = '\0';
	if (flags & SAC_EDU_FILL_SELF) {
		snprintf(buf, cap, "self");
		return true;
	}
	if (!(flags & SAC_EDU_FILL_GROUP))
		return true;
	if (!sac_pci_find(SAC_TESTDEV_VENDOR, SAC_TESTDEV_DEVICE, true, buf,
			  cap) &&
	    sac_pci_find(SAC_TESTDEV_VENDOR, SAC_TESTDEV_DEVICE, false, buf,
			 cap))
		sac_pci_bind(buf, "pci-stub");
	if (!*buf || !sac_pci_bound(buf)) {
		sac_fail(r, "no pci-testdev (%04x:%04x) bound to fill through",
			 SAC_TESTDEV_VENDOR, SAC_TESTDEV_DEVICE);
		return false;
	}
	return true;
}

/*
 * The edu test with a driver claiming dma_bits. SAC_EDU_STAY_BOUND leaves
 * the driver bound for the caller to inspect the device (a declaration
 * lasts only while it is) and to unload with sac_edu_unload().
 */
void sac_edu_run(struct sac_result *r, unsigned int dma_bits,
		 unsigned int flags)
{
	unsigned long buffers, corrupt;
	struct edu_totals t = { 0 };
	char path[160], params[192], bdf[EDU_BDF_MAX], fill[EDU_BDF_MAX];
	struct utsname u;
	int rc;

	if (!edu_param(r, "corrupt", 0, 0, 1, &corrupt) ||
	    !edu_param(r, "buffers", 64, 8, 16384, &buffers) ||
	    !fill_target(r, flags, fill, sizeof(fill)))
		return;
	/* An instance left by an earlier workload has other parameters */
	sac_edu_unload();
	if (!sac_edu_find(bdf, sizeof(bdf))) {
		sac_skip(r, "no unbound edu device (1234:11e8) on the PCI bus");
		return;
	}
	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/%s.ko",
		 u.release, EDU_MODULE);
	snprintf(params, sizeof(params),
		 "dma_bits=%u buffers=%lu corrupt=%lu bdf=%s%s%s%s", dma_bits,
		 buffers, corrupt, bdf,
		 flags & SAC_EDU_DECLARE_DAC ? " declare_dac=1" : "",
		 *fill ? " fill=" : "", fill);
	sac_log("%s: loading %s %s", r->workload, path, params);
	rc = sac_load_module(path, params);
	if (rc == -ENOENT) {
		sac_skip(r, "module missing: %s", path);
		return;
	}
	if (rc) {
		sac_skip(r, "module won't load: %s: %s", path, strerror(-rc));
		return;
	}
	collect(r, &t);
	if (!(flags & SAC_EDU_STAY_BOUND))
		sac_edu_unload();
	emit(r, &t);
	judge(r, &t);
}

void wl_edu_lying(struct sac_result *r)
{
	sac_edu_run(r, 64, 0);
}

void wl_edu_honest(struct sac_result *r)
{
	sac_edu_run(r, 32, 0);
}
