// SPDX-License-Identifier: GPL-2.0
/* The outcome names, once: see outcome.h. */
#include <string.h>

#include "outcome.h"
#include "util.h"

const char *const outcomes[] = {
	"pass", "qemu-crash", "panic", "oops", "log-flood", "hang",
	"iommu-fault", "kernel-error", "data-corruption", "workload-fail",
	"infra-error", "skip",
};

const size_t n_outcomes = ARRAY_SIZE(outcomes);

bool outcome_known(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n_outcomes; i++)
		if (strlen(outcomes[i]) == len && !strncmp(outcomes[i], name, len))
			return true;
	return false;
}

bool outcome_is_infra(const char *name)
{
	return !strcmp(name, "infra-error");
}

bool outcome_in(const char *outcome, const char *set)
{
	size_t len = strlen(outcome);
	const char *p = set;

	while (*p) {
		size_t n = strcspn(p, "|");

		if (n == len && !strncmp(p, outcome, n))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}
