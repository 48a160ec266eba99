// SPDX-License-Identifier: GPL-2.0
/*
 * Results: each job's record.json, judged against the policy once; the
 * run's results.json (farm/PROTOCOL.md) and junit.xml; one progress line
 * per job and the summary line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "junit.h"
#include "outcome.h"
#include "runner.h"


static const char *outcome_of(const struct job *j)
{
	return jstr(j->record, "outcome", "infra-error");
}

static json_t *cell_id_json(const struct job *j)
{
	struct cell_key key;
	char id[CELL_ID_MAX];

	job_cell_key(j, &key);
	cell_key_id(&key, id, sizeof(id));
	return json_string(id);
}

/* Judges the record and adds the axes and context; writes record.json. */
void record_finish(struct job *j)
{
	json_t *r = j->record;
	struct cell_key key;
	char *s;

	job_cell_key(j, &key);
	policy_judge(&farm.policy, &key, outcome_of(j),
		     jstr(r, "reason", NULL), &j->judged);
	json_object_set_new(r, "job_id", json_string(j->id));
	json_object_set_new(r, "axes",
			    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
				      "arch", j->m->arch, "machine", j->m->id,
				      "kernel", j->k->name, "flavour",
				      j->k->flavour, "variant", j->v->name,
				      "workload", j->w->name));
	/* What a rerun of just this cell (the gate's) passes back. */
	json_object_set_new(r, "rerun", json_pack("{s:s, s:s}", "kernel",
						  j->k->spec, "variant",
						  j->v->cmdline ? j->v->cmdline : ""));
	json_object_set_new(r, "kernel_release", json_string(j->k->release));
	json_object_set_new(r, "boot", json_string(j->w->boot->name));
	json_object_set_new(r, "expected", json_string(j->judged.expected));
	json_object_set_new(r, "policy_line", json_integer(j->judged.line));
	json_object_set_new(r, "as_expected",
			    json_boolean(j->judged.verdict != V_FAIL));
	if (!j->dir)
		return;
	s = job_cmdline(j);
	json_object_set_new(r, "cmdline", json_string(s));
	free(s);
	json_object_set_new(r, "log", json_sprintf("jobs/%s/console.log",
						   j->id));
	s = job_path(j, "record.json");
	json_dump_file(r, s, JSON_INDENT(2) | JSON_SORT_KEYS |
		       JSON_REAL_PRECISION(6));
	free(s);
}

void progress_line(const struct job *j, size_t total, size_t done)
{
	const struct judgement *jd = &j->judged;
	const char *o = outcome_of(j);
	double d = json_number_value(json_object_get(j->record, "duration_s"));
	char variant[80] = "", note[300] = "";

	if (strcmp(j->v->name, "default"))
		snprintf(variant, sizeof(variant), " %s", j->v->name);
	if (jd->verdict == V_FAIL)
		snprintf(note, sizeof(note), " (expected %s)", jd->expected);
	else if (jd->accepted)
		snprintf(note, sizeof(note), " (accepted, not a pass)");
	else if (strcmp(o, "pass"))
		snprintf(note, sizeof(note), " (as expected)");
	printf("[%zu/%zu] %s %s%s %s: %s%s (%.1f s)\n", done, total, j->m->id,
	       j->k->flavour, variant, j->w->name, o, note, d);
	if (jd->verdict == V_FAIL || jd->verdict == V_SKIP || jd->accepted)
		printf("    %s\n", jd->why);
	fflush(stdout);
}

static void count(json_t *counts, const char *key)
{
	json_int_t n = json_integer_value(json_object_get(counts, key));

	json_object_set_new(counts, key, json_integer(n + 1));
}

/* Outcome counts in the protocol's order, pass first. */
static void summary_line(json_t *counts, size_t njobs, size_t bad)
{
	const char *sep = " ";
	json_t *v;
	size_t i;

	printf("%zu jobs:", njobs);
	for (i = 0; i < n_outcomes; i++) {
		v = json_object_get(counts, outcomes[i]);
		if (!v)
			continue;
		printf("%s%lld %s", sep, (long long)json_integer_value(v),
		       outcomes[i]);
		sep = ", ";
	}
	printf("; %zu not as expected\n", bad);
}

static int write_junit(const struct run_info *run, struct job *jobs,
		       size_t n)
{
	struct junit_case *cases = xcalloc(n, sizeof(*cases));
	char *path = xasprintf("%s/junit.xml", run->dir);
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		struct junit_case *c = &cases[i];

		c->classname = xasprintf("farm.%s.%s.%s", j->m->id, j->k->name,
					 j->v->name);
		c->name = j->w->name;
		c->time = json_number_value(json_object_get(j->record,
							    "duration_s"));
		c->kind = junit_kind_of(j->judged.verdict,
					farm.policy.flaky_blocks,
					outcome_of(j));
		c->type = outcome_of(j);
		c->message = j->judged.why;
		c->log = j->dir ? job_path(j, "console.log") : NULL;
		c->note = j->judged.accepted ? j->judged.why : NULL;
	}
	ret = junit_write(path, "farm", cases, n);
	for (i = 0; i < n; i++) {
		free((char *)cases[i].classname);
		free((char *)cases[i].log);
	}
	free(cases);
	free(path);
	return ret;
}

static json_t *run_kernels(const struct run_info *run)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < run->nkernels; i++)
		json_array_append_new(a, kernel_describe(run->kernels[i]));
	return a;
}

/*
 * Writes results.json (and, once final, junit.xml and the summary
 * line): first when the run starts, declaring its matrix with no
 * records, so a run that never finishes cannot pass for a whole one.
 * Returns how many jobs the policy does not accept.
 */
int results_write(const struct run_info *run, struct job *jobs, size_t njobs,
		  bool final)
{
	json_t *records = json_array(), *counts = json_object(), *matrix;
	json_t *top;
	size_t i, bad = 0;
	char *path;

	matrix = json_array();
	for (i = 0; i < njobs; i++) {
		json_array_append_new(matrix, cell_id_json(&jobs[i]));
		if (!jobs[i].record)
			continue;
		json_array_append(records, jobs[i].record);
		count(counts, outcome_of(&jobs[i]));
		bad += jobs[i].judged.verdict == V_FAIL;
	}
	top = json_pack("{s:i, s:s, s:s, s:f, s:s, s:s, s:o, s:o, s:i, s:O, s:i, s:o}",
			"format", RESULTS_FORMAT, "run_id", run->id,
			"started_utc", run->started_utc, "duration_s",
			final ? now_s() - run->t0 : 0.0, "engine", run->engine,
			"policy", farm.policy.path, "kernels", run_kernels(run),
			"matrix", matrix, "jobs", (json_int_t)njobs,
			"outcomes", counts, "not_as_expected", (json_int_t)bad,
			"records", records);
	path = xasprintf("%s/results.json", run->dir);
	if (json_dump_file(top, path, JSON_INDENT(2) | JSON_REAL_PRECISION(6)))
		die("cannot write %s", path);
	free(path);
	if (final) {
		if (write_junit(run, jobs, njobs))
			die("cannot write %s/junit.xml", run->dir);
		summary_line(counts, njobs, bad);
	}
	json_decref(counts);
	json_decref(top);
	return (int)bad;
}
