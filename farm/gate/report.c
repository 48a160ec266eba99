// SPDX-License-Identifier: GPL-2.0
/*
 * report.html: one self-contained page (inline CSS and SVG, no network)
 * for a person deciding on a release: the verdict, the packages gated
 * (version, sha256), the matrix coloured by outcome with links to
 * console logs, IOVA cost curves, boot times and the deltas against the
 * baseline. A failure the policy accepts has a colour of its own and
 * its reason, in the banner and on its row: it never looks like a pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"
#include "xml.h"

#define SVG_W	640
#define SVG_H	300
#define PAD	50

#define COLOUR_PASS	"#b8e2b8"
#define COLOUR_HAZARD	"#b9d7f2"
#define COLOUR_ACCEPTED	"#ffb347"
#define COLOUR_FLAKY	"#f7d58b"
#define COLOUR_SKIP	"#dddddd"
#define COLOUR_FAIL	"#f4a6a6"

static const char * const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#17becf",
};

static const char *outcome_colour(const struct cell *c)
{
	if (c->j.verdict == V_FAIL)
		return COLOUR_FAIL;
	if (c->j.verdict == V_FLAKY)
		return COLOUR_FLAKY;
	if (c->j.verdict == V_SKIP)
		return COLOUR_SKIP;
	if (c->j.accepted)
		return COLOUR_ACCEPTED;
	return c->j.hazard ? COLOUR_HAZARD : COLOUR_PASS;
}

/* The got column: the outcome, linked to the console log if there is one. */
static void got_cell(FILE *f, const struct cell *c)
{
	char *log = c->record ? record_log(c->record) : NULL;

	if (log) {
		fprintf(f, "<a href=\"");
		xml_text(f, log);
		fprintf(f, "\">");
	}
	xml_text(f, c->got ? c->got : "missing");
	fprintf(f, "%s", log ? "</a>" : "");
	free(log);
}

static void write_row(FILE *f, const struct cell *c)
{
	fprintf(f, "<tr class=\"%s\" style=\"background:%s\"><td>",
		judgement_name(&c->j), outcome_colour(c));
	xml_text(f, c->key.arch);
	fputc('/', f);
	xml_text(f, c->key.machine);
	fprintf(f, "</td><td>");
	xml_text(f, c->key.workload);
	if (strcmp(c->key.variant, "default")) {
		fputc('@', f);
		xml_text(f, c->key.variant);
	}
	fprintf(f, "</td><td>");
	xml_text(f, c->j.expected);
	fprintf(f, "</td><td>");
	got_cell(f, c);
	fprintf(f, "</td><td>%s</td><td>", judgement_name(&c->j));
	xml_text(f, c->j.why);
	fprintf(f, "</td></tr>\n");
}

/* A cell that booted an installed system (the record's boot method). */
static bool installed(const struct cell *c)
{
	return !strcmp(jstr(c->record, "boot", ""), "installed");
}

static void write_matrix(FILE *f, const struct gate *g, const char *flavour,
			 bool inst)
{
	size_t i;

	fprintf(f, "<h3>flavour: ");
	xml_text(f, flavour);
	fprintf(f, "</h3>\n<table class=\"matrix\"><tr><th>machine</th><th>workload</th><th>expected</th><th>got</th><th>gate</th><th>reason</th></tr>\n");
	for (i = 0; i < g->n_cells; i++)
		if (!strcmp(g->cells[i].key.flavour, flavour) &&
		    installed(&g->cells[i]) == inst)
			write_row(f, &g->cells[i]);
	fprintf(f, "</table>\n");
}

/* One table per flavour of the cells that booted the way inst says. */
static void flavour_tables(FILE *f, const struct gate *g, bool inst)
{
	size_t i, j;

	for (i = 0; i < g->n_cells; i++) {
		if (installed(&g->cells[i]) != inst)
			continue;
		for (j = 0; j < i; j++)
			if (installed(&g->cells[j]) == inst &&
			    !strcmp(g->cells[j].key.flavour,
				    g->cells[i].key.flavour))
				break;
		if (j == i)
			write_matrix(f, g, g->cells[i].key.flavour, inst);
	}
}

static bool any_installed(const struct gate *g)
{
	size_t i;

	for (i = 0; i < g->n_cells; i++)
		if (installed(&g->cells[i]))
			return true;
	return false;
}

/* Fill level (percent) from "iova-bench.map_p50_ns_fill90", or -1. */
static int fill_of(const char *metric)
{
	const char *p = strstr(metric, "map_p50_ns_fill");

	if (!p)
		return -1;
	return atoi(p + strlen("map_p50_ns_fill"));
}

static double cell_iova_max(const struct cell *c)
{
	double max = 0;
	const char *name;
	json_t *v;

	json_object_foreach(json_object_get(c->record, "metrics"), name, v)
		if (fill_of(name) >= 0 && json_number_value(v) > max)
			max = json_number_value(v);
	return max;
}

static double max_iova_ns(const struct gate *g)
{
	double max = 0, m;
	size_t i;

	for (i = 0; i < g->n_cells; i++) {
		m = cell_iova_max(&g->cells[i]);
		if (m > max)
			max = m;
	}
	return max;
}

/* "a b/c" (or "a b" without c), escaped: axis values are untrusted. */
static void label(FILE *f, const char *a, const char *b, const char *c)
{
	xml_text(f, a);
	fputc(' ', f);
	xml_text(f, b);
	if (!c)
		return;
	fputc('/', f);
	xml_text(f, c);
}

static void axes(FILE *f, const char *xlabel, const char *ylabel, double ymax)
{
	int k;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		PAD, SVG_H - PAD, SVG_W - PAD, SVG_H - PAD);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		PAD, PAD / 2, PAD, SVG_H - PAD);
	for (k = 0; k <= 4; k++)
		fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%.0f</text>\n",
			PAD - 4, SVG_H - PAD - k * (SVG_H - 1.5 * PAD) / 4,
			ymax * k / 4);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
		SVG_W / 2, SVG_H - 10, xlabel);
	fprintf(f, "<text x=\"12\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>\n",
		SVG_H / 2, SVG_H / 2, ylabel);
}

static double ypos(double v, double ymax)
{
	return SVG_H - PAD - v / ymax * (SVG_H - 1.5 * PAD);
}

static void iova_chart(FILE *f, const struct gate *g)
{
	double ymax = max_iova_ns(g);
	int series = 0, k;
	const char *name;
	size_t i;
	json_t *v;

	fprintf(f, "<h2>IOVA map cost vs 32-bit fill</h2>\n");
	if (ymax <= 0) {
		fprintf(f, "<p>No iova-bench results in this run.</p>\n");
		return;
	}
	fprintf(f, "<svg id=\"iova-chart\" width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		SVG_W, SVG_H);
	axes(f, "32-bit IOVA space filled (%)", "map+unmap p50 (ns)", ymax);
	for (k = 0; k <= 100; k += 25)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%d</text>\n",
			PAD + k * (SVG_W - 2 * PAD) / 100, SVG_H - PAD + 14, k);
	for (i = 0; i < g->n_cells; i++) {
		const struct cell *c = &g->cells[i];
		const char *col = palette[series % 8];
		int fill, last_fill = -1;

		if (cell_iova_max(c) <= 0)
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		/* Points in increasing fill order. */
		for (k = 0; k <= 100; k++) {
			json_object_foreach(json_object_get(c->record, "metrics"), name, v) {
				fill = fill_of(name);
				if (fill != k || fill == last_fill)
					continue;
				fprintf(f, "%d,%.1f ", PAD + fill * (SVG_W - 2 * PAD) / 100,
					ypos(json_number_value(v), ymax));
				last_fill = fill;
			}
		}
		fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">",
			SVG_W - PAD - 170, PAD / 2 + 14 * series + 10, col);
		label(f, c->key.flavour, c->key.arch, c->key.machine);
		fprintf(f, "</text>\n");
		series++;
	}
	fprintf(f, "</svg>\n");
}

static double boot_ms(const struct cell *c)
{
	json_t *t = json_object_get(json_object_get(c->record, "timings_ms"),
				    "agent");

	return json_is_number(t) ? json_number_value(t) : -1;
}

static void boot_chart(FILE *f, const struct gate *g)
{
	double ymax = 0, ms;
	int bars = 0, n = 0, x, w;
	size_t i;

	for (i = 0; i < g->n_cells; i++) {
		if (strcmp(g->cells[i].key.workload, "boot"))
			continue;
		ms = boot_ms(&g->cells[i]);
		if (ms > ymax)
			ymax = ms;
		n += ms >= 0;
	}
	fprintf(f, "<h2>Boot time to the agent</h2>\n");
	if (!n) {
		fprintf(f, "<p>No boot timings in this run.</p>\n");
		return;
	}
	fprintf(f, "<svg id=\"boot-chart\" width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		SVG_W, SVG_H);
	axes(f, "arch/machine flavour", "QEMU start to agent (ms)", ymax);
	w = (SVG_W - 2 * PAD) / n;
	for (i = 0; i < g->n_cells; i++) {
		const struct cell *c = &g->cells[i];

		ms = boot_ms(c);
		if (strcmp(c->key.workload, "boot") || ms < 0)
			continue;
		x = PAD + bars * w + 4;
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n",
			x, ypos(ms, ymax), w - 8, SVG_H - PAD - ypos(ms, ymax),
			palette[bars % 8]);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">",
			x, SVG_H - PAD + 14);
		label(f, c->key.machine, c->key.flavour, NULL);
		fprintf(f, " %.0f ms</text>\n", ms);
		bars++;
	}
	fprintf(f, "</svg>\n");
}

static void deltas(FILE *f, const struct gate *g)
{
	bool any = false;
	size_t i;

	fprintf(f, "<h2>Deltas against the baseline</h2>\n");
	for (i = 0; i < g->n_cells; i++) {
		const struct cell *c = &g->cells[i];

		if (!c->deltas[0])
			continue;
		if (!any)
			fprintf(f, "<table><tr><th>cell</th><th>metric changes</th></tr>\n");
		any = true;
		fprintf(f, "<tr><td>");
		xml_text(f, c->id);
		fprintf(f, "</td><td>");
		xml_text(f, c->deltas);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, any ? "</table>\n" : "<p>No baseline, or no metric with a limit.</p>\n");
}

static void package_row(FILE *f, json_t *k)
{
	static const char *const keys[] = {
		"name", "arch", "flavour", "version", "release", "sha256",
	};
	size_t i;

	fprintf(f, "<tr>");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		fprintf(f, "<td>");
		xml_text(f, jstr(k, keys[i], ""));
		fprintf(f, "</td>");
	}
	fprintf(f, "</tr>\n");
}

/* What was gated: the source and every kernel package of the run. */
static void packages(FILE *f, const struct gate *g, const struct source *src)
{
	json_t *k;
	size_t i;

	fprintf(f, "<h2>Packages gated</h2>\n<p>Source: ");
	xml_text(f, src->package[0] ? src->package : "(no debian/changelog)");
	fputc(' ', f);
	xml_text(f, src->version);
	if (src->commit[0])
		fprintf(f, ", git %s", src->commit);
	fprintf(f, ".</p>\n");
	if (!json_array_size(g->run.kernels)) {
		fprintf(f, "<p>results.json names no kernel.</p>\n");
		return;
	}
	fprintf(f, "<table id=\"packages\"><tr><th>file or build</th><th>arch</th><th>flavour</th><th>version</th><th>release</th><th>sha256</th></tr>\n");
	json_array_foreach(g->run.kernels, i, k)
		package_row(f, k);
	fprintf(f, "</table>\n");
}

static void head(FILE *f, const struct gate *g)
{
	unsigned int blocking = g->count[V_FAIL] +
		(g->policy.flaky_blocks ? g->count[V_FLAKY] : 0);

	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>SAC farm release gate</title>\n");
	fprintf(f, "<style>body{font-family:sans-serif;margin:1em 2em}"
		"table{border-collapse:collapse;margin-bottom:1em}"
		"td,th{border:1px solid #999;padding:2px 6px;font-size:13px}"
		".verdict{font-size:20px;font-weight:bold;padding:6px}"
		"#packages td{white-space:nowrap;font-family:monospace}"
		"</style></head><body>\n");
	fprintf(f, "<h1>SAC farm release gate</h1>\n<p class=\"verdict\" style=\"background:%s\">%s: %u of %zu cells block the release%s",
		g->blocked ? COLOUR_FAIL :
		g->accepted ? COLOUR_ACCEPTED : COLOUR_PASS,
		g->blocked ? "BLOCK" : "SHIP", blocking, g->n_cells,
		g->why[0] ? "; " : "");
	xml_text(f, g->why);
	if (g->accepted)
		fprintf(f, "; %u failure%s accepted by the policy, with %s reason (orange rows)",
			g->accepted, g->accepted > 1 ? "s" : "",
			g->accepted > 1 ? "their" : "its");
	fprintf(f, "</p>\n<p>Run: ");
	xml_text(f, g->run.dir);
	fprintf(f, " (");
	xml_text(f, run_id(&g->run));
	fprintf(f, "). Colours: green pass, blue known hazard seen, orange failure accepted by the policy (not a pass: the reason is on its row), amber flaky, grey skipped, red blocking.</p>\n");
}

int gate_report(const struct gate *g, const struct source *src,
		const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		warnx("cannot write %s", path);
		return -1;
	}
	head(f, g);
	packages(f, g, src);
	fprintf(f, "<h2>Matrix</h2>\n");
	flavour_tables(f, g, false);
	if (any_installed(g)) {
		fprintf(f, "<h2>Installed system</h2>\n<p>The kernel's .deb installed by dpkg into the farm's Debian image and booted through its initramfs-tools initrd and systemd (farm/README.md, \"Installed cells\").</p>\n");
		flavour_tables(f, g, true);
	}
	iova_chart(f, g);
	boot_chart(f, g);
	deltas(f, g);
	fprintf(f, "</body></html>\n");
	if (!fclose(f))
		return 0;
	warnx("cannot write %s", path);
	return -1;
}
