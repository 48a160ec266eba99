/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Release policy: what each farm cell is expected to do, and how far a
 * metric may move against a baseline. Format: farm/policy.conf.
 */
#ifndef SAC_GATE_POLICY_H
#define SAC_GATE_POLICY_H

#include <stdbool.h>

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

struct expect_rule {
	struct cell_key match;
	char outcomes[256];	/* "a|b|c" */
	bool hazard;		/* expects something other than pass */
	unsigned int line;
};

struct limit_rule {
	char metric[POLICY_FIELD];	/* "workload.metric" pattern */
	double percent;			/* >0: may grow, <0: may drop */
	unsigned int line;
};

struct policy {
	struct expect_rule expect[POLICY_MAX_RULES];
	unsigned int n_expect;
	struct limit_rule limit[POLICY_MAX_RULES];
	unsigned int n_limit;
	bool flaky_blocks;
};

/* Returns 0, or -1 after printing "FILE:LINE: what is wrong". */
int policy_load(const char *path, struct policy *p);
const struct expect_rule *policy_expect(const struct policy *p,
					const struct cell_key *k);
const struct limit_rule *policy_limit(const struct policy *p,
				      const char *metric);
bool outcome_in(const char *outcome, const char *set);

#endif
