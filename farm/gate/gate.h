/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SAC_GATE_H
#define SAC_GATE_H

#include <jansson.h>
#include <stdio.h>

#include "policy.h"

enum verdict {
	V_OK,		/* got what the policy expects (pass or a seen hazard) */
	V_SKIP,		/* could not run here; does not block */
	V_FLAKY,	/* failed, then matched expectations on the rerun */
	V_FAIL,		/* blocks the release */
};

struct cell {
	struct cell_key key;
	char id[5 * POLICY_FIELD];	/* "flavour/arch/machine/workload@variant" */
	const char *expected;
	const char *got;
	const char *reason;
	char why[512];			/* the gate's reason for the verdict */
	char deltas[1024];		/* metric deltas against the baseline */
	enum verdict verdict;
	bool hazard;
	json_t *record;			/* borrowed from the results */
	json_t *base;			/* baseline record or NULL */
};

struct gate {
	const char *run_dir;
	struct policy policy;
	json_t *results;		/* array of job records */
	json_t *baseline;		/* array or NULL */
	struct cell *cells;
	size_t n_cells;
};

json_t *load_records(const char *path);
int cell_key_of(json_t *rec, struct cell_key *k);
const char *verdict_name(enum verdict v);

int write_junit(const struct gate *g, const char *path);
int write_kcidb(const struct gate *g, const char *path);
int write_report(const struct gate *g, const char *path);

#endif
