/* SPDX-License-Identifier: GPL-2.0 */
/* The gate's junit.xml: one testcase per cell, written by junit_write. */
#ifndef GATE_JUNIT_OUT_H
#define GATE_JUNIT_OUT_H

#include "verdict.h"

int gate_junit(const struct gate *g, const char *path);

#endif /* GATE_JUNIT_OUT_H */
