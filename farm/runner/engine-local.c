// SPDX-License-Identifier: GPL-2.0
/*
 * The local engine: QEMU on this machine under farm/console.exp, which
 * records the console and the stage timings into the job dir; then
 * QEMU is made sure to be gone, the scratch disk deleted and the
 * classifier run.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "stages.h"

static void push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

/* expect console.exp LOG STATUS [STAGE SECS MARK]... -- QEMU... */
static char **console_argv(const struct job *j, char **qemu)
{
	json_t *a = json_array();
	char *p, **argv, **q;
	size_t i;

	push(a, "expect");
	push(a, farm.console_exp);
	p = job_path(j, "console.log");
	push(a, p);
	free(p);
	p = job_path(j, "status");
	push(a, p);
	free(p);
	for (i = 0; i < n_stages; i++) {
		const struct stage *s = &stages[i];

		push(a, stage_name(s, j->w->name));
		json_array_append_new(a, json_sprintf("%d",
				      job_stage_secs(j, s->timeout)));
		p = stage_expand(s->mark, j->nonce, j->m->iommu_regex);
		push(a, p);
		free(p);
	}
	push(a, "--");
	for (q = qemu; *q; q++)
		push(a, *q);
	argv = argv_from_json(a);
	json_decref(a);
	return argv;
}

static void __noreturn local_exec(struct job *j, const char *scratch)
{
	char **qemu = job_qemu_argv(j, scratch);
	char **argv = console_argv(j, qemu);
	char *drv = job_path(j, "console-driver.log");
	int rc;

	rc = run_argv(argv, drv, drv, job_budget(j) + 5);
	job_kill_qemu(j);
	if (scratch)
		unlink(scratch);
	job_classify(j);
	_exit(rc < 0 ? 1 : 0);
}

const struct engine engine_local = {
	.name = "local",
	.exec = local_exec,
};
