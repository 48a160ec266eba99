// SPDX-License-Identifier: GPL-2.0
/*
 * KVM or TCG, decided once per run and arch. /dev/kvm existing proves
 * nothing (on some hosts a KVM guest spins without a word), so KVM is
 * used only when the CPU has virtualisation extensions and a short probe
 * boot under KVM reaches the agent.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "engine.h"
#include "runner.h"

#define PROBE_SECONDS 15

static bool cpu_has_virt(void)
{
	char *info;
	bool yes;

	if (strcmp(host_arch(), "amd64"))
		return true;	/* arm64 has no such flag; the probe decides */
	info = read_text("/proc/cpuinfo", 1 << 20);
	yes = info && (strstr(info, " vmx") || strstr(info, " svm"));
	free(info);
	return yes;
}

static void probe_run(void *job)
{
	job_run(job);
}

/*
 * A boot-only job under KVM with a hard deadline: did it pass? Past the
 * deadline fork_call() kills the probe's worker, and with it the whole
 * job: its console driver, timeout and QEMU each die with the process
 * that started them (pool.c, engine-local.c). qemu.pid is checked too.
 */
static bool probe_boot(const char *dir, const char *arch,
		       const struct kernel *k, const struct tables *t)
{
	static struct variant none = { .name = "default", .cmdline = "" };
	struct job j = { .index = 0, .k = k, .v = &none, .accel = ACCEL_KVM,
			 .engine = &engine_local };
	char *keyed;
	size_t i;

	for (i = 0; i < t->nmachines && !j.m; i++)
		if (!strcmp(t->machines[i].arch, arch))
			j.m = &t->machines[i];
	j.w = workload_find(t, "boot");
	if (!j.m || !j.w)
		return false;
	snprintf(j.id, sizeof(j.id), "kvm-probe-%s", arch);
	j.skip_reason = j.w->boot->prepare(&j);
	if (j.skip_reason)
		return false;
	job_prepare(&j, dir);
	j.started = now_s();
	fork_call(probe_run, &j, PROBE_SECONDS + 10);
	job_kill_qemu(&j);
	/* its keyed initrd: no pool is there to remove it */
	keyed = job_path(&j, JOB_KEYED_IMAGE);
	unlink(keyed);
	free(keyed);
	job_collect(&j);
	return !strcmp(jstr(j.record, "outcome", ""), "pass");
}

static enum accel decide(const char *dir, const char *arch,
			 const struct kernel *k, const struct tables *t,
			 const char **why)
{
	int fd;

	if (strcmp(arch, host_arch())) {
		*why = "guest arch is not the host arch";
		return ACCEL_TCG;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*why = "/dev/kvm cannot be opened";
		return ACCEL_TCG;
	}
	close(fd);
	if (!cpu_has_virt()) {
		*why = "/proc/cpuinfo has no vmx or svm";
		return ACCEL_TCG;
	}
	if (!k || !probe_boot(dir, arch, k, t)) {
		*why = "probe boot under KVM did not reach the agent";
		return ACCEL_TCG;
	}
	*why = "probe boot under KVM passed";
	return ACCEL_KVM;
}

/* Cached as accel-<arch>.json in the run dir: one probe per run. */
enum accel accel_probe(const char *run_dir, const char *arch,
		       const struct kernel *k, const struct tables *t)
{
	char *path = xasprintf("%s/accel-%s.json", run_dir, arch);
	json_t *cached = json_load_file(path, 0, NULL);
	const char *why = NULL, *name;
	enum accel a;

	name = json_string_value(json_object_get(cached, "accel"));
	if (name) {
		a = strcmp(name, "kvm") ? ACCEL_TCG : ACCEL_KVM;
		goto out;
	}
	a = decide(run_dir, arch, k, t, &why);
	json_decref(cached);
	cached = json_pack("{s:s, s:s, s:s}", "arch", arch, "accel",
			   accel_name(a), "reason", why);
	json_dump_file(cached, path, JSON_INDENT(2));
out:
	json_decref(cached);
	free(path);
	return a;
}
