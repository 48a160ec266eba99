/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.html: one self-contained page for a person deciding on a
 * release.
 */
#ifndef GATE_REPORT_H
#define GATE_REPORT_H

#include "source.h"
#include "verdict.h"

int gate_report(const struct gate *g, const struct source *src,
		const char *path);

#endif /* GATE_REPORT_H */
