// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's initramfs: /init = the agent for the kernel's arch, a
 * /dev/console node, and the modules the workload needs, packed without
 * root by the kernel's own gen_init_cpio. Cached per kernel and workload
 * and rebuilt when any input is newer than the archive.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chain.h"
#include "runner.h"

struct cpio_list {
	FILE *f;
	const struct kernel *k;
	time_t newest;		/* of every input file */
	char *missing;		/* first input that could not be found */
	json_t *seen;		/* guest paths already in the list */
};

/* True the first time a guest path is offered. */
static bool first_time(struct cpio_list *l, const char *guest)
{
	if (json_object_get(l->seen, guest))
		return false;
	json_object_set_new(l->seen, guest, json_true());
	return true;
}

static void note_input(struct cpio_list *l, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		if (st.st_mtime > l->newest)
			l->newest = st.st_mtime;
	} else if (!l->missing) {
		l->missing = xstrdup(path);
	}
}

/* Emits the parent dirs of a guest path that are not in the list yet. */
static void add_dirs(struct cpio_list *l, const char *guest)
{
	char *p = xstrdup(guest), *s;

	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (first_time(l, p))
			fprintf(l->f, "dir %s 0755 0 0\n", p);
		*s = '/';
	}
	free(p);
}

static void add_file(struct cpio_list *l, const char *guest, const char *host,
		     int mode)
{
	if (!first_time(l, guest))
		return;
	add_dirs(l, guest);
	fprintf(l->f, "file %s %s 0%o 0 0\n", guest, host, mode);
	note_input(l, host);
}

/* A module from lib/modules/<release>/REL, and its place in the order. */
static void add_module(struct cpio_list *l, const char *moddir,
		       const char *rel, FILE *order)
{
	char *g = xasprintf("/lib/modules/%s/%s", l->k->release, rel);
	char *h = xasprintf("%s/%s", moddir, rel);

	if (!json_object_get(l->seen, g))
		fprintf(order, "%s\n", g);
	add_file(l, g, h, 0644);
	free(g);
	free(h);
}

/* A module's name as modprobe compares it: '-' and '_' are one. */
static bool same_module(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; name[i]; i++) {
		char a = base[i] == '-' ? '_' : base[i];
		char b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return !strncmp(base + i, ".ko", 3);
}

/*
 * The modules.dep line of a module: "kernel/x/y.ko: deps..." relative to
 * lib/modules/<release>/. Returns a malloc'd copy or NULL.
 */
static char *dep_line(const char *moddir, const char *name)
{
	char *path = xasprintf("%s/modules.dep", moddir);
	FILE *f = fopen(path, "r");
	char line[4096], *found = NULL;

	free(path);
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		if (same_module(line, name)) {
			*colon = ':';
			line[strcspn(line, "\n")] = '\0';
			found = xstrdup(line);
		}
	}
	fclose(f);
	return found;
}

/*
 * In-tree modules for options the kernel has as =m: each with its
 * dependencies first. The load order goes to modules.sac for the agent.
 */
static void add_tree_modules(struct cpio_list *l, const struct workload *w,
			     FILE *order)
{
	char *moddir = xasprintf("%s/lib/modules/%s", l->k->moddir,
				 l->k->release);
	json_t *e, *d, *deps;
	size_t i, j;

	json_array_foreach(w->modules, i, e) {
		char *line = dep_line(moddir, json_string_value(e));
		char *colon, *dep, *save = NULL;

		if (!line)
			continue;	/* built in, or not in this kernel */
		colon = strchr(line, ':');
		*colon = '\0';
		/* modules.dep lists the deepest dependency last */
		deps = json_array();
		for (dep = strtok_r(colon + 1, " ", &save); dep;
		     dep = strtok_r(NULL, " ", &save))
			json_array_insert_new(deps, 0, json_string(dep));
		json_array_foreach(deps, j, d)
			add_module(l, moddir, json_string_value(d), order);
		add_module(l, moddir, line, order);
		json_decref(deps);
		free(line);
	}
	free(moddir);
}

/* The farm's own module, built per kernel (headers.c says where). */
static void add_farm_module(struct cpio_list *l, const struct workload *w)
{
	const char *dir, *why;
	char *host, *guest;

	if (!w->farm_module)
		return;
	dir = kernel_farm_modules(l->k, &why);
	if (!dir) {
		if (!l->missing)
			l->missing = xasprintf("%s.ko (%s)", w->farm_module,
					       why);
		return;
	}
	host = xasprintf("%s/%s.ko", dir, w->farm_module);
	guest = xasprintf("/lib/modules/%s/extra/%s.ko", l->k->release,
			  w->farm_module);
	add_file(l, guest, host, 0644);
	free(host);
	free(guest);
}

static int write_list(struct cpio_list *l, const struct workload *w,
		      const char *list, const char *order_path)
{
	char *agent = xasprintf("%s/guest/%s/sac-agent", farm.build, l->k->arch);
	char *guest_order = xasprintf("/lib/modules/%s/modules.sac",
				      l->k->release);
	struct stat st;
	FILE *order;

	l->f = fopen(list, "w");
	order = fopen(order_path, "w");
	if (!l->f || !order)
		die("cannot write %s", list);
	fprintf(l->f, "dir /dev 0755 0 0\n");
	fprintf(l->f, "nod /dev/console 0600 0 0 c 5 1\n");
	fprintf(l->f, "dir /proc 0755 0 0\ndir /sys 0755 0 0\n");
	fprintf(l->f, "dir /tmp 01777 0 0\n");
	add_file(l, "/init", agent, 0755);
	if (l->k->moddir)
		add_tree_modules(l, w, order);
	add_farm_module(l, w);
	fclose(order);
	if (stat(order_path, &st) == 0 && st.st_size > 0)
		add_file(l, guest_order, order_path, 0644);
	free(agent);
	free(guest_order);
	return fclose(l->f);
}

static bool fresh(const char *cpio, time_t newest)
{
	struct stat st;

	return stat(cpio, &st) == 0 && st.st_mtime >= newest;
}

/*
 * Path of the initramfs for kernel k running workload w, building it if
 * needed. NULL with *why set when an input is missing (agent not built,
 * module not built for this kernel).
 */
char *initramfs_get(const struct kernel *k, const struct workload *w,
		    char **why)
{
	char *dir = xasprintf("%s/initramfs/%s", farm.cache, k->id);
	char *cpio = xasprintf("%s/%s.cpio", dir, w->name);
	char *list = xasprintf("%s/%s.list", dir, w->name);
	char *order = xasprintf("%s/%s.modules", dir, w->name);
	char *tmp = xasprintf("%s.tmp%d", cpio, getpid());
	struct cpio_list l = { .k = k, .seen = json_object() };
	char *const argv[] = { k->gen_init_cpio, list, NULL };

	mkdir_p(dir);
	write_list(&l, w, list, order);
	note_input(&l, k->gen_init_cpio);
	if (l.missing) {
		*why = xasprintf("missing %s", l.missing);
		free(cpio);
		cpio = NULL;
		goto out;
	}
	if (fresh(cpio, l.newest))
		goto out;
	if (run_argv(argv, tmp, NULL, 60) != 0 || rename(tmp, cpio)) {
		unlink(tmp);
		die("gen_init_cpio failed for %s (list %s)", cpio, list);
	}
out:
	json_decref(l.seen);
	free(l.missing);
	free(dir);
	free(list);
	free(order);
	free(tmp);
	return cpio;
}

/* Zero bytes up to the next multiple of 4 of @off, as newc wants. */
static void pad4(FILE *f, long off)
{
	for (; off % 4; off++)
		fputc(0, f);
}

/*
 * One newc entry (the format of the kernel's usr/gen_init_cpio and
 * init/initramfs.c): the 110-byte header, the name and the data, each
 * padded to 4 bytes. @f is at a multiple of 4.
 */
static void newc_entry(FILE *f, unsigned int ino, unsigned int mode,
		       const char *name, const char *data, size_t size)
{
	size_t namesize = strlen(name) + 1;

	fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		ino, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, namesize, 0);
	fwrite(name, 1, namesize, f);
	pad4(f, 110 + namesize);
	fwrite(data, 1, size, f);
	pad4(f, size);
}

/*
 * The job's initrd: the cached initramfs @base, then a cpio archive of
 * its own holding only the key file (SAC_KEY_PATH, read-only, root's),
 * into @out, mode 0600. Linux unpacks concatenated archives one after
 * the other, and the cached one stays keyless. 0, or -1.
 */
int initramfs_keyed(const char *base, const char *out, const char *key_hex)
{
	char text[SAC_KEY_HEX + 2];
	struct stat st;
	FILE *f = NULL;
	int fd = -1, bad;

	if (copy_file(base, out))
		return -1;
	fd = open(out, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	/* owner-only before the key goes in */
	if (fd < 0 || fchmod(fd, 0600) || fstat(fd, &st))
		goto fail;
	f = fdopen(fd, "a");
	if (!f)
		goto fail;
	snprintf(text, sizeof(text), "%s\n", key_hex);
	pad4(f, st.st_size);
	newc_entry(f, 1, S_IFREG | 0400, SAC_KEY_PATH + 1, text,
		   SAC_KEY_HEX + 1);
	newc_entry(f, 0, 0, "TRAILER!!!", "", 0);
	bad = ferror(f);
	if (fclose(f) || bad)
		return -1;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}
