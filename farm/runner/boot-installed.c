// SPDX-License-Identifier: GPL-2.0
/*
 * Boot method "installed": the kernel as a user of it gets it. Its .deb
 * is installed by dpkg into a copy of the farm's Debian image, with the
 * farm's modules beside the kernel's own, inside a guest of its arch
 * (scripts/farm-image, cached per kernel and modules); the job's guest
 * boots the image's /boot/vmlinuz and the initrd initramfs-tools made
 * there, with the root on a virtio disk behind the IOMMU, so the
 * system's own disk DMA goes through it from the first read. systemd
 * brings the system up, udev loads drivers by modalias, and the agent
 * runs as the service sac-job.service from the job's own disk (agent and
 * key); the image holds nothing of a job, and a job's writes to its root
 * go to a snapshot QEMU drops when it ends.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"

/* Places in j->boot_images, as installed_prepare() lays them out. */
#define JOB_DISK 3

/*
 * The root behind the IOMMU, found by its label; the job's disk beside
 * it. No getty on the console: it carries the agent's chained lines,
 * which agetty's flush at start can cut, and with a getty on it systemd
 * stops printing its status there, where a stalled boot should say
 * what it is waiting for.
 */
static const char root_cmdline[] = "{cmdline} root=LABEL=sacroot ro systemd.getty_auto=0";
static const char root_drive[] = "file={root},if=none,id=sacroot,format=raw,snapshot=on";
static const char root_device[] =
	"virtio-blk-pci,drive=sacroot,iommu_platform=on,disable-legacy=on";
/*
 * A first boot waits for the kernel's random pool, and under TCG jitter
 * entropy takes 10 to 20 s: the machine gets a virtio RNG, as VMs do.
 */
static const char rng_device[] = "virtio-rng-pci";
static const char job_drive[] = "file={job},if=none,id=sacjob,format=raw,readonly=on";
static const char job_device[] = "virtio-blk-pci,drive=sacjob,serial=sac-job";

/* Only a package can be installed: a .deb, not a build dir. */
static bool installed_boots(const struct kernel *k)
{
	return k->sha256 && !k->installed;
}

/* farm-image's argv: install ARCH DEB [--modules KO...]. */
static json_t *image_argv(const struct kernel *k)
{
	json_t *a = json_pack("[s,s,s,s]", "", "install", k->arch, k->spec);
	const char *dir, *why;
	glob_t g = { 0 };
	char *pattern;
	size_t i;

	json_array_set_new(a, 0, json_sprintf("%s/scripts/farm-image",
					      farm.top));
	dir = kernel_farm_modules(k, &why);
	if (!dir)
		return a;
	pattern = xasprintf("%s/*.ko", dir);
	if (!glob(pattern, 0, NULL, &g)) {
		json_array_append_new(a, json_string("--modules"));
		for (i = 0; i < g.gl_pathc; i++)
			json_array_append_new(a, json_string(g.gl_pathv[i]));
	}
	globfree(&g);
	free(pattern);
	return a;
}

/* The last line of a small file, without its newline; NULL if none. */
static char *last_line_of(const char *path)
{
	char *text = read_text(path, 1 << 20), *line, *end;

	if (!text)
		return NULL;
	end = text + strlen(text);
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	line = strrchr(text, '\n');
	line = *text ? xstrdup(line ? line + 1 : text) : NULL;
	free(text);
	return line;
}

/*
 * The installed image's directory (root.img, vmlinuz, initrd.img), made
 * if needed; NULL with *why set to farm-image's error line.
 */
static char *installed_image(const struct kernel *k, char **why)
{
	char *cache = xasprintf("%s/image", farm.cache);
	char *base = xasprintf("%s/%s", cache, k->id);
	char *out = xasprintf("%s.out", base), *err = xasprintf("%s.err", base);
	json_t *a = image_argv(k);
	char **argv = argv_from_json(a);
	char *dir = NULL;
	int rc;

	mkdir_p(cache);
	fprintf(stderr, "farm: installing %s into the farm's image (cached; the first time takes minutes under TCG; log %s)\n",
		k->name, err);
	rc = run_argv(argv, out, err, 0);
	if (rc) {
		*why = last_line_of(err);
		if (!*why)
			*why = xasprintf("scripts/farm-image exited %d", rc);
	} else {
		dir = last_line_of(out);
		if (!dir)
			*why = xstrdup("scripts/farm-image printed no image");
	}
	argv_free(argv);
	json_decref(a);
	free(cache);
	free(base);
	free(out);
	free(err);
	return dir;
}

static void add_image(struct job *j, const char *label, const char *path,
		      json_t *words)
{
	json_array_append_new(j->boot_images,
			      json_pack("{s:s, s:s, s:o}", "label", label,
					"path", path, "words", words));
}

/*
 * installed_image() once per kernel of the run: its every job boots the
 * same image, or fails the same way.
 */
static char *installed_image_once(const struct kernel *k, char **why)
{
	static json_t *seen;	/* kernel id -> {dir} or {why} */
	json_t *e;

	if (!seen)
		seen = json_object();
	e = json_object_get(seen, k->id);
	if (!e) {
		char *dir = installed_image(k, why);

		e = dir ? json_pack("{s:s}", "dir", dir) :
			  json_pack("{s:s}", "why", *why);
		json_object_set_new(seen, k->id, e);
		free(dir);
		free(*why);
	}
	*why = json_object_get(e, "why") ? xstrdup(jstr(e, "why", "")) : NULL;
	return json_object_get(e, "dir") ? xstrdup(jstr(e, "dir", "")) : NULL;
}

static char *installed_prepare(struct job *j)
{
	char *why = NULL, *dir = installed_image_once(j->k, &why);
	char *kernel, *initrd, *root, *agent;

	if (!dir)
		return why;
	kernel = xasprintf("%s/vmlinuz", dir);
	initrd = xasprintf("%s/initrd.img", dir);
	root = xasprintf("%s/root.img", dir);
	agent = xasprintf("%s/guest/%s/sac-agent", farm.build, j->k->arch);
	if (!is_file(agent)) {
		why = xasprintf("missing %s (build it first)", agent);
		goto out;
	}
	j->boot_images = json_array();
	add_image(j, "kernel", kernel, json_pack("[s,s,s,s]", "-kernel", "{kernel}",
						 "-append", root_cmdline));
	add_image(j, "initrd", initrd, json_pack("[s,s]", "-initrd", "{initrd}"));
	add_image(j, "root", root, json_pack("[s,s,s,s,s,s]", "-drive", root_drive,
					     "-device", root_device,
					     "-device", rng_device));
	/* the agent's place holds the job disk once the key is known */
	add_image(j, "job", agent, json_pack("[s,s,s,s]", "-drive", job_drive,
					     "-device", job_device));
out:
	free(dir);
	free(kernel);
	free(initrd);
	free(root);
	free(agent);
	return why;
}

/* The job's disk: the agent and the key, in the job dir. */
static char *installed_give_key(struct job *j)
{
	json_t *img = json_array_get(j->boot_images, JOB_DISK);
	const char *agent = jstr(img, "path", "");
	char *disk = job_path(j, JOB_KEYED_IMAGE), *why = NULL;

	if (initramfs_job_disk(agent, disk, j->key)) {
		why = xasprintf("cannot write %s from %s", disk, agent);
		unlink(disk);
	} else {
		json_object_set_new(img, "path", json_string(disk));
	}
	free(disk);
	return why;
}

const struct boot_method boot_installed = {
	.name = "installed",
	.boots = installed_boots,
	.prepare = installed_prepare,
	.give_key = installed_give_key,
};
