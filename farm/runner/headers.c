// SPDX-License-Identifier: GPL-2.0
/*
 * The farm's own modules (farm/module, listed in its Kbuild) for a
 * kernel. A build O= dir has them from farm/module/module.mk. For a
 * linux-image .deb they are built here against its linux-headers .deb:
 * that package and the linux-headers-* and linux-kbuild-* packages it
 * depends on, all of the image's version, are looked for next to the
 * --kernel .debs given, unpacked together into one tree under
 * $BUILD_DIR/farm-cache/headers/ (never installed), and kbuild builds
 * the modules into $BUILD_DIR/module/<kernel id>/. An installed kernel's
 * are built against its installed headers.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"

/* The directory of every --kernel .deb opened, in order. */
static json_t *deb_dirs;

static bool has_string(json_t *a, const char *s)
{
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e)
		if (!strcmp(json_string_value(e), s))
			return true;
	return false;
}

static char *dir_of(const char *path)
{
	char real[PATH_MAX], *slash;

	if (!realpath(path, real))
		return NULL;
	slash = strrchr(real, '/');
	if (slash == real)
		slash++;
	*slash = '\0';
	return xstrdup(real);
}

void headers_search_add(const char *deb_path)
{
	char *dir = dir_of(deb_path);

	if (!dir)
		return;
	if (!deb_dirs)
		deb_dirs = json_array();
	if (!has_string(deb_dirs, dir))
		json_array_append_new(deb_dirs, json_string(dir));
	free(dir);
}

/*
 * DIR/FILE, or else FILE in DIR's sibling named after the package's
 * arch: make debs puts each arch in out/debs/<series>/<arch>/ (the farm
 * base's in out/farm-debs/...), and an arm64 kernel's linux-kbuild is the
 * amd64 one when we cross-build.
 */
static char *file_near(const char *dir, const char *file, const char *arch)
{
	char *path = xasprintf("%s/%s", dir, file);
	char *parent;

	if (is_file(path))
		return path;
	free(path);
	parent = xstrdup(dir);
	*strrchr(parent, '/') = '\0';
	path = xasprintf("%s/%s/%s", parent, arch, file);
	free(parent);
	if (is_file(path))
		return path;
	free(path);
	return NULL;
}

/* Debian's file name of a package: its version without the epoch. */
static char *deb_file_name(const char *pkg, const char *ver, const char *arch)
{
	const char *colon = strchr(ver, ':');

	return xasprintf("%s_%s_%s.deb", pkg, colon ? colon + 1 : ver, arch);
}

/* The first directory (or its arch sibling) holding file, or NULL. */
static char *find_file(const char *file, const char *arch)
{
	char *found = NULL;
	json_t *e;
	size_t i;

	json_array_foreach(deb_dirs, i, e) {
		found = file_near(json_string_value(e), file, arch);
		if (found)
			break;
	}
	return found;
}

/*
 * Where package pkg of the kernel's version is, and for which arch:
 * linux-kbuild holds programs the build runs here, so it is the host's;
 * headers are the kernel's arch, or all (Debian's -common). NULL if no
 * directory holds it; *wanted names the file(s) looked for either way.
 */
static char *find_package(const struct kernel *k, const char *pkg,
			  const char **arch, char **wanted)
{
	bool kbuild = !strncmp(pkg, "linux-kbuild-", 13);
	char *found, *all, *both;

	*arch = kbuild ? host_arch() : k->arch;
	*wanted = deb_file_name(pkg, k->version, *arch);
	found = find_file(*wanted, *arch);
	if (found || kbuild)
		return found;
	*arch = "all";
	all = deb_file_name(pkg, k->version, *arch);
	found = find_file(all, *arch);
	both = xasprintf("%s or %s", *wanted, all);
	free(*wanted);
	free(all);
	*wanted = both;
	return found;
}

/* Appends the linux-headers-* and linux-kbuild-* names of a Depends. */
static void add_depends(json_t *names, const char *depends)
{
	char *s = xstrdup(depends), *item, *save = NULL;

	for (item = strtok_r(s, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *name;

		item += strspn(item, " ");
		item[strcspn(item, " (:|")] = '\0';
		if (strncmp(item, "linux-headers-", 14) &&
		    strncmp(item, "linux-kbuild-", 13))
			continue;
		name = xstrdup(item);
		if (!has_string(names, name))
			json_array_append_new(names, json_string(name));
		free(name);
	}
	free(s);
}

/* A found package must be what its file name says. */
static void check_package(const struct kernel *k, const char *path,
			  const char *pkg, const char *arch,
			  struct deb_info *d)
{
	if (deb_read(path, d))
		die("headers %s: not a readable Debian package (dpkg-deb rejects it)",
		    path);
	if (strcmp(d->package, pkg) || strcmp(d->version, k->version) ||
	    strcmp(d->arch, arch))
		die("headers %s: holds %s %s (%s), not %s %s (%s)", path,
		    d->package, d->version, d->arch, pkg, k->version, arch);
}

/*
 * Fills debs with the paths of the kernel's headers package and what it
 * needs of linux-headers-* and linux-kbuild-*, headers first. Returns
 * NULL, or why not: the first package no directory holds.
 */
static char *collect_headers(const struct kernel *k, json_t *debs)
{
	json_t *names = json_array();
	char *why = NULL;
	size_t i;

	json_array_append_new(names, json_sprintf("linux-headers-%s",
						  k->release));
	for (i = 0; i < json_array_size(names); i++) {
		const char *pkg = json_string_value(json_array_get(names, i));
		const char *arch;
		char *wanted, *path;
		struct deb_info d;

		path = find_package(k, pkg, &arch, &wanted);
		if (!path) {
			why = xasprintf("no %s next to the --kernel .debs given",
					wanted);
			free(wanted);
			break;
		}
		free(wanted);
		check_package(k, path, pkg, arch, &d);
		add_depends(names, d.depends);
		json_array_append_new(debs, json_string(path));
		deb_info_free(&d);
		free(path);
	}
	json_decref(names);
	return why;
}

/*
 * Debian's per-flavour headers include their -common part by absolute
 * path (include /usr/src/linux-headers-...-common/Makefile): point every
 * headers Makefile at the unpacked tree instead of the host's /usr/src.
 */
static void retarget_makefiles(const char *tree, const char *root)
{
	char *pat = xasprintf("%s/usr/src/*/Makefile", tree);
	char *to = xasprintf("%s/usr/src/", root);
	glob_t g;
	size_t i;

	if (glob(pat, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			char *text = read_text(g.gl_pathv[i], 1 << 20);
			char *fixed;

			if (!text || !strstr(text, "/usr/src/")) {
				free(text);
				continue;
			}
			fixed = str_replace_all(text, "/usr/src/", to);
			if (write_text(g.gl_pathv[i], fixed))
				die("cannot rewrite %s", g.gl_pathv[i]);
			free(fixed);
			free(text);
		}
		globfree(&g);
	}
	free(pat);
	free(to);
}

/* "<sha16> <file>" per package: what the unpacked tree is made of. */
static char *members_of(json_t *debs)
{
	char *text = xstrdup(""), *line, *sum;
	json_t *e;
	size_t i;

	json_array_foreach(debs, i, e) {
		const char *path = json_string_value(e);

		sum = file_sha256(path);
		line = xasprintf("%s%.16s %s\n", text, sum, strrchr(path, '/') + 1);
		free(sum);
		free(text);
		text = line;
	}
	return text;
}

/* The farm module sources: Kbuild, the .c files it lists, their headers. */
static void module_sources(glob_t *g)
{
	char *c = xasprintf("%s/farm/module/*.c", farm.top);
	char *h = xasprintf("%s/farm/module/*.h", farm.top);
	char *kbuild = xasprintf("%s/farm/module/Kbuild", farm.top);

	if (glob(c, 0, NULL, g) || glob(kbuild, GLOB_APPEND, NULL, g))
		die("no farm module sources (%s, %s)", c, kbuild);
	glob(h, GLOB_APPEND, NULL, g);
	free(c);
	free(h);
	free(kbuild);
}

/* The stamp holds what the modules were built from, and is newer. */
static bool modules_fresh(const char *stamp, const char *want, glob_t *srcs)
{
	char *text = read_text(stamp, 64 * 1024);
	struct stat st, src;
	bool fresh;
	size_t i;

	fresh = text && !strcmp(text, want) && stat(stamp, &st) == 0;
	free(text);
	for (i = 0; fresh && i < srcs->gl_pathc; i++)
		fresh = stat(srcs->gl_pathv[i], &src) == 0 &&
			src.st_mtime <= st.st_mtime;
	return fresh;
}

static void copy_sources(glob_t *srcs, const char *dir)
{
	char **argv = xcalloc(srcs->gl_pathc + 3, sizeof(*argv));
	char *log = xasprintf("%s/copy.log", dir);
	size_t i;

	argv[0] = "cp";
	for (i = 0; i < srcs->gl_pathc; i++)
		argv[i + 1] = srcs->gl_pathv[i];
	argv[i + 1] = (char *)dir;
	if (run_argv(argv, log, log, 60) != 0)
		die("cannot copy the farm module sources to %s, see %s", dir,
		    log);
	unlink(log);
	free(argv);
	free(log);
}

/*
 * kbuild M= on a copy of the sources (6.1 has no MO=, and M= alone
 * writes objects next to them). The parent's MAKEFLAGS would carry our
 * own make's variables (ARCH=amd64 from make farm ARCH=...) into kbuild.
 */
static void kbuild_modules(const struct kernel *k, const char *kdir,
			   const char *dir, const char *log)
{
	json_t *words = json_pack("[s,s,s,s,s,s,s,s,s,s]", "env", "-u",
				  "MAKEFLAGS", "-u", "MAKELEVEL", "-u",
				  "MFLAGS", "make", "-C", kdir);
	char **argv;

	json_array_append_new(words, json_sprintf("M=%s", dir));
	/* the arm64 headers with the amd64 linux-kbuild cross-build */
	if (!strcmp(k->arch, "arm64") && !strcmp(host_arch(), "amd64")) {
		json_array_append_new(words, json_string("ARCH=arm64"));
		json_array_append_new(words, json_string("CROSS_COMPILE=aarch64-linux-gnu-"));
	}
	json_array_append_new(words, json_string("modules"));
	argv = argv_from_json(words);
	if (run_argv(argv, log, log, 900) != 0)
		die("kernel %s: building the farm modules against its headers failed, see %s",
		    k->spec, log);
	argv_free(argv);
	json_decref(words);
}

static char *build_modules(const struct kernel *k, const char *root,
			   const char *want)
{
	char *dir = xasprintf("%s/module/%s", farm.build, k->id);
	char *stamp = xasprintf("%s/.built", dir);
	char *kdir = xasprintf("%s/usr/src/linux-headers-%s", root, k->release);
	char *log = xasprintf("%s.log", dir);
	glob_t srcs;

	module_sources(&srcs);
	if (modules_fresh(stamp, want, &srcs))
		goto out;
	if (!is_dir(kdir))
		die("kernel %s: its headers package has no /usr/src/linux-headers-%s",
		    k->spec, k->release);
	printf("farm: building the farm modules for %s against its headers (log %s)\n",
	       k->spec, log);
	fflush(stdout);
	rm_rf(dir);
	if (mkdir_p(dir))
		die("cannot create %s", dir);
	copy_sources(&srcs, dir);
	kbuild_modules(k, kdir, dir, log);
	if (write_text(stamp, want))
		die("cannot write %s", stamp);
out:
	globfree(&srcs);
	free(stamp);
	free(kdir);
	free(log);
	return dir;
}

static void resolve_deb(const struct kernel *k, struct farm_modules *fm)
{
	json_t *debs = json_array();
	const char *first;
	char *want, *root;

	fm->gap = collect_headers(k, debs);
	if (fm->gap)
		goto out;
	first = strrchr(json_string_value(json_array_get(debs, 0)), '/') + 1;
	want = members_of(debs);
	/* named after the headers .deb and its sha16, want's first word */
	root = xasprintf("%s/headers/%.*s-%.16s", farm.cache,
			 (int)(strlen(first) - strlen(".deb")), first, want);
	mkdir_p(farm.cache);
	deb_extract(debs, root, want, retarget_makefiles);
	fm->dir = build_modules(k, root, want);
	free(root);
	free(want);
out:
	json_decref(debs);
}

/* An installed kernel: its installed headers, if any. */
static void resolve_installed(const struct kernel *k, struct farm_modules *fm)
{
	char *kdir = xasprintf("%s/usr/src/linux-headers-%s", k->moddir,
			       k->release);
	char *sum, *want;

	if (!is_dir(kdir)) {
		fm->gap = xasprintf("no %s (install linux-headers-%s)", kdir,
				    k->release);
		free(kdir);
		return;
	}
	sum = file_sha256(k->image);
	want = xasprintf("%.16s installed %s\n", sum, k->release);
	fm->dir = build_modules(k, k->moddir, want);
	free(want);
	free(sum);
	free(kdir);
}

/*
 * The directory holding the farm's modules for k, or NULL with *why
 * saying what is missing. Resolved (and for a .deb, built) once.
 */
const char *kernel_farm_modules(const struct kernel *k, const char **why)
{
	struct farm_modules *fm = k->farm_modules;

	if (!fm->resolved) {
		if (k->odir)
			fm->dir = xasprintf("%s/module/%s", farm.build, k->id);
		else if (k->installed)
			resolve_installed(k, fm);
		else
			resolve_deb(k, fm);
		fm->resolved = true;
	}
	*why = fm->gap;
	return fm->dir;
}
