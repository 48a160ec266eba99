/* SPDX-License-Identifier: GPL-2.0 */
/*
 * farm-runner: boots one QEMU guest per (arch, machine, kernel, variant,
 * workload) cell and collects one classified record per job. What a
 * machine is lives in farm/machines.json, what a workload is lives in
 * farm/workloads.json; this program knows neither.
 */
#ifndef FARM_RUNNER_H
#define FARM_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __printf(a, b) __attribute__((__format__(__printf__, a, b)))
#define __noreturn __attribute__((__noreturn__))
#define NONCE_LEN 16

/* Paths every part needs, fixed once at start-up. */
struct farm_paths {
	char *top;		/* the source tree (farm/.. ) */
	char *build;		/* $BUILD_DIR */
	char *cache;		/* $BUILD_DIR/farm-cache */
	char *console_exp;	/* farm/console.exp */
	char *classify;		/* $BUILD_DIR/host/classify */
};

extern struct farm_paths farm;

/* One entry of farm/machines.json; strings point into the table. */
struct machine {
	const char *id;
	const char *arch;
	const char *qemu;
	const char *console;
	const char *cmdline;
	const char *iommu_regex;
	json_t *args, *tcg, *kvm;	/* arrays of argv words */
	json_t *requires;		/* array of CONFIG_ names, built in */
	json_t *timeouts;		/* kernel, iommu, agent, poweroff */
	double tcg_scale;
};

/* One entry of farm/workloads.json. */
struct workload {
	const char *name;
	const char *cmdline;
	const char *farm_module;	/* NULL: none */
	json_t *devices;		/* argv words with {placeholders} */
	json_t *machines;		/* machine ids, arches or "*" */
	json_t *requires;		/* CONFIG_ names, y or m */
	json_t *modules;		/* in-tree modules, load order */
	json_t *expect;			/* flavour -> outcome */
	int timeout;
	int scratch_mib;
};

struct tables {
	json_t *mroot, *wroot;
	struct machine *machines;
	size_t nmachines;
	struct workload *workloads;
	size_t nworkloads;
};

/* The farm's own modules for a kernel: found or built on first use. */
struct farm_modules {
	bool resolved;
	char *dir;		/* holding <module>.ko, or NULL */
	char *gap;		/* why there is no dir */
};

/* A kernel under test: a build O= dir or an unpacked linux-image .deb. */
struct kernel {
	char *spec;		/* as given */
	char *name;		/* axis value: O= dir name or deb package */
	char *id;		/* unique: names its cache and module dirs */
	char *version;		/* the .deb's package version, or NULL */
	char *arch;		/* amd64 | arm64 */
	char *flavour;		/* desktop, server, ... or "stock" */
	char *release;		/* uname -r */
	char *image;		/* bzImage / Image / vmlinuz */
	char *config;		/* its .config */
	char *moddir;		/* tree holding lib/modules/<release>, or NULL */
	char *odir;		/* O= dir (farm module builds), or NULL */
	char *gen_init_cpio;
	json_t *kconfig;	/* CONFIG_X -> "y" | "m" | string */
	struct farm_modules *farm_modules;
};

struct variant {
	char *name;
	char *cmdline;
};

enum accel { ACCEL_TCG, ACCEL_KVM };

struct job {
	int index;			/* 1-based, in matrix order */
	char id[160];
	const struct machine *m;
	const struct workload *w;
	const struct kernel *k;
	const struct variant *v;
	enum accel accel;
	bool interactive;		/* farm boot: console on the terminal */
	bool lava;			/* run through lava-run (lava.h) */
	const char *preset;		/* skip | infra-error: not booted */
	char *skip_reason;		/* why */
	char *initramfs;
	char *dir;			/* jobs/<id> */
	char nonce[NONCE_LEN + 1];
	pid_t pid;			/* worker, 0 when not running */
	double started, deadline;
	json_t *record;
};

struct run_opts {
	json_t *arches, *machines, *workloads, *kernels;	/* string arrays */
	struct variant *variants;
	size_t nvariants;
	int jobs;
	const char *out;
	const char *append;		/* boot command only */
	const char *engine;		/* run: local | lava-run */
	const char *base_url;		/* lava render: http(s) images */
	bool print_qemu;		/* run: print argv, boot nothing */
	const char *lab_url, *token_file, *lab_user;	/* lava submit */
};

/* util.c */
void die(const char *fmt, ...) __printf(1, 2) __noreturn;
void warnx(const char *fmt, ...) __printf(1, 2);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __printf(1, 2);
double now_s(void);
bool is_file(const char *path);
bool is_dir(const char *path);
int mkdir_p(const char *path);
int rm_rf(const char *path);
char *read_text(const char *path, size_t max);
int write_text(const char *path, const char *text);
int run_argv(char *const argv[], const char *out_path, const char *err_path,
	     double timeout_s);
char **argv_from_json(json_t *words);
void argv_free(char **argv);
char *str_replace_all(const char *s, const char *from, const char *to);
void kill_pidfile(const char *pidfile);

/* tables.c */
int tables_load(struct tables *t, const char *machines_path,
		const char *workloads_path);
const struct machine *machine_find(const struct tables *t, const char *id);
const struct workload *workload_find(const struct tables *t, const char *name);
bool workload_applies(const struct workload *w, const struct machine *m);
const char *workload_expect(const struct workload *w, const char *flavour);
json_t *flavours_list(void);

/* kernel.c */
struct kernel *kernel_open(const char *spec);
void kernel_identify(struct kernel *k);
json_t *kernel_defaults(void);
const char *kernel_option(const struct kernel *k, const char *name);
char *kernel_missing(const struct kernel *k, json_t *options, bool builtin);

/* deb.c */
struct deb_info {
	char *package, *arch, *version, *depends;
};

int deb_read(const char *path, struct deb_info *d);
void deb_info_free(struct deb_info *d);
char *file_sha16(const char *path);
void deb_extract(json_t *debs, const char *root, const char *want,
		 void (*fixup)(const char *tree, const char *root));
int deb_unpack(struct kernel *k, const char *path);

/* headers.c */
void headers_search_add(const char *deb_path);
const char *kernel_farm_modules(const struct kernel *k, const char **why);

/* initramfs.c */
char *initramfs_get(const struct kernel *k, const struct workload *w,
		    char **why);

/* accel.c */
enum accel accel_probe(const char *run_dir, const char *arch,
		       const struct kernel *k, const struct tables *t);
const char *accel_name(enum accel a);
const char *host_arch(void);

/* job.c */
void job_prepare(struct job *j, const char *run_dir);
void job_exec(struct job *j);		/* in the worker; never returns */
void job_collect(struct job *j);
void job_skip(struct job *j);
double job_budget(const struct job *j);
int job_boot(struct job *j);		/* console on the terminal */
char *job_cmdline(const struct job *j);
char **job_qemu_argv(const struct job *j, const char *scratch);

/* matrix.c */
struct job *matrix_expand(const struct tables *t, struct kernel **kernels,
			  size_t nkernels, const struct run_opts *o,
			  size_t *njobs);

/* pool.c */
void pool_run(struct job *jobs, size_t njobs, int parallel);

/* results.c */
int results_write(const char *run_dir, struct job *jobs, size_t njobs);
void progress_line(const struct job *j, size_t total, size_t done);
bool job_ok(const struct job *j);
void record_finish(struct job *j);

#endif /* FARM_RUNNER_H */
