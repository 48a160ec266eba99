// SPDX-License-Identifier: GPL-2.0
/*
 * The machine and workload tables: load, check every field once here so
 * the rest of the runner can trust them, and look entries up.
 */
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "runner.h"
#include "stages.h"

static const char *cur_file;
static const char *cur_entry;

static void bad(const char *field, const char *want)
{
	die("%s: entry '%s': field '%s' must be %s", cur_file,
	    cur_entry ? cur_entry : "?", field, want);
}

static void bad_timeout(const char *stage)
{
	die("%s: entry '%s': field 'timeouts' must give the %s stage's seconds",
	    cur_file, cur_entry ? cur_entry : "?", stage);
}

static const char *get_str(json_t *o, const char *key, bool required)
{
	json_t *v = json_object_get(o, key);

	if (!v && !required)
		return NULL;
	if (!json_is_string(v))
		bad(key, "a string");
	return json_string_value(v);
}

static json_t *get_words(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key), *e;
	size_t i;

	if (!v)
		return json_array();
	if (!json_is_array(v))
		bad(key, "an array of strings");
	json_array_foreach(v, i, e)
		if (!json_is_string(e))
			bad(key, "an array of strings");
	return json_incref(v);
}

static double get_num(json_t *o, const char *key, double def, double min)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return def;
	if (!json_is_number(v) || json_number_value(v) < min)
		bad(key, "a positive number");
	return json_number_value(v);
}

/*
 * "variants": more cells of one workload, each NAME with the kernel
 * command line words its cell adds to the run's own variant, and the
 * kernel options it needs beyond the workload's: a choice only a patched
 * kernel has is a skip on a kernel without it, not a misapplied command
 * line.
 */
#define VARIANTS_WANT "an object of NAME: {\"cmdline\": WORDS, \"requires\": [CONFIG_...]}"

static void get_variant(const char *name, json_t *e, struct variant *v)
{
	json_t *cmdline = json_object_get(e, "cmdline");
	json_t *requires = json_object_get(e, "requires");
	json_t *word;
	size_t i;

	if (!*name || strpbrk(name, ",/ =@+") || !strcmp(name, "default"))
		bad("variants", "named by words without , / = @ + or spaces, not default");
	if (!json_is_object(e) || !json_is_string(cmdline) ||
	    json_object_size(e) != 1U + !!requires ||
	    (requires && !json_is_array(requires)))
		bad("variants", VARIANTS_WANT);
	json_array_foreach(requires, i, word)
		if (!json_is_string(word))
			bad("variants", VARIANTS_WANT);
	v->name = xstrdup(name);
	v->cmdline = xstrdup(json_string_value(cmdline));
	v->requires = requires;
}

static void get_variants(json_t *o, struct workload *w)
{
	json_t *v = json_object_get(o, "variants"), *e;
	const char *name;
	size_t i = 0;

	if (!v)
		return;
	if (!json_is_object(v) || !json_object_size(v))
		bad("variants", VARIANTS_WANT);
	w->nvariants = json_object_size(v);
	w->variants = xcalloc(w->nvariants, sizeof(*w->variants));
	json_object_foreach(v, name, e)
		get_variant(name, e, &w->variants[i++]);
}

static json_t *load_array(const char *path, const char *key)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *a;

	if (!root)
		die("%s:%d: %s", path, err.line, err.text);
	a = json_object_get(root, key);
	if (!json_is_array(a) || !json_array_size(a))
		die("%s: needs a non-empty array \"%s\"", path, key);
	return root;
}

static void machine_parse(struct machine *m, json_t *o)
{
	size_t i;

	cur_entry = NULL;
	if (!json_is_object(o))
		die("%s: every machine must be an object", cur_file);
	m->id = get_str(o, "id", true);
	cur_entry = m->id;
	m->arch = get_str(o, "arch", true);
	if (strcmp(m->arch, "amd64") && strcmp(m->arch, "arm64"))
		bad("arch", "amd64 or arm64");
	m->qemu = get_str(o, "qemu", true);
	m->console = get_str(o, "console", true);
	m->cmdline = get_str(o, "cmdline", false);
	m->iommu_regex = get_str(o, "iommu_regex", true);
	m->args = get_words(o, "args");
	m->tcg = get_words(o, "tcg");
	m->kvm = get_words(o, "kvm");
	m->requires = get_words(o, "requires");
	m->timeouts = json_object_get(o, "timeouts");
	if (!json_is_object(m->timeouts))
		bad("timeouts", "an object of stage seconds");
	/* every stage a machine times (farm/common/stages.c) */
	for (i = 0; i < n_stages; i++)
		if (stages[i].timeout &&
		    get_num(m->timeouts, stages[i].timeout, -1, 1) < 0)
			bad_timeout(stages[i].timeout);
	m->tcg_scale = get_num(o, "tcg_scale", 1, 1);
}

static void workload_parse(struct workload *w, json_t *o)
{
	cur_entry = NULL;
	if (!json_is_object(o))
		die("%s: every workload must be an object", cur_file);
	w->name = get_str(o, "name", true);
	cur_entry = w->name;
	if (!*w->name || strpbrk(w->name, ",/ ="))
		bad("name", "a word without , / = or spaces");
	w->cmdline = get_str(o, "cmdline", false);
	w->farm_module = get_str(o, "farm_module", false);
	w->devices = get_words(o, "devices");
	w->machines = get_words(o, "machines");
	w->requires = get_words(o, "requires");
	w->modules = get_words(o, "modules");
	w->boot = boot_method_find(get_str(o, "boot", false) ?: "initramfs");
	if (!w->boot)
		bad("boot", "a boot method: initramfs");
	if (json_object_get(o, "expect"))
		bad("expect", "absent: what a cell must do is farm/policy.conf's to say");
	w->timeout = (int)get_num(o, "timeout", -1, 1);
	if (w->timeout < 1)
		bad("timeout", "a positive number of seconds");
	w->scratch_mib = (int)get_num(o, "scratch_mib", 0, 0);
	get_variants(o, w);
}

int tables_load(struct tables *t, const char *machines_path,
		const char *workloads_path)
{
	json_t *a;
	size_t i, j;

	t->mroot = load_array(machines_path, "machines");
	a = json_object_get(t->mroot, "machines");
	t->nmachines = json_array_size(a);
	t->machines = xcalloc(t->nmachines, sizeof(*t->machines));
	cur_file = machines_path;
	for (i = 0; i < t->nmachines; i++) {
		machine_parse(&t->machines[i], json_array_get(a, i));
		for (j = 0; j < i; j++)
			if (!strcmp(t->machines[j].id, t->machines[i].id))
				bad("id", "unique");
	}

	t->wroot = load_array(workloads_path, "workloads");
	a = json_object_get(t->wroot, "workloads");
	t->nworkloads = json_array_size(a);
	t->workloads = xcalloc(t->nworkloads, sizeof(*t->workloads));
	cur_file = workloads_path;
	for (i = 0; i < t->nworkloads; i++) {
		workload_parse(&t->workloads[i], json_array_get(a, i));
		for (j = 0; j < i; j++)
			if (!strcmp(t->workloads[j].name, t->workloads[i].name))
				bad("name", "unique");
	}
	return 0;
}

const struct machine *machine_find(const struct tables *t, const char *id)
{
	size_t i;

	for (i = 0; i < t->nmachines; i++)
		if (!strcmp(t->machines[i].id, id))
			return &t->machines[i];
	return NULL;
}

const struct workload *workload_find(const struct tables *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nworkloads; i++)
		if (!strcmp(t->workloads[i].name, name))
			return &t->workloads[i];
	return NULL;
}

bool workload_applies(const struct workload *w, const struct machine *m)
{
	json_t *e;
	size_t i;

	json_array_foreach(w->machines, i, e) {
		const char *s = json_string_value(e);

		if (!strcmp(s, "*") || !strcmp(s, m->id) || !strcmp(s, m->arch))
			return true;
	}
	return false;
}
