// SPDX-License-Identifier: GPL-2.0
/*
 * The gate's machine-readable outputs: junit.xml (one testcase per
 * cell) and KernelCI's KCIDB v4 JSON (checkouts, builds, tests).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gate.h"

/* Write @s with XML's five special characters and control bytes escaped. */
void xml_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = *s;

		switch (ch) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if (ch < 0x20 && ch != '\n' && ch != '\t')
				fputc('?', f);
			else
				fputc(ch, f);
		}
	}
}

static const char *rec_str(json_t *rec, const char *key)
{
	return json_string_value(json_object_get(rec, key));
}

/* The last @n lines of the cell's console log, for a failure's body. */
static void console_tail(FILE *f, const struct gate *g, const struct cell *c,
			 int n)
{
	const char *job = rec_str(c->record, "job_id");
	char path[4096], line[512], ring[20][512];
	int count = 0, i;
	FILE *log;

	if (!job || n > 20)
		return;
	snprintf(path, sizeof(path), "%s/jobs/%s/console.log", g->run_dir, job);
	log = fopen(path, "r");
	if (!log)
		return;
	while (fgets(line, sizeof(line), log))
		snprintf(ring[count++ % n], sizeof(ring[0]), "%s", line);
	fclose(log);
	for (i = count > n ? count - n : 0; i < count; i++)
		xml_escape(f, ring[i % n]);
}

int write_junit(const struct gate *g, const char *path)
{
	unsigned int failures = 0, skipped = 0;
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		fprintf(stderr, "gate: cannot write %s\n", path);
		return -1;
	}
	for (i = 0; i < g->n_cells; i++) {
		failures += g->cells[i].verdict == V_FAIL ||
			    (g->cells[i].verdict == V_FLAKY &&
			     g->policy.flaky_blocks);
		skipped += g->cells[i].verdict == V_SKIP;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites>\n<testsuite name=\"sac-farm-gate\" tests=\"%zu\" failures=\"%u\" errors=\"0\" skipped=\"%u\">\n",
		g->n_cells, failures, skipped);
	for (i = 0; i < g->n_cells; i++) {
		const struct cell *c = &g->cells[i];

		fprintf(f, "<testcase classname=\"%s.%s.%s\" name=\"", c->key.flavour,
			c->key.arch, c->key.machine);
		xml_escape(f, c->key.workload);
		if (strcmp(c->key.variant, "default")) {
			fputc('@', f);
			xml_escape(f, c->key.variant);
		}
		fprintf(f, "\">");
		if (c->verdict == V_SKIP) {
			fprintf(f, "<skipped message=\"");
			xml_escape(f, c->why);
			fprintf(f, "\"/>");
		} else if (c->verdict == V_FAIL ||
			   (c->verdict == V_FLAKY && g->policy.flaky_blocks)) {
			fprintf(f, "<failure message=\"");
			xml_escape(f, c->why);
			fprintf(f, "\">");
			xml_escape(f, c->why);
			fputc('\n', f);
			console_tail(f, g, c, 15);
			fprintf(f, "</failure>");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
	return fclose(f) ? -1 : 0;
}

static const char *kcidb_status(const struct cell *c)
{
	switch (c->verdict) {
	case V_OK:
		return "PASS";
	case V_SKIP:
		return "SKIP";
	case V_FLAKY:
		return "FAIL";
	default:
		break;
	}
	return c->got && (!strcmp(c->got, "infra-error") ||
			  !strcmp(c->got, "qemu-crash")) ? "ERROR" : "FAIL";
}

static const char *kcidb_arch(const char *arch)
{
	return !strcmp(arch, "amd64") ? "x86_64" : arch;
}

int write_kcidb(const struct gate *g, const char *path)
{
	json_t *root, *builds, *tests, *seen;
	char build_id[256], test_id[512];
	const char *origin = "sacfarm";
	const char *checkout = "sacfarm:linux-sac-6.1.192";
	size_t i;
	int ret;

	builds = json_array();
	tests = json_array();
	seen = json_object();
	for (i = 0; i < g->n_cells; i++) {
		const struct cell *c = &g->cells[i];
		json_t *t;

		snprintf(build_id, sizeof(build_id), "%s:%s-%s", origin,
			 c->key.arch, c->key.flavour);
		if (!json_object_get(seen, build_id)) {
			json_object_set_new(seen, build_id, json_true());
			json_array_append_new(builds, json_pack(
				"{s:s, s:s, s:s, s:s, s:s, s:b}",
				"id", build_id, "checkout_id", checkout,
				"origin", origin,
				"architecture", kcidb_arch(c->key.arch),
				"config_name", c->key.flavour, "valid", 1));
		}
		snprintf(test_id, sizeof(test_id), "%s:%s", origin, c->id);
		t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s}, s:b, s:{s:s, s:s, s:s}}",
			      "id", test_id, "build_id", build_id,
			      "origin", origin, "path",
			      c->key.workload, "status", kcidb_status(c),
			      "environment", "comment", c->key.machine,
			      "waived", c->hazard,
			      "misc", "expected", c->expected,
			      "got", c->got ? c->got : "missing",
			      "gate", c->why);
		json_array_append_new(tests, t);
	}
	root = json_pack("{s:{s:i, s:i}, s:[{s:s, s:s, s:s, s:b}], s:o, s:o}",
			 "version", "major", 4, "minor", 0,
			 "checkouts", "id", checkout, "origin", origin,
			 "tree_name", "linux-sac", "valid", 1,
			 "builds", builds, "tests", tests);
	json_decref(seen);
	ret = json_dump_file(root, path, JSON_INDENT(1));
	json_decref(root);
	if (ret)
		fprintf(stderr, "gate: cannot write %s\n", path);
	return ret ? -1 : 0;
}
