// SPDX-License-Identifier: GPL-2.0
/*
 * farm-runner list | run | boot: the command line. Everything about
 * machines and workloads comes from the two tables.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "lava.h"

struct farm_paths farm;

static const char usage_text[] =
	"usage: farm list\n"
	"       farm run [--arch A]... [--machine M]... [--workload W]...\n"
	"                [--kernel SPEC]... [--variant NAME=CMDLINE]... [-j N] [--out DIR]\n"
	"                [--engine local|lava-run] [--print-qemu]\n"
	"       farm lava render [the run's --arch/--machine/--workload/--kernel/--variant]\n"
	"                --out DIR [--base-url URL]\n"
	"       farm lava submit [the run's options] --url http://HOST:PORT --token-file F\n"
	"                [--user NAME]   (each cell to a LAVA lab; results as for run)\n"
	"       farm boot --arch A --machine M --kernel SPEC [--workload W] [--append EXTRA]\n"
	"  SPEC: a kernel build O= dir or a linux-image .deb\n";

static void usage_error(const char *fmt, const char *arg)
{
	fputs("farm: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n", stderr);
	fputs(usage_text, stderr);
	exit(2);
}

static void paths_init(void)
{
	const char *top = getenv("FARM_TOP"), *build = getenv("BUILD_DIR");
	char real[PATH_MAX];

	if (!top)
		top = is_file("farm/machines.json") ? "." : NULL;
	if (!top || !realpath(top, real))
		die("cannot find the source tree: run through farm/farm (or set FARM_TOP)");
	farm.top = xstrdup(real);
	farm.build = build && *build ? xstrdup(build) :
		     xasprintf("%s/build", farm.top);
	farm.cache = xasprintf("%s/farm-cache", farm.build);
	farm.console_exp = xasprintf("%s/farm/console.exp", farm.top);
	farm.classify = xasprintf("%s/host/classify", farm.build);
}

static void tables_open(struct tables *t)
{
	char *m = xasprintf("%s/farm/machines.json", farm.top);
	char *w = xasprintf("%s/farm/workloads.json", farm.top);

	tables_load(t, m, w);
	free(m);
	free(w);
}

static void print_words(json_t *a)
{
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e)
		printf("%s%s", i ? "," : "", json_string_value(e));
}

static int cmd_list(const struct tables *t)
{
	json_t *fl = flavours_list(), *ks = kernel_defaults();
	size_t i;

	puts("machines:");
	for (i = 0; i < t->nmachines; i++)
		printf("  %-14s %s  %s\n", t->machines[i].id,
		       t->machines[i].arch, t->machines[i].qemu);
	puts("workloads:");
	for (i = 0; i < t->nworkloads; i++) {
		const struct workload *w = &t->workloads[i];

		printf("  %-14s timeout %3d s  machines ", w->name, w->timeout);
		print_words(w->machines);
		if (w->farm_module)
			printf("  module %s", w->farm_module);
		putchar('\n');
	}
	printf("flavours:\n  ");
	print_words(fl);
	printf("\nbuilt farm kernels:\n");
	for (i = 0; i < json_array_size(ks); i++)
		printf("  %s\n", json_string_value(json_array_get(ks, i)));
	json_decref(fl);
	json_decref(ks);
	return 0;
}

static void add_variant(struct run_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct variant *v;

	if (!eq || eq == arg || strcspn(arg, "/ ,") < (size_t)(eq - arg))
		usage_error("--variant wants NAME=CMDLINE with a plain NAME, got '%s'",
			    arg);
	o->variants = realloc(o->variants, (o->nvariants + 1) * sizeof(*v));
	if (!o->variants)
		die("out of memory");
	v = &o->variants[o->nvariants++];
	v->name = strndup(arg, eq - arg);
	v->cmdline = xstrdup(eq + 1);
}

static void parse_opts(struct run_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "machine", required_argument, NULL, 'm' },
		{ "workload", required_argument, NULL, 'w' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "variant", required_argument, NULL, 'v' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "append", required_argument, NULL, 'A' },
		{ "engine", required_argument, NULL, 'E' },
		{ "base-url", required_argument, NULL, 'B' },
		{ "print-qemu", no_argument, NULL, 'P' },
		{ "url", required_argument, NULL, 'U' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "user", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	o->arches = json_array();
	o->machines = json_array();
	o->workloads = json_array();
	o->kernels = json_array();
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (strcmp(optarg, "amd64") && strcmp(optarg, "arm64"))
				usage_error("unknown arch '%s' (known: amd64 arm64)",
					    optarg);
			json_array_append_new(o->arches, json_string(optarg));
			break;
		case 'm':
			json_array_append_new(o->machines, json_string(optarg));
			break;
		case 'w':
			json_array_append_new(o->workloads, json_string(optarg));
			break;
		case 'k':
			json_array_append_new(o->kernels, json_string(optarg));
			break;
		case 'v':
			add_variant(o, optarg);
			break;
		case 'j':
			o->jobs = (int)strtol(optarg, &end, 10);
			if (*end || o->jobs < 1 || o->jobs > 64)
				usage_error("-j wants a number 1..64, got '%s'",
					    optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'A':
			o->append = optarg;
			break;
		case 'E':
			if (strcmp(optarg, "local") && strcmp(optarg, "lava-run"))
				usage_error("unknown engine '%s' (known: local lava-run)",
					    optarg);
			o->engine = optarg;
			break;
		case 'B':
			o->base_url = optarg;
			break;
		case 'P':
			o->print_qemu = true;
			break;
		case 'U':
			o->lab_url = optarg;
			break;
		case 'T':
			o->token_file = optarg;
			break;
		case 'N':
			o->lab_user = optarg;
			break;
		default:
			usage_error("%s", "bad option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (o->jobs < 1)
		o->jobs = 1;
}

static void check_names(const struct tables *t, const struct run_opts *o)
{
	json_t *e;
	size_t i;

	json_array_foreach(o->machines, i, e)
		if (!machine_find(t, json_string_value(e)))
			die("unknown machine '%s' (farm list shows them)",
			    json_string_value(e));
	json_array_foreach(o->workloads, i, e)
		if (!workload_find(t, json_string_value(e)))
			die("unknown workload '%s' (farm list shows them)",
			    json_string_value(e));
}

static struct kernel **kernels_open(json_t *specs, size_t *n)
{
	json_t *list = json_array_size(specs) ? json_incref(specs) :
		       kernel_defaults(), *e;
	struct kernel **ks;
	size_t i;

	*n = json_array_size(list);
	if (!*n)
		die("no --kernel given and no built farm kernel (with .sac-built) under %s/kernel",
		    farm.build);
	ks = xcalloc(*n, sizeof(*ks));
	json_array_foreach(list, i, e)
		ks[i] = kernel_open(json_string_value(e));
	json_decref(list);
	return ks;
}

/* out/farm/<UTC timestamp>, with a suffix if a run started this second. */
static char *make_run_dir(const char *out, char **id)
{
	char stamp[32], *dir;
	time_t t = time(NULL);
	int i;

	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&t));
	if (mkdir_p(out))
		die("cannot create %s", out);
	for (i = 1; i < 100; i++) {
		*id = i == 1 ? xstrdup(stamp) : xasprintf("%s-%d", stamp, i);
		dir = xasprintf("%s/%s", out, *id);
		if (mkdir(dir, 0755) == 0)
			return dir;
		free(dir);
		free(*id);
	}
	die("cannot create a run directory under %s", out);
}

static void link_latest(const char *out, const char *id)
{
	char *link = xasprintf("%s/latest", out);
	char *tmp = xasprintf("%s/.latest.%d", out, getpid());

	unlink(tmp);
	if (symlink(id, tmp) || rename(tmp, link))
		warnx("cannot point %s at %s", link, id);
	free(link);
	free(tmp);
}

/* One probe per arch that has a job to boot. */
static void set_accel(struct job *jobs, size_t n, const char *run_dir,
		      const struct tables *t)
{
	static const char *const arches[] = { "amd64", "arm64" };
	size_t a, i;

	for (a = 0; a < ARRAY_SIZE(arches); a++) {
		const struct kernel *k = NULL;
		enum accel acc;

		for (i = 0; i < n && !k; i++)
			if (!jobs[i].preset && !strcmp(jobs[i].m->arch, arches[a]))
				k = jobs[i].k;
		if (!k)
			continue;
		acc = accel_probe(run_dir, arches[a], k, t);
		printf("farm: %s guests run under %s\n", arches[a],
		       accel_name(acc));
		for (i = 0; i < n; i++)
			if (!strcmp(jobs[i].m->arch, arches[a]))
				jobs[i].accel = acc;
	}
}

/* The cells the filters select, each ready to boot or preset. */
static struct job *expand(const struct tables *t, struct run_opts *o,
			  size_t *n)
{
	struct kernel **ks;
	struct job *jobs;
	size_t nk;

	check_names(t, o);
	if (!o->nvariants)
		add_variant(o, "default=");
	ks = kernels_open(o->kernels, &nk);
	jobs = matrix_expand(t, ks, nk, o, n);
	if (!*n)
		die("no jobs: no machine and workload match the kernels and filters given");
	return jobs;
}

static int cmd_run(const struct tables *t, struct run_opts *o)
{
	bool lava = o->engine && !strcmp(o->engine, "lava-run");
	struct job *jobs;
	size_t n, i;
	char *out, *dir, *id;
	int bad;

	jobs = expand(t, o, &n);
	if (o->print_qemu) {
		print_qemu_argv(jobs, n);
		return 0;
	}
	out = o->out ? xstrdup(o->out) : xasprintf("%s/out/farm", farm.top);
	dir = make_run_dir(out, &id);
	printf("farm: run %s: %zu jobs, %d at a time, %s engine, in %s\n", id,
	       n, o->jobs, o->lab_url ? "LAVA lab" : lava ? "lava-run" : "local",
	       dir);
	set_accel(jobs, n, dir, t);
	for (i = 0; i < n; i++) {
		jobs[i].lava = lava;
		job_prepare(&jobs[i], dir);
	}
	pool_run(jobs, n, o->jobs);
	bad = results_write(dir, jobs, n);
	link_latest(out, id);
	printf("farm: results in %s/results.json and junit.xml\n", dir);
	return bad ? 1 : 0;
}

/* farm lava render: the run's cells as LAVA jobs, booting nothing. */
static int cmd_lava_render(const struct tables *t, struct run_opts *o)
{
	struct job *jobs;
	size_t n;

	if (!o->out)
		usage_error("%s", "lava render needs --out DIR");
	jobs = expand(t, o, &n);
	return lava_render(jobs, n, o->out, o->base_url) ? 1 : 0;
}

/* http://USER:TOKEN@HOST:PORT/RPC2, the URI lavacli takes. */
static char *lab_uri(const struct run_opts *o)
{
	const char *url = o->lab_url, *rest;
	char *token, *uri;

	if (!url || !o->token_file)
		usage_error("%s", "lava submit needs --url and --token-file");
	if (!strncmp(url, "http://", 7))
		rest = url + 7;
	else if (!strncmp(url, "https://", 8))
		rest = url + 8;
	else
		usage_error("--url wants http://HOST:PORT or https://..., got '%s'",
			    url);
	token = read_text(o->token_file, 256);
	if (!token)
		die("cannot read the token file %s", o->token_file);
	token[strcspn(token, "\r\n")] = '\0';
	if (!*token || strpbrk(token, "@/: "))
		die("token file %s holds no usable token", o->token_file);
	uri = xasprintf("%.*s%s:%s@%.*s/RPC2", (int)(rest - url), url,
			o->lab_user ? o->lab_user : "admin", token,
			(int)strcspn(rest, "/"), rest);
	free(token);
	return uri;
}

/* farm lava submit: farm run through a LAVA lab. */
static int cmd_lava_submit(const struct tables *t, struct run_opts *o)
{
	lava_lab_use(lab_uri(o));
	o->engine = "lava-run";
	return cmd_run(t, o);
}

static int cmd_boot(const struct tables *t, struct run_opts *o)
{
	const char *arch = json_string_value(json_array_get(o->arches, 0));
	const char *mid = json_string_value(json_array_get(o->machines, 0));
	const char *spec = json_string_value(json_array_get(o->kernels, 0));
	const char *wname = json_string_value(json_array_get(o->workloads, 0));
	struct variant v = { "append", (char *)(o->append ? o->append : "") };
	struct job j = { .index = 1, .v = &v };
	struct kernel *k;
	char *dir;

	if (!arch || !mid || !spec)
		usage_error("%s", "boot needs --arch, --machine and --kernel");
	check_names(t, o);
	j.m = machine_find(t, mid);
	j.w = workload_find(t, wname ? wname : "boot");
	if (!j.w)
		die("no workload 'boot' in the table");
	if (strcmp(j.m->arch, arch))
		die("machine %s is %s, not %s", mid, j.m->arch, arch);
	k = kernel_open(spec);
	if (strcmp(k->arch, arch))
		die("kernel %s is %s, not %s", spec, k->arch, arch);
	j.k = k;
	j.initramfs = initramfs_get(k, j.w, &j.skip_reason);
	if (!j.initramfs)
		die("cannot pack the initramfs: %s", j.skip_reason);
	dir = xasprintf("%s/boot", farm.cache);
	rm_rf(dir);
	if (mkdir_p(dir))
		die("cannot create %s", dir);
	snprintf(j.id, sizeof(j.id), "%s-%s", mid, j.w->name);
	j.accel = accel_probe(dir, arch, k, t);
	j.interactive = true;
	job_prepare(&j, dir);
	return job_boot(&j);
}

int main(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct tables t;

	if (argc < 2)
		usage_error("%s", "no command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	paths_init();
	tables_open(&t);
	if (!strcmp(argv[1], "list") && argc == 2)
		return cmd_list(&t);
	if (!strcmp(argv[1], "lava")) {
		if (argc < 3 || (strcmp(argv[2], "render") &&
				 strcmp(argv[2], "submit")))
			usage_error("%s", "lava wants a subcommand: render or submit");
		parse_opts(&o, argc - 2, argv + 2);
		if (!strcmp(argv[2], "submit"))
			return cmd_lava_submit(&t, &o);
		return cmd_lava_render(&t, &o);
	}
	parse_opts(&o, argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(&t, &o);
	if (!strcmp(argv[1], "boot"))
		return cmd_boot(&t, &o);
	usage_error("unknown command '%s'", argv[1]);
	return 2;
}
