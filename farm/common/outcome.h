/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outcomes a farm job can have (farm/PROTOCOL.md, "Outcomes"), in
 * the classifier's order of precedence. The one list: the classifier
 * gives them, the policy names them, the runner and the gate count and
 * report them.
 */
#ifndef FARM_COMMON_OUTCOME_H
#define FARM_COMMON_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

extern const char *const outcomes[];
extern const size_t n_outcomes;

bool outcome_known(const char *name, size_t len);
/* The farm could not judge the kernel (junit: error, KCIDB: ERROR). */
bool outcome_is_infra(const char *name);
/* "a|b|c" holds outcome. */
bool outcome_in(const char *outcome, const char *set);

#endif /* FARM_COMMON_OUTCOME_H */
