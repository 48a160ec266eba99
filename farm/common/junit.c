// SPDX-License-Identifier: GPL-2.0
/* junit.xml, one writer for the runner and the gate: see junit.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junit.h"
#include "outcome.h"
#include "util.h"
#include "xml.h"

/* How much of a failing job's console the report carries. */
#define TAIL_LINES	30
#define TAIL_BYTES	(64 << 10)

/* The last TAIL_LINES lines (at most TAIL_BYTES) of a log, escaped. */
static void log_tail(FILE *f, const char *path)
{
	FILE *log = fopen(path, "rb");
	char *buf, *p;
	long size, from;
	size_t n;
	int lines = 0;

	if (!log)
		return;
	fseek(log, 0, SEEK_END);
	size = ftell(log);
	from = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
	fseek(log, from, SEEK_SET);
	buf = xmalloc(TAIL_BYTES + 1);
	n = fread(buf, 1, TAIL_BYTES, log);
	fclose(log);
	buf[n] = '\0';
	for (p = buf + n; p > buf; p--)
		if (p[-1] == '\n' && p < buf + n && ++lines > TAIL_LINES)
			break;
	xml_textn(f, p, n - (size_t)(p - buf));
	free(buf);
}

enum junit_kind junit_kind_of(enum verdict v, bool flaky_blocks,
			      const char *outcome)
{
	switch (v) {
	case V_OK:
		return JUNIT_PASS;
	case V_SKIP:
		return JUNIT_SKIPPED;
	case V_FLAKY:
		return flaky_blocks ? JUNIT_FAILURE : JUNIT_PASS;
	default:
		return outcome && outcome_is_infra(outcome) ? JUNIT_ERROR :
		       JUNIT_FAILURE;
	}
}

static void attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	xml_text(f, value ? value : "");
	fputc('"', f);
}

static void write_case(FILE *f, const struct junit_case *c)
{
	static const char *const tag[] = {
		[JUNIT_FAILURE] = "failure", [JUNIT_ERROR] = "error",
	};

	fputs("    <testcase", f);
	attr(f, "classname", c->classname);
	attr(f, "name", c->name);
	fprintf(f, " time=\"%.3f\">\n", c->time > 0 ? c->time : 0);
	if (c->kind == JUNIT_SKIPPED) {
		fputs("      <skipped", f);
		attr(f, "message", c->message);
		fputs("/>\n", f);
	} else if (c->kind != JUNIT_PASS) {
		fprintf(f, "      <%s", tag[c->kind]);
		attr(f, "type", c->type);
		attr(f, "message", c->message);
		fputc('>', f);
		if (c->log)
			log_tail(f, c->log);
		fprintf(f, "</%s>\n", tag[c->kind]);
	}
	if (c->note) {
		fputs("      <system-out>", f);
		xml_text(f, c->note);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

int junit_write(const char *path, const char *suite,
		const struct junit_case *cases, size_t n)
{
	size_t count[JUNIT_ERROR + 1] = { 0 }, i;
	double secs = 0;
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (i = 0; i < n; i++) {
		count[cases[i].kind]++;
		secs += cases[i].time > 0 ? cases[i].time : 0;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
		n, count[JUNIT_FAILURE], count[JUNIT_ERROR], secs);
	fputs("  <testsuite", f);
	attr(f, "name", suite);
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
		n, count[JUNIT_FAILURE], count[JUNIT_ERROR],
		count[JUNIT_SKIPPED], secs);
	for (i = 0; i < n; i++)
		write_case(f, &cases[i]);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return fclose(f) ? -1 : 0;
}
