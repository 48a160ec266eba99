/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Release policy (farm/policy.conf): what each farm cell is expected to
 * do, how far a metric may move against a baseline, and the one
 * judgement of an outcome against that expectation, which the runner's
 * progress and exit status and the gate's verdict both use.
 */
#ifndef FARM_COMMON_POLICY_H
#define FARM_COMMON_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define POLICY_MAX_RULES	128
#define POLICY_FIELD		64

/* Axes of one cell; "*" in a rule matches anything (fnmatch patterns). */
struct cell_key {
	char flavour[POLICY_FIELD];
	char arch[POLICY_FIELD];
	char machine[POLICY_FIELD];
	char workload[POLICY_FIELD];
	char variant[POLICY_FIELD];
};

/* "flavour/arch/machine/workload[@variant]": how a cell is named. */
#define CELL_ID_MAX (5 * POLICY_FIELD)

struct expect_rule {
	struct cell_key match;
	char outcomes[256];	/* "a|b|c" */
	bool hazard;		/* expects something other than pass */
	/*
	 * Lets a failure through: pass and an outcome other than skip. Such
	 * a rule must say why ("because ..."), and a cell it lets through is
	 * shown as accepted with that reason, never as a plain pass.
	 */
	bool accepts;
	char because[256];	/* the rule's reason, or "" */
	unsigned int line;
};

struct limit_rule {
	char metric[POLICY_FIELD];	/* "workload.metric" pattern */
	double percent;			/* >0: may grow, <0: may drop */
	unsigned int line;
};

struct policy {
	const char *path;
	struct expect_rule expect[POLICY_MAX_RULES];
	unsigned int n_expect;
	struct limit_rule limit[POLICY_MAX_RULES];
	unsigned int n_limit;
	bool flaky_blocks;
};

enum verdict {
	V_OK,		/* got what the policy expects (pass or a seen hazard) */
	V_SKIP,		/* skipped, and the policy expects that skip */
	V_FLAKY,	/* failed, then matched expectations on the rerun */
	V_FAIL,		/* blocks the release */
};

/* One cell's outcome held against its expectation. */
struct judgement {
	enum verdict verdict;
	const char *expected;	/* the deciding rule's outcomes, or "pass" */
	bool hazard;
	/* V_OK for a failure the deciding rule accepts; why says why. */
	bool accepted;
	unsigned int line;	/* the deciding rule's line; 0: none matched */
	char why[512];		/* empty for a plain pass */
};

/* Returns 0, or -1 after printing "FILE:LINE: what is wrong". */
int policy_load(const char *path, struct policy *p);
const struct expect_rule *policy_expect(const struct policy *p,
					const struct cell_key *k);
const struct limit_rule *policy_limit(const struct policy *p,
				      const char *metric);

/* got NULL: the cell is missing from the run. reason may be NULL. */
void policy_judge(const struct policy *p, const struct cell_key *k,
		  const char *got, const char *reason, struct judgement *j);
const char *verdict_name(enum verdict v);
/* The verdict's name, or "accepted" for an accepted failure. */
const char *judgement_name(const struct judgement *j);
void cell_key_id(const struct cell_key *k, char *buf, size_t len);
/* A cell id back into its key; -1 if it is not one. */
int cell_key_parse(const char *id, struct cell_key *k);

/* The results.json format the runner writes and the gate reads. */
#define RESULTS_FORMAT 2

#endif /* FARM_COMMON_POLICY_H */
