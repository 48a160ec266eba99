/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rerunning one cell of a run through the farm's runner, to tell a
 * flaky cell from a failing one.
 */
#ifndef GATE_RERUN_H
#define GATE_RERUN_H

#include <jansson.h>

#include "policy.h"

/*
 * Runs RUNNER run --out RUN_DIR/reruns/N ... for the cell @k of record
 * @rec (its "rerun" says the kernel spec and the variant's command
 * line), exec'd with an argv, never through a shell. Returns the
 * cell's record from the rerun (a new reference), or NULL if the rerun
 * gave none.
 */
json_t *rerun_cell(const char *runner, const char *run_dir, unsigned int n,
		   const struct cell_key *k, json_t *rec);

#endif /* GATE_RERUN_H */
