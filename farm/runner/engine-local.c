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
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "stages.h"

static void push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

/* This program's path, for the ties: rebuilt meanwhile is fine too. */
static const char *self_exe(void)
{
	static const char deleted[] = " (deleted)";
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	size_t d = strlen(deleted);

	if (n < 0)
		die("cannot read /proc/self/exe");
	path[n] = '\0';
	if ((size_t)n > d && !strcmp(path + n - d, deleted))
		path[n - d] = '\0';
	return path;
}

/* The words that run what follows tied to parent (a program's path). */
static void push_tie(json_t *a, const char *parent)
{
	const char *base = strrchr(parent, '/');

	push(a, self_exe());
	push(a, EXEC_TIED_OPT);
	push(a, base ? base + 1 : parent);
}

/*
 * expect console.exp LOG STATUS [STAGE SECS MARK]... -- QEMU..., where
 * QEMU... is "timeout ... qemu-system-... ...", each tied to its parent.
 */
static char **console_argv(const struct job *j, char **qemu)
{
	json_t *a = json_array();
	char *p, **argv, **q;
	bool tied = false;
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
	push_tie(a, "expect");
	for (q = qemu; *q; q++) {
		if (!tied && q > qemu && !strcmp(*q, j->m->qemu)) {
			push_tie(a, qemu[0]);
			tied = true;
		}
		push(a, *q);
	}
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
