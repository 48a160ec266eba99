// SPDX-License-Identifier: GPL-2.0
/*
 * One job: one guest boot running one workload. The worker process makes
 * the scratch disk, runs farm/console.exp around QEMU, makes sure QEMU is
 * gone, deletes the disk and runs the classifier; the parent turns the
 * classifier's verdict into the job's record.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"
#include "lava.h"

/* Seconds to spare past the stage timeouts before a job is killed. */
#define DEADLINE_SLACK 10

static int stage_secs(const struct job *j, double base)
{
	double s = base;

	if (j->accel == ACCEL_TCG)
		s *= j->m->tcg_scale;
	return (int)(s + 0.999);
}

/* A machine stage's timeout (kernel, iommu, agent, poweroff), scaled. */
int job_machine_stage(const struct job *j, const char *stage)
{
	return stage_secs(j, json_number_value(json_object_get(j->m->timeouts,
								stage)));
}

int job_workload_secs(const struct job *j)
{
	return stage_secs(j, j->w->timeout);
}

/* Every stage's timeout added up, plus slack: the job's hard deadline. */
double job_budget(const struct job *j)
{
	return job_machine_stage(j, "kernel") + job_machine_stage(j, "iommu") +
	       job_machine_stage(j, "agent") + job_workload_secs(j) +
	       job_machine_stage(j, "poweroff") + DEADLINE_SLACK;
}

void job_new_nonce(char *out)
{
	unsigned char b[NONCE_LEN / 2];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
		die("cannot read /dev/urandom");
	close(fd);
	for (i = 0; i < sizeof(b); i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

void job_prepare(struct job *j, const char *run_dir)
{
	j->dir = xasprintf("%s/jobs/%s", run_dir, j->id);
	if (mkdir_p(j->dir))
		die("cannot create %s", j->dir);
	job_new_nonce(j->nonce);
}

static void add_words(char *s, size_t cap, const char *w)
{
	if (!w || !*w)
		return;
	if (*s)
		strncat(s, " ", cap - strlen(s) - 1);
	strncat(s, w, cap - strlen(s) - 1);
}

/* console, machine, workload, variant, then the agent's orders. */
char *job_cmdline(const struct job *j)
{
	char s[4096] = "", buf[128];

	snprintf(buf, sizeof(buf), "console=%s", j->m->console);
	add_words(s, sizeof(s), buf);
	add_words(s, sizeof(s), j->m->cmdline);
	add_words(s, sizeof(s), j->w->cmdline);
	add_words(s, sizeof(s), j->v->cmdline);
	snprintf(buf, sizeof(buf), "sac.nonce=%s sac.run=%s", j->nonce,
		 j->w->name);
	add_words(s, sizeof(s), buf);
	return xstrdup(s);
}

static void push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

/* Appends words to a and drops the reference to them. */
static void push_all_new(json_t *a, json_t *words)
{
	json_array_extend(a, words);
	json_decref(words);
}

/*
 * The machine's half of the QEMU command, which a LAVA device dictionary
 * carries as its options: no host NIC (-nic none; a workload's NICs sit
 * on an in-QEMU hub), no host share, the serial console on stdio.
 */
json_t *job_qemu_machine_words(const struct job *j)
{
	json_t *a = json_array();

	push(a, "-accel");
	push(a, accel_name(j->accel));
	json_array_extend(a, j->accel == ACCEL_KVM ? j->m->kvm : j->m->tcg);
	json_array_extend(a, j->m->args);
	push(a, "-nic");
	push(a, "none");
	push(a, "-no-reboot");
	push(a, "-display");
	push(a, "none");
	push(a, "-serial");
	push(a, j->interactive ? "mon:stdio" : "stdio");
	push(a, "-monitor");
	push(a, "none");
	return a;
}

/* The workload's devices with {scratch} and {nonce} filled in. */
json_t *job_qemu_device_words(const struct job *j, const char *scratch)
{
	json_t *a = json_array(), *e;
	size_t i;

	json_array_foreach(j->w->devices, i, e) {
		char *s1 = str_replace_all(json_string_value(e), "{scratch}",
					   scratch ? scratch : "");
		char *s2 = str_replace_all(s1, "{nonce}", j->nonce);

		push(a, s2);
		free(s1);
		free(s2);
	}
	return a;
}

/*
 * The QEMU command: the machine's words, the kernel with its command
 * line, the initramfs, the workload's devices, in the order a LAVA job
 * reassembles them (farm/lava/README.md), and a timeout wrapper so not
 * even a lost expect leaves QEMU running.
 */
char **job_qemu_argv(const struct job *j, const char *scratch)
{
	json_t *a = json_array();
	char *cmdline = job_cmdline(j), buf[32], **argv;

	push(a, "timeout");
	if (j->interactive) {
		/* a person is watching: give them an hour, and the tty */
		push(a, "--foreground");
		push(a, "3600");
	} else {
		push(a, "--kill-after=2");
		snprintf(buf, sizeof(buf), "%d", (int)job_budget(j));
		push(a, buf);
	}
	push(a, j->m->qemu);
	push_all_new(a, job_qemu_machine_words(j));
	push(a, "-kernel");
	push(a, j->k->image);
	push(a, "-append");
	push(a, cmdline);
	push(a, "-initrd");
	push(a, j->initramfs);
	push_all_new(a, job_qemu_device_words(j, scratch));
	if (j->dir) {
		char *pid = xasprintf("%s/qemu.pid", j->dir);

		push(a, "-pidfile");
		push(a, pid);
		free(pid);
	}
	argv = argv_from_json(a);
	json_decref(a);
	free(cmdline);
	return argv;
}

static char *make_scratch(const struct job *j)
{
	char *path;
	int fd;

	if (!j->w->scratch_mib)
		return NULL;
	path = xasprintf("%s/scratch.img", j->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)j->w->scratch_mib << 20))
		die("cannot create %s", path);
	close(fd);
	return path;
}

/* expect console.exp LOG STATUS NONCE RE T_K T_I T_A T_W T_P W -- QEMU... */
static char **console_argv(const struct job *j, char **qemu)
{
	json_t *a = json_array();
	char buf[64], *p, **argv, **q;

	push(a, "expect");
	push(a, farm.console_exp);
	p = xasprintf("%s/console.log", j->dir);
	push(a, p);
	free(p);
	p = xasprintf("%s/status", j->dir);
	push(a, p);
	free(p);
	push(a, j->nonce);
	push(a, j->m->iommu_regex);
	snprintf(buf, sizeof(buf), "%d", job_machine_stage(j, "kernel"));
	push(a, buf);
	snprintf(buf, sizeof(buf), "%d", job_machine_stage(j, "iommu"));
	push(a, buf);
	snprintf(buf, sizeof(buf), "%d", job_machine_stage(j, "agent"));
	push(a, buf);
	snprintf(buf, sizeof(buf), "%d", job_workload_secs(j));
	push(a, buf);
	snprintf(buf, sizeof(buf), "%d", job_machine_stage(j, "poweroff"));
	push(a, buf);
	push(a, j->w->name);
	push(a, "--");
	for (q = qemu; *q; q++)
		push(a, *q);
	argv = argv_from_json(a);
	json_decref(a);
	return argv;
}

/* classify --log --status ... > classify.json, in the job dir. */
void job_classify(const struct job *j)
{
	char *log = xasprintf("%s/console.log", j->dir);
	char *status = xasprintf("%s/status", j->dir);
	char *out = xasprintf("%s/classify.json", j->dir);
	char *err = xasprintf("%s/classify.err", j->dir);
	char *const argv[] = { farm.classify, "--log", log, "--status", status,
			 "--nonce", (char *)j->nonce, "--workloads",
			 (char *)j->w->name, "--job-id", (char *)j->id, NULL };

	if (run_argv(argv, out, err, 60) != 0)
		unlink(out);
	free(log);
	free(status);
	free(out);
	free(err);
}

/* In the worker process: boot, drive, clean up, classify. */
void job_exec(struct job *j)
{
	char *scratch = make_scratch(j);
	char *drv, *pid, **qemu, **argv;
	int rc;

	if (j->lava)
		lava_job_exec(j, scratch);
	qemu = job_qemu_argv(j, scratch);
	argv = console_argv(j, qemu);
	drv = xasprintf("%s/console-driver.log", j->dir);
	pid = xasprintf("%s/qemu.pid", j->dir);
	rc = run_argv(argv, drv, drv, job_budget(j) + 5);
	kill_pidfile(pid);
	if (scratch)
		unlink(scratch);
	job_classify(j);
	argv_free(argv);
	argv_free(qemu);
	_exit(rc < 0 ? 1 : 0);
}

/* farm boot: QEMU on the terminal (Ctrl-A X quits), no console driver. */
int job_boot(struct job *j)
{
	char *scratch = make_scratch(j);
	char **argv = job_qemu_argv(j, scratch);
	char *pid = xasprintf("%s/qemu.pid", j->dir);
	char **a;
	int rc;

	fputs("farm: booting:", stderr);
	for (a = argv; *a; a++)
		fprintf(stderr, " %s", *a);
	fputs("\nfarm: Ctrl-A X ends the guest\n", stderr);
	rc = run_argv(argv, NULL, NULL, 0);
	kill_pidfile(pid);
	if (scratch)
		unlink(scratch);
	argv_free(argv);
	free(pid);
	return rc;
}

static char *last_line(const char *path)
{
	char *text = read_text(path, 4096), *end, *start;

	if (!text)
		return xstrdup("");
	end = text + strlen(text);
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(text, '\n');
	start = xstrdup(start ? start + 1 : text);
	free(text);
	return start;
}

/* Parent side: read the verdict and add the job's axes and context. */
void job_collect(struct job *j)
{
	char *path = xasprintf("%s/classify.json", j->dir);
	json_t *r = json_load_file(path, 0, NULL);

	free(path);
	if (!json_is_object(r)) {
		char *err = xasprintf("%s/classify.err", j->dir);
		char *why = last_line(err);

		json_decref(r);
		r = json_pack("{s:s, s:s, s:s}", "outcome", "infra-error",
			      "reason", "farm: no verdict from the classifier",
			      "evidence", why);
		free(why);
		free(err);
	}
	json_object_set_new(r, "duration_s",
			    json_real((double)(long)((now_s() - j->started) *
						     1000) / 1000));
	json_object_set_new(r, "accel", json_string(accel_name(j->accel)));
	json_object_set_new(r, "nonce", json_string(j->nonce));
	j->record = r;
}

/* A job that cannot run (skip) or be set up (infra-error): never booted. */
void job_skip(struct job *j)
{
	j->record = json_pack("{s:s, s:s, s:s}", "outcome", j->preset,
			      "reason", j->skip_reason, "evidence",
			      j->skip_reason);
	json_object_set_new(j->record, "duration_s", json_real(0));
	json_object_set_new(j->record, "accel", json_string("none"));
}
