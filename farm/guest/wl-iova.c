// SPDX-License-Identifier: GPL-2.0
/*
 * Workload "iova-bench": the IOVA allocation cost the 2022 SAC patch was
 * about. farm/module/sac_iova.ko does the work inside the kernel at load
 * time (fill a PCI device's 32-bit IOVA space level by level, churn a
 * ring of mappings with a 64-bit mask, time every map and unmap); this
 * side picks the device, loads the module and turns its debugfs report
 * into one result.
 *
 * The bench device is the unbound QEMU edu device (1234:11e8) with the
 * highest PCI address (workloads.json gives it addr=0x11, well above the
 * slots QEMU assigns on its own), or sac.iova-bench.bdf=DDDD:BB:SS.F; the
 * control device (whose IOVA space stays empty, see sac_iova.c) is the
 * next unbound edu below it (addr=0x10), or sac.iova-bench.ctl=ADDR, or
 * none with sac.iova-bench.ctl=none.
 * Other parameters, passed on to the module: sac.iova-bench.ops, .ring,
 * .kib (churn mapping size), .levels (e.g. 0-50-90-99-100; dashes stand
 * for the module's commas), .resize_kib (an MTU change before each
 * level, see sac_iova.c), .quick=1. sac.iova-bench.modes=dac,sac,...
 * runs the bench once per policy in the same boot (see bench_modes()).
 *
 * Metrics: sac (1: a 64-bit map on an empty space got a 32-bit IOVA, i.e.
 * the kernel uses the trick), and per level N: map_p50_ns_fillN,
 * map_p99_ns_fillN (the map alone, where the IOVA is allocated),
 * ops_s_fillN (unmap+map pairs per second), above4g_fillN (timed maps
 * that landed above 4 GiB), and ctl_map_p50_ns (the control device's map
 * p50, median over the levels: under TCG the guest's speed follows the
 * host's load, so compare runs with it). The unmap and pair percentiles,
 * the fill sizes and each level's control p50s go into details.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "workloads.h"

#define REPORT		"/sys/kernel/debug/sac_iova/report"
#define MAX_LEVELS	8
#define MAX_MODES	4
#define MODE_LEN	16
#define BDF_LEN		13	/* DDDD:BB:SS.F and its NUL */

struct iova_level {
	unsigned int pct;
	double map_p50, map_p99, unmap_p50, pair_p50, pair_p99, ops_s;
	double above4g, ops, pages, fill_ms, ctl_map_p50, ctl_unmap_p50;
};

struct iova_report {
	char status[128];
	int sac;
	bool has_ctl;
	unsigned long chunks_max, total_ms;
	struct iova_level lv[MAX_LEVELS];
	int nlv;
};

/* Keeps the two highest addresses seen in top[0] > top[1]. */
static void keep_top(char top[2][BDF_LEN], const char *name)
{
	/* same-length DDDD:BB:SS.F names sort like addresses */
	if (strcmp(name, top[0]) > 0) {
		memcpy(top[1], top[0], BDF_LEN);
		snprintf(top[0], BDF_LEN, "%s", name);
	} else if (strcmp(name, top[1]) > 0) {
		snprintf(top[1], BDF_LEN, "%s", name);
	}
}

/*
 * The unbound edu devices with the highest and the next address (top[1]
 * empty when there is one). False when there is none.
 */
static bool find_edus(char top[2][BDF_LEN])
{
	struct dirent *e;
	DIR *d;

	top[0][0] = '\0';
	top[1][0] = '\0';
	d = opendir(SAC_PCI_DIR);
	if (!d)
		return false;
	while ((e = readdir(d)) != NULL) {
		if (strlen(e->d_name) != BDF_LEN - 1)
			continue;
		if (sac_pci_hex(e->d_name, "vendor") != EDU_VENDOR_ID ||
		    sac_pci_hex(e->d_name, "device") != EDU_DEVICE_ID ||
		    sac_pci_bound(e->d_name))
			continue;
		keep_top(top, e->d_name);
	}
	closedir(d);
	return top[0][0] != '\0';
}

static bool valid_bdf(const char *s)
{
	unsigned int dom, bus, slot, fn;
	char end;

	return strlen(s) == BDF_LEN - 1 &&
	       sscanf(s, "%4x:%2x:%2x.%1x%c", &dom, &bus, &slot, &fn, &end) == 4;
}

/* At most MAX_LEVELS increasing percentages, 0..100, '-' or ',' between. */
static bool valid_levels(const char *s)
{
	long prev = -1, pct;
	int n = 0;
	char *end;

	if (strspn(s, "0123456789-,") != strlen(s))
		return false;
	for (;;) {
		if (*s < '0' || *s > '9')
			return false;	/* empty, or a separator out of place */
		pct = strtol(s, &end, 10);
		if (pct > 100 || pct <= prev || ++n > MAX_LEVELS)
			return false;
		if (!*end)
			return true;
		prev = pct;
		s = end + 1;		/* past the separator */
	}
}

/* Module parameters from sac.iova-bench.*; false after a bad one. */
static bool module_params(struct sac_result *r, const char *bdf,
			  const char *ctl, char *out, size_t cap)
{
	unsigned long ops, ring, kib, quick, resize;
	const char *levels = sac_param(r, "levels", "0-50-90-99-100");
	char lv[64];
	size_t i;

	if (sac_param_uint(r, "ops", 3000, 1, 100000, &ops) ||
	    sac_param_uint(r, "ring", 512, 1, 8192, &ring) ||
	    sac_param_uint(r, "kib", 4, 4, 2048, &kib) ||
	    sac_param_uint(r, "resize_kib", 0, 0, 128, &resize) ||
	    sac_param_uint(r, "quick", 0, 0, 1, &quick))
		return false;
	if ((kib & (kib - 1)) || (resize & (resize - 1)) ||
	    (resize && resize < 4)) {
		sac_fail(r, "bad-parameter: sac.iova-bench.kib=%lu resize_kib=%lu (powers of two)",
			 kib, resize);
		return false;
	}
	if (!valid_levels(levels) || strlen(levels) >= sizeof(lv)) {
		sac_fail(r, "bad-parameter: sac.iova-bench.levels=%.40s (want e.g. 0-50-100)",
			 levels);
		return false;
	}
	snprintf(lv, sizeof(lv), "%s", levels);
	for (i = 0; lv[i]; i++)
		if (lv[i] == '-')
			lv[i] = ',';	/* the module's separator */
	snprintf(out, cap,
		 "bdf=%s%s%s ops=%lu ring=%lu map_kib=%lu resize_kib=%lu quick=%lu fill_levels=%s",
		 bdf, *ctl ? " ctl_bdf=" : "", ctl, ops, ring, kib, resize,
		 quick, lv);
	return true;
}

static struct iova_level *level_of(struct iova_report *rep, unsigned int pct)
{
	int i;

	for (i = 0; i < rep->nlv; i++)
		if (rep->lv[i].pct == pct)
			return &rep->lv[i];
	if (rep->nlv == MAX_LEVELS)
		return NULL;
	rep->lv[rep->nlv].pct = pct;
	return &rep->lv[rep->nlv++];
}

/* "fillN.key=value": one number of one level. */
static void parse_level_line(struct iova_report *rep, const char *key,
			     double v)
{
	static const struct {
		const char *name;
		size_t off;
	} keys[] = {
		{ "map_p50_ns", offsetof(struct iova_level, map_p50) },
		{ "map_p99_ns", offsetof(struct iova_level, map_p99) },
		{ "unmap_p50_ns", offsetof(struct iova_level, unmap_p50) },
		{ "pair_p50_ns", offsetof(struct iova_level, pair_p50) },
		{ "pair_p99_ns", offsetof(struct iova_level, pair_p99) },
		{ "ops_s", offsetof(struct iova_level, ops_s) },
		{ "above4g", offsetof(struct iova_level, above4g) },
		{ "ops", offsetof(struct iova_level, ops) },
		{ "pages", offsetof(struct iova_level, pages) },
		{ "fill_ms", offsetof(struct iova_level, fill_ms) },
		{ "ctl_map_p50_ns", offsetof(struct iova_level, ctl_map_p50) },
		{ "ctl_unmap_p50_ns", offsetof(struct iova_level, ctl_unmap_p50) },
	};
	struct iova_level *lv;
	unsigned int pct;
	char *dot;
	size_t i;

	pct = strtoul(key + 4, &dot, 10);
	if (*dot != '.' || pct > 100)
		return;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (strcmp(dot + 1, keys[i].name))
			continue;
		lv = level_of(rep, pct);
		if (lv)
			*(double *)((char *)lv + keys[i].off) = v;
		return;
	}
}

static void parse_line(struct iova_report *rep, char *line)
{
	char *eq = strchr(line, '=');
	char *val;

	if (!eq)
		return;
	*eq = '\0';
	val = eq + 1;
	val[strcspn(val, "\n")] = '\0';
	if (!strcmp(line, "status"))
		snprintf(rep->status, sizeof(rep->status), "%s", val);
	else if (!strcmp(line, "sac"))
		rep->sac = atoi(val);
	else if (!strcmp(line, "ctl_bdf"))
		rep->has_ctl = strcmp(val, "none") != 0;
	else if (!strcmp(line, "chunks_max"))
		rep->chunks_max = strtoul(val, NULL, 10);
	else if (!strcmp(line, "total_ms"))
		rep->total_ms = strtoul(val, NULL, 10);
	else if (!strncmp(line, "fill", 4))
		parse_level_line(rep, line, strtod(val, NULL));
}

static int read_report(struct iova_report *rep)
{
	char line[256];
	FILE *f;

	memset(rep, 0, sizeof(*rep));
	rep->sac = -1;
	f = fopen(REPORT, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		parse_line(rep, line);
	fclose(f);
	return rep->status[0] ? 0 : -EPROTO;
}

static void emit_level(struct sac_result *r, const struct iova_level *lv)
{
	char name[SAC_NAME_MAX + 1];

	snprintf(name, sizeof(name), "map_p50_ns_fill%u", lv->pct);
	sac_metric(r, name, lv->map_p50);
	snprintf(name, sizeof(name), "map_p99_ns_fill%u", lv->pct);
	sac_metric(r, name, lv->map_p99);
	snprintf(name, sizeof(name), "ops_s_fill%u", lv->pct);
	sac_metric(r, name, lv->ops_s);
	snprintf(name, sizeof(name), "above4g_fill%u", lv->pct);
	sac_metric(r, name, lv->above4g);
	snprintf(name, sizeof(name), "fill%u", lv->pct);
	sac_detail(r, name,
		   "pages=%.0f fill_ms=%.0f ops=%.0f unmap_p50_ns=%.0f pair_p50_ns=%.0f pair_p99_ns=%.0f ctl_map_p50_ns=%.0f ctl_unmap_p50_ns=%.0f",
		   lv->pages, lv->fill_ms, lv->ops, lv->unmap_p50,
		   lv->pair_p50, lv->pair_p99, lv->ctl_map_p50,
		   lv->ctl_unmap_p50);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the levels' control map p50s: the guest's speed. */
static double median_ctl(const struct iova_report *rep)
{
	double v[MAX_LEVELS];
	int i;

	for (i = 0; i < rep->nlv; i++)
		v[i] = rep->lv[i].ctl_map_p50;
	qsort(v, rep->nlv, sizeof(v[0]), cmp_double);
	return v[rep->nlv / 2];
}

/* brief: map p50 and above4g per level only, to leave room for modes */
static void emit_report(struct sac_result *r, const struct iova_report *rep,
			bool brief)
{
	char name[SAC_NAME_MAX + 1];
	int i;

	if (rep->sac >= 0)
		sac_metric(r, "sac", rep->sac);
	if (rep->nlv && rep->has_ctl)
		sac_metric(r, "ctl_map_p50_ns", median_ctl(rep));
	for (i = 0; i < rep->nlv && !brief; i++)
		emit_level(r, &rep->lv[i]);
	for (i = 0; i < rep->nlv && brief; i++) {
		snprintf(name, sizeof(name), "map_p50_ns_fill%u", rep->lv[i].pct);
		sac_metric(r, name, rep->lv[i].map_p50);
		snprintf(name, sizeof(name), "above4g_fill%u", rep->lv[i].pct);
		sac_metric(r, name, rep->lv[i].above4g);
	}
	sac_detail(r, "chunks_max", "%lu", rep->chunks_max);
	sac_detail(r, "module_ms", "%lu", rep->total_ms);
	if (strcmp(rep->status, "ok"))
		sac_fail(r, "sac_iova: %s", rep->status);
}

/*
 * bench and ctl from the parameters or from the unbound edu devices; ctl
 * stays empty for no control. False when the result already says why not.
 */
static bool pick_devices(struct sac_result *r, char *bench, char *ctl)
{
	const char *want = sac_param(r, "bdf", NULL);
	const char *want_ctl = sac_param(r, "ctl", NULL);
	char top[2][BDF_LEN];
	bool found = find_edus(top);

	if ((want && !valid_bdf(want)) ||
	    (want_ctl && strcmp(want_ctl, "none") && !valid_bdf(want_ctl))) {
		sac_fail(r, "bad-parameter: sac.iova-bench.bdf/ctl=%.40s (want DDDD:BB:SS.F)",
			 want && !valid_bdf(want) ? want : want_ctl);
		return false;
	}
	if (!want && !found) {
		sac_skip(r, "no unbound edu device (1234:11e8) to bench");
		return false;
	}
	snprintf(bench, BDF_LEN, "%s", want ? want : top[0]);
	if (want_ctl)
		snprintf(ctl, BDF_LEN, "%s", strcmp(want_ctl, "none") ? want_ctl : "");
	else
		snprintf(ctl, BDF_LEN, "%s", strcmp(top[0], bench) ? top[0] : top[1]);
	if (!strcmp(ctl, bench)) {
		sac_fail(r, "bad-parameter: sac.iova-bench.ctl names the bench device %s",
			 bench);
		return false;
	}
	return true;
}

/* Loads sac_iova.ko and reads its report; false once r says why not. */
static bool bench_once(struct sac_result *r, const char *path,
		       const char *params, struct iova_report *rep)
{
	double t0 = sac_now();
	int rc;

	sac_log("iova-bench: loading %s %s", path, params);
	rc = sac_load_module(path, params);
	sac_detail(r, "run_s", "%.1f", sac_now() - t0);
	if (rc == -ENOENT) {
		sac_skip(r, "module missing: %s", path);
		return false;
	}
	if (rc) {
		sac_fail(r, "loading sac_iova.ko: %s", strerror(-rc));
		return false;
	}
	rc = read_report(rep);
	if (rc) {
		sac_fail(r, "no usable %s: %s", REPORT, strerror(-rc));
		return false;
	}
	return true;
}

/* The control device's map+unmap p50s at a level: the guest's speed. */
static double control_pair(const struct iova_level *lv)
{
	return lv->ctl_map_p50 + lv->ctl_unmap_p50;
}

/*
 * Map+unmap p50 of one run over another's, each first divided by the
 * control device's of the same level and run: under TCG the guest's
 * speed follows the host's load from one second to the next. Without a
 * control, the plain ratio. NAN (dropped) when a figure is 0.
 */
static double relative_cost(const struct iova_level *with,
			    const struct iova_level *without)
{
	double a = with->pair_p50, b = without->pair_p50;

	if (control_pair(with) && control_pair(without)) {
		a /= control_pair(with);
		b /= control_pair(without);
	}
	return b ? a / b : NAN;
}

/* One policy as iommu_dma_sac/policy takes it (patches 0003, 0005, 0006). */
static bool valid_mode(const char *m)
{
	unsigned long bits;
	char *end;

	if (!strcmp(m, "sac") || !strcmp(m, "dac") || !strcmp(m, "adaptive"))
		return true;
	if (strncmp(m, "bits=", 5))
		return false;
	bits = strtoul(m + 5, &end, 10);
	return end != m + 5 && !*end && bits >= 32 && bits <= 64;
}

/* sac.iova-bench.modes: up to MAX_MODES policies, ',' between; 0 if none. */
static int parse_modes(struct sac_result *r, char modes[][MODE_LEN])
{
	const char *list = sac_param(r, "modes", ""), *p = list;
	size_t len;
	int n = 0;

	if (!*list)
		return 0;
	for (;;) {
		len = strcspn(p, ",");
		if (n == MAX_MODES || len >= MODE_LEN)
			break;
		snprintf(modes[n], MODE_LEN, "%.*s", (int)len, p);
		if (!valid_mode(modes[n++]))
			break;
		if (!p[len])
			return n;
		p += len + 1;
	}
	sac_fail(r, "bad-parameter: sac.iova-bench.modes=%.60s (up to %d policies)",
		 list, MAX_MODES);
	return -1;
}

/*
 * Writes the bench device's policy. Unbound on arm64, a device has not
 * met its IOMMU yet (that happens when a driver binds): bind pci-stub
 * for the write. The policy lives with the device's IOMMU data, which
 * unbinding leaves in place.
 */
static int policy_put(const char *bdf, const char *mode)
{
	int rc = sac_pci_write(bdf, "iommu_dma_sac/policy", mode);

	if (rc != -ENODEV)
		return rc;
	rc = sac_pci_bind(bdf, "pci-stub");
	if (!rc) {
		rc = sac_pci_write(bdf, "iommu_dma_sac/policy", mode);
		sac_sysfs_write("/sys/bus/pci/drivers/pci-stub/unbind", bdf);
	}
	sac_pci_write(bdf, "driver_override", "\n");
	return rc;
}

/*
 * A fresh IOMMU domain for the bench device, so that no run inherits the
 * IOVA tree and per-CPU caches of the one before: remove the device and
 * rescan the bus; it comes back at its address with a new group.
 */
static int fresh_device(const char *bdf)
{
	int rc = sac_unload_module("sac_iova");

	if (!rc)
		rc = sac_pci_write(bdf, "remove", "1");
	if (!rc)
		rc = sac_sysfs_write("/sys/bus/pci/rescan", "1");
	if (!rc && !sac_pci_hex(bdf, "vendor"))
		rc = -ENODEV;
	return rc;
}

/* The metric prefix of a mode: "bits=48" becomes "bits48." */
static void mode_prefix(const char *mode, char *buf, size_t cap)
{
	size_t i, j = 0;

	for (i = 0; mode[i] && j + 2 < cap; i++)
		if (mode[i] != '=')
			buf[j++] = mode[i];
	buf[j++] = '.';
	buf[j] = '\0';
}

/* Mode m's cost against dac's at each level; its map+unmap p50s in a detail. */
static void emit_mode(struct sac_result *r, const char *mode,
		      const struct iova_report *m, const struct iova_report *dac)
{
	char prefix[MODE_LEN + 1], name[SAC_NAME_MAX + 1], p50[SAC_DETAIL_MAX];
	size_t len = 0;
	int i;

	mode_prefix(mode, prefix, sizeof(prefix));
	for (i = 0; i < m->nlv; i++)
		len += snprintf(p50 + len, len < sizeof(p50) ? sizeof(p50) - len : 0,
				"%s%u:%.0f", i ? " " : "", m->lv[i].pct,
				m->lv[i].pair_p50);
	r->prefix = prefix;
	sac_detail(r, "pair_p50_ns", "%s", p50);
	for (i = 0; dac && i < m->nlv && i < dac->nlv; i++) {
		snprintf(name, sizeof(name), "cost_fill%u", m->lv[i].pct);
		sac_metric(r, name, relative_cost(&m->lv[i], &dac->lv[i]));
	}
	r->prefix = NULL;
}

/*
 * sac.iova-bench.modes=dac,sac,adaptive,bits=48: the bench once per
 * policy, written to iommu_dma_sac/policy, each on a fresh domain (see
 * fresh_device()), in one boot: the same guest and host for all, so
 * <mode>.cost_fillN (its map+unmap p50 over dac's, each divided by the
 * control device's of the same run and level) is far steadier than a
 * ratio across boots. The dac run's own figures are the plain metrics.
 */
static void bench_modes(struct sac_result *r, const char *bdf,
			const char *path, const char *params,
			char modes[][MODE_LEN], int n)
{
	static struct iova_report reps[MAX_MODES];
	const struct iova_report *dac = NULL;
	char prefix[MODE_LEN + 1];
	int i, rc;
	bool ok;

	for (i = 0; i < n; i++) {
		rc = i ? fresh_device(bdf) : 0;
		if (!rc)
			rc = policy_put(bdf, modes[i]);
		if (rc) {
			sac_fail(r, "modes: cannot put %s on %s: %s",
				 bdf, modes[i], strerror(-rc));
			return;
		}
		mode_prefix(modes[i], prefix, sizeof(prefix));
		r->prefix = prefix;	/* each run's details apart */
		ok = bench_once(r, path, params, &reps[i]);
		r->prefix = NULL;
		if (!ok)
			return;
		if (strcmp(reps[i].status, "ok")) {
			sac_fail(r, "sac_iova (%s): %s", modes[i], reps[i].status);
			return;
		}
		if (!strcmp(modes[i], "dac"))
			dac = &reps[i];
	}
	emit_report(r, dac ? dac : &reps[0], true);
	for (i = 0; i < n; i++)
		if (&reps[i] != dac)
			emit_mode(r, modes[i], &reps[i], dac);
}

void wl_iova(struct sac_result *r)
{
	char bdf[BDF_LEN], ctl[BDF_LEN], params[320], path[128];
	char modes[MAX_MODES][MODE_LEN];
	struct iova_report rep;
	struct utsname u;
	int nmodes;

	nmodes = parse_modes(r, modes);
	if (nmodes < 0 || !pick_devices(r, bdf, ctl) ||
	    !module_params(r, bdf, ctl, params, sizeof(params)))
		return;
	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/sac_iova.ko",
		 u.release);
	sac_detail(r, "bdf", "%s", bdf);
	sac_detail(r, "ctl_bdf", "%s", *ctl ? ctl : "none");
	if (nmodes) {
		bench_modes(r, bdf, path, params, modes, nmodes);
		return;
	}
	if (bench_once(r, path, params, &rep))
		emit_report(r, &rep, false);
}
