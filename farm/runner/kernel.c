// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel inputs: what a --kernel SPEC names (a build O= dir or a
 * linux-image .deb), its arch, flavour, release and config.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

/* CONFIG_X=y / =m / ="str" lines of a .config into an object. */
static json_t *kconfig_parse(const char *path)
{
	json_t *o = json_object();
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		char *val, *end;

		if (strncmp(line, "CONFIG_", 7) || !eq)
			continue;
		*eq = '\0';
		val = eq + 1;
		end = val + strcspn(val, "\n");
		*end = '\0';
		if (*val == '"' && end > val + 1 && end[-1] == '"') {
			end[-1] = '\0';
			val++;
		}
		json_object_set_new(o, line, json_string(val));
	}
	fclose(f);
	return o;
}

const char *kernel_option(const struct kernel *k, const char *name)
{
	return json_string_value(json_object_get(k->kconfig, name));
}

/*
 * Why the kernel cannot run something needing options, or NULL. A
 * machine's IOMMU must be built in (it has to be there before the
 * devices probe); a workload's driver may be a module. An option counts
 * when it is set, a string left empty too (the series' quirk list is
 * its mark, and the release base keeps Debian's empty one); NAME=VALUE
 * needs that very value (edu-listed needs the farm base's list).
 */
char *kernel_missing(const struct kernel *k, json_t *options, bool builtin)
{
	json_t *e;
	size_t i;

	json_array_foreach(options, i, e) {
		char *name = xstrdup(json_string_value(e));
		char *want = strchr(name, '=');
		const char *v;
		char *why = NULL;

		if (want)
			*want++ = '\0';
		v = kernel_option(k, name);
		if (!v || !strcmp(v, "n"))
			why = xasprintf("kernel %s lacks %s", k->name, name);
		else if (want && strcmp(v, want))
			why = xasprintf("kernel %s has %s=\"%s\", needs \"%s\"",
					k->name, name, v, want);
		else if (builtin && strcmp(v, "y"))
			why = xasprintf("kernel %s has %s=%s, needs it built in",
					k->name, name, v);
		free(name);
		if (why)
			return why;
	}
	return NULL;
}

/*
 * Our flavour kernels say what they are in their local version
 * (config-fragments/F.config sets -sac-F) and their base in the release
 * before it (6.1.192-farm-sac-desktop, 6.1.192-sac-desktop: scripts/lib.sh,
 * base_localversion). The flavour axis is F for the farm base and BASE:F
 * for the others (release:desktop, debug:desktop), so that one run, and
 * one gate, can hold a flavour on two bases. Any other kernel is "stock".
 */
static char *flavour_of(const struct kernel *k)
{
	const char *lv = kernel_option(k, "CONFIG_LOCALVERSION");
	size_t len = strlen(k->release), head, base_len;
	const char *dash, *base;

	if (!lv || strncmp(lv, "-sac-", 5) || !lv[5])
		return xstrdup("stock");
	if (len <= strlen(lv) || strcmp(k->release + len - strlen(lv), lv))
		die("kernel %s: its release %s does not end in its CONFIG_LOCALVERSION %s",
		    k->spec, k->release, lv);
	head = len - strlen(lv);	/* "6.1.192-farm" */
	dash = memchr(k->release, '-', head);
	if (!dash)
		return xasprintf("release:%s", lv + 5);
	base = dash + 1;
	base_len = k->release + head - base;
	if (base_len == 4 && !strncmp(base, "farm", 4))
		return xstrdup(lv + 5);
	return xasprintf("%.*s:%s", (int)base_len, base, lv + 5);
}

static const char *arch_of(const struct kernel *k)
{
	if (kernel_option(k, "CONFIG_X86_64"))
		return "amd64";
	if (kernel_option(k, "CONFIG_ARM64"))
		return "arm64";
	return NULL;
}

/* Fills arch, flavour and kconfig from k->config; dies with why not. */
static void kernel_identify(struct kernel *k)
{
	const char *arch;

	k->kconfig = kconfig_parse(k->config);
	if (!k->kconfig)
		die("kernel %s: cannot read its config %s", k->spec, k->config);
	arch = arch_of(k);
	if (!arch)
		die("kernel %s: neither x86_64 nor arm64 (config %s)", k->spec,
		    k->config);
	k->arch = xstrdup(arch);
	k->flavour = flavour_of(k);
}

static void odir_open(struct kernel *k, const char *dir)
{
	static const char *const images[] = { "arch/x86/boot/bzImage",
					      "arch/arm64/boot/Image" };
	char real[PATH_MAX], *rel, *base;
	size_t i;

	if (!realpath(dir, real))
		die("kernel %s: cannot resolve the directory", k->spec);
	k->odir = xstrdup(real);
	base = strrchr(real, '/');
	k->name = xstrdup(base && base[1] ? base + 1 : real);
	k->id = xstrdup(k->name);
	k->config = xasprintf("%s/.config", real);
	if (!is_file(k->config))
		die("kernel %s: not a kernel build directory (no .config)",
		    k->spec);
	for (i = 0; i < ARRAY_SIZE(images) && !k->image; i++) {
		char *p = xasprintf("%s/%s", real, images[i]);

		if (is_file(p))
			k->image = p;
		else
			free(p);
	}
	if (!k->image)
		die("kernel %s: no arch/*/boot/bzImage or Image (not built yet?)",
		    k->spec);
	rel = xasprintf("%s/include/config/kernel.release", real);
	k->release = read_text(rel, 128);
	free(rel);
	if (!k->release || !*k->release)
		die("kernel %s: no include/config/kernel.release", k->spec);
	k->release[strcspn(k->release, "\n")] = '\0';
}

/* A linux-image .deb: unpacked, its config's arch the package's. */
static void deb_open(struct kernel *k, const char *path)
{
	char *deb_arch;

	deb_unpack(k, path, &deb_arch);
	kernel_identify(k);
	if (strcmp(k->arch, deb_arch))
		die("kernel %s: package says %s but its config is %s", path,
		    deb_arch, k->arch);
	free(deb_arch);
	headers_search_add(path);
}

/*
 * An installed kernel, named by its image ROOT/boot/vmlinuz-RELEASE (an
 * autopkgtest boots the package it has just installed): its config
 * beside it, its modules and headers under the same ROOT, as dpkg left
 * them.
 */
static void installed_open(struct kernel *k, const char *image)
{
	char real[PATH_MAX], *slash;

	if (!realpath(image, real))
		die("kernel %s: cannot resolve the path", k->spec);
	slash = strrchr(real, '/');
	if (slash - real < 5 || strncmp(slash - 5, "/boot", 5))
		die("kernel %s: an installed kernel is ROOT/boot/vmlinuz-RELEASE",
		    k->spec);
	k->image = xstrdup(real);
	k->release = xstrdup(slash + strlen("/vmlinuz-"));
	k->name = xasprintf("installed-%s", k->release);
	k->id = xstrdup(k->name);
	k->installed = true;
	slash[-5] = '\0';
	k->moddir = xstrdup(*real ? real : "/");
	k->config = xasprintf("%s/boot/config-%s", real, k->release);
	if (!is_file(k->config))
		die("kernel %s: no %s beside it", k->spec, k->config);
}

static bool is_installed_image(const char *spec)
{
	const char *base = strrchr(spec, '/');

	return !strncmp(base ? base + 1 : spec, "vmlinuz-", 8);
}

struct kernel *kernel_open(const char *spec)
{
	struct kernel *k = xcalloc(1, sizeof(*k));

	k->spec = xstrdup(spec);
	k->farm_modules = xcalloc(1, sizeof(*k->farm_modules));
	if (is_dir(spec)) {
		odir_open(k, spec);
		kernel_identify(k);
	} else if (is_file(spec) && is_installed_image(spec)) {
		installed_open(k, spec);
		kernel_identify(k);
	} else if (is_file(spec)) {
		deb_open(k, spec);
	} else {
		die("kernel %s: no such build directory, .deb or installed vmlinuz",
		    spec);
	}
	return k;
}

/* What results.json says of a kernel (farm/PROTOCOL.md). */
json_t *kernel_describe(const struct kernel *k)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", k->name,
			      "spec", k->spec, "arch", k->arch, "flavour",
			      k->flavour, "release", k->release);
	const char *base = strrchr(k->spec, '/');

	if (!k->sha256)
		return o;
	json_object_set_new(o, "package", json_string(k->name));
	json_object_set_new(o, "version", json_string(k->version));
	json_object_set_new(o, "file", json_string(base ? base + 1 : k->spec));
	json_object_set_new(o, "sha256", json_string(k->sha256));
	return o;
}

/* Our farm kernels that finished building: those with a .sac-built stamp. */
json_t *kernel_defaults(void)
{
	char *pat = xasprintf("%s/kernel/*-farm-*/.sac-built", farm.build);
	json_t *out = json_array();
	glob_t g;
	size_t i;

	if (glob(pat, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			char *d = xstrdup(g.gl_pathv[i]);

			*strrchr(d, '/') = '\0';
			json_array_append_new(out, json_string(d));
			free(d);
		}
		globfree(&g);
	}
	free(pat);
	return out;
}
