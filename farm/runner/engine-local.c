// SPDX-License-Identifier: GPL-2.0
/*
 * The local engine: QEMU on this machine under farm/console.exp, which
 * records the console and the stage timings into the job dir; then
 * QEMU is made sure to be gone, the scratch disk deleted and the
 * classifier run.
 *
 * Each link of the chain worker -> expect -> timeout -> QEMU dies with
 * the one before it: expect through run_argv() (the runner called
 * tie_children()), and the two that expect and timeout start, each in
 * a session of its own, through this program as a tie (exec_tied()).
 * As root, QEMU's tie also makes it an unprivileged user (qemu-user.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "engine.h"
#include "qemu-user.h"
#include "stages.h"

static void push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

/*
 * expect console.exp LOG STATUS [STAGE SECS MARK]... -- QEMU..., where
 * QEMU... is "timeout ... qemu-system-... ...", each tied to its parent.
 */
static char **console_argv(const struct job *j, char **qemu)
{
	const struct stage *seq[STAGES_MAX];
	json_t *a = json_array();
	char *p, **argv;
	size_t i, n;

	push(a, "expect");
	push(a, farm.console_exp);
	p = job_path(j, "console.log");
	push(a, p);
	free(p);
	p = job_path(j, "status");
	push(a, p);
	free(p);
	n = stages_of(j->w->boot->name, seq);
	for (i = 0; i < n; i++) {
		const struct stage *s = seq[i];

		push(a, stage_name(s, j->w->name));
		json_array_append_new(a, json_sprintf("%d",
				      job_stage_secs(j, s->timeout)));
		p = stage_expand(s->mark, j->nonce, j->m->iommu_regex);
		push(a, p);
		free(p);
	}
	push(a, "--");
	push_tie(a, "expect");
	qemu_user_push(a, j, qemu);
	argv = argv_from_json(a);
	json_decref(a);
	return argv;
}

static void __noreturn local_exec(struct job *j, const char *scratch)
{
	json_t *images = job_images(j, scratch);
	char *why = qemu_user_prepare(j, images);
	char *drv = job_path(j, "console-driver.log");
	char *pidfile = job_path(j, "qemu.pid");
	char **argv;
	int rc;

	json_decref(images);
	if (why) {
		engine_verdict(j, why, "farm: QEMU's user and the job's images");
		if (scratch)
			unlink(scratch);
		_exit(0);
	}
	argv = console_argv(j, job_qemu_argv(j, scratch));
	rc = run_argv(argv, drv, drv, job_budget(j) + 5);
	job_kill_qemu(j);
	unlink(pidfile);	/* QEMU's user cannot remove it */
	if (scratch)
		unlink(scratch);
	job_classify(j);
	_exit(rc < 0 ? 1 : 0);
}

const struct engine engine_local = {
	.name = "local",
	.exec = local_exec,
};
