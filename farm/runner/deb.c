// SPDX-License-Identifier: GPL-2.0
/*
 * A linux-image .deb as a kernel under test: checked with dpkg-deb,
 * unpacked once into $BUILD_DIR/farm-cache/deb/, never installed. The
 * helpers that read and unpack a .deb serve headers.c too; what the
 * kernel inside is, kernel.c decides.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

/*
 * Runs argv and returns its output (at most 4 KiB), or NULL on failure;
 * tmp, which holds the output meanwhile, is in the farm cache.
 */
static char *capture(char *const argv[], const char *tmp)
{
	char *out;

	mkdir_p(farm.cache);
	if (run_argv(argv, tmp, "/dev/null", 120) != 0) {
		unlink(tmp);
		return NULL;
	}
	out = read_text(tmp, 4096);
	unlink(tmp);
	return out;
}

/*
 * The control fields the farm needs of a .deb; 0, or -1 when dpkg-deb
 * cannot read it. Depends may be empty.
 */
int deb_read(const char *path, struct deb_info *d)
{
	char *tmp = xasprintf("%s/deb-fields.%d", farm.cache, getpid());
	static const char format[] =
		"--showformat=${Package}\\n${Architecture}\\n${Version}\\n${Depends}\\n";
	char *const argv[] = { "dpkg-deb", "--show", (char *)format,
			 (char *)path, NULL };
	char **const dst[] = { &d->package, &d->arch, &d->version,
			       &d->depends };
	char *out, *line, *nl;
	size_t n;

	memset(d, 0, sizeof(*d));
	out = capture(argv, tmp);
	free(tmp);
	if (!out)
		return -1;
	line = out;
	for (n = 0; n < ARRAY_SIZE(dst) && (nl = strchr(line, '\n')); n++) {
		*nl = '\0';
		*dst[n] = xstrdup(line);
		line = nl + 1;
	}
	free(out);
	if (n == ARRAY_SIZE(dst) && *d->package && *d->arch && *d->version)
		return 0;
	deb_info_free(d);
	return -1;
}

void deb_info_free(struct deb_info *d)
{
	free(d->package);
	free(d->arch);
	free(d->version);
	free(d->depends);
	memset(d, 0, sizeof(*d));
}

/* The file's sha256 as 64 hex digits; the farm's cache names use 16. */
char *file_sha256(const char *path)
{
	char *tmp = xasprintf("%s/deb-sha.%d", farm.cache, getpid());
	char *const argv[] = { "sha256sum", (char *)path, NULL };
	char *out = capture(argv, tmp);

	free(tmp);
	if (!out || strspn(out, "0123456789abcdef") < 64)
		die("cannot checksum %s", path);
	out[64] = '\0';
	return out;
}

static bool stamp_says(const char *stamp, const char *want)
{
	char *text = read_text(stamp, 64 * 1024);
	bool same = text && !strcmp(text, want);

	free(text);
	return same;
}

/*
 * Unpacks every .deb of the array into one tree at root, once: the
 * stamp there holds want (which names the packages' contents), so a
 * tree from other packages is unpacked again. The tree is made under a
 * temporary name, fixed up (fixup may be NULL) and then moved into
 * place, so an interrupted run leaves no half tree behind.
 */
void deb_extract(json_t *debs, const char *root, const char *want,
		 void (*fixup)(const char *tree, const char *root))
{
	char *stamp = xasprintf("%s/.sac-unpacked", root);
	char *tmp = xasprintf("%s.tmp%d", root, getpid());
	char *log = xasprintf("%s.log", root);
	json_t *e;
	size_t i;

	if (stamp_says(stamp, want))
		goto out;
	rm_rf(tmp);
	mkdir_p(tmp);
	json_array_foreach(debs, i, e) {
		char *const argv[] = { "dpkg-deb", "-x",
				 (char *)json_string_value(e), tmp, NULL };

		if (run_argv(argv, log, log, 600) == 0)
			continue;
		rm_rf(tmp);
		die("%s: dpkg-deb -x failed (corrupt .deb?), see %s",
		    json_string_value(e), log);
	}
	unlink(log);
	if (fixup)
		fixup(tmp, root);
	rm_rf(root);
	if (rename(tmp, root))
		die("cannot move %s into place", tmp);
	write_text(stamp, want);
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

/*
 * A linux-image .deb as the kernel k: unpacked into the cache, k's
 * package fields, image, config and module tree set. *deb_arch is the
 * package's architecture, for the caller to hold against the config.
 */
void deb_unpack(struct kernel *k, const char *path, char **deb_arch)
{
	char *root, *base, *want;
	struct deb_info d;
	json_t *debs;

	if (deb_read(path, &d))
		die("kernel %s: not a readable Debian package (dpkg-deb rejects it)",
		    path);
	if (strncmp(d.package, "linux-image-", 12))
		die("kernel %s: package %s is not a linux-image package", path,
		    d.package);
	if (strcmp(d.arch, "amd64") && strcmp(d.arch, "arm64"))
		die("kernel %s: architecture %s is not one the farm boots (amd64, arm64)",
		    path, d.arch);
	k->sha256 = file_sha256(path);
	root = xasprintf("%s/deb/%s_%s_%s-%.16s", farm.cache, d.package,
			 d.version, d.arch, k->sha256);
	want = xasprintf("%.16s %s\n", k->sha256, strrchr(root, '/') + 1);
	debs = json_pack("[s]", path);
	deb_extract(debs, root, want, NULL);
	json_decref(debs);
	free(want);

	k->name = xstrdup(d.package);
	k->id = xstrdup(strrchr(root, '/') + 1);
	k->version = xstrdup(d.version);
	k->image = find_one(root, "boot/vmlinuz-*");
	k->config = find_one(root, "boot/config-*");
	if (!k->image || !k->config)
		die("kernel %s: no single boot/vmlinuz-* and boot/config-* inside (a metapackage?)",
		    path);
	base = strrchr(k->image, '/') + strlen("/vmlinuz-");
	k->release = xstrdup(base);
	k->moddir = root;
	depmod_tree(k);
	*deb_arch = xstrdup(d.arch);
	deb_info_free(&d);
}
