// SPDX-License-Identifier: GPL-2.0
/*
 * The table a person reads on the terminal: each cell with what the
 * policy expects, what it got, the gate's verdict and why (for a
 * blocking cell, naming the policy line that decided it; for a failure
 * the policy accepts, "accepted" and the policy's reason), then the
 * one-line verdict.
 */
#include "table.h"

void table_print(FILE *f, const struct gate *g)
{
	const struct cell *c;
	size_t i;

	fprintf(f, "%-48s %-28s %-16s %-6s %s\n", "cell", "expected", "got",
		"gate", "reason / deltas vs baseline");
	for (i = 0; i < g->n_cells; i++) {
		c = &g->cells[i];
		fprintf(f, "%-48s %-28s %-16s %-6s %s%s%s\n", c->id,
			c->j.expected, c->got ? c->got : "(missing)",
			judgement_name(&c->j), c->j.why,
			c->j.why[0] && c->deltas[0] ? "; " : "", c->deltas);
	}
}

void verdict_print(FILE *f, const struct gate *g)
{
	fprintf(f, "VERDICT: %s - %zu cells: %u ok (%u known hazards seen, %u failures accepted), %u flaky%s, %u skipped, %u failed%s%s\n",
		g->blocked ? "BLOCK" : "SHIP", g->n_cells, g->count[V_OK],
		g->hazards_seen, g->accepted, g->count[V_FLAKY],
		g->policy.flaky_blocks ? " (blocking)" : "",
		g->count[V_SKIP], g->count[V_FAIL], g->why[0] ? "; " : "",
		g->why);
}
