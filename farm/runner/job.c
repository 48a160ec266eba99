// SPDX-License-Identifier: GPL-2.0
/*
 * One job: one guest boot running one workload. Here is what every
 * engine shares: the job's directory, nonce and command line, its stage
 * timeouts, the QEMU command built from the machine's words and the boot
 * method's images, and turning the classifier's verdict into the job's
 * record. Which engine drives the guest is the job's engine's business.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "boot.h"
#include "engine.h"
#include "qemu-user.h"
#include "runner.h"
#include "stages.h"

/* Seconds to spare past the stage timeouts before a job is killed. */
#define DEADLINE_SLACK 10

/* The classifier's deadline: well inside the pool's reap slack (pool.c). */
#define CLASSIFY_SECS 20

const char *accel_name(enum accel a)
{
	return a == ACCEL_KVM ? "kvm" : "tcg";
}

/* A stage's timeout: the machine's (by key) or the workload's, scaled. */
int job_stage_secs(const struct job *j, const char *timeout_key)
{
	double s = timeout_key ?
		   json_number_value(json_object_get(j->m->timeouts,
						     timeout_key)) :
		   j->w->timeout;

	if (j->accel == ACCEL_TCG)
		s *= j->m->tcg_scale;
	return (int)(s + 0.999);
}

/* Every stage's timeout added up, plus slack: the job's hard deadline. */
double job_budget(const struct job *j)
{
	const struct stage *seq[STAGES_MAX];
	size_t i, n = stages_of(j->w->boot->name, seq);
	double secs = DEADLINE_SLACK;

	for (i = 0; i < n; i++)
		secs += job_stage_secs(j, seq[i]->timeout);
	return secs;
}

void job_new_nonce(char *out)
{
	unsigned char b[NONCE_LEN / 2];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
		die("cannot read /dev/urandom");
	close(fd);
	for (i = 0; i < sizeof(b); i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/*
 * The job's key (farm/PROTOCOL.md, "Integrity"): fresh from the kernel's
 * random pool, into j->key and the job dir's key file, mode 0600, for
 * the classifier. The guest gets it in its initrd (job_give_key()).
 */
static void job_new_key(struct job *j)
{
	uint8_t key[SAC_KEY_LEN];
	char *path = job_path(j, JOB_KEY_FILE), line[SAC_KEY_HEX + 2];
	ssize_t n;
	int fd;

	do
		n = getrandom(key, sizeof(key), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(key))
		die("cannot get %zu random bytes for the job's key", sizeof(key));
	sac_hex_encode(key, sizeof(key), j->key);
	explicit_bzero(key, sizeof(key));
	unlink(path);	/* a second run of the dir: a new key */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	n = snprintf(line, sizeof(line), "%s\n", j->key);
	if (fd < 0 || write(fd, line, n) != n || close(fd))
		die("cannot write %s", path);
	free(path);
}

void job_prepare(struct job *j, const char *run_dir)
{
	j->dir = xasprintf("%s/jobs/%s", run_dir, j->id);
	if (mkdir_p(j->dir))
		die("cannot create %s", j->dir);
	job_new_nonce(j->nonce);
	job_new_key(j);
}

/* In the process that boots the job: its guest's copy of the key. */
static void job_give_key(struct job *j)
{
	char *why = j->w->boot->give_key(j);

	if (why)
		die("%s: %s", j->id, why);
}

/* The cell's axes as the policy matches them. */
void job_cell_key(const struct job *j, struct cell_key *key)
{
	memset(key, 0, sizeof(*key));
	snprintf(key->flavour, sizeof(key->flavour), "%s", j->k->flavour);
	snprintf(key->arch, sizeof(key->arch), "%s", j->m->arch);
	snprintf(key->machine, sizeof(key->machine), "%s", j->m->id);
	snprintf(key->workload, sizeof(key->workload), "%s", j->w->name);
	snprintf(key->variant, sizeof(key->variant), "%s", j->v->name);
}

char *job_path(const struct job *j, const char *name)
{
	return xasprintf("%s/%s", j->dir, name);
}

static void add_words(char *s, size_t cap, const char *w)
{
	if (!w || !*w)
		return;
	if (*s)
		strncat(s, " ", cap - strlen(s) - 1);
	strncat(s, w, cap - strlen(s) - 1);
}

/*
 * The agent's orders first, so no cut of a long command line (here, or
 * the kernel's at COMMAND_LINE_SIZE) can take the nonce; then console,
 * machine, workload, variant.
 */
char *job_cmdline(const struct job *j)
{
	char s[4096] = "", buf[128];

	snprintf(buf, sizeof(buf), "sac.nonce=%s sac.run=%s", j->nonce,
		 j->w->name);
	add_words(s, sizeof(s), buf);
	snprintf(buf, sizeof(buf), "console=%s", j->m->console);
	add_words(s, sizeof(s), buf);
	add_words(s, sizeof(s), j->m->cmdline);
	add_words(s, sizeof(s), j->w->cmdline);
	add_words(s, sizeof(s), j->v->cmdline);
	return xstrdup(s);
}

static void push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

/* Appends words to a and drops the reference to them. */
static void push_all_new(json_t *a, json_t *words)
{
	json_array_extend(a, words);
	json_decref(words);
}

/*
 * The machine's half of the QEMU command, which a LAVA device dictionary
 * carries as its options: no host NIC (-nic none; a workload's NICs sit
 * on an in-QEMU hub), no host share, the serial console on stdio, and
 * QEMU's seccomp sandbox: no obsolete syscalls, no setuid and friends,
 * no fork or exec, no scheduler or affinity changes (QEMU 7.2 takes it
 * on both arches; it rules out QEMU's own -runas).
 */
json_t *job_qemu_machine_words(const struct job *j)
{
	json_t *a = json_array();

	push(a, "-accel");
	push(a, accel_name(j->accel));
	json_array_extend(a, j->accel == ACCEL_KVM ? j->m->kvm : j->m->tcg);
	json_array_extend(a, j->m->args);
	push(a, "-nic");
	push(a, "none");
	push(a, "-no-reboot");
	push(a, "-display");
	push(a, "none");
	push(a, "-serial");
	push(a, j->interactive ? "mon:stdio" : "stdio");
	push(a, "-monitor");
	push(a, "none");
	push(a, "-sandbox");
	push(a, "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny");
	return a;
}

/* Words with the job's {nonce} and {cmdline} filled in, in place. */
static void fill_job_words(const struct job *j, json_t *words)
{
	char *cmdline = job_cmdline(j);
	json_t *e;
	size_t i;

	json_array_foreach(words, i, e) {
		char *a = str_replace_all(json_string_value(e), "{nonce}",
					  j->nonce);
		char *b = str_replace_all(a, "{cmdline}", cmdline);

		json_array_set_new(words, i, json_string(b));
		free(a);
		free(b);
	}
	free(cmdline);
}

/*
 * The boot method's images, then the workload's scratch disk as one
 * more image carrying the devices; without a disk the devices ride on
 * the last image. Each {"label", "path", "words"}; a word's {label}
 * stands for the image's file, and the job's {nonce} and {cmdline} are
 * filled in.
 */
json_t *job_images(const struct job *j, const char *scratch)
{
	json_t *images = json_deep_copy(j->boot_images), *last, *img;
	json_t *devices = json_deep_copy(j->w->devices);
	size_t i;

	json_array_foreach(images, i, img)
		fill_job_words(j, json_object_get(img, "words"));
	fill_job_words(j, devices);
	if (scratch) {
		json_array_append_new(images,
				      json_pack("{s:s, s:s, s:O}", "label",
						"scratch", "path", scratch,
						"words", devices));
	} else {
		last = json_array_get(images, json_array_size(images) - 1);
		json_array_extend(json_object_get(last, "words"), devices);
	}
	json_decref(devices);
	return images;
}

/* Each image's words with {label} replaced by its path. */
static void push_image_words(json_t *a, json_t *images)
{
	json_t *img, *w;
	size_t i, k;

	json_array_foreach(images, i, img) {
		char *ph = xasprintf("{%s}", jstr(img, "label", ""));

		json_array_foreach(json_object_get(img, "words"), k, w) {
			char *s = str_replace_all(json_string_value(w), ph,
						  jstr(img, "path", ""));

			push(a, s);
			free(s);
		}
		free(ph);
	}
}

/*
 * The QEMU command: the machine's words, then the images' words, in the
 * order a LAVA job reassembles them (farm/lava/README.md), and a timeout
 * wrapper so not even a lost console driver leaves QEMU running.
 */
char **job_qemu_argv(const struct job *j, const char *scratch)
{
	json_t *a = json_array(), *images = job_images(j, scratch);
	char buf[32], **argv;

	push(a, "timeout");
	if (j->interactive) {
		/* a person is watching: give them an hour, and the tty */
		push(a, "--foreground");
		push(a, "3600");
	} else {
		push(a, "--kill-after=2");
		snprintf(buf, sizeof(buf), "%d", (int)job_budget(j));
		push(a, buf);
	}
	push(a, j->m->qemu);
	push_all_new(a, job_qemu_machine_words(j));
	push_image_words(a, images);
	if (j->dir) {
		char *pid = job_path(j, "qemu.pid");

		push(a, "-pidfile");
		push(a, pid);
		free(pid);
	}
	argv = argv_from_json(a);
	json_decref(images);
	json_decref(a);
	return argv;
}

static char *make_scratch(const struct job *j)
{
	char *path;
	int fd;

	if (!j->w->scratch_mib)
		return NULL;
	path = job_path(j, "scratch.img");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)j->w->scratch_mib << 20))
		die("cannot create %s", path);
	close(fd);
	return path;
}

/*
 * QEMU runs in a session of its own under the console driver, out of
 * reach of a process-group kill. It dies with its timeout, which dies
 * with the console driver (engine-local.c); as well, it writes its pid
 * to qemu.pid, and whoever ends a job makes sure that process is gone.
 * The pid is trusted only while its /proc entry still names a qemu
 * binary.
 */
void job_kill_qemu(const struct job *j)
{
	char *pidfile = job_path(j, "qemu.pid");
	char *text = read_text(pidfile, 32), *cmd, *path;
	long pid = text ? strtol(text, NULL, 10) : 0;

	free(text);
	free(pidfile);
	if (pid <= 1)
		return;
	path = xasprintf("/proc/%ld/cmdline", pid);
	cmd = read_text(path, 256);
	free(path);
	if (cmd && strstr(cmd, "qemu-system-"))
		kill((pid_t)pid, SIGKILL);
	free(cmd);
}

/*
 * What a worker removes when a signal stops it (passed on by the
 * runner, or the runner's death: pool.c): its scratch disk, its keyed
 * image and the console driver's half-written status. Its children die
 * with it.
 */
static char *worker_leftovers[3];

static void worker_stop(int sig)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(worker_leftovers); i++)
		unlink(worker_leftovers[i]);
	_exit(128 + sig);
}

static void worker_catch_stop(const struct job *j)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa = { .sa_handler = worker_stop };
	size_t i;

	worker_leftovers[0] = job_path(j, "scratch.img");
	worker_leftovers[1] = job_path(j, "status.tmp");
	worker_leftovers[2] = job_path(j, JOB_KEYED_IMAGE);
	sigfillset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* In the worker process: the job's scratch disk and key, then its engine. */
void job_run(struct job *j)
{
	worker_catch_stop(j);
	job_give_key(j);
	j->engine->exec(j, make_scratch(j));
}

/* classify --log --status ... > classify.json, in the job dir. */
void job_classify(const struct job *j)
{
	char *log = job_path(j, "console.log");
	char *status = job_path(j, "status");
	char *out = job_path(j, "classify.json");
	char *err = job_path(j, "classify.err");
	char *key = job_path(j, JOB_KEY_FILE);
	char *const argv[] = { farm.classify, "--log", log, "--status", status,
			 "--key", key, "--nonce", (char *)j->nonce,
			 "--workloads", (char *)j->w->name, "--job-id",
			 (char *)j->id, NULL };

	if (run_argv(argv, out, err, CLASSIFY_SECS) != 0)
		unlink(out);
	free(key);
	free(log);
	free(status);
	free(out);
	free(err);
}

/* farm boot: QEMU on the terminal (Ctrl-A X quits), no console driver. */
int job_boot(struct job *j)
{
	char *scratch = make_scratch(j), *keyed = job_path(j, JOB_KEYED_IMAGE);
	char **argv, **a, *why;
	json_t *images;
	int rc;

	job_give_key(j);
	images = job_images(j, scratch);
	why = qemu_user_prepare(j, images);
	json_decref(images);
	if (why) {
		unlink(keyed);
		die("%s", why);
	}
	argv = qemu_user_argv(j, job_qemu_argv(j, scratch));
	fputs("farm: booting:", stderr);
	for (a = argv; *a; a++)
		fprintf(stderr, " %s", *a);
	fputs("\nfarm: Ctrl-A X ends the guest\n", stderr);
	rc = run_argv(argv, NULL, NULL, 0);
	job_kill_qemu(j);
	if (scratch)
		unlink(scratch);
	unlink(keyed);
	argv_free(argv);
	free(scratch);
	free(keyed);
	return rc;
}

static char *last_line(const char *path)
{
	char *text = read_text(path, 4096), *end, *start;

	if (!text)
		return xstrdup("");
	end = text + strlen(text);
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(text, '\n');
	start = xstrdup(start ? start + 1 : text);
	free(text);
	return start;
}

/* Parent side: read the verdict and add the job's axes and context. */
void job_collect(struct job *j)
{
	char *path = job_path(j, "classify.json");
	json_t *r = json_load_file(path, 0, NULL);

	free(path);
	if (!json_is_object(r)) {
		char *err = job_path(j, "classify.err");
		char *why = last_line(err);

		json_decref(r);
		r = json_pack("{s:s, s:s, s:s}", "outcome", "infra-error",
			      "reason", "farm: no verdict from the classifier",
			      "evidence", why);
		free(why);
		free(err);
	}
	json_object_set_new(r, "duration_s",
			    json_real((double)(long)((now_s() - j->started) *
						     1000) / 1000));
	json_object_set_new(r, "accel", json_string(accel_name(j->accel)));
	json_object_set_new(r, "nonce", json_string(j->nonce));
	j->record = r;
}

/* A job that cannot run (skip) or be set up (infra-error): never booted. */
void job_skip(struct job *j)
{
	j->record = json_pack("{s:s, s:s, s:s}", "outcome", j->preset,
			      "reason", j->skip_reason, "evidence",
			      j->skip_reason);
	json_object_set_new(j->record, "duration_s", json_real(0));
	json_object_set_new(j->record, "accel", json_string("none"));
}
