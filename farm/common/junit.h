/* SPDX-License-Identifier: GPL-2.0 */
/*
 * junit.xml, the one writer: the runner writes it for a run, the gate
 * rewrites it with its verdicts. Valid against Jenkins' JUnit schema
 * (tests/data/junit/jenkins-junit.xsd) whatever the console held.
 */
#ifndef FARM_COMMON_JUNIT_H
#define FARM_COMMON_JUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

enum junit_kind {
	JUNIT_PASS,
	JUNIT_SKIPPED,
	JUNIT_FAILURE,	/* the kernel did not do what was expected */
	JUNIT_ERROR,	/* the farm could not judge it (infra-error) */
};

struct junit_case {
	const char *classname;
	const char *name;
	double time;		/* seconds */
	enum junit_kind kind;
	const char *type;	/* outcome class, for failure and error */
	const char *message;
	const char *log;	/* console log whose tail is the body, or NULL */
	/*
	 * <system-out> of a case that does not fail: for a failure the
	 * policy accepts, "accepted: REASON", so it never reads as a plain
	 * pass. NULL: none.
	 */
	const char *note;
};

/* A judged cell's kind; outcome NULL: the cell is missing. */
enum junit_kind junit_kind_of(enum verdict v, bool flaky_blocks,
			      const char *outcome);

/* Returns 0, or -1 when path cannot be written. */
int junit_write(const char *path, const char *suite,
		const struct junit_case *cases, size_t n);

#endif /* FARM_COMMON_JUNIT_H */
