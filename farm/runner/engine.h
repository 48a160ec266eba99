/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An engine drives one prepared job: boots its guest, records the
 * console and the stage timings, ends the guest, and leaves the
 * classifier's verdict in the job dir. It runs in the job's worker
 * process and never returns. Chosen once per run; nothing inside a job
 * asks which engine it has.
 */
#ifndef FARM_ENGINE_H
#define FARM_ENGINE_H

#include "runner.h"

struct engine {
	const char *name;
	/* scratch: the workload's scratch disk, or NULL; unlink it when done */
	void (*exec)(struct job *j, const char *scratch) __noreturn;
	/* optional, in the runner: before the first job, what earlier runs left */
	void (*start)(void);
	/* optional, in the runner: after the job's worker is reaped, however it ended */
	void (*reaped)(const struct job *j);
};

/*
 * In the worker: the job's verdict, an infra-error, when there is
 * nothing for the classifier to judge (engine.c).
 */
void engine_verdict(const struct job *j, const char *reason,
		    const char *evidence);

/* QEMU under farm/console.exp on this machine (engine-local.c). */
extern const struct engine engine_local;

#endif /* FARM_ENGINE_H */
