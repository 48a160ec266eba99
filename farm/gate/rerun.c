// SPDX-License-Identifier: GPL-2.0
/*
 * A rerun is the runner exec'd with an argv: axis values and kernel
 * specs come from results.json and reach the runner as words, whatever
 * characters they hold. No shell ever sees them.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "records.h"
#include "rerun.h"
#include "util.h"

/* One cell boots in minutes; past this the runner itself is stuck. */
#define RERUN_TIMEOUT_S	(2 * 3600)

/* The runner's words: RUNNER run --out OUT --arch A ... [--variant V]. */
static void fill_argv(const char *argv[], const char *runner, const char *out,
		      const struct cell_key *k, const char *kernel,
		      const char *variant)
{
	const char *words[] = {
		runner, "run", "--out", out, "--arch", k->arch,
		"--machine", k->machine, "--kernel", kernel,
		"--workload", k->workload,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		argv[i] = words[i];
	if (variant) {
		argv[i++] = "--variant";
		argv[i++] = variant;
	}
	argv[i] = NULL;
}

/* The cell's record in the rerun's OUT/latest/results.json, or NULL. */
static json_t *rerun_record(const char *out, const struct cell_key *k)
{
	char *latest = xasprintf("%s/latest", out);
	char id[CELL_ID_MAX];
	struct run r;
	json_t *rec = NULL;

	if (run_load(latest, &r))
		goto out;
	cell_key_id(k, id, sizeof(id));
	rec = json_incref(run_find(&r, id));
	if (!rec)
		warnx("%s/results.json: the rerun has no record of %s", latest,
		      id);
	run_free(&r);
out:
	free(latest);
	return rec;
}

json_t *rerun_cell(const char *runner, const char *run_dir, unsigned int n,
		   const struct cell_key *k, json_t *rec)
{
	json_t *how = json_object_get(rec, "rerun");
	const char *kernel = jstr(how, "kernel", NULL);
	const char *argv[16];
	char *dir, *out, *log, *variant = NULL;
	char id[CELL_ID_MAX];
	json_t *again = NULL;
	int st;

	if (!kernel)
		return NULL;
	dir = xasprintf("%s/reruns", run_dir);
	out = xasprintf("%s/%u", dir, n);
	log = xasprintf("%s/%u.log", dir, n);
	if (mkdir_p(dir)) {
		warnx("cannot create %s", dir);
		goto out;
	}
	if (strcmp(k->variant, "default"))
		variant = xasprintf("%s=%s", k->variant,
				    jstr(how, "variant", ""));
	fill_argv(argv, runner, out, k, kernel, variant);
	cell_key_id(k, id, sizeof(id));
	warnx("rerunning %s (log: %s)", id, log);
	st = run_argv((char *const *)argv, log, log, RERUN_TIMEOUT_S);
	if (st < 0 || st >= 128)
		warnx("the rerun did not finish (status %d, see %s)", st, log);
	else
		again = rerun_record(out, k);
	free(variant);
out:
	free(log);
	free(out);
	free(dir);
	return again;
}
