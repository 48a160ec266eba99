// SPDX-License-Identifier: GPL-2.0
/*
 * junit.xml from the gate's verdicts, through the farm's one junit
 * writer: a cell that blocks is a <failure> whose type is what failed
 * (the outcome class, "missing", "metric-limit"), or an <error> when
 * the farm could not judge it (infra-error); its body is the tail of
 * the cell's console log. A failure the policy accepts does not fail
 * the case; its <system-out> says "accepted: REASON".
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "junit.h"
#include "junit_out.h"
#include "outcome.h"
#include "util.h"

static enum junit_kind kind_of(const struct gate *g, const struct cell *c)
{
	if (c->j.verdict == V_SKIP)
		return JUNIT_SKIPPED;
	if (!cell_blocks(g, c))
		return JUNIT_PASS;
	if (c->got && outcome_is_infra(c->got))
		return JUNIT_ERROR;
	return JUNIT_FAILURE;
}

static char *log_of(const struct gate *g, const struct cell *c)
{
	char *rel = c->record ? record_log(c->record) : NULL;
	char *path;

	if (!rel)
		return NULL;
	path = xasprintf("%s/%s", g->run.dir, rel);
	free(rel);
	return path;
}

static void fill_case(const struct gate *g, const struct cell *c,
		      struct junit_case *jc)
{
	bool dflt = !strcmp(c->key.variant, "default");

	jc->classname = xasprintf("%s.%s.%s", c->key.flavour, c->key.arch,
				  c->key.machine);
	jc->name = xasprintf("%s%s%s", c->key.workload, dflt ? "" : "@",
			     dflt ? "" : c->key.variant);
	jc->time = json_number_value(json_object_get(c->record, "duration_s"));
	jc->kind = kind_of(g, c);
	jc->type = c->fault ? c->fault : c->got;
	jc->message = c->j.why;
	jc->log = jc->kind >= JUNIT_FAILURE ? log_of(g, c) : NULL;
	jc->note = c->j.accepted ? c->j.why : NULL;
}

static void free_case(struct junit_case *jc)
{
	free((char *)jc->classname);
	free((char *)jc->name);
	free((char *)jc->log);
}

int gate_junit(const struct gate *g, const char *path)
{
	struct junit_case *cases = xcalloc(g->n_cells, sizeof(*cases));
	size_t i;
	int ret;

	for (i = 0; i < g->n_cells; i++)
		fill_case(g, &g->cells[i], &cases[i]);
	ret = junit_write(path, "sac-farm-gate", cases, g->n_cells);
	if (ret)
		warnx("cannot write %s", path);
	for (i = 0; i < g->n_cells; i++)
		free_case(&cases[i]);
	free(cases);
	return ret;
}
