/* SPDX-License-Identifier: GPL-2.0 */
/*
 * farm-runner: boots one QEMU guest per (arch, machine, kernel, variant,
 * workload) cell and collects one classified record per job. What a
 * machine is lives in farm/machines.json, what a workload is lives in
 * farm/workloads.json, what each cell must do lives in farm/policy.conf;
 * this program knows none of them. How a guest boots is a boot method
 * (boot.h), how a job is driven is an engine (engine.h).
 */
#ifndef FARM_RUNNER_H
#define FARM_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#include "chain.h"
#include "json.h"
#include "policy.h"
#include "util.h"

#define NONCE_LEN 16
/* In a job's dir: its key (mode 0600), the image that hands it over. */
#define JOB_KEY_FILE	"key"
#define JOB_KEYED_IMAGE	"keyed.cpio"

struct boot_method;
struct engine;

/* Paths and tables every part needs, fixed once at start-up. */
struct farm_paths {
	char *top;		/* the source tree (farm/.. ) */
	char *build;		/* $BUILD_DIR */
	char *cache;		/* $BUILD_DIR/farm-cache */
	char *console_exp;	/* farm/console.exp */
	char *classify;		/* $BUILD_DIR/host/classify */
	struct policy policy;	/* farm/policy.conf */
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
	json_t *timeouts;		/* stage -> seconds (stages.c) */
	double tcg_scale;
};

/* One entry of farm/workloads.json. */
struct workload {
	const char *name;
	const char *cmdline;
	const char *farm_module;	/* NULL: none */
	const struct boot_method *boot;	/* "boot": how its guest boots */
	json_t *devices;		/* argv words with {placeholders} */
	json_t *machines;		/* machine ids, arches or "*" */
	json_t *requires;		/* CONFIG_ names, y or m */
	json_t *modules;		/* in-tree modules, load order */
	int timeout;
	int scratch_mib;
	struct variant *variants;	/* its own, beside the run's */
	size_t nvariants;
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

/*
 * A kernel under test: a build O= dir, an unpacked linux-image .deb, or
 * an installed kernel.
 */
struct kernel {
	char *spec;		/* as given */
	char *name;		/* axis value: O= dir name or deb package */
	char *id;		/* unique: names its cache and module dirs */
	char *version;		/* the .deb's package version, or NULL */
	char *sha256;		/* the .deb's checksum, or NULL */
	char *arch;		/* amd64 | arm64 */
	char *flavour;		/* desktop, server, ... or "stock" */
	char *release;		/* uname -r */
	char *image;		/* bzImage / Image / vmlinuz */
	char *config;		/* its .config */
	char *moddir;		/* tree holding lib/modules/<release>, or NULL */
	char *odir;		/* O= dir (farm module builds), or NULL */
	bool installed;		/* ROOT/boot/vmlinuz-*, as dpkg installed it */
	json_t *kconfig;	/* CONFIG_X -> "y" | "m" | string */
	struct farm_modules *farm_modules;
};

struct variant {
	char *name;
	char *cmdline;
	json_t *requires;		/* CONFIG_ names; NULL: none */
};

enum accel { ACCEL_TCG, ACCEL_KVM };

struct job {
	int index;			/* 1-based, in matrix order */
	char id[160];
	const struct machine *m;
	const struct workload *w;
	const struct kernel *k;
	const struct variant *v;
	const struct engine *engine;
	enum accel accel;
	bool interactive;		/* farm boot: console on the terminal */
	const char *preset;		/* skip | infra-error: not booted */
	char *skip_reason;		/* why */
	json_t *boot_images;		/* the boot method's: see boot.h */
	char *dir;			/* jobs/<id> */
	char nonce[NONCE_LEN + 1];
	char key[SAC_KEY_HEX + 1];	/* hex; never in a record or argv */
	pid_t pid;			/* worker, 0 when not running */
	double started, deadline;
	json_t *record;
	struct judgement judged;	/* the record against the policy */
};

struct run_opts {
	json_t *arches, *machines, *workloads, *kernels;	/* string arrays */
	struct variant *variants;
	size_t nvariants;
	int jobs;
	const char *out;
	const char *append;		/* boot command only */
	const struct engine *engine;
	const char *base_url;		/* lava render: http(s) images */
	const char *policy;		/* --policy, or NULL: farm/policy.conf */
	bool print_qemu;		/* run: print argv, boot nothing */
	const char *lab_url, *token_file, *lab_user;	/* lava submit */
};

/* tables.c */
int tables_load(struct tables *t, const char *machines_path,
		const char *workloads_path);
const struct machine *machine_find(const struct tables *t, const char *id);
const struct workload *workload_find(const struct tables *t, const char *name);
bool workload_applies(const struct workload *w, const struct machine *m);

/* kernel.c */
struct kernel *kernel_open(const char *spec);
json_t *kernel_defaults(void);
json_t *kernel_describe(const struct kernel *k);
const char *kernel_option(const struct kernel *k, const char *name);
char *kernel_missing(const struct kernel *k, json_t *options, bool builtin);

/* deb.c */
struct deb_info {
	char *package, *arch, *version, *depends;
};

int deb_read(const char *path, struct deb_info *d);
void deb_info_free(struct deb_info *d);
char *file_sha256(const char *path);
void deb_extract(json_t *debs, const char *root, const char *want,
		 void (*fixup)(const char *tree, const char *root));
void deb_unpack(struct kernel *k, const char *path, char **deb_arch);

/* headers.c */
void headers_search_add(const char *deb_path);
const char *kernel_farm_modules(const struct kernel *k, const char **why);

/* initramfs.c */
char *initramfs_get(const struct kernel *k, const struct workload *w,
		    char **why);
int initramfs_keyed(const char *base, const char *out, const char *key_hex);
int initramfs_job_disk(const char *agent, const char *out, const char *key_hex);

/* accel.c */
enum accel accel_probe(const char *run_dir, const char *arch,
		       const struct kernel *k, const struct tables *t);

/* job.c */
const char *accel_name(enum accel a);
void job_prepare(struct job *j, const char *run_dir);
void job_new_nonce(char *out);
void job_run(struct job *j) __noreturn;	/* in the worker */
void job_kill_qemu(const struct job *j);
void job_collect(struct job *j);
void job_skip(struct job *j);
int job_stage_secs(const struct job *j, const char *timeout_key);
double job_budget(const struct job *j);
int job_boot(struct job *j);		/* console on the terminal */
char *job_cmdline(const struct job *j);
json_t *job_qemu_machine_words(const struct job *j);
json_t *job_images(const struct job *j, const char *scratch);
char **job_qemu_argv(const struct job *j, const char *scratch);
void job_classify(const struct job *j);
char *job_path(const struct job *j, const char *name);
void job_cell_key(const struct job *j, struct cell_key *key);

/* matrix.c */
struct job *matrix_expand(const struct tables *t, struct kernel **kernels,
			  size_t nkernels, const struct run_opts *o,
			  size_t *njobs);

/* pool.c */
void pool_run(struct job *jobs, size_t njobs, int parallel);

/* results.c */
struct run_info {
	const char *dir, *id, *started_utc, *engine;
	struct kernel **kernels;
	size_t nkernels;
	double t0;
};

int results_write(const struct run_info *run, struct job *jobs, size_t njobs,
		  bool final);
void progress_line(const struct job *j, size_t total, size_t done);
void record_finish(struct job *j);

#endif /* FARM_RUNNER_H */
