// SPDX-License-Identifier: GPL-2.0
/*
 * Workload "provoke": kernel trouble on demand, for the fault-injection
 * suite (tests/faults/). sac.provoke.class=NAME says what; the kernel's
 * own checkers must then report it on the console, and the classifier
 * must call the job what that report is (farm/PROTOCOL.md, "Outcomes").
 * The workload itself passes once it has done its part: a job that ends
 * as a pass means the kernel or the classifier missed the trouble.
 *
 * Most classes load farm/module/sac_provoke.ko with class=NAME (see there
 * what each does); first the checker's threshold is lowered so that the
 * kernel speaks within seconds, not minutes:
 *
 *   hung-task    hung_task_timeout_secs 2 (CONFIG_DETECT_HUNG_TASK)
 *   soft-lockup  watchdog_thresh 1, a lockup after 2 s
 *                (CONFIG_SOFTLOCKUP_DETECTOR)
 *   rcu-stall    rcupdate's rcu_cpu_stall_timeout 3 (its minimum; lockdep's
 *                PROVE_RCU adds 5 s, so the stall lasts 14 s)
 *
 * The workload boots with a second CPU, which keeps the kernel (and the
 * RCU grace-period kthread) going while the module stalls one.
 *
 * nvme-timeout needs no module: the workload's NVMe disk answers every
 * command after 3 s (QEMU's null-co driver with latency-ns), the workload
 * sets the disk's I/O timeout to 1 s (the block layer's timer rounds it
 * up by a second) and its retries to none, and reads one block: the NVMe
 * driver times the read out and aborts it (QEMU answers the abort at
 * once), and the read completes after its 3 s.
 *
 * Parameters: sac.provoke.class (none: skip), sac.provoke.secs (how long
 * a hang, lockup or stall lasts), sac.provoke.count (lines of err-flood
 * and log-flood). Details: class, what was lowered, how long the module
 * took to load, the read's result for nvme-timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "workloads.h"

#define PROVOKE_MODULE	"sac_provoke"
#define NVME_DISK	"nvme0n1"

struct provoke_class {
	const char *name;
	/* a checker's knob and the value that makes it quick, or NULL */
	const char *knob;
	const char *value;
	const char *option;	/* the kernel option the knob needs */
	unsigned long secs;	/* default secs= */
	unsigned long count;	/* default count= */
	bool edu;		/* the module drives an edu device */
};

static const struct provoke_class provoke_classes[] = {
	{ .name = "hung-task", .secs = 10,
	  .knob = "/proc/sys/kernel/hung_task_timeout_secs", .value = "2",
	  .option = "CONFIG_DETECT_HUNG_TASK" },
	{ .name = "soft-lockup", .secs = 6,
	  .knob = "/proc/sys/kernel/watchdog_thresh", .value = "1",
	  .option = "CONFIG_SOFTLOCKUP_DETECTOR" },
	{ .name = "rcu-stall", .secs = 14,
	  .knob = "/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout",
	  .value = "3", .option = "CONFIG_RCU_STALL_COMMON" },
	{ .name = "err-flood", .count = 40 },
	{ .name = "log-flood", .count = 4000 },
	{ .name = "panic" },
	{ .name = "oops" },
	{ .name = "warn" },
	{ .name = "probe-failed", .edu = true },
	{ .name = "dma-api", .edu = true },
	{ .name = "qemu-crash", .secs = 5, .edu = true },
	{ .name = "nvme-timeout" },
};

static const struct provoke_class *find_class(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(provoke_classes); i++)
		if (!strcmp(provoke_classes[i].name, name))
			return &provoke_classes[i];
	return NULL;
}

/* Lowers the class's checker threshold; false (and a skip) if it cannot. */
static bool lower_knob(struct sac_result *r, const struct provoke_class *c)
{
	int rc;

	if (!c->knob)
		return true;
	rc = sac_sysfs_write(c->knob, c->value);
	if (rc) {
		sac_skip(r, "cannot set %s to %s: %s (no %s in this kernel?)",
			 c->knob, c->value, strerror(-rc), c->option);
		return false;
	}
	sac_detail(r, "lowered", "%s=%s", c->knob, c->value);
	return true;
}

static void load_module(struct sac_result *r, const struct provoke_class *c,
			unsigned long secs, unsigned long count)
{
	char path[160], params[96];
	struct utsname u;
	double t0;
	int rc;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/%s.ko", u.release,
		 PROVOKE_MODULE);
	snprintf(params, sizeof(params), "class=%s secs=%lu count=%lu",
		 c->name, secs, count);
	sac_log("provoke: loading %s %s", path, params);
	t0 = sac_now();
	rc = sac_load_module(path, params);
	sac_metric(r, "load_s", sac_now() - t0);
	if (rc == -ENOENT) {
		sac_skip(r, "module missing: %s", path);
		return;
	}
	if (rc) {
		sac_fail(r, "%s won't load: %s", path, strerror(-rc));
		return;
	}
	rc = sac_unload_module(PROVOKE_MODULE);
	if (rc)
		sac_log("provoke: unloading %s: %s", PROVOKE_MODULE,
			strerror(-rc));
}

/*
 * One read of the slow disk under a 1 s timeout and no retry: the NVMe
 * driver times it out, aborts it and, should it still not be back, resets
 * the controller. Whether the read then succeeds or fails is the driver's
 * business; the timeout is what the kernel must report.
 */
static void nvme_timeout(struct sac_result *r)
{
	const char *dev = "/dev/" NVME_DISK;
	double t0, until = sac_now() + 10;
	struct stat st;
	ssize_t n;
	void *buf;
	int fd, rc;

	while (stat(dev, &st)) {
		if (sac_now() > until) {
			sac_skip(r, "no %s", dev);
			return;
		}
		usleep(50000);
	}
	rc = sac_sysfs_write("/sys/block/" NVME_DISK "/queue/io_timeout", "1000");
	if (!rc)
		rc = sac_sysfs_write("/sys/module/nvme_core/parameters/max_retries", "0");
	if (rc) {
		sac_skip(r, "cannot shorten the NVMe I/O timeout: %s",
			 strerror(-rc));
		return;
	}
	sac_detail(r, "lowered", "io_timeout=1000 ms max_retries=0");
	if (posix_memalign(&buf, 4096, 4096)) {
		sac_fail(r, "out of memory");
		return;
	}
	fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		sac_fail(r, "open %s: %s", dev, strerror(errno));
		free(buf);
		return;
	}
	t0 = sac_now();
	n = pread(fd, buf, 4096, 0);
	sac_metric(r, "read_s", sac_now() - t0);
	sac_detail(r, "read", "%s", n == 4096 ? "ok" :
		   n < 0 ? strerror(errno) : "short");
	free(buf);
	close(fd);
}

void wl_provoke(struct sac_result *r)
{
	const char *name = sac_param(r, "class", NULL);
	const struct provoke_class *c;
	unsigned long secs, count;
	char bdf[32];

	if (!name) {
		sac_skip(r, "no sac.provoke.class=: nothing to provoke");
		return;
	}
	c = find_class(name);
	if (!c) {
		sac_fail(r, "bad-parameter: sac.provoke.class=%.40s is no class",
			 name);
		return;
	}
	if (sac_param_uint(r, "secs", c->secs, 1, 120, &secs) ||
	    sac_param_uint(r, "count", c->count, 0, 1000000, &count))
		return;
	sac_detail(r, "class", "%s", c->name);
	if (!strcmp(c->name, "nvme-timeout")) {
		nvme_timeout(r);
		return;
	}
	if (c->edu && !sac_edu_find(bdf, sizeof(bdf))) {
		sac_skip(r, "no unbound edu device (1234:11e8) on the PCI bus");
		return;
	}
	if (lower_knob(r, c))
		load_module(r, c, secs, count);
}
