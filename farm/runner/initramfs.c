// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's initramfs: /init = the agent for the kernel's arch, a
 * /dev/console node, and the modules the workload needs, written here as
 * a newc archive (no root, and no gen_init_cpio, whose list format cannot
 * name a path with a blank in it). Cached per kernel and workload, and
 * rewritten when its member list changes or an input is newer than it.
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

/* One archive member: a directory, a device node, or a host file. */
struct cpio_entry {
	char *guest;
	char *host;		/* a regular file's contents, else NULL */
	unsigned int mode;	/* S_IF* type and permissions */
	unsigned int rmajor, rminor;
};

struct cpio_list {
	const struct kernel *k;
	struct cpio_entry *e;
	size_t n, cap;
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

static struct cpio_entry *add_entry(struct cpio_list *l, const char *guest,
				    const char *host, unsigned int mode)
{
	struct cpio_entry *e;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->e = xrealloc(l->e, l->cap * sizeof(*l->e));
	}
	e = &l->e[l->n++];
	*e = (struct cpio_entry){ .guest = xstrdup(guest),
				  .host = host ? xstrdup(host) : NULL,
				  .mode = mode };
	return e;
}

static void add_dir(struct cpio_list *l, const char *guest, unsigned int perm)
{
	if (first_time(l, guest))
		add_entry(l, guest, NULL, S_IFDIR | perm);
}

/* Adds the parent dirs of a guest path that are not in the list yet. */
static void add_dirs(struct cpio_list *l, const char *guest)
{
	char *p = xstrdup(guest), *s;

	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		add_dir(l, p, 0755);
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
	add_entry(l, guest, host, S_IFREG | mode);
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

static void list_members(struct cpio_list *l, const struct workload *w,
			 const char *order_path)
{
	char *agent = xasprintf("%s/guest/%s/sac-agent", farm.build, l->k->arch);
	char *guest_order = xasprintf("/lib/modules/%s/modules.sac",
				      l->k->release);
	struct cpio_entry *console;
	struct stat st;
	FILE *order;

	order = fopen(order_path, "w");
	if (!order)
		die("cannot write %s", order_path);
	add_dir(l, "/dev", 0755);
	console = add_entry(l, "/dev/console", NULL, S_IFCHR | 0600);
	console->rmajor = 5;
	console->rminor = 1;
	add_dir(l, "/proc", 0755);
	add_dir(l, "/sys", 0755);
	add_dir(l, "/tmp", 01777);
	add_file(l, "/init", agent, 0755);
	if (l->k->moddir)
		add_tree_modules(l, w, order);
	add_farm_module(l, w);
	if (fclose(order))
		die("cannot write %s", order_path);
	if (stat(order_path, &st) == 0 && st.st_size > 0)
		add_file(l, guest_order, order_path, 0644);
	free(agent);
	free(guest_order);
}

static void list_free(struct cpio_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->e[i].guest);
		free(l->e[i].host);
	}
	free(l->e);
	json_decref(l->seen);
	free(l->missing);
}

/*
 * The member list as text, one a line (mode, device, guest path, host
 * path): what a cached archive was made from, kept beside it.
 */
static char *manifest(const struct cpio_list *l)
{
	char *text = xstrdup(""), *more;
	size_t i;

	for (i = 0; i < l->n; i++) {
		more = xasprintf("%s0%o %u:%u %s\t%s\n", text, l->e[i].mode,
				 l->e[i].rmajor, l->e[i].rminor, l->e[i].guest,
				 l->e[i].host ? l->e[i].host : "-");
		free(text);
		text = more;
	}
	return text;
}

static bool fresh(const char *cpio, const char *list, const char *text,
		  time_t newest)
{
	char *old = read_text(list, strlen(text) + 2);
	bool same = old && !strcmp(old, text);
	struct stat st;

	free(old);
	return same && stat(cpio, &st) == 0 && st.st_mtime >= newest;
}

/* Zero bytes up to the next multiple of 4 of @off, as newc wants. */
static void pad4(FILE *f, long off)
{
	for (; off % 4; off++)
		fputc(0, f);
}

/*
 * A newc header (the format of init/initramfs.c) and its name, padded to
 * 4 bytes; the member's @size bytes of data follow. @f is at a multiple
 * of 4. Owner root, mtime 0: the same inputs give the same archive.
 */
static void newc_header(FILE *f, unsigned int ino, const struct cpio_entry *e,
			size_t size)
{
	size_t namesize = strlen(e->guest) + 1;

	fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		ino, e->mode, 0, 0, S_ISDIR(e->mode) ? 2 : 1, 0, size, 0, 0,
		e->rmajor, e->rminor, namesize, 0);
	fwrite(e->guest, 1, namesize, f);
	pad4(f, 110 + namesize);
}

/* A member with its data in memory (newc names have no leading '/'). */
static void newc_entry(FILE *f, unsigned int ino, unsigned int mode,
		       const char *name, const char *data, size_t size)
{
	struct cpio_entry e = { .guest = (char *)name, .mode = mode };

	newc_header(f, ino, &e, size);
	fwrite(data, 1, size, f);
	pad4(f, size);
}

/* A regular member whose data is the host file e->host. 0, or -1. */
static int newc_file(FILE *f, unsigned int ino, const struct cpio_entry *e)
{
	char buf[65536];
	FILE *in = fopen(e->host, "rb");
	struct stat st;
	size_t n, left;

	if (!in || fstat(fileno(in), &st)) {
		if (in)
			fclose(in);
		return -1;
	}
	newc_header(f, ino, e, st.st_size);
	for (left = st.st_size; left; left -= n) {
		n = fread(buf, 1, left < sizeof(buf) ? left : sizeof(buf), in);
		if (!n)
			break;
		fwrite(buf, 1, n, f);
	}
	fclose(in);
	pad4(f, st.st_size);
	return left ? -1 : 0;
}

/* The archive of every member into @path. 0, or -1. */
static int write_cpio(const struct cpio_list *l, const char *path)
{
	FILE *f = fopen(path, "wb");
	struct cpio_entry e;
	int bad = !f;
	size_t i;

	for (i = 0; f && !bad && i < l->n; i++) {
		/* names are relative to the root: no leading '/' */
		e = l->e[i];
		e.guest += strspn(e.guest, "/");
		if (e.host)
			bad = newc_file(f, i + 1, &e);
		else
			newc_header(f, i + 1, &e, 0);
	}
	if (!f)
		return -1;
	newc_entry(f, 0, 0, "TRAILER!!!", "", 0);
	bad |= ferror(f);
	return fclose(f) || bad ? -1 : 0;
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
	char *text;

	mkdir_p(dir);
	list_members(&l, w, order);
	text = manifest(&l);
	if (l.missing) {
		*why = xasprintf("missing %s (build it first)", l.missing);
		free(cpio);
		cpio = NULL;
		goto out;
	}
	if (fresh(cpio, list, text, l.newest))
		goto out;
	/* the list is written last: an archive counts only beside its list */
	unlink(list);
	if (write_cpio(&l, tmp) || rename(tmp, cpio)) {
		unlink(tmp);
		die("cannot write the initramfs %s", cpio);
	}
	if (write_text(list, text))
		die("cannot write %s", list);
out:
	list_free(&l);
	free(text);
	free(dir);
	free(list);
	free(order);
	free(tmp);
	return cpio;
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

/*
 * An installed system's job disk (farm/image/root/usr/local/sbin/sac-job):
 * one newc archive of the agent and the key file, zero-padded to whole
 * 512-byte sectors (a disk ends at its last whole sector), mode 0600.
 * GNU cpio stops at the first trailer, so both go in one archive.
 * 0, or -1.
 */
int initramfs_job_disk(const char *agent, const char *out, const char *key_hex)
{
	struct cpio_entry e = { .guest = "sac-agent", .host = (char *)agent,
				.mode = S_IFREG | 0755 };
	char text[SAC_KEY_HEX + 2];
	FILE *f = NULL;
	int fd, bad;

	unlink(out);
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -1;
	}
	snprintf(text, sizeof(text), "%s\n", key_hex);
	bad = newc_file(f, 1, &e);
	newc_entry(f, 2, S_IFREG | 0400, "sac-key", text, SAC_KEY_HEX + 1);
	newc_entry(f, 0, 0, "TRAILER!!!", "", 0);
	explicit_bzero(text, sizeof(text));
	while (ftell(f) % 512)
		fputc(0, f);
	bad |= ferror(f);
	return fclose(f) || bad ? -1 : 0;
}
