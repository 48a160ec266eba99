// SPDX-License-Identifier: GPL-2.0
/*
 * A linux-image .deb as a kernel under test: checked with dpkg-deb,
 * unpacked once into $BUILD_DIR/farm-cache/deb/, never installed.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

/* Runs argv and returns its output (at most 4 KiB), or NULL on failure. */
static char *capture(char *const argv[], const char *tmp)
{
	char *out;

	if (run_argv(argv, tmp, "/dev/null", 120) != 0) {
		unlink(tmp);
		return NULL;
	}
	out = read_text(tmp, 4096);
	unlink(tmp);
	return out;
}

/* "Package Architecture Version" of a .deb, one per line. */
static int deb_fields(const char *path, char *pkg, char *arch, char *ver,
		      size_t size)
{
	char *tmp = xasprintf("%s/deb-fields.%d", farm.cache, getpid());
	char *const argv[] = { "dpkg-deb", "--field", (char *)path, "Package",
			 "Architecture", "Version", NULL };
	char *out, *line, *save = NULL;
	char *const dst[] = { pkg, arch, ver };
	int n = 0;

	mkdir_p(farm.cache);
	out = capture(argv, tmp);
	free(tmp);
	if (!out)
		return -1;
	for (line = strtok_r(out, "\n", &save); line && n < 3;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		snprintf(dst[n++], size, "%s", colon + 1 + (colon[1] == ' '));
	}
	free(out);
	return n == 3 ? 0 : -1;
}

static char *sha16(const char *path)
{
	char *tmp = xasprintf("%s/deb-sha.%d", farm.cache, getpid());
	char *const argv[] = { "sha256sum", (char *)path, NULL };
	char *out = capture(argv, tmp);

	free(tmp);
	if (!out || strlen(out) < 16)
		die("cannot checksum %s", path);
	out[16] = '\0';
	return out;
}

static void unpack_once(const char *path, const char *root)
{
	char *stamp = xasprintf("%s/.sac-unpacked", root);
	char *tmp = xasprintf("%s.tmp%d", root, getpid());
	char *log = xasprintf("%s.log", tmp);
	char *const argv[] = { "dpkg-deb", "-x", (char *)path, tmp, NULL };

	if (is_file(stamp))
		goto out;
	rm_rf(tmp);
	mkdir_p(tmp);
	if (run_argv(argv, log, log, 600) != 0)
		die("kernel %s: dpkg-deb -x failed (corrupt .deb?), see %s",
		    path, log);
	unlink(log);
	rm_rf(root);
	if (rename(tmp, root))
		die("cannot move %s into place", tmp);
	write_text(stamp, "unpacked\n");
out:
	free(stamp);
	free(tmp);
	free(log);
}

/* The one file a glob matches in the unpacked tree, or NULL. */
static char *find_one(const char *root, const char *pattern)
{
	char *pat = xasprintf("%s/%s", root, pattern);
	char *found = NULL;
	glob_t g;

	if (glob(pat, 0, NULL, &g) == 0) {
		if (g.gl_pathc == 1)
			found = xstrdup(g.gl_pathv[0]);
		globfree(&g);
	}
	free(pat);
	return found;
}

/*
 * A .deb has no usr/gen_init_cpio next to it: build one from the
 * unpacked kernel source, once.
 */
static char *gen_init_cpio_for_debs(void)
{
	char *bin = xasprintf("%s/gen_init_cpio", farm.cache);
	char *src = xasprintf("%s/src/linux/usr/gen_init_cpio.c", farm.build);
	char *log = xasprintf("%s.log", bin);
	char *const argv[] = { "cc", "-O2", "-o", bin, src, NULL };

	if (is_file(bin))
		goto out;
	if (!is_file(src))
		die("no %s to build gen_init_cpio from (unpack the kernel source first)",
		    src);
	if (run_argv(argv, log, log, 120) != 0)
		die("building gen_init_cpio failed, see %s", log);
	unlink(log);
out:
	free(src);
	free(log);
	return bin;
}

/*
 * A .deb ships no modules.dep (depmod runs at install time): make one in
 * the unpacked tree. depmod -b only reads and writes files under it.
 */
static void depmod_tree(const struct kernel *k)
{
	char *dep = xasprintf("%s/lib/modules/%s/modules.dep", k->moddir,
			      k->release);
	char *log = xasprintf("%s.log", dep);
	char *const argv[] = { "depmod", "-b", k->moddir, k->release, NULL };

	if (!is_file(dep) && run_argv(argv, log, log, 120) != 0)
		warnx("depmod failed for %s (see %s): its modules are left out",
		      k->name, log);
	free(dep);
	free(log);
}

int deb_unpack(struct kernel *k, const char *path)
{
	char pkg[256], arch[64], ver[256], *sum, *root, *base;

	if (deb_fields(path, pkg, arch, ver, sizeof(pkg)))
		die("kernel %s: not a readable Debian package (dpkg-deb rejects it)",
		    path);
	if (strncmp(pkg, "linux-image-", 12))
		die("kernel %s: package %s is not a linux-image package", path,
		    pkg);
	if (strcmp(arch, "amd64") && strcmp(arch, "arm64"))
		die("kernel %s: architecture %s is not one the farm boots (amd64, arm64)",
		    path, arch);
	sum = sha16(path);
	root = xasprintf("%s/deb/%s_%s_%s-%s", farm.cache, pkg, ver, arch, sum);
	free(sum);
	mkdir_p(farm.cache);
	unpack_once(path, root);

	k->name = xstrdup(pkg);
	k->image = find_one(root, "boot/vmlinuz-*");
	k->config = find_one(root, "boot/config-*");
	if (!k->image || !k->config)
		die("kernel %s: no single boot/vmlinuz-* and boot/config-* inside (a metapackage?)",
		    path);
	base = strrchr(k->image, '/') + strlen("/vmlinuz-");
	k->release = xstrdup(base);
	k->moddir = root;
	depmod_tree(k);
	k->gen_init_cpio = gen_init_cpio_for_debs();
	kernel_identify(k);
	if (strcmp(k->arch, arch))
		die("kernel %s: package says %s but its config is %s", path,
		    arch, k->arch);
	return 0;
}
