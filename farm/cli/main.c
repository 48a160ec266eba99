// SPDX-License-Identifier: GPL-2.0
/*
 * farm-runner list | run | boot | lava: the command line. Everything
 * about machines and workloads comes from the two tables, everything
 * about what a cell must do from the policy; the engine is chosen here,
 * once per run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "engine.h"
#include "lava.h"
#include "qemu-user.h"
#include "runner.h"

struct farm_paths farm;

/* The engines farm run --engine names. */
static const struct engine *const engines[] = {
	&engine_local,
	&engine_lava_run,
};

static const char usage_text[] =
	"usage: farm list\n"
	"       farm run [--arch A]... [--machine M]... [--workload W]...\n"
	"                [--kernel SPEC]... [--variant NAME=CMDLINE]... [-j N] [--out DIR]\n"
	"                [--engine local|lava-run] [--policy FILE] [--print-qemu]\n"
	"       farm lava render [the run's --arch/--machine/--workload/--kernel/--variant]\n"
	"                --out DIR [--base-url URL]\n"
	"       farm lava submit [the run's options] --url http://HOST:PORT --token-file F\n"
	"                [--user NAME]   (each cell to a LAVA lab; results as for run)\n"
	"       farm boot --arch A --machine M --kernel SPEC [--workload W] [--append EXTRA]\n"
	"  SPEC: a kernel build O= dir, a linux-image .deb, or an installed\n"
	"        ROOT/boot/vmlinuz-RELEASE (with ROOT/lib/modules/RELEASE)\n"
	"  Exit status of run: 0 when every cell ended as farm/policy.conf expects,\n"
	"  1 otherwise, 2 for bad input.\n";

static void usage_error(const char *fmt, const char *arg)
{
	fputs("farm: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (farm --help shows the usage)\n", stderr);
	exit(2);
}

static const struct engine *engine_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(engines); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

static void paths_init(const char *policy)
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
	policy = policy ? xstrdup(policy) :
		 xasprintf("%s/farm/policy.conf", farm.top);
	if (policy_load(policy, &farm.policy))
		die("the policy %s is not usable", policy);
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

/*
 * A workload's own variants: each adds a cell with its command line, on
 * kernels that have what it needs.
 */
static void print_workload_variants(const struct workload *w)
{
	size_t i;

	for (i = 0; i < w->nvariants; i++) {
		printf("    @%-12s %s", w->variants[i].name,
		       w->variants[i].cmdline);
		if (json_array_size(w->variants[i].requires)) {
			printf("  (needs ");
			print_words(w->variants[i].requires);
			printf(")");
		}
		printf("\n");
	}
}

static int cmd_list(const struct tables *t)
{
	json_t *ks = kernel_defaults();
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
		print_workload_variants(w);
	}
	printf("built farm kernels:\n");
	for (i = 0; i < json_array_size(ks); i++)
		printf("  %s\n", json_string_value(json_array_get(ks, i)));
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
	o->variants = xrealloc(o->variants, (o->nvariants + 1) * sizeof(*v));
	v = &o->variants[o->nvariants++];
	*v = (struct variant){ .name = strndup(arg, eq - arg),
			       .cmdline = xstrdup(eq + 1) };
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
		{ "policy", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	o->arches = json_array();
	o->machines = json_array();
	o->workloads = json_array();
	o->kernels = json_array();
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	o->engine = &engine_local;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
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
			o->engine = engine_find(optarg);
			if (!o->engine)
				usage_error("unknown engine '%s' (known: local lava-run)",
					    optarg);
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
		case 'p':
			o->policy = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			usage_error("%s", "bad option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (o->jobs < 1)
		o->jobs = 1;
}

/* Arches are those of the machines: the table is their one source. */
static bool arch_known(const struct tables *t, const char *arch)
{
	size_t i;

	for (i = 0; i < t->nmachines; i++)
		if (!strcmp(t->machines[i].arch, arch))
			return true;
	return false;
}

static void check_names(const struct tables *t, const struct run_opts *o)
{
	json_t *e;
	size_t i;

	json_array_foreach(o->arches, i, e)
		if (!arch_known(t, json_string_value(e)))
			die("unknown arch '%s' (no machine in farm/machines.json has it)",
			    json_string_value(e));
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

/*
 * One run at a time in an output dir: an flock on OUT/.lock, which goes
 * with the runner and its forked workers, however they end. The fd is
 * close-on-exec, so no program they start (QEMU, expect, the
 * classifier) holds it: only the runner's own processes keep OUT busy.
 */
static void lock_out_dir(const char *out)
{
	char *path = xasprintf("%s/.lock", out);
	int fd;

	if (mkdir_p(out))
		die("cannot create %s", out);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		free(path);
		return;		/* fd stays open: the lock is ours */
	}
	if (errno == EWOULDBLOCK)
		die("another farm run holds %s: wait for it or use another --out",
		    path);
	die("cannot lock %s: %s", path, strerror(errno));
}

/* out/farm/<UTC timestamp>, with a suffix if a run started this second. */
static char *make_run_dir(const char *out, char **id)
{
	char stamp[32], *dir;
	time_t t = time(NULL);
	int i;

	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime(&t));
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

/* One probe per arch that has a job to boot, the first time it has. */
static void set_accel(struct job *jobs, size_t n, const char *run_dir,
		      const struct tables *t)
{
	json_t *decided = json_object();
	size_t i;

	for (i = 0; i < n; i++) {
		const char *arch = jobs[i].m->arch;
		json_t *a = json_object_get(decided, arch);

		if (!a && !jobs[i].preset) {
			enum accel acc = accel_probe(run_dir, arch, jobs[i].k, t);

			printf("farm: %s guests run under %s\n", arch,
			       accel_name(acc));
			a = json_integer(acc);
			json_object_set_new(decided, arch, a);
		}
		jobs[i].accel = a ? (enum accel)json_integer_value(a) : ACCEL_TCG;
	}
	json_decref(decided);
}

/* The cells the filters select, each ready to boot or preset. */
static struct job *expand(const struct tables *t, struct run_opts *o,
			  size_t *n, struct run_info *run)
{
	struct kernel **ks;
	struct job *jobs;
	size_t nk;

	check_names(t, o);
	if (!o->nvariants)
		add_variant(o, "default=");
	ks = kernels_open(o->kernels, &nk);
	run->kernels = ks;
	run->nkernels = nk;
	jobs = matrix_expand(t, ks, nk, o, n);
	if (!*n)
		die("no jobs: no machine and workload match the kernels and filters given");
	return jobs;
}

/*
 * farm run --print-qemu: each cell's QEMU command as the local engine
 * would run it, one JSON object a line; the per-job scratch disk, which
 * only a running job has, shows as {scratch}.
 */
static void print_qemu_argv(struct job *jobs, size_t njobs)
{
	size_t i;
	char **a;

	for (i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		json_t *words = json_array(), *line;
		char **argv;

		if (j->preset)
			continue;
		job_new_nonce(j->nonce);
		argv = job_qemu_argv(j, j->w->scratch_mib ? "{scratch}" : NULL);
		for (a = argv; *a; a++)
			json_array_append_new(words, json_string(*a));
		line = json_pack("{s:s, s:o}", "job", j->id, "argv", words);
		json_dumpf(line, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(line);
		argv_free(argv);
	}
}

static char *utc_now(void)
{
	char buf[32];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	return xstrdup(buf);
}

static int cmd_run(const struct tables *t, struct run_opts *o,
		   const char *engine_label)
{
	struct run_info run = { .engine = engine_label, .t0 = now_s() };
	struct job *jobs;
	size_t n, i;
	char *out, *dir, *abs, *id;
	int bad;

	jobs = expand(t, o, &n, &run);
	if (o->print_qemu) {
		print_qemu_argv(jobs, n);
		return 0;
	}
	out = o->out ? xstrdup(o->out) : xasprintf("%s/out/farm", farm.top);
	lock_out_dir(out);
	dir = make_run_dir(out, &id);
	run.dir = dir;
	run.id = id;
	run.started_utc = utc_now();
	printf("farm: run %s: %zu jobs, %d at a time, %s engine, in %s\n", id,
	       n, o->jobs, engine_label, dir);
	results_write(&run, jobs, n, false);
	if (o->engine->start)
		o->engine->start();
	/* job dirs by absolute paths: QEMU's tie enters them (qemu-user.c) */
	abs = realpath(dir, NULL);
	if (!abs)
		die("cannot resolve %s: %s", dir, strerror(errno));
	set_accel(jobs, n, abs, t);
	for (i = 0; i < n; i++)
		job_prepare(&jobs[i], abs);
	pool_run(jobs, n, o->jobs);
	bad = results_write(&run, jobs, n, true);
	link_latest(out, id);
	printf("farm: results in %s/results.json and junit.xml\n", dir);
	return bad ? 1 : 0;
}

/* farm lava render: the run's cells as LAVA jobs, booting nothing. */
static int cmd_lava_render(const struct tables *t, struct run_opts *o)
{
	struct run_info run = { 0 };
	struct job *jobs;
	size_t n;

	if (!o->out)
		usage_error("%s", "lava render needs --out DIR");
	jobs = expand(t, o, &n, &run);
	return lava_render(jobs, n, o->out, o->base_url) ? 1 : 0;
}

/* The lab --url and --token-file name, handed to the lab engine. */
static void lab_open(const struct run_opts *o)
{
	const char *url = o->lab_url, *rest;
	char *token, *scheme, *host;

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
	scheme = xasprintf("%.*s", (int)(rest - url - 3), url);
	host = xasprintf("%.*s", (int)strcspn(rest, "/"), rest);
	lava_lab_use(scheme, host, o->lab_user ? o->lab_user : "admin", token);
	free(token);
	free(scheme);
	free(host);
}

/* farm lava submit: farm run through a LAVA lab. */
static int cmd_lava_submit(const struct tables *t, struct run_opts *o)
{
	lab_open(o);
	o->engine = &engine_lava_lab;
	return cmd_run(t, o, "lava-lab");
}

static int cmd_boot(const struct tables *t, struct run_opts *o)
{
	const char *arch = json_string_value(json_array_get(o->arches, 0));
	const char *mid = json_string_value(json_array_get(o->machines, 0));
	const char *spec = json_string_value(json_array_get(o->kernels, 0));
	const char *wname = json_string_value(json_array_get(o->workloads, 0));
	struct variant v = { .name = "append",
			     .cmdline = (char *)(o->append ? o->append : "") };
	struct job j = { .index = 1, .v = &v, .engine = &engine_local };
	struct kernel *k;
	char *dir, *abs;

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
	j.skip_reason = j.w->boot->prepare(&j);
	if (j.skip_reason)
		die("cannot prepare the %s boot: %s", j.w->boot->name,
		    j.skip_reason);
	dir = xasprintf("%s/boot", farm.cache);
	rm_rf(dir);
	if (mkdir_p(dir))
		die("cannot create %s", dir);
	abs = realpath(dir, NULL);	/* QEMU's tie enters it */
	if (!abs)
		die("cannot resolve %s: %s", dir, strerror(errno));
	free(dir);
	dir = abs;
	snprintf(j.id, sizeof(j.id), "%s-%s", mid, j.w->name);
	j.accel = accel_probe(dir, arch, k, t);
	j.interactive = true;
	job_prepare(&j, dir);
	return job_boot(&j);
}

int main(int argc, char **argv)
{
	struct run_opts o = { 0 };
	const char *cmd = argc > 1 ? argv[1] : "";
	int sub = !strcmp(cmd, "lava") ? 2 : 1;
	struct tables t;

	/* a link of a job's process chain (engine-local.c), not a command */
	if (argc > 3 && !strcmp(cmd, EXEC_TIED_OPT))
		qemu_user_exec_tied(argv[2], argv + 3);
	/* nothing this program starts outlives it (pool.c) */
	tie_children();
	if (argc < 2)
		usage_error("%s", "no command");
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help") ||
	    (sub == 2 && argc > 2 && (!strcmp(argv[2], "-h") ||
				      !strcmp(argv[2], "--help")))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (strcmp(cmd, "list") && strcmp(cmd, "run") && strcmp(cmd, "boot") &&
	    sub != 2)
		usage_error("unknown command '%s'", cmd);
	if (sub == 2 && (argc < 3 || (strcmp(argv[2], "render") &&
				      strcmp(argv[2], "submit"))))
		usage_error("%s", "lava wants a subcommand: render or submit");
	parse_opts(&o, argc - sub, argv + sub);
	paths_init(o.policy);
	tables_open(&t);
	if (!strcmp(cmd, "list"))
		return cmd_list(&t);
	/* QEMU's user, before a probe or a job boots */
	qemu_user_init();
	if (sub == 2 && !strcmp(argv[2], "submit"))
		return cmd_lava_submit(&t, &o);
	if (sub == 2)
		return cmd_lava_render(&t, &o);
	if (!strcmp(cmd, "run"))
		return cmd_run(&t, &o, o.engine->name);
	return cmd_boot(&t, &o);
}
