// SPDX-License-Identifier: GPL-2.0
/*
 * Judging a run. The cells are every record, every cell the matrix
 * declares and every cell the baseline had: a declared cell with no
 * record is missing, and missing work blocks. Each cell's outcome is
 * held against the policy by policy_judge(); a failing cell that
 * matches the policy on its rerun is flaky; against a baseline, a pass
 * that became a skip, or a metric past its limit, blocks. A run in
 * which no cell ran blocks whatever its cells say.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "rerun.h"
#include "util.h"
#include "verdict.h"

static bool has_cell(const struct gate *g, const char *id)
{
	size_t i;

	for (i = 0; i < g->n_cells; i++)
		if (!strcmp(g->cells[i].id, id))
			return true;
	return false;
}

static struct cell *add_cell(struct gate *g, const struct cell_key *k,
			     json_t *record)
{
	struct cell *c = &g->cells[g->n_cells++];

	c->key = *k;
	cell_key_id(k, c->id, sizeof(c->id));
	c->record = record;
	c->base = g->base.root ? run_find(&g->base, c->id) : NULL;
	return c;
}

static int add_records(struct gate *g)
{
	struct cell_key k;
	json_t *rec;
	size_t i;

	json_array_foreach(g->run.records, i, rec) {
		if (record_key(rec, &k)) {
			warnx("%s/results.json: record %zu has no valid \"axes\" (flavour, arch, machine, workload, variant)",
			      g->run.dir, i);
			return -1;
		}
		add_cell(g, &k, rec);
	}
	return 0;
}

/* Cells the matrix declares that no record holds: missing. */
static int add_declared(struct gate *g)
{
	struct cell_key k;
	const char *id;
	json_t *v;
	size_t i;

	json_array_foreach(g->run.matrix, i, v) {
		id = json_string_value(v);
		if (!id || cell_key_parse(id, &k)) {
			warnx("%s/results.json: matrix entry %zu is not a cell id FLAVOUR/ARCH/MACHINE/WORKLOAD[@VARIANT]",
			      g->run.dir, i);
			return -1;
		}
		if (!has_cell(g, id))
			add_cell(g, &k, NULL);
	}
	return 0;
}

/* Cells the baseline had that this run lacks: missing. */
static void add_baseline(struct gate *g)
{
	char id[CELL_ID_MAX];
	struct cell_key k;
	json_t *rec;
	size_t i;

	json_array_foreach(g->base.records, i, rec) {
		if (record_key(rec, &k))
			continue;
		cell_key_id(&k, id, sizeof(id));
		if (!has_cell(g, id))
			add_cell(g, &k, NULL);
	}
}

/*
 * A record's numbers by "workload.metric" name: the workload's metrics
 * plus its stage timings as "workload.t_<stage>_ms".
 */
static json_t *numbers_of(json_t *rec, const char *workload)
{
	json_t *all = json_deep_copy(json_object_get(rec, "metrics"));
	const char *stage;
	char name[256];
	json_t *v;

	if (!json_is_object(all)) {
		json_decref(all);
		all = json_object();
	}
	json_object_foreach(json_object_get(rec, "timings_ms"), stage, v) {
		snprintf(name, sizeof(name), "%s.t_%s_ms", workload, stage);
		json_object_set(all, name, v);
	}
	return all;
}

static bool past_limit(const struct limit_rule *lim, double delta)
{
	return (lim->percent > 0 && delta > lim->percent) ||
	       (lim->percent < 0 && delta < lim->percent);
}

/* Notes "metric +x%" deltas; returns the limit one broke, or NULL. */
static const struct limit_rule *compare_metrics(const struct gate *g,
						struct cell *c, char *why,
						size_t why_len)
{
	json_t *now = numbers_of(c->record, c->key.workload);
	json_t *then = numbers_of(c->base, c->key.workload);
	const struct limit_rule *lim, *broke = NULL;
	const char *name;
	size_t len = 0;
	double a, b, d;
	json_t *v;

	json_object_foreach(now, name, v) {
		lim = policy_limit(&g->policy, name);
		if (!lim || !json_is_number(v) ||
		    !json_is_number(json_object_get(then, name)))
			continue;
		a = json_number_value(v);
		b = json_number_value(json_object_get(then, name));
		if (b == 0)
			continue;
		d = (a - b) / fabs(b) * 100;
		if (past_limit(lim, d)) {
			broke = lim;
			snprintf(why, why_len,
				 "%s %+.1f%% against the baseline, limit %+g%% (policy line %u)",
				 name, d, lim->percent, lim->line);
		}
		if (len < sizeof(c->deltas))
			len += snprintf(c->deltas + len, sizeof(c->deltas) - len,
					"%s%s %+.1f%%", len ? ", " : "", name, d);
	}
	json_decref(now);
	json_decref(then);
	return broke;
}

/* What the baseline adds: pass -> skip and metric limits. */
static void against_baseline(const struct gate *g, struct cell *c)
{
	const char *before = jstr(c->base, "outcome", "");
	char why[sizeof(c->j.why)];

	if (!c->record)
		return;
	if (compare_metrics(g, c, why, sizeof(why)) &&
	    c->j.verdict == V_OK) {
		c->j.verdict = V_FAIL;
		c->fault = "metric-limit";
		strcpy(c->j.why, why);
	}
	if (c->j.verdict == V_SKIP && !strcmp(before, "pass")) {
		c->j.verdict = V_FAIL;
		c->fault = c->got;
		snprintf(c->j.why, sizeof(c->j.why),
			 "passed on the baseline, skipped now: %s (policy line %u allows the skip, the baseline does not)",
			 jstr(c->record, "reason", ""), c->j.line);
	}
}

static void rerun_failed(struct gate *g, struct cell *c, unsigned int n)
{
	struct judgement again;
	const char *got;

	c->again = rerun_cell(g->runner, g->run.dir, n, &c->key, c->record);
	if (!c->again)
		return;
	got = jstr(c->again, "outcome", "infra-error");
	policy_judge(&g->policy, &c->key, got, jstr(c->again, "reason", NULL),
		     &again);
	if (again.verdict != V_OK)
		return;
	c->j.verdict = V_FLAKY;
	snprintf(c->j.why, sizeof(c->j.why),
		 "flaky: %s first, %s on the rerun%s", c->got, got,
		 g->policy.flaky_blocks ? " (policy: flaky block)" : "");
}

static void judge_cell(struct gate *g, struct cell *c, unsigned int n)
{
	const char *reason = NULL;

	if (c->record) {
		c->got = jstr(c->record, "outcome", "infra-error");
		reason = jstr(c->record, "reason", NULL);
	}
	policy_judge(&g->policy, &c->key, c->got, reason, &c->j);
	if (c->j.verdict == V_FAIL)
		c->fault = c->got ? c->got : "missing";
	if (c->j.verdict == V_FAIL && c->got && strcmp(c->got, "skip") &&
	    g->runner)
		rerun_failed(g, c, n);
	if (c->base)
		against_baseline(g, c);
}

bool cell_blocks(const struct gate *g, const struct cell *c)
{
	return c->j.verdict == V_FAIL ||
	       (c->j.verdict == V_FLAKY && g->policy.flaky_blocks);
}

static void tally(struct gate *g)
{
	const struct cell *c;
	size_t i;

	for (i = 0; i < g->n_cells; i++) {
		c = &g->cells[i];
		g->count[c->j.verdict]++;
		g->hazards_seen += c->j.verdict == V_OK && c->j.hazard;
		g->accepted += c->j.verdict == V_OK && c->j.accepted;
		g->executed += c->got && strcmp(c->got, "skip");
		g->blocked |= cell_blocks(g, c);
	}
	if (g->executed)
		return;
	g->blocked = true;
	snprintf(g->why, sizeof(g->why), "%s",
		 json_array_size(g->run.records) ?
		 "no cell ran: every record is a skip" :
		 "no cell ran: the run holds no record");
}

int gate_judge(struct gate *g)
{
	size_t n = json_array_size(g->run.records) +
		   json_array_size(g->run.matrix) +
		   json_array_size(g->base.records);
	size_t i;

	g->cells = xcalloc(n, sizeof(*g->cells));
	if (add_records(g) || add_declared(g))
		return -1;
	add_baseline(g);
	for (i = 0; i < g->n_cells; i++)
		judge_cell(g, &g->cells[i], (unsigned int)i);
	tally(g);
	return 0;
}

void gate_free(struct gate *g)
{
	size_t i;

	for (i = 0; i < g->n_cells; i++)
		json_decref(g->cells[i].again);
	free(g->cells);
	run_free(&g->run);
	run_free(&g->base);
	memset(g, 0, sizeof(*g));
}
