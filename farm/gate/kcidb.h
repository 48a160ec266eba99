/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcidb.json: the run in KernelCI's KCIDB I/O schema v4.0 (one
 * checkout, a build per kernel package, a test per cell).
 */
#ifndef GATE_KCIDB_H
#define GATE_KCIDB_H

#include "source.h"
#include "verdict.h"

#define KCIDB_ORIGIN	"sacfarm"

int gate_kcidb(const struct gate *g, const struct source *src,
	       const char *path);

#endif /* GATE_KCIDB_H */
