// SPDX-License-Identifier: GPL-2.0
/*
 * gate: may this kernel ship? Judges a farm run (results.json, format 2)
 * against the release policy and, optionally, a baseline run; prints a
 * table and a one-line verdict; writes junit.xml, kcidb.json and
 * report.html into the run dir; saves the run as the next baseline only
 * if it ships. This file is the command line: the work is in records.c
 * (reading), verdict.c (judging, with rerun.c), table.c, junit_out.c,
 * kcidb.c and report.c (telling).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "junit_out.h"
#include "kcidb.h"
#include "report.h"
#include "table.h"
#include "util.h"
#include "verdict.h"

#define EXIT_SHIP	0
#define EXIT_BLOCK	1
#define EXIT_BAD	2

struct options {
	const char *run_dir;
	const char *policy;
	const char *baseline;
	const char *save;
	const char *runner;
	const char *source_dir;
	bool rerun;
};

static const char usage[] =
	"usage: gate RUN_DIR [--policy FILE] [--baseline DIR] [--save-baseline DIR]\n"
	"            [--runner FARM | --no-rerun] [--source-dir DIR]\n"
	"       gate --help\n"
	"\n"
	"Judges the farm run in RUN_DIR (its results.json, format 2) against the\n"
	"release policy and prints one line per cell and the verdict.\n"
	"\n"
	"  --policy FILE         the policy (default farm/policy.conf)\n"
	"  --baseline DIR        compare with DIR/results.json: missing cells,\n"
	"                        pass -> skip, metric limits\n"
	"  --save-baseline DIR   store this run's results.json in DIR, only if it ships\n"
	"  --runner FARM         rerun a failing cell once with FARM run ... (farm/farm)\n"
	"  --no-rerun            never rerun\n"
	"  --source-dir DIR      the source tree, for debian/changelog and git HEAD\n"
	"                        in kcidb.json and report.html (default .)\n"
	"\n"
	"Writes RUN_DIR/junit.xml, RUN_DIR/kcidb.json and RUN_DIR/report.html.\n"
	"Exit status: 0 SHIP, 1 BLOCK, 2 bad input.\n";

static void __noreturn bad_usage(void)
{
	fputs(usage, stderr);
	exit(EXIT_BAD);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "save-baseline", required_argument, NULL, 's' },
		{ "runner", required_argument, NULL, 'r' },
		{ "no-rerun", no_argument, NULL, 'n' },
		{ "source-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .policy = "farm/policy.conf",
			       .source_dir = ".", .rerun = true };
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->policy = optarg;
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 's':
			o->save = optarg;
			break;
		case 'r':
			o->runner = optarg;
			break;
		case 'n':
			o->rerun = false;
			break;
		case 'd':
			o->source_dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(EXIT_SHIP);
		default:
			bad_usage();
		}
	}
	if (optind != argc - 1)
		bad_usage();
	o->run_dir = argv[optind];
}

static int load_inputs(const struct options *o, struct gate *g)
{
	if (policy_load(o->policy, &g->policy))
		return -1;
	if (run_load(o->run_dir, &g->run))
		return -1;
	if (o->baseline && run_load(o->baseline, &g->base))
		return -1;
	g->runner = o->rerun ? o->runner : NULL;
	return 0;
}

static int write_outputs(const struct gate *g, const char *source_dir)
{
	char *junit = xasprintf("%s/junit.xml", g->run.dir);
	char *kcidb = xasprintf("%s/kcidb.json", g->run.dir);
	char *report = xasprintf("%s/report.html", g->run.dir);
	struct source src;
	int ret = -1;

	source_read(source_dir, &src);
	if (gate_junit(g, junit) || gate_kcidb(g, &src, kcidb) ||
	    gate_report(g, &src, report))
		goto out;
	printf("report: %s\n", report);
	ret = 0;
out:
	free(report);
	free(kcidb);
	free(junit);
	return ret;
}

/* Only a run that ships may become the baseline the next ones meet. */
static int save_baseline(const struct gate *g, const char *dir)
{
	char *from, *to;
	int ret = EXIT_SHIP;

	if (g->blocked) {
		warnx("not saving %s as the baseline: the verdict is BLOCK",
		      g->run.dir);
		return EXIT_BLOCK;
	}
	from = xasprintf("%s/results.json", g->run.dir);
	to = xasprintf("%s/results.json", dir);
	if (mkdir_p(dir) || copy_file(from, to)) {
		warnx("cannot save the baseline as %s", to);
		ret = EXIT_BAD;
	} else {
		warnx("saved %s as the baseline in %s", from, dir);
	}
	free(to);
	free(from);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o;
	struct gate g = { 0 };
	int ret = EXIT_BAD;

	util_prog = "gate";
	parse_options(argc, argv, &o);
	if (load_inputs(&o, &g) || gate_judge(&g))
		goto out;
	table_print(stdout, &g);
	verdict_print(stdout, &g);
	if (write_outputs(&g, o.source_dir))
		goto out;
	ret = g.blocked ? EXIT_BLOCK : EXIT_SHIP;
	if (o.save && save_baseline(&g, o.save) == EXIT_BAD)
		ret = EXIT_BAD;
out:
	gate_free(&g);
	return ret;
}
