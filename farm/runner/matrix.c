// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix: arch x machine x kernel x variant x workload, one job per
 * cell; a workload's own variants (workloads.json) add cells beside each
 * of the run's. A cell the kernel cannot run is still a job, recorded as a
 * skip with the reason, so a report shows what was not tested and why.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "runner.h"

/* An empty filter selects everything. */
static bool selected(json_t *filter, const char *value)
{
	json_t *e;
	size_t i;

	if (!json_array_size(filter))
		return true;
	json_array_foreach(filter, i, e)
		if (!strcmp(json_string_value(e), value))
			return true;
	return false;
}

/*
 * Why the kernel cannot run w's modules, given how it was delivered: a
 * .deb without its headers package has no farm module.
 */
static char *module_gap(const struct kernel *k, const struct workload *w)
{
	const char *why;
	json_t *e;
	size_t i;

	json_array_foreach(w->requires, i, e) {
		const char *name = json_string_value(e);
		const char *v = kernel_option(k, name);

		if (v && !strcmp(v, "m") && !k->moddir)
			return xasprintf("kernel %s has %s=m; modules are packed only from a .deb",
					 k->name, name);
	}
	if (w->farm_module && !kernel_farm_modules(k, &why))
		return xasprintf("no %s.ko for %s: %s", w->farm_module,
				 k->name, why);
	return NULL;
}

static void job_check(struct job *j)
{
	char *why;

	why = kernel_missing(j->k, j->m->requires, true);
	if (!why)
		why = kernel_missing(j->k, j->w->requires, false);
	if (!why)
		why = kernel_missing(j->k, j->v->requires, false);
	if (!why)
		why = module_gap(j->k, j->w);
	if (why) {
		j->preset = "skip";
		j->skip_reason = why;
		return;
	}
	why = j->w->boot->prepare(j);
	if (why) {
		j->preset = "infra-error";
		j->skip_reason = xasprintf("farm: cannot prepare the %s boot: %s",
					   j->w->boot->name, why);
		free(why);
	}
}

static void job_add(struct job **jobs, size_t *n, size_t *cap,
		    const struct run_opts *o, const struct machine *m,
		    const struct kernel *k, const struct variant *v,
		    const struct workload *w)
{
	struct job *j;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*jobs = xrealloc(*jobs, *cap * sizeof(**jobs));
	}
	j = &(*jobs)[(*n)++];
	memset(j, 0, sizeof(*j));
	j->index = (int)*n;
	j->m = m;
	j->k = k;
	j->v = v;
	j->w = w;
	j->engine = o->engine;
	snprintf(j->id, sizeof(j->id), "%03d-%s-%s-%s-%s", j->index, m->id,
		 k->name, v->name, w->name);
	job_check(j);
}

/*
 * The run's variant v with workload variant wv on top: named wv under the
 * default run variant, "v+wv" under another, with both command lines and
 * wv's requirements (a run variant has none).
 */
static const struct variant *variant_join(const struct variant *v,
					  const struct variant *wv)
{
	struct variant *j = xcalloc(1, sizeof(*j));

	if (!strcmp(v->name, "default"))
		j->name = xstrdup(wv->name);
	else
		j->name = xasprintf("%s+%s", v->name, wv->name);
	if (v->cmdline && *v->cmdline)
		j->cmdline = xasprintf("%s %s", v->cmdline, wv->cmdline);
	else
		j->cmdline = xstrdup(wv->cmdline);
	j->requires = wv->requires;
	return j;
}

/* The cell of w under the run's variant v, then one per own variant of w. */
static void cells_add(struct job **jobs, size_t *n, size_t *cap,
		      const struct run_opts *o, const struct machine *m,
		      const struct kernel *k, const struct variant *v,
		      const struct workload *w)
{
	size_t i;

	job_add(jobs, n, cap, o, m, k, v, w);
	for (i = 0; i < w->nvariants; i++)
		job_add(jobs, n, cap, o, m, k,
			variant_join(v, &w->variants[i]), w);
}

struct job *matrix_expand(const struct tables *t, struct kernel **kernels,
			  size_t nkernels, const struct run_opts *o,
			  size_t *njobs)
{
	struct job *jobs = NULL;
	size_t n = 0, cap = 0, ki, mi, vi, wi;

	for (ki = 0; ki < nkernels; ki++) {
		const struct kernel *k = kernels[ki];

		if (!selected(o->arches, k->arch))
			continue;
		for (mi = 0; mi < t->nmachines; mi++) {
			const struct machine *m = &t->machines[mi];

			if (strcmp(m->arch, k->arch) ||
			    !selected(o->machines, m->id))
				continue;
			for (vi = 0; vi < o->nvariants; vi++)
				for (wi = 0; wi < t->nworkloads; wi++) {
					const struct workload *w = &t->workloads[wi];

					if (!selected(o->workloads, w->name) ||
					    !workload_applies(w, m) ||
					    (w->boot->boots && !w->boot->boots(k)))
						continue;
					cells_add(&jobs, &n, &cap, o, m, k,
						  &o->variants[vi], w);
				}
		}
	}
	*njobs = n;
	return jobs;
}
