// SPDX-License-Identifier: GPL-2.0
/*
 * gate: may this kernel ship? Judges a farm run's results.json against
 * the release policy and, optionally, a baseline run; prints a table and
 * a one-line verdict; writes junit.xml, kcidb.json and report.html into
 * the run dir. Exit 0: ship. 1: blocked. 2: bad input.
 *
 * A cell that does not match its expectation is rerun once through the
 * runner; matching on the rerun makes it flaky, which the policy decides
 * to block or allow. A hazard cell (expected to fail) that passes is a
 * failure: the farm stopped seeing what it exists to see.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gate.h"

static const char *runner_cmd;

const char *verdict_name(enum verdict v)
{
	static const char * const names[] = {
		[V_OK] = "ok", [V_SKIP] = "skip", [V_FLAKY] = "flaky",
		[V_FAIL] = "FAIL",
	};
	return names[v];
}

static const char *str_or(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

json_t *load_records(const char *path)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);
	json_t *jobs;

	if (!j) {
		fprintf(stderr, "gate: %s:%d: %s\n", path, err.line, err.text);
		return NULL;
	}
	jobs = json_is_object(j) ? json_object_get(j, "records") : j;
	if (!json_is_array(jobs)) {
		fprintf(stderr, "gate: %s: expected job records ({\"records\": [...]} or [...])\n",
			path);
		json_decref(j);
		return NULL;
	}
	json_incref(jobs);
	json_decref(j);
	return jobs;
}

static int copy_axis(char *dst, json_t *axes, const char *key,
		     const char *dflt)
{
	const char *s = str_or(axes, key, dflt);

	if (!s || strlen(s) >= POLICY_FIELD)
		return -1;
	strcpy(dst, s);
	return 0;
}

int cell_key_of(json_t *rec, struct cell_key *k)
{
	json_t *axes = json_object_get(rec, "axes");

	if (!json_is_object(axes))
		return -1;
	if (copy_axis(k->flavour, axes, "flavour", NULL) ||
	    copy_axis(k->arch, axes, "arch", NULL) ||
	    copy_axis(k->machine, axes, "machine", NULL) ||
	    copy_axis(k->workload, axes, "workload", NULL) ||
	    copy_axis(k->variant, axes, "variant", "default"))
		return -1;
	return 0;
}

static void cell_id(struct cell *c)
{
	snprintf(c->id, sizeof(c->id), "%s/%s/%s/%s%s%s", c->key.flavour,
		 c->key.arch, c->key.machine, c->key.workload,
		 strcmp(c->key.variant, "default") ? "@" : "",
		 strcmp(c->key.variant, "default") ? c->key.variant : "");
}

static json_t *find_record(json_t *records, const char *id)
{
	struct cell tmp;
	size_t i;
	json_t *r;

	json_array_foreach(records, i, r) {
		if (cell_key_of(r, &tmp.key))
			continue;
		cell_id(&tmp);
		if (!strcmp(tmp.id, id))
			return r;
	}
	return NULL;
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

/* Record "metric +x%" deltas; returns true if a limit broke. */
static bool compare_metrics(const struct gate *g, struct cell *c)
{
	json_t *now = numbers_of(c->record, c->key.workload);
	json_t *then = numbers_of(c->base, c->key.workload);
	const struct limit_rule *lim;
	bool broke = false;
	const char *name;
	double a, b, d;
	size_t len = 0;
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
		if ((lim->percent > 0 && d > lim->percent) ||
		    (lim->percent < 0 && d < lim->percent)) {
			broke = true;
			snprintf(c->why, sizeof(c->why),
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

/* Judge one outcome against the cell's expectation, without reruns. */
static enum verdict judge(struct cell *c, const char *got)
{
	if (!got) {
		snprintf(c->why, sizeof(c->why), "cell missing from the run");
		return V_FAIL;
	}
	if (outcome_in(got, c->expected))
		return V_OK;
	if (!strcmp(got, "skip") && !c->hazard) {
		snprintf(c->why, sizeof(c->why), "skipped: %s",
			 c->reason ? c->reason : "no reason given");
		return V_SKIP;
	}
	if (c->hazard && !strcmp(got, "pass"))
		snprintf(c->why, sizeof(c->why),
			 "known hazard passed: the farm no longer sees %s",
			 c->expected);
	else
		snprintf(c->why, sizeof(c->why), "expected %s, got %s: %s",
			 c->expected, got, c->reason ? c->reason : "");
	return V_FAIL;
}

/* Quote @s for sh -c; NULL when it holds a quote (never rerun those). */
static const char *quoted(const char *s, char *buf, size_t len)
{
	if (strchr(s, '\'') || (size_t)snprintf(buf, len, "'%s'", s) >= len)
		return NULL;
	return buf;
}

/* Run the runner for this one cell; returns the new outcome or NULL. */
static const char *rerun(const struct gate *g, struct cell *c, int n)
{
	json_t *how = json_object_get(c->record, "rerun");
	const char *kernel = str_or(how, "kernel", NULL);
	const char *vcmd = str_or(how, "variant", "");
	char out[4096], res[4200], cmd[16384], kq[4200], vq[4400], var[4300];
	static json_t *keep;
	json_t *recs, *r;
	int st;

	if (!runner_cmd || !kernel)
		return NULL;
	snprintf(out, sizeof(out), "%s/reruns/%d", g->run_dir, n);
	snprintf(var, sizeof(var), "%s=%s", c->key.variant, vcmd);
	if (!quoted(kernel, kq, sizeof(kq)) || !quoted(var, vq, sizeof(vq)))
		return NULL;
	snprintf(cmd, sizeof(cmd),
		 "%s run --out '%s' --arch '%s' --machine '%s' --kernel %s --workload '%s'%s%s >/dev/null 2>&1",
		 runner_cmd, out, c->key.arch, c->key.machine, kq,
		 c->key.workload, *vcmd ? " --variant " : "", *vcmd ? vq : "");
	fprintf(stderr, "gate: rerunning %s\n", c->id);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return NULL;
	/* The runner puts each run in OUT/<run-id>, linked as OUT/latest. */
	snprintf(res, sizeof(res), "%s/latest/results.json", out);
	if (access(res, R_OK))
		snprintf(res, sizeof(res), "%s/results.json", out);
	recs = load_records(res);
	if (!recs)
		return NULL;
	r = json_array_get(recs, 0);
	if (!r) {
		json_decref(recs);
		return NULL;
	}
	/* The outcome string lives as long as its records: keep them. */
	if (!keep)
		keep = json_array();
	json_array_append_new(keep, recs);
	return str_or(r, "outcome", NULL);
}

static void evaluate(struct gate *g, struct cell *c, bool do_rerun, int n)
{
	const struct expect_rule *rule = policy_expect(&g->policy, &c->key);
	const char *again;

	c->expected = rule ? rule->outcomes : "pass";
	c->hazard = rule ? rule->hazard : false;
	c->got = c->record ? str_or(c->record, "outcome", NULL) : NULL;
	c->reason = c->record ? str_or(c->record, "reason", NULL) : NULL;
	c->verdict = judge(c, c->got);
	if (c->verdict == V_FAIL && c->got && do_rerun) {
		again = rerun(g, c, n);
		if (again && outcome_in(again, c->expected)) {
			c->verdict = V_FLAKY;
			snprintf(c->why, sizeof(c->why),
				 "flaky: %s first, %s on the rerun", c->got,
				 again);
		}
	}
	if (c->verdict == V_OK && c->base && compare_metrics(g, c))
		c->verdict = V_FAIL;
	else if (c->base && c->verdict != V_FAIL)
		compare_metrics(g, c);
	if (c->verdict == V_OK)
		snprintf(c->why, sizeof(c->why), "%s",
			 c->hazard ? "known hazard seen, as expected" : "");
}

static int add_cells(struct gate *g, bool do_rerun)
{
	size_t n = json_array_size(g->results), i, nb = 0;
	json_t *r;

	nb = json_array_size(g->baseline);
	g->cells = calloc(n + nb, sizeof(*g->cells));
	if (!g->cells)
		return -1;
	json_array_foreach(g->results, i, r) {
		struct cell *c = &g->cells[g->n_cells];

		if (cell_key_of(r, &c->key)) {
			fprintf(stderr, "gate: results.json: job %zu has no valid \"axes\" (flavour, arch, machine, workload)\n",
				i);
			return -1;
		}
		cell_id(c);
		c->record = r;
		c->base = g->baseline ? find_record(g->baseline, c->id) : NULL;
		g->n_cells++;
	}
	/* A cell the baseline had and this run lacks is a failure. */
	json_array_foreach(g->baseline, i, r) {
		struct cell *c = &g->cells[g->n_cells];

		if (cell_key_of(r, &c->key))
			continue;
		cell_id(c);
		if (find_record(g->results, c->id))
			continue;
		c->base = r;
		g->n_cells++;
	}
	for (i = 0; i < g->n_cells; i++)
		evaluate(g, &g->cells[i], do_rerun, (int)i);
	return 0;
}

static void print_table(const struct gate *g)
{
	size_t i;

	printf("%-48s %-28s %-16s %-6s %s\n", "cell", "expected", "got",
	       "gate", "reason / deltas vs baseline");
	for (i = 0; i < g->n_cells; i++) {
		const struct cell *c = &g->cells[i];

		printf("%-48s %-28s %-16s %-6s %s%s%s\n", c->id, c->expected,
		       c->got ? c->got : "(missing)", verdict_name(c->verdict),
		       c->why, c->why[0] && c->deltas[0] ? "; " : "",
		       c->deltas);
	}
}

static int verdict_line(const struct gate *g)
{
	unsigned int count[V_FAIL + 1] = { 0 }, hazards = 0;
	bool blocked;
	size_t i;

	for (i = 0; i < g->n_cells; i++) {
		count[g->cells[i].verdict]++;
		hazards += g->cells[i].hazard &&
			   g->cells[i].verdict == V_OK;
	}
	blocked = count[V_FAIL] || !g->n_cells ||
		  (count[V_FLAKY] && g->policy.flaky_blocks);
	printf("VERDICT: %s - %zu cells: %u ok (%u known hazards seen), %u flaky%s, %u skipped, %u failed\n",
	       blocked ? "BLOCK" : "SHIP", g->n_cells, count[V_OK], hazards,
	       count[V_FLAKY], g->policy.flaky_blocks ? " (blocking)" : "",
	       count[V_SKIP], count[V_FAIL]);
	return blocked ? 1 : 0;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in, *out;
	size_t n;
	int ret = 0;

	in = fopen(from, "rb");
	if (!in)
		return -1;
	out = fopen(to, "wb");
	if (!out) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	fclose(in);
	if (fclose(out))
		ret = -1;
	return ret;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: gate RUN_DIR [--policy FILE] [--baseline DIR] [--save-baseline DIR] [--runner CMD | --no-rerun]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "save-baseline", required_argument, NULL, 's' },
		{ "runner", required_argument, NULL, 'r' },
		{ "no-rerun", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = "farm/policy.conf", *base = NULL, *save = NULL;
	struct gate g = { 0 };
	char path[4096];
	bool do_rerun = true;
	int c, ret;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			policy = optarg;
			break;
		case 'b':
			base = optarg;
			break;
		case 's':
			save = optarg;
			break;
		case 'r':
			runner_cmd = optarg;
			break;
		case 'n':
			do_rerun = false;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc - 1)
		print_usage();
	g.run_dir = argv[optind];
	snprintf(path, sizeof(path), "%s/results.json", g.run_dir);
	if (policy_load(policy, &g.policy))
		return 2;
	g.results = load_records(path);
	if (!g.results)
		return 2;
	if (save) {
		char to[4096];

		mkdir(save, 0755);
		snprintf(to, sizeof(to), "%s/results.json", save);
		if (copy_file(path, to)) {
			fprintf(stderr, "gate: cannot save baseline to %s: %s\n",
				to, strerror(errno));
			return 2;
		}
		printf("gate: saved %s as the baseline in %s\n", path, save);
	}
	if (base) {
		snprintf(path, sizeof(path), "%s/results.json", base);
		g.baseline = load_records(path);
		if (!g.baseline)
			return 2;
	}
	if (add_cells(&g, do_rerun))
		return 2;
	print_table(&g);
	ret = verdict_line(&g);
	snprintf(path, sizeof(path), "%s/junit.xml", g.run_dir);
	if (write_junit(&g, path))
		return 2;
	snprintf(path, sizeof(path), "%s/kcidb.json", g.run_dir);
	if (write_kcidb(&g, path))
		return 2;
	snprintf(path, sizeof(path), "%s/report.html", g.run_dir);
	if (write_report(&g, path))
		return 2;
	printf("report: %s\n", path);
	return ret;
}
