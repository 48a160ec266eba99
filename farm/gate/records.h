/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A farm run as the gate reads it: results.json, format 2
 * (farm/PROTOCOL.md, "A run's results.json"), and the cell each of its
 * records belongs to.
 */
#ifndef GATE_RECORDS_H
#define GATE_RECORDS_H

#include <jansson.h>

#include "policy.h"

struct run {
	const char *dir;	/* the run directory */
	json_t *root;		/* the whole results.json */
	json_t *records;	/* borrowed from root: [record, ...] */
	json_t *matrix;		/* borrowed: ["cell id", ...] */
	json_t *kernels;	/* borrowed, or an empty array of our own */
};

/* Loads DIR/results.json; -1 after one line on stderr saying why. */
int run_load(const char *dir, struct run *r);
void run_free(struct run *r);
/* The run's "run_id", else the run directory's name. */
const char *run_id(const struct run *r);

/* The cell a record belongs to, from its "axes"; -1 if they are bad. */
int record_key(json_t *rec, struct cell_key *k);
/* The first record of cell @id, or NULL. */
json_t *run_find(const struct run *r, const char *id);
/*
 * The record's console log, relative to the run dir ("log", else
 * jobs/JOB_ID/console.log); NULL when there is none or it would leave
 * the run dir. Free it.
 */
char *record_log(json_t *rec);

#endif /* GATE_RECORDS_H */
