// SPDX-License-Identifier: GPL-2.0
/*
 * Results: each job's record.json, the run's results.json and junit.xml,
 * one progress line per job and the summary line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#define JUNIT_TAIL_LINES 30

static const char *outcome_of(const struct job *j)
{
	const char *o = json_string_value(json_object_get(j->record, "outcome"));

	return o ? o : "infra-error";
}

static const char *reason_of(const struct job *j)
{
	const char *r = json_string_value(json_object_get(j->record, "reason"));

	return r ? r : "";
}

static const char *expected_of(const struct job *j)
{
	return workload_expect(j->w, j->k->flavour);
}

/* A job is fine when it ended as its workload expects, or was skipped. */
bool job_ok(const struct job *j)
{
	const char *o = outcome_of(j);

	return !strcmp(o, "skip") || !strcmp(o, expected_of(j));
}

/* The axes and context every record carries; written to record.json. */
void record_finish(struct job *j)
{
	json_t *r = j->record;
	char *path;

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
	json_object_set_new(r, "expected", json_string(expected_of(j)));
	json_object_set_new(r, "as_expected", json_boolean(job_ok(j)));
	if (j->dir) {
		char *cmd = job_cmdline(j);

		json_object_set_new(r, "cmdline", json_string(cmd));
		free(cmd);
		path = xasprintf("%s/record.json", j->dir);
		json_dump_file(r, path, JSON_INDENT(2) | JSON_SORT_KEYS |
			       JSON_REAL_PRECISION(6));
		free(path);
	}
}

void progress_line(const struct job *j, size_t total, size_t done)
{
	const char *o = outcome_of(j), *want = expected_of(j);
	double d = json_number_value(json_object_get(j->record, "duration_s"));
	char variant[80] = "", note[64] = "";

	if (strcmp(j->v->name, "default"))
		snprintf(variant, sizeof(variant), " %s", j->v->name);
	if (strcmp(o, "pass") && !strcmp(o, want))
		snprintf(note, sizeof(note), " (as expected)");
	else if (!job_ok(j) && strcmp(want, "pass"))
		snprintf(note, sizeof(note), " (expected %s)", want);
	printf("[%zu/%zu] %s %s%s %s: %s%s (%.1f s)\n", done, total, j->m->id,
	       j->k->flavour, variant, j->w->name, o, note, d);
	if (!job_ok(j) || !strcmp(o, "skip"))
		printf("    %s\n", reason_of(j));
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
	static const char *const order[] = {
		"pass", "qemu-crash", "panic", "oops", "hang", "iommu-fault",
		"data-corruption", "workload-fail", "infra-error", "skip",
	};
	const char *key, *sep = " ";
	json_t *v;
	size_t i;

	printf("%zu jobs:", njobs);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		v = json_object_get(counts, order[i]);
		if (!v)
			continue;
		printf("%s%lld %s", sep, (long long)json_integer_value(v),
		       order[i]);
		sep = ", ";
	}
	json_object_foreach(counts, key, v) {
		for (i = 0; i < ARRAY_SIZE(order); i++)
			if (!strcmp(key, order[i]))
				break;
		if (i < ARRAY_SIZE(order))
			continue;
		printf("%s%lld %s", sep, (long long)json_integer_value(v), key);
		sep = ", ";
	}
	printf("; %zu not as expected\n", bad);
}

/* Text safe inside XML: no control characters, markup escaped. */
static void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0x20 && c != '\n' && c != '\t')
			fputc('?', f);
		else if (c >= 0x80)
			fputc('?', f);	/* the console is not known to be UTF-8 */
		else
			fputc(c, f);
	}
}

/* The last lines of the job's console log. */
static char *console_tail(const struct job *j)
{
	char *path, *text, *p;
	int lines = 0;

	if (!j->dir)
		return xstrdup("");
	path = xasprintf("%s/console.log", j->dir);
	text = read_text(path, 4 << 20);
	free(path);
	if (!text)
		return xstrdup("(no console log)");
	for (p = text + strlen(text); p > text; p--)
		if (p[-1] == '\n' && ++lines > JUNIT_TAIL_LINES)
			break;
	p = xstrdup(p);
	free(text);
	return p;
}

static void junit_case(FILE *f, const struct job *j)
{
	double d = json_number_value(json_object_get(j->record, "duration_s"));
	char *tail;

	fprintf(f, "    <testcase classname=\"farm.%s.%s.%s\" name=\"", j->m->id,
		j->k->name, j->v->name);
	xml_escape(f, j->w->name);
	fprintf(f, "\" time=\"%.3f\">\n", d);
	if (!strcmp(outcome_of(j), "skip")) {
		fputs("      <skipped message=\"", f);
		xml_escape(f, reason_of(j));
		fputs("\"/>\n", f);
	} else if (!job_ok(j)) {
		fputs("      <failure type=\"", f);
		xml_escape(f, outcome_of(j));
		fputs("\" message=\"", f);
		xml_escape(f, reason_of(j));
		fputs("\">", f);
		tail = console_tail(j);
		xml_escape(f, tail);
		free(tail);
		fputs("</failure>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static int junit_write(const char *path, struct job *jobs, size_t n,
		       size_t bad, size_t skipped, double secs)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
		n, bad, skipped);
	fprintf(f, "  <testsuite name=\"farm\" tests=\"%zu\" failures=\"%zu\"", n,
		bad);
	fprintf(f, " errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", skipped,
		secs);
	for (i = 0; i < n; i++)
		junit_case(f, &jobs[i]);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return fclose(f);
}

/* Writes results.json and junit.xml; returns how many jobs were not ok. */
int results_write(const char *run_dir, struct job *jobs, size_t njobs)
{
	json_t *records = json_array(), *counts = json_object(), *top;
	size_t i, bad = 0, skipped = 0;
	double secs = 0;
	char *path;

	for (i = 0; i < njobs; i++) {
		json_array_append(records, jobs[i].record);
		count(counts, outcome_of(&jobs[i]));
		bad += !job_ok(&jobs[i]);
		skipped += !strcmp(outcome_of(&jobs[i]), "skip");
		secs += json_number_value(json_object_get(jobs[i].record,
							  "duration_s"));
	}
	top = json_pack("{s:i, s:O, s:i, s:o}", "jobs", (json_int_t)njobs,
			"outcomes", counts, "not_as_expected", (json_int_t)bad,
			"records", records);
	path = xasprintf("%s/results.json", run_dir);
	if (json_dump_file(top, path, JSON_INDENT(2) | JSON_REAL_PRECISION(6)))
		die("cannot write %s", path);
	free(path);
	path = xasprintf("%s/junit.xml", run_dir);
	if (junit_write(path, jobs, njobs, bad, skipped, secs))
		die("cannot write %s", path);
	free(path);
	summary_line(counts, njobs, bad);
	json_decref(counts);
	json_decref(top);
	return (int)bad;
}
