/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The farm's cells as LAVA jobs: the same machine and workload tables and
 * the same QEMU words as the local engine, written as a LAVA job
 * definition plus a device dictionary (lava.c), and run by LAVA's own
 * dispatcher, lava-run (lava_run.c). See farm/lava/README.md.
 */
#ifndef FARM_LAVA_H
#define FARM_LAVA_H

#include "runner.h"

/* The test monitor whose cases are the workloads' results. */
#define LAVA_RESULTS_SUITE "workloads"

/* Where a job's images come from, each a URL LAVA downloads. */
struct lava_images {
	char *kernel;
	char *initrd;
	char *scratch;		/* NULL: the workload has no scratch disk */
};

/* job.c: the pieces of the QEMU command and of a job both engines share */
json_t *job_qemu_machine_words(const struct job *j);
json_t *job_qemu_device_words(const struct job *j, const char *scratch);
int job_machine_stage(const struct job *j, const char *stage);
int job_workload_secs(const struct job *j);
void job_new_nonce(char *out);
void job_classify(const struct job *j);

/* lava.c */
int lava_write_job(const struct job *j, const struct lava_images *img,
		   const char *path);
int lava_write_device(const struct job *j, const char *path);
char *file_url(const char *path);
int lava_render(struct job *jobs, size_t njobs, const char *out,
		const char *base_url);
void print_qemu_argv(struct job *jobs, size_t njobs);

/* lava_run.c: in the worker, instead of console.exp; never returns */
void lava_job_exec(struct job *j, const char *scratch) __noreturn;
void lava_lab_use(const char *uri);	/* lava submit: the lab's URI */

#endif /* FARM_LAVA_H */
