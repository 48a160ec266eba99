/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gate's verdict: every cell of a run judged against the policy
 * (policy_judge, the one judgement) and the baseline, and whether the
 * release ships.
 */
#ifndef GATE_VERDICT_H
#define GATE_VERDICT_H

#include <stdbool.h>

#include "policy.h"
#include "records.h"

struct cell {
	struct cell_key key;
	char id[CELL_ID_MAX];
	json_t *record;		/* this run's record; NULL: missing */
	json_t *base;		/* the baseline's record, or NULL */
	json_t *again;		/* the rerun's record (owned), or NULL */
	const char *got;	/* the outcome; NULL when missing */
	/* What failed: an outcome, "missing", "metric-limit"; or NULL. */
	const char *fault;
	struct judgement j;
	char deltas[1024];	/* metric deltas against the baseline */
};

struct gate {
	struct policy policy;
	struct run run;
	struct run base;	/* base.root NULL: no baseline */
	const char *runner;	/* farm/farm for reruns; NULL: none */
	struct cell *cells;
	size_t n_cells;
	unsigned int count[V_FAIL + 1];
	unsigned int hazards_seen;
	unsigned int accepted;	/* failures the policy accepts, with a reason */
	unsigned int executed;	/* cells that ran (neither skip nor missing) */
	bool blocked;
	char why[128];		/* what blocks the run as a whole, or "" */
};

/* Judges every cell; -1 after one line on stderr for bad records. */
int gate_judge(struct gate *g);
/* The cell holds the release back. */
bool cell_blocks(const struct gate *g, const struct cell *c);
void gate_free(struct gate *g);

#endif /* GATE_VERDICT_H */
