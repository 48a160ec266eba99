/* SPDX-License-Identifier: GPL-2.0 */
/* The gate's terminal output: one line per cell, then the verdict. */
#ifndef GATE_TABLE_H
#define GATE_TABLE_H

#include <stdio.h>

#include "verdict.h"

void table_print(FILE *f, const struct gate *g);
/* "VERDICT: SHIP - ..." or "VERDICT: BLOCK - ...". */
void verdict_print(FILE *f, const struct gate *g);

#endif /* GATE_TABLE_H */
