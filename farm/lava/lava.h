/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The farm's cells as LAVA jobs: the same machine and workload tables and
 * the same QEMU words as the local engine, written as a LAVA job
 * definition plus a device dictionary (render.c), and run by LAVA's own
 * dispatcher, lava-run, or by a LAVA lab (lava_run.c: two engines). See
 * farm/lava/README.md.
 */
#ifndef FARM_LAVA_H
#define FARM_LAVA_H

#include "engine.h"
#include "runner.h"

/* Where a job's images come from: label -> a URL LAVA downloads. */
typedef char *(*lava_url_fn)(const char *label, const char *path, void *ctx);

/* render.c */
int lava_write_job(const struct job *j, json_t *images, const char *path);
int lava_write_device(const struct job *j, const char *path);
json_t *lava_images_local(const struct job *j, const char *scratch);
int lava_render(struct job *jobs, size_t njobs, const char *out,
		const char *base_url);
const char *lava_results_suite(void);

/* lava_run.c */
extern const struct engine engine_lava_run;	/* LAVA's dispatcher here */
extern const struct engine engine_lava_lab;	/* a lab, through lavacli */
/* lava submit: the lab at scheme://host, as user with token */
void lava_lab_use(const char *scheme, const char *host, const char *user,
		  const char *token);

#endif /* FARM_LAVA_H */
