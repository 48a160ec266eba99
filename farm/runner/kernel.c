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
 * devices probe); a workload's driver may be a module.
 */
char *kernel_missing(const struct kernel *k, json_t *options, bool builtin)
{
	json_t *e;
	size_t i;

	json_array_foreach(options, i, e) {
		const char *name = json_string_value(e);
		const char *v = kernel_option(k, name);

		if (!v || !strcmp(v, "n"))
			return xasprintf("kernel %s lacks %s", k->name, name);
		if (builtin && strcmp(v, "y"))
			return xasprintf("kernel %s has %s=%s, needs it built in",
					 k->name, name, v);
	}
	return NULL;
}

static char *flavour_from(const char *name, const char *localversion)
{
	json_t *fl = flavours_list(), *e;
	const char *dash = strrchr(name, '-');
	char *out = NULL;
	size_t i;

	json_array_foreach(fl, i, e) {
		const char *f = json_string_value(e);
		char *lv = xasprintf("-sac-%s", f);

		if ((dash && !strcmp(dash + 1, f)) ||
		    (localversion && !strcmp(localversion, lv)))
			out = xstrdup(f);
		free(lv);
		if (out)
			break;
	}
	json_decref(fl);
	return out ? out : xstrdup("stock");
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
void kernel_identify(struct kernel *k)
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
	k->flavour = flavour_from(k->name,
				  kernel_option(k, "CONFIG_LOCALVERSION"));
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
	k->gen_init_cpio = xasprintf("%s/usr/gen_init_cpio", real);
	if (!is_file(k->gen_init_cpio))
		die("kernel %s: no usr/gen_init_cpio", k->spec);
	kernel_identify(k);
}

struct kernel *kernel_open(const char *spec)
{
	struct kernel *k = xcalloc(1, sizeof(*k));

	k->spec = xstrdup(spec);
	k->farm_modules = xcalloc(1, sizeof(*k->farm_modules));
	if (is_dir(spec))
		odir_open(k, spec);
	else if (is_file(spec))
		deb_unpack(k, spec);
	else
		die("kernel %s: no such build directory or .deb file", spec);
	return k;
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
