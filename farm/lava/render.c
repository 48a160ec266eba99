// SPDX-License-Identifier: GPL-2.0
/*
 * One farm cell as a LAVA job definition, one machine as a LAVA device
 * dictionary (device type qemu), both written with libyaml's emitter.
 *
 * LAVA builds the QEMU command as the device's command and options, then
 * each deployed image's image_arg in the job's order. The options are the
 * local engine's machine words; the images are the kernel with its
 * command line, the initramfs and the scratch disk, and the workload's
 * devices ride on the last image: the same words in the same order as
 * job_qemu_argv(), less the timeout wrapper and -pidfile, which LAVA's
 * own timeouts replace.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "boot.h"
#include "lava.h"
#include "stages.h"

/* LAVA's deploy (a local copy) and boot (QEMU started) take a moment. */
#define LAVA_DEPLOY_S	10
#define LAVA_BOOT_S	5

struct yout {
	yaml_emitter_t em;
	FILE *f;
	bool failed;
};

static void emit(struct yout *y, yaml_event_t *ev)
{
	if (y->failed || !yaml_emitter_emit(&y->em, ev)) {
		y->failed = true;
		yaml_event_delete(ev);
	}
}

static void y_map(struct yout *y)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
					    YAML_BLOCK_MAPPING_STYLE);
	emit(y, &ev);
}

static void y_map_end(struct yout *y)
{
	yaml_event_t ev;

	yaml_mapping_end_event_initialize(&ev);
	emit(y, &ev);
}

static void y_seq(struct yout *y)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
					     YAML_BLOCK_SEQUENCE_STYLE);
	emit(y, &ev);
}

static void y_seq_end(struct yout *y)
{
	yaml_event_t ev;

	yaml_sequence_end_event_initialize(&ev);
	emit(y, &ev);
}

/* plain: a key or a number; otherwise quoted, so "on" stays a string */
static void y_scalar(struct yout *y, const char *s, bool plain)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
				     (int)strlen(s), plain, 1,
				     YAML_ANY_SCALAR_STYLE);
	emit(y, &ev);
}

static void y_key(struct yout *y, const char *key)
{
	y_scalar(y, key, true);
}

static void y_str(struct yout *y, const char *key, const char *value)
{
	y_key(y, key);
	y_scalar(y, value, false);
}

static void y_int(struct yout *y, const char *key, long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", value);
	y_key(y, key);
	y_scalar(y, buf, true);
}

static void y_empty_map(struct yout *y, const char *key)
{
	y_key(y, key);
	y_map(y);
	y_map_end(y);
}

/* timeout: {seconds: N} */
static void y_timeout(struct yout *y, const char *key, int secs)
{
	y_key(y, key);
	y_map(y);
	y_int(y, "seconds", secs > 0 ? secs : 1);
	y_map_end(y);
}

static int y_open(struct yout *y, const char *path)
{
	yaml_event_t ev;

	memset(y, 0, sizeof(*y));
	y->f = fopen(path, "w");
	if (!y->f)
		return -1;
	yaml_emitter_initialize(&y->em);
	yaml_emitter_set_output_file(&y->em, y->f);
	yaml_emitter_set_unicode(&y->em, 1);
	yaml_emitter_set_width(&y->em, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit(y, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit(y, &ev);
	return 0;
}

static int y_close(struct yout *y)
{
	yaml_event_t ev;

	yaml_document_end_event_initialize(&ev, 1);
	emit(y, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit(y, &ev);
	if (!yaml_emitter_flush(&y->em))
		y->failed = true;
	yaml_emitter_delete(&y->em);
	if (fclose(y->f))
		y->failed = true;
	return y->failed ? -1 : 0;
}

/*
 * LAVA joins the QEMU words with spaces and pexpect splits the line
 * again: quotes group, a backslash escapes the next character. A word
 * with anything but these characters is quoted so it comes back whole.
 */
static bool plain_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr(",.=_:/+@%-{}", c));
}

static bool plain_word(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!plain_char(*w))
			return false;
	return true;
}

static char *quote_word(const char *w)
{
	char *quoted, *q;
	const char *p;

	if (plain_word(w))
		return xstrdup(w);
	/* inside double quotes pexpect keeps every other byte as it is */
	if (!strchr(w, '"'))
		return xasprintf("\"%s\"", w);
	quoted = xmalloc(2 * strlen(w) + 1);
	for (p = w, q = quoted; *p; p++) {
		if (!plain_char(*p))
			*q++ = '\\';
		*q++ = *p;
	}
	*q = '\0';
	return quoted;
}

static void add_word(char **line, const char *w)
{
	char *quoted = quote_word(w), *old = *line;

	*line = old ? xasprintf("%s %s", old, quoted) : xstrdup(quoted);
	free(old);
	free(quoted);
}

static char *words_line(json_t *words)
{
	char *line = NULL;
	json_t *e;
	size_t i;

	json_array_foreach(words, i, e)
		add_word(&line, json_string_value(e));
	return line ? line : xstrdup("");
}

/*
 * Every second LAVA may spend on the job: deploy, boot, each stage; less
 * than the runner's deadline for the worker (pool.c), so LAVA's own
 * timeout ends a stuck job and says so.
 */
static int lava_job_timeout(const struct job *j)
{
	return LAVA_DEPLOY_S + LAVA_BOOT_S + (int)job_budget(j);
}

static void device_constants(struct yout *y)
{
	/* what lava-server's device-type templates would have filled in */
	y_key(y, "constants");
	y_map(y);
	y_int(y, "failure_retry", 1);
	y_int(y, "boot_retry", 0);
	y_str(y, "spawn_maxread", "4092");
	y_key(y, "posix");
	y_map(y);
	y_str(y, "lava_test_sh_cmd", "/bin/sh");
	y_str(y, "lava_test_results_dir", "/lava-%s");
	y_str(y, "lava_test_shell_file", "~/.bashrc");
	y_map_end(y);
	y_str(y, "shutdown-message", "The system is going down for reboot NOW");
	y_str(y, "kernel-start-message", "Linux version [0-9]");
	y_str(y, "default-shell-prompt", "lava-test: # ");
	y_map_end(y);
}

static void device_qemu(struct yout *y, const struct job *j)
{
	json_t *words = job_qemu_machine_words(j), *e;
	size_t i;

	y_key(y, "qemu");
	y_map(y);
	y_key(y, "parameters");
	y_map(y);
	y_str(y, "command", j->m->qemu);
	y_key(y, "options");
	y_seq(y);
	json_array_foreach(words, i, e) {
		char *w = quote_word(json_string_value(e));

		y_scalar(y, w, false);
		free(w);
	}
	y_seq_end(y);
	y_map_end(y);
	y_map_end(y);
	json_decref(words);
}

/* The device dictionary of j's machine, for j's accelerator. */
int lava_write_device(const struct job *j, const char *path)
{
	struct yout y;

	if (y_open(&y, path))
		return -1;
	y_map(&y);
	y_key(&y, "available_architectures");
	y_seq(&y);
	y_scalar(&y, j->m->arch, false);
	y_seq_end(&y);
	y_empty_map(&y, "parameters");
	device_constants(&y);
	y_key(&y, "actions");
	y_map(&y);
	y_key(&y, "deploy");
	y_map(&y);
	y_key(&y, "methods");
	y_map(&y);
	y_key(&y, "image");
	y_map(&y);
	y_empty_map(&y, "parameters");
	y_map_end(&y);
	y_map_end(&y);
	y_map_end(&y);
	y_key(&y, "boot");
	y_map(&y);
	y_key(&y, "connections");
	y_map(&y);
	y_empty_map(&y, "serial");
	y_map_end(&y);
	y_key(&y, "methods");
	y_map(&y);
	device_qemu(&y, j);
	y_map_end(&y);
	y_map_end(&y);
	y_map_end(&y);
	y_key(&y, "timeouts");
	y_map(&y);
	y_empty_map(&y, "actions");
	y_empty_map(&y, "connections");
	y_map_end(&y);
	y_map_end(&y);
	return y_close(&y);
}

static const char *expected_outcomes(const struct job *j)
{
	const struct expect_rule *rule;
	struct cell_key key;

	job_cell_key(j, &key);
	rule = policy_expect(&farm.policy, &key);
	return rule ? rule->outcomes : "pass";
}

static void job_metadata(struct yout *y, const struct job *j)
{
	y_key(y, "metadata");
	y_map(y);
	y_str(y, "farm.job", j->id);
	y_str(y, "farm.machine", j->m->id);
	y_str(y, "farm.kernel", j->k->name);
	y_str(y, "farm.kernel_release", j->k->release);
	y_str(y, "farm.flavour", j->k->flavour);
	y_str(y, "farm.variant", j->v->name);
	y_str(y, "farm.workload", j->w->name);
	y_str(y, "farm.expected", expected_outcomes(j));
	y_str(y, "farm.nonce", j->nonce);
	y_map_end(y);
}

static void image(struct yout *y, json_t *img)
{
	char *arg = words_line(json_object_get(img, "words"));

	y_key(y, jstr(img, "label", ""));
	y_map(y);
	y_str(y, "url", jstr(img, "url", ""));
	y_str(y, "image_arg", arg);
	y_map_end(y);
	free(arg);
}

/* LAVA puts its copy of each image where the image's {label} stands. */
static void job_deploy(struct yout *y, json_t *images)
{
	json_t *img;
	size_t i;

	y_map(y);
	y_key(y, "deploy");
	y_map(y);
	y_str(y, "to", "tmpfs");
	y_timeout(y, "timeout", LAVA_DEPLOY_S);
	y_key(y, "images");
	y_map(y);
	json_array_foreach(images, i, img)
		image(y, img);
	y_map_end(y);
	y_map_end(y);
	y_map_end(y);
}

/*
 * A monitor's timeout: its stage's and those of the stages before it
 * that no monitor of their own checks (farm/common/stages.c).
 */
static int monitor_secs(const struct job *j, const struct stage **seq,
			size_t stage)
{
	int secs = job_stage_secs(j, seq[stage]->timeout);

	while (stage-- > 0 && !seq[stage]->monitor)
		secs += job_stage_secs(j, seq[stage]->timeout);
	return secs;
}

/*
 * A monitor waits for its start line under its action's timeout, which
 * fails the job, but for the lines after it under the QEMU session's
 * default, the boot action's timeout, which only ends that monitor and
 * fails nothing. Giving the boot action the longest monitor's timeout
 * leaves every stage to its own action's timeout.
 */
static int longest_monitor(const struct job *j)
{
	const struct stage *seq[STAGES_MAX];
	size_t i, n = stages_of(j->w->boot->name, seq);
	int longest = 0, secs;

	for (i = 0; i < n; i++) {
		if (!seq[i]->monitor)
			continue;
		secs = monitor_secs(j, seq, i);
		if (secs > longest)
			longest = secs;
	}
	return longest;
}

static void job_boot_action(struct yout *y, const struct job *j)
{
	y_map(y);
	y_key(y, "boot");
	y_map(y);
	y_str(y, "method", "qemu");
	y_str(y, "media", "tmpfs");
	y_timeout(y, "timeout", longest_monitor(j));
	y_map_end(y);
	y_map_end(y);
}

/* The monitor whose test cases are the workloads' results. */
const char *lava_results_suite(void)
{
	size_t i;

	for (i = 0; i < n_stages; i++)
		if (stages[i].cases)
			return stages[i].monitor;
	return NULL;
}

/*
 * One test action per monitored stage, so LAVA enforces the stage's own
 * timeout: a monitor waits for its start line, records the workloads'
 * result lines as test cases, and ends at its end line.
 */
static void job_monitor(struct yout *y, const struct job *j,
			const struct stage **seq, size_t stage)
{
	static const char workload[] = "\"workload\":\"(?P<test_case_id>[^\"]+)\"";
	static const char status[] = "\"status\":\"(?P<result>pass|fail|skip)\"";
	const struct stage *s = seq[stage];
	const char *iommu = j->m->iommu_regex;
	/* "SAC <nonce> result <seq> <mac> {...}": the chain LAVA cannot check */
	char *pattern = xasprintf("SAC %s result [0-9]+ [0-9a-f]{64} \\{%s,%s",
				  j->nonce, workload, status);
	char *start = stage_expand(s->window[0], j->nonce, iommu);
	char *end = stage_expand(s->window[1], j->nonce, iommu);

	y_map(y);
	y_key(y, "test");
	y_map(y);
	y_timeout(y, "timeout", monitor_secs(j, seq, stage));
	y_key(y, "monitors");
	y_seq(y);
	y_map(y);
	y_str(y, "name", s->monitor);
	y_str(y, "start", start);
	y_str(y, "end", end);
	y_str(y, "pattern", pattern);
	y_map_end(y);
	y_seq_end(y);
	y_map_end(y);
	y_map_end(y);
	free(pattern);
	free(start);
	free(end);
}

static void job_tests(struct yout *y, const struct job *j)
{
	const struct stage *seq[STAGES_MAX];
	size_t i, n = stages_of(j->w->boot->name, seq);

	for (i = 0; i < n; i++)
		if (seq[i]->monitor)
			job_monitor(y, j, seq, i);
}

/* The LAVA job definition of one cell, its images at their "url"s. */
int lava_write_job(const struct job *j, json_t *images, const char *path)
{
	char *name = xasprintf("farm %s", j->id);
	struct yout y;

	if (y_open(&y, path)) {
		free(name);
		return -1;
	}
	y_map(&y);
	y_str(&y, "job_name", name);
	y_str(&y, "device_type", "qemu");
	/* a lab tags each device with the farm machine it is */
	y_key(&y, "tags");
	y_seq(&y);
	y_scalar(&y, j->m->id, false);
	y_seq_end(&y);
	y_key(&y, "context");
	y_map(&y);
	y_str(&y, "arch", j->m->arch);
	y_map_end(&y);
	job_metadata(&y, j);
	y_str(&y, "priority", "medium");
	/* only the submitter (and the lab's admins) see the job and its log */
	y_str(&y, "visibility", "personal");
	y_key(&y, "timeouts");
	y_map(&y);
	y_timeout(&y, "job", lava_job_timeout(j));
	y_map_end(&y);
	y_key(&y, "actions");
	y_seq(&y);
	job_deploy(&y, images);
	job_boot_action(&y, j);
	job_tests(&y, j);
	y_seq_end(&y);
	y_map_end(&y);
	free(name);
	return y_close(&y);
}

static char *file_url(const char *path)
{
	char real[PATH_MAX];

	if (!realpath(path, real))
		die("cannot resolve %s: %s", path, strerror(errno));
	return xasprintf("file://%s", real);
}

/* A sparse disk of mib MiB, made once and shared: LAVA copies it. */
static char *scratch_image(const char *dir, int mib)
{
	char *path = xasprintf("%s/scratch-%dmib.img", dir, mib);
	int fd;

	if (is_file(path))
		return path;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)mib << 20))
		die("cannot create %s", path);
	close(fd);
	return path;
}

static bool up_to_date(const char *src, const char *dst)
{
	struct stat s, d;

	return stat(src, &s) == 0 && stat(dst, &d) == 0 &&
	       s.st_size == d.st_size && d.st_mtime >= s.st_mtime;
}

/*
 * out/images/<kernel id>/<name>, published as base/images/<kernel
 * id>/<name>; a file already under out/images/ is published where it is.
 */
static char *publish(const char *out, const char *base, const struct job *j,
		     const char *src)
{
	const char *name = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char *images = xasprintf("%s/images/", out);
	char *dir, *dst, *url;

	if (!strncmp(src, images, strlen(images))) {
		url = xasprintf("%s/images/%s", base, src + strlen(images));
		free(images);
		return url;
	}
	dir = xasprintf("%s%s", images, j->k->id);
	dst = xasprintf("%s/%s", dir, name);
	url = xasprintf("%s/images/%s/%s", base, j->k->id, name);
	if (mkdir_p(dir))
		die("cannot create %s", dir);
	if (!up_to_date(src, dst) && copy_file(src, dst))
		die("cannot copy %s to %s", src, dst);
	free(images);
	free(dir);
	free(dst);
	return url;
}

/* The job's images with file:// URLs: what lava-run on this host reads. */
json_t *lava_images_local(const struct job *j, const char *scratch)
{
	json_t *images = job_images(j, scratch), *img;
	size_t i;

	json_array_foreach(images, i, img) {
		char *url = file_url(jstr(img, "path", ""));

		json_object_set_new(img, "url", json_string(url));
		free(url);
	}
	return images;
}

static json_t *render_images(const struct job *j, const char *out,
			     const char *base)
{
	char *dir = xasprintf("%s/images", out);
	char *scratch = NULL;
	json_t *images, *img;
	size_t i;

	if (mkdir_p(dir))
		die("cannot create %s", dir);
	if (j->w->scratch_mib)
		scratch = scratch_image(dir, j->w->scratch_mib);
	if (!base) {
		images = lava_images_local(j, scratch);
		goto out;
	}
	images = job_images(j, scratch);
	json_array_foreach(images, i, img) {
		char *url = publish(out, base, j, jstr(img, "path", ""));

		json_object_set_new(img, "url", json_string(url));
		free(url);
	}
out:
	free(scratch);
	free(dir);
	return images;
}

static void render_one(struct job *j, const char *out, const char *base,
		       json_t *devices)
{
	json_t *images;
	char *path;

	job_new_nonce(j->nonce);
	images = render_images(j, out, base);
	path = xasprintf("%s/%s.yaml", out, j->id);
	if (lava_write_job(j, images, path))
		die("cannot write %s", path);
	free(path);
	json_decref(images);
	if (!json_object_get(devices, j->m->id)) {
		path = xasprintf("%s/devices/%s.yaml", out, j->m->id);
		if (lava_write_device(j, path))
			die("cannot write %s", path);
		json_object_set_new(devices, j->m->id, json_true());
		free(path);
	}
}

static char *base_url_check(const char *url)
{
	size_t n;

	if (!url)
		return NULL;
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		die("--base-url wants an http:// or https:// URL, got '%s'", url);
	n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	return strndup(url, n);
}

/*
 * farm lava render: out/<job-id>.yaml per cell that can run and
 * out/devices/<machine>.yaml per machine. Returns how many cells could
 * not be rendered (their inputs are missing).
 */
int lava_render(struct job *jobs, size_t njobs, const char *out,
		const char *base_url)
{
	char *base = base_url_check(base_url);
	char *devdir = xasprintf("%s/devices", out);
	json_t *devices = json_object();
	size_t i, rendered = 0, skipped = 0, bad = 0;

	if (mkdir_p(devdir))
		die("cannot create %s", devdir);
	for (i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];

		if (j->preset) {
			printf("farm: lava render: %s %s: %s\n", j->preset,
			       j->id, j->skip_reason);
			if (strcmp(j->preset, "skip"))
				bad++;
			else
				skipped++;
			continue;
		}
		render_one(j, out, base, devices);
		rendered++;
	}
	printf("farm: lava render: %zu jobs, %zu device dictionaries in %s",
	       rendered, json_object_size(devices), out);
	printf(" (%zu skipped, %zu not renderable)\n", skipped, bad);
	json_decref(devices);
	free(devdir);
	free(base);
	return (int)bad;
}
