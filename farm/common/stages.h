/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The console stages of a farm job, declared once. The local console
 * driver (farm/console.exp) waits for each stage's mark in turn, under
 * the stage's timeout; a LAVA job checks the same stages with one test
 * monitor per window (farm/lava/render.c); the LAVA log walk times them
 * the same way (farm/lava/lava_run.c); the classifier names the last
 * one reached.
 *
 * A mark is a regex template valid alike as a POSIX extended regex, a
 * Tcl regex and a Python one: {nonce} stands for the job's nonce and
 * {iommu} for the machine's IOMMU-up regex. Lines are matched without
 * their line ending. A boot method may pass stages of its own: an
 * installed system comes up through initramfs-tools and systemd before
 * the agent runs.
 */
#ifndef FARM_COMMON_STAGES_H
#define FARM_COMMON_STAGES_H

#include <stdbool.h>
#include <stddef.h>

struct stage {
	const char *name;	/* NULL: the stage is named after the workload */
	const char *mark;	/* the console line that ends the stage */
	const char *timeout;	/* the machine's timeouts key; NULL: the workload's */
	const char *boot;	/* NULL: every boot method's; else only its */
	/* The LAVA test monitor that checks this stage, if one does. */
	const char *monitor;	/* its name */
	const char *window[2];	/* its start and end lines (templates) */
	bool cases;		/* the workloads' result lines are its test cases */
};

extern const struct stage stages[];
extern const size_t n_stages;

/* Room for any boot method's sequence (stages_of()). */
#define STAGES_MAX 8

/*
 * The stages of a guest booted by the boot method named boot, in order,
 * into seq (room for STAGES_MAX); returns how many.
 */
size_t stages_of(const char *boot, const struct stage **seq);

/* Whether a guest booted by the boot method named boot passes stage s. */
bool stage_in(const struct stage *s, const char *boot);

/* The stage's name in a job running workload. */
const char *stage_name(const struct stage *s, const char *workload);

/* A template with {nonce} and {iommu} filled in; the caller frees it. */
char *stage_expand(const char *tmpl, const char *nonce, const char *iommu);

#endif /* FARM_COMMON_STAGES_H */
