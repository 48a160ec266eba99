// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads for the per-device SAC policy (patches 0002 and 0003): each
 * runs the edu DMA test, then reports what the kernel says in every PCI
 * device's iommu_dma_sac/ directory and checks it against what the farm
 * asked for.
 *
 *   edu-listed    the lying edu rescued by iommu.sac_devices=, next to a
 *                 virtio-blk disk doing real I/O under the global policy
 *   edu-declared  a 64-bit edu whose driver declares it DAC capable
 *   sac-list-bad  malformed iommu.sac_devices= entries between good ones
 *   sac-race      binds, unbinds, removes and rescans devices while a
 *                 second process reads and writes their iommu_dma_sac/
 *                 files: with KASAN and lockdep in the kernel (the debug
 *                 farm base) any use of a freed dev_iommu or a lock
 *                 taken wrongly is a report on the console
 *
 * Parameters (sac.<workload>.KEY):
 *   expect=VVVV:DDDD=POLICY/SOURCE,...  every device with those IDs must
 *                 show that policy and source ("*" matches any)
 *   rejected=N    the kernel must have reported exactly N malformed
 *                 iommu.sac_devices= entries
 *   knob=VVVV:DDDD  exercise that device's writable policy file: garbage
 *                 is refused, "dac" wins as source sysfs, "default" gives
 *                 back what the device had
 *   rounds=N      sac-race: unbind/bind and remove/rescan cycles
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workloads.h"

#define SACPOL_DIR	"iommu_dma_sac"
#define SACPOL_REJECT	"iommu.sac_devices: ignoring entry "
#define SACPOL_MAX_DEVS	32
#define SACPOL_NOBODY	65534
#define SACRACE_EDU	"1234:11e8"
#define SACRACE_STUB	"1b36:0005"	/* pci-testdev, bound to pci-stub */
#define SACRACE_EDU_BIND	"/sys/bus/pci/drivers/sac_edu/bind"
#define SACRACE_RESCAN	"/sys/bus/pci/rescan"

/* The counters say how often a device maps memory: root's business only */
static const char * const sacpol_counters[] = {
	"attempts", "hits", "fallbacks",
};

struct sacpol_dev {
	char bdf[16];
	char ids[10];		/* "1234:11e8" */
	char policy[12];
	char source[12];
	unsigned long attempts, hits, fallbacks;
};

static int sacpol_attr(const char *bdf, const char *name, char *buf,
		       size_t size)
{
	char attr[32];

	snprintf(attr, sizeof(attr), "%s/%s", SACPOL_DIR, name);
	return sac_pci_attr(bdf, attr, buf, size);
}

static unsigned long sacpol_count(const char *bdf, const char *name)
{
	char buf[32];

	return sacpol_attr(bdf, name, buf, sizeof(buf)) ? 0 :
	       strtoul(buf, NULL, 10);
}

/* false when the kernel has no iommu_dma_sac/ for the device */
static bool sacpol_read(const char *bdf, struct sacpol_dev *d)
{
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	snprintf(d->ids, sizeof(d->ids), "%04lx:%04lx",
		 sac_pci_hex(bdf, "vendor") & 0xffff,
		 sac_pci_hex(bdf, "device") & 0xffff);
	if (sacpol_attr(bdf, "policy", d->policy, sizeof(d->policy)) ||
	    sacpol_attr(bdf, "source", d->source, sizeof(d->source)))
		return false;
	d->attempts = sacpol_count(bdf, "attempts");
	d->hits = sacpol_count(bdf, "hits");
	d->fallbacks = sacpol_count(bdf, "fallbacks");
	return true;
}

static int sacpol_scan(struct sacpol_dev *devs, int max)
{
	DIR *dir = opendir(SAC_PCI_DIR);
	struct dirent *e;
	int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir)) && n < max) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 16)
			continue;
		if (sacpol_read(e->d_name, &devs[n]))
			n++;
	}
	closedir(dir);
	return n;
}

/* One detail per device behind an IOMMU that is bound or not on the default. */
static void sacpol_report(struct sac_result *r, const struct sacpol_dev *d)
{
	char key[SAC_NAME_MAX];

	if (!strcmp(d->policy, "none") ||
	    (!sac_pci_bound(d->bdf) && !strcmp(d->source, "default")))
		return;
	snprintf(key, sizeof(key), "sac.%.15s", d->bdf);
	sac_detail(r, key,
		   "%s policy=%s source=%s attempts=%lu hits=%lu fallbacks=%lu",
		   d->ids, d->policy, d->source, d->attempts, d->hits,
		   d->fallbacks);
}

static bool sacpol_field_ok(const char *want, const char *got)
{
	return !strcmp(want, "*") || !strcmp(want, got);
}

/* One "VVVV:DDDD=POLICY/SOURCE" against every device with those IDs. */
static void sacpol_expect_one(struct sac_result *r, const char *spec,
			      const struct sacpol_dev *devs, int n)
{
	char ids[16], policy[16], source[16];
	int i, seen = 0;

	if (sscanf(spec, "%9[0-9a-f:]=%15[a-z*]/%15[a-z*]", ids, policy,
		   source) != 3) {
		sac_fail(r,
			 "bad-parameter: sac.%s.expect entry '%.40s' (want VVVV:DDDD=POLICY/SOURCE)",
			 r->workload, spec);
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(devs[i].ids, ids))
			continue;
		seen++;
		if (!sacpol_field_ok(policy, devs[i].policy) ||
		    !sacpol_field_ok(source, devs[i].source))
			sac_fail(r, "sac-policy: %s (%s) is %s/%s, want %s/%s",
				 devs[i].ids, devs[i].bdf, devs[i].policy,
				 devs[i].source, policy, source);
	}
	if (!seen)
		sac_fail(r, "sac-policy: no %s device with %s/", ids, SACPOL_DIR);
}

static void sacpol_expect(struct sac_result *r, const struct sacpol_dev *devs,
			  int n)
{
	const char *want = sac_param(r, "expect", NULL);
	char list[SAC_VALUE_MAX], *spec, *save = NULL;

	if (!want)
		return;
	snprintf(list, sizeof(list), "%s", want);
	for (spec = strtok_r(list, ",", &save); spec;
	     spec = strtok_r(NULL, ",", &save))
		sacpol_expect_one(r, spec, devs, n);
}

static int sacpol_write(const char *bdf, const char *text)
{
	return sac_pci_write(bdf, SACPOL_DIR "/policy", text);
}

/* "policy/source" of a device now, into buf. */
static const char *sacpol_now(const char *bdf, char *buf, size_t size)
{
	struct sacpol_dev d;

	if (!sacpol_read(bdf, &d))
		return "unreadable";
	snprintf(buf, size, "%s/%s", d.policy, d.source);
	return buf;
}

static void sacpol_knob(struct sac_result *r, const struct sacpol_dev *devs,
			int n)
{
	const char *ids = sac_param(r, "knob", NULL);
	char before[24], now[24];
	const char *bdf = NULL;
	int i, rc;

	if (!ids)
		return;
	for (i = 0; i < n && !bdf; i++)
		if (!strcmp(devs[i].ids, ids))
			bdf = devs[i].bdf;
	if (!bdf) {
		sac_fail(r, "sac-policy: knob: no %.10s device", ids);
		return;
	}
	sacpol_now(bdf, before, sizeof(before));
	rc = sacpol_write(bdf, "xac\n");
	if (rc != -EINVAL)
		sac_fail(r, "sac-policy: knob: writing 'xac' gave %s, want EINVAL",
			 rc ? strerror(-rc) : "success");
	rc = sacpol_write(bdf, "dac\n");
	sacpol_now(bdf, now, sizeof(now));
	sac_detail(r, "knob.dac", "%s", now);
	if (rc || strcmp(now, "dac/sysfs"))
		sac_fail(r, "sac-policy: knob: after writing dac %s is %s, want dac/sysfs",
			 ids, now);
	rc = sacpol_write(bdf, "default\n");
	sacpol_now(bdf, now, sizeof(now));
	sac_detail(r, "knob.default", "%s", now);
	if (rc || strcmp(now, before))
		sac_fail(r, "sac-policy: knob: after writing default %s is %s, want %s again",
			 ids, now, before);
}

struct sacpol_rejects {
	struct sac_result *r;
	unsigned long found;
};

static void sacpol_reject(const char *rec, void *arg)
{
	struct sacpol_rejects *rj = arg;
	const char *msg = strstr(rec, SACPOL_REJECT);
	char key[SAC_NAME_MAX];

	if (!msg)
		return;
	snprintf(key, sizeof(key), "rejected%lu", rj->found++);
	sac_detail(rj->r, key, "%.*s", (int)strcspn(msg, "\n"), msg);
}

/* The kernel's "ignoring entry" lines, each kept as a detail. */
static unsigned long sacpol_rejects(struct sac_result *r)
{
	struct sacpol_rejects rj = { r, 0 };

	sac_kmsg_each(sacpol_reject, &rj);
	return rj.found;
}

static void sacpol_finish(struct sac_result *r)
{
	static struct sacpol_dev devs[SACPOL_MAX_DEVS];
	unsigned long want, got;
	int n, i;

	n = sacpol_scan(devs, SACPOL_MAX_DEVS);
	if (!n) {
		sac_fail(r,
			 "sac-policy: no PCI device has %s/ (kernel without the per-device SAC patches?)",
			 SACPOL_DIR);
		return;
	}
	for (i = 0; i < n; i++)
		sacpol_report(r, &devs[i]);
	sacpol_expect(r, devs, n);
	sacpol_knob(r, devs, n);
	if (sac_param_uint(r, "rejected", 0, 0, 64, &want))
		return;
	got = sacpol_rejects(r);
	sac_metric(r, "rejected", got);
	if (got != want)
		sac_fail(r,
			 "sac-policy: the kernel rejected %lu iommu.sac_devices= entries, want %lu",
			 got, want);
}

void wl_edu_listed(struct sac_result *r)
{
	sac_edu_run(r, 64, SAC_EDU_STAY_BOUND);
	r->prefix = "blk.";
	wl_blk(r);
	r->prefix = NULL;
	sacpol_finish(r);
	sac_edu_unload();
}

void wl_edu_declared(struct sac_result *r)
{
	sac_edu_run(r, 64, SAC_EDU_DECLARE_DAC | SAC_EDU_STAY_BOUND);
	sacpol_finish(r);
	sac_edu_unload();
}

void wl_sac_list_bad(struct sac_result *r)
{
	sac_edu_run(r, 64, SAC_EDU_STAY_BOUND);
	sacpol_finish(r);
	sac_edu_unload();
}

/* The first device with @ids, bound or not; false if there is none. */
static bool sacrace_find(const char *ids, struct sacpol_dev *out)
{
	static struct sacpol_dev devs[SACPOL_MAX_DEVS];
	int n, i;

	n = sacpol_scan(devs, SACPOL_MAX_DEVS);
	for (i = 0; i < n; i++) {
		if (!strcmp(devs[i].ids, ids)) {
			*out = devs[i];
			return true;
		}
	}
	return false;
}

/*
 * The second process: reads every file and cycles the policy, on both
 * devices, until killed. Errors are expected while a device is away.
 */
static void __attribute__((noreturn)) sacrace_reader(const char *edu,
						      const char *stub)
{
	static const char * const files[] = {
		"policy", "source", "attempts", "hits", "fallbacks",
	};
	static const char * const writes[] = { "sac\n", "dac\n", "default\n" };
	const char *bdf;
	unsigned long i;
	char buf[32];
	size_t f;

	for (i = 0;; i++) {
		bdf = i & 1 ? stub : edu;
		for (f = 0; f < ARRAY_SIZE(files); f++)
			sacpol_attr(bdf, files[f], buf, sizeof(buf));
		sacpol_write(bdf, writes[i % ARRAY_SIZE(writes)]);
	}
}

/*
 * One cycle: the edu driver's declaration goes and comes back, the
 * stub-bound device leaves the bus (its dev_iommu freed) and returns.
 */
static void sacrace_round(struct sac_result *r, const char *edu,
			  const char *stub)
{
	int rc;

	rc = sac_pci_write(edu, "driver/unbind", edu);
	if (!rc)
		rc = sac_sysfs_write(SACRACE_EDU_BIND, edu);
	if (rc)
		sac_fail(r, "sac-race: unbind/bind of %s: %s", edu,
			 strerror(-rc));
	rc = sac_pci_write(stub, "remove", "1");
	if (!rc)
		rc = sac_sysfs_write(SACRACE_RESCAN, "1");
	if (rc)
		sac_fail(r, "sac-race: remove/rescan of %s: %s", stub,
			 strerror(-rc));
}

/* Whether an unprivileged process can open the file: it must not. */
static bool sacrace_nobody_reads(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return false;
	if (!pid) {
		if (setgid(SACPOL_NOBODY) || setuid(SACPOL_NOBODY))
			_exit(2);
		_exit(open(path, O_RDONLY) >= 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

/* Counters: mode 0400, closed to nobody, attempts = hits + fallbacks. */
static void sacrace_counters(struct sac_result *r, const struct sacpol_dev *d)
{
	char path[160];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sacpol_counters); i++) {
		snprintf(path, sizeof(path), "%s/%s/%s/%s", SAC_PCI_DIR,
			 d->bdf, SACPOL_DIR, sacpol_counters[i]);
		if (stat(path, &st) || (st.st_mode & 0777) != 0400)
			sac_fail(r, "sac-race: %s is not mode 0400", path);
		else if (sacrace_nobody_reads(path))
			sac_fail(r, "sac-race: an unprivileged user can read %s",
				 path);
	}
	if (d->attempts != d->hits + d->fallbacks)
		sac_fail(r, "sac-race: %s attempts=%lu but hits+fallbacks=%lu",
			 d->ids, d->attempts, d->hits + d->fallbacks);
}

/* After the storm: both devices back, with what they had before it. */
static void sacrace_check(struct sac_result *r)
{
	struct sacpol_dev devs[2];
	int i;

	if (!sacrace_find(SACRACE_EDU, &devs[0]) ||
	    !sacrace_find(SACRACE_STUB, &devs[1])) {
		sac_fail(r, "sac-race: a device did not come back");
		return;
	}
	for (i = 0; i < 2; i++) {
		char bdf[sizeof(devs[i].bdf)];

		memcpy(bdf, devs[i].bdf, sizeof(bdf));
		sacpol_write(bdf, "default\n");
		sacpol_read(bdf, &devs[i]);
		sacpol_report(r, &devs[i]);
	}
	sacpol_expect(r, devs, 2);
	sacrace_counters(r, &devs[0]);
}

void wl_sac_race(struct sac_result *r)
{
	struct sacpol_dev edu, stub;
	unsigned long rounds, i;
	pid_t reader;

	if (sac_param_uint(r, "rounds", 20, 1, 1000, &rounds))
		return;
	sac_edu_run(r, 64, SAC_EDU_DECLARE_DAC | SAC_EDU_STAY_BOUND);
	if (r->status != SAC_PASS)
		goto out_unload;
	if (!sacrace_find(SACRACE_EDU, &edu) ||
	    !sacrace_find(SACRACE_STUB, &stub)) {
		sac_skip(r, "sac-race: needs an edu device and a pci-testdev with %s/",
			 SACPOL_DIR);
		goto out_unload;
	}
	reader = fork();
	if (reader < 0) {
		sac_fail(r, "sac-race: fork: %s", strerror(errno));
		goto out_unload;
	}
	if (!reader)
		sacrace_reader(edu.bdf, stub.bdf);
	for (i = 0; i < rounds && r->status == SAC_PASS; i++)
		sacrace_round(r, edu.bdf, stub.bdf);
	kill(reader, SIGKILL);
	waitpid(reader, NULL, 0);
	sac_metric(r, "rounds", i);
	sacrace_check(r);
out_unload:
	sac_edu_unload();
}
