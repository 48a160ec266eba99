// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a run: results.json of format 2 only, since a run that does
 * not declare its matrix cannot show that nothing is missing from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "records.h"
#include "util.h"

static int refuse(const char *path, const char *why)
{
	warnx("%s: %s (the gate reads results.json format %d, farm/PROTOCOL.md)",
	      path, why, RESULTS_FORMAT);
	return -1;
}

static int check_shape(const char *path, json_t *root)
{
	json_t *format = json_object_get(root, "format");
	json_t *kernels = json_object_get(root, "kernels");
	char why[64];

	if (!json_is_object(root))
		return refuse(path, "not an object with \"format\"");
	if (!json_is_integer(format))
		return refuse(path, "no \"format\"");
	if (json_integer_value(format) != RESULTS_FORMAT) {
		snprintf(why, sizeof(why), "format %" JSON_INTEGER_FORMAT,
			 json_integer_value(format));
		return refuse(path, why);
	}
	if (!json_is_array(json_object_get(root, "records")))
		return refuse(path, "\"records\" is not an array");
	if (!json_is_array(json_object_get(root, "matrix")))
		return refuse(path, "\"matrix\" is not an array");
	if (kernels && !json_is_array(kernels))
		return refuse(path, "\"kernels\" is not an array");
	return 0;
}

int run_load(const char *dir, struct run *r)
{
	char *path = xasprintf("%s/results.json", dir);
	json_error_t err;

	memset(r, 0, sizeof(*r));
	r->root = json_load_file(path, 0, &err);
	if (!r->root) {
		warnx("%s:%d: %s", path, err.line, err.text);
		goto fail;
	}
	if (check_shape(path, r->root))
		goto fail_root;
	r->dir = dir;
	r->records = json_object_get(r->root, "records");
	r->matrix = json_object_get(r->root, "matrix");
	r->kernels = json_object_get(r->root, "kernels");
	if (!r->kernels) {
		r->kernels = json_array();
		json_object_set_new(r->root, "kernels", r->kernels);
	}
	free(path);
	return 0;

fail_root:
	json_decref(r->root);
	r->root = NULL;
fail:
	free(path);
	return -1;
}

void run_free(struct run *r)
{
	json_decref(r->root);
	memset(r, 0, sizeof(*r));
}

const char *run_id(const struct run *r)
{
	const char *id = jstr(r->root, "run_id", NULL);
	const char *slash;

	if (id && *id)
		return id;
	slash = strrchr(r->dir, '/');
	return slash && slash[1] ? slash + 1 : r->dir;
}

static int copy_axis(char *dst, json_t *axes, const char *key,
		     const char *dflt)
{
	const char *s = jstr(axes, key, dflt);

	if (!s || !*s || strlen(s) >= POLICY_FIELD)
		return -1;
	strcpy(dst, s);
	return 0;
}

int record_key(json_t *rec, struct cell_key *k)
{
	json_t *axes = json_object_get(rec, "axes");

	if (!json_is_object(axes))
		return -1;
	if (copy_axis(k->flavour, axes, "flavour", NULL) ||
	    copy_axis(k->arch, axes, "arch", NULL) ||
	    copy_axis(k->machine, axes, "machine", NULL) ||
	    copy_axis(k->workload, axes, "workload", NULL) ||
	    copy_axis(k->variant, axes, "variant", "default"))
		return -1;
	return 0;
}

json_t *run_find(const struct run *r, const char *id)
{
	char other[CELL_ID_MAX];
	struct cell_key k;
	json_t *rec;
	size_t i;

	json_array_foreach(r->records, i, rec) {
		if (record_key(rec, &k))
			continue;
		cell_key_id(&k, other, sizeof(other));
		if (!strcmp(other, id))
			return rec;
	}
	return NULL;
}

/* A path that stays below the directory it is relative to. */
static bool stays_inside(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (p) {
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return false;
		p = strchr(p, '/');
		if (p)
			p++;
	}
	return true;
}

char *record_log(json_t *rec)
{
	const char *log = jstr(rec, "log", NULL);
	const char *job = jstr(rec, "job_id", NULL);
	char *path;

	if (log)
		return stays_inside(log) ? xstrdup(log) : NULL;
	if (!job)
		return NULL;
	path = xasprintf("jobs/%s/console.log", job);
	if (stays_inside(path))
		return path;
	free(path);
	return NULL;
}
