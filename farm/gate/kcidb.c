// SPDX-License-Identifier: GPL-2.0
/*
 * kcidb.json. Every ID starts with the origin and holds the release and
 * the run: the checkout is "sacfarm:VERSION-RUN_ID", a build is
 * "CHECKOUT/KERNEL" and a test "BUILD/MACHINE/WORKLOAD[@VARIANT]", so
 * no two runs or releases share one.
 *
 * Statuses tell what the farm saw: a cell that got what the policy
 * expects is PASS, known hazards included (the test is "the farm sees
 * the hazard": misc.expected and misc.got show it); a blocking cell is
 * FAIL, or ERROR when the farm could not judge it (infra-error, or the
 * cell is missing from the run). A failure the policy accepts is a
 * FAIL that is waived, misc.accepted holding the policy's reason; so is
 * a flaky cell the policy allows. Nothing else is waived.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "kcidb.h"
#include "outcome.h"
#include "util.h"

struct kcidb {
	const struct gate *g;
	char *checkout_id;
	json_t *builds;		/* kernel name -> build */
	json_t *tests;
};

/* Sets o[key] to a string; nothing when s is NULL or empty. */
static void put_str(json_t *o, const char *key, const char *s)
{
	if (s && *s)
		json_object_set_new(o, key, json_string(s));
}

/* "file://" and the absolute path, percent-encoded. */
static char *file_url(const char *path)
{
	char *abs = realpath(path, NULL), *url, *u;
	const unsigned char *p;
	char cwd[PATH_MAX];

	if (!abs && path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		abs = xasprintf("%s/%s", cwd, path);
	if (!abs)
		abs = xstrdup(path);
	url = xmalloc(strlen("file://") + 3 * strlen(abs) + 1);
	u = url + sprintf(url, "file://");
	for (p = (const unsigned char *)abs; *p; p++) {
		if (isalnum(*p) || strchr("/-._~", *p))
			*u++ = *p;
		else
			u += sprintf(u, "%%%02X", *p);
	}
	*u = '\0';
	free(abs);
	return url;
}

/* s with every character @keep refuses replaced by '_'. */
static char *tidy(const char *s, int (*keep)(int c))
{
	char *t = xstrdup(s), *p;

	for (p = t; *p; p++)
		if (!keep((unsigned char)*p))
			*p = '_';
	return t;
}

static int path_char(int c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '-';
}

static int arch_char(int c)
{
	return islower(c) || isdigit(c) || c == '_';
}

static const char *kcidb_arch(const char *arch)
{
	return !strcmp(arch, "amd64") ? "x86_64" : arch;
}

/* The release: the changelog's version, else the first package's. */
static const char *release_of(const struct gate *g, const struct source *src)
{
	json_t *k = json_array_get(g->run.kernels, 0);

	if (src->version[0])
		return src->version;
	return jstr(k, "version", jstr(k, "release", "unknown"));
}

static json_t *checkout(const struct kcidb *x, const struct source *src)
{
	const char *tree = src->package[0] ? src->package : "linux-sac";
	const struct gate *g = x->g;
	json_t *c = json_object();
	json_t *misc = json_object();
	char *comment;

	comment = xasprintf("%s %s, farm run %s", tree, release_of(g, src),
			    run_id(&g->run));
	put_str(c, "id", x->checkout_id);
	put_str(c, "origin", KCIDB_ORIGIN);
	put_str(c, "tree_name", tree);
	put_str(c, "git_commit_hash", src->commit);
	put_str(c, "comment", comment);
	json_object_set_new(c, "valid", json_true());
	put_str(misc, "package_version", src->version);
	put_str(misc, "run_id", run_id(&g->run));
	put_str(misc, "run_started_utc", jstr(g->run.root, "started_utc", NULL));
	put_str(misc, "verdict", g->blocked ? "BLOCK" : "SHIP");
	json_object_set_new(c, "misc", misc);
	free(comment);
	return c;
}

/* The package file as a build output: its name and where it is. */
static void package_output(json_t *b, json_t *kernel)
{
	const char *spec = jstr(kernel, "spec", NULL);
	const char *file = jstr(kernel, "file", NULL);
	char *url;

	if (!spec || !file || !*file || strchr(file, '/'))
		return;
	url = file_url(spec);
	json_object_set_new(b, "output_files",
			    json_pack("[{s:s, s:s}]", "name", file, "url", url));
	free(url);
}

static json_t *build_misc(json_t *kernel)
{
	static const char *const keys[] = {
		"package", "version", "sha256", "release", "spec",
	};
	json_t *misc = json_object();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		put_str(misc, keys[i], jstr(kernel, keys[i], NULL));
	return misc;
}

/*
 * The build of kernel @name for @arch, made on first use: one package
 * name stands for a kernel of each arch.
 */
static json_t *build(struct kcidb *x, const char *name, const char *arch,
		     const char *flavour, json_t *kernel)
{
	char *key = xasprintf("%s/%s", arch, name);
	json_t *b = json_object_get(x->builds, key);
	char *id, *a;

	if (b) {
		free(key);
		return b;
	}
	b = json_object();
	id = xasprintf("%s/%s", x->checkout_id, key);
	a = tidy(kcidb_arch(arch), arch_char);
	put_str(b, "id", id);
	put_str(b, "checkout_id", x->checkout_id);
	put_str(b, "origin", KCIDB_ORIGIN);
	put_str(b, "architecture", a);
	put_str(b, "config_name", flavour);
	put_str(b, "comment", jstr(kernel, "package", name));
	package_output(b, kernel);
	json_object_set_new(b, "valid", json_true());
	json_object_set_new(b, "misc", build_misc(kernel));
	json_object_set_new(x->builds, key, b);
	free(key);
	free(a);
	free(id);
	return b;
}

static json_t *kernel_named(const struct gate *g, const char *name,
			    const char *arch)
{
	json_t *k;
	size_t i;

	json_array_foreach(g->run.kernels, i, k)
		if (!strcmp(jstr(k, "name", ""), name) &&
		    !strcmp(jstr(k, "arch", ""), arch))
			return k;
	return NULL;
}

/* A cell with no record: the run's kernel of its arch and flavour. */
static json_t *kernel_for(const struct gate *g, const struct cell_key *key)
{
	json_t *k;
	size_t i;

	json_array_foreach(g->run.kernels, i, k)
		if (!strcmp(jstr(k, "arch", ""), key->arch) &&
		    !strcmp(jstr(k, "flavour", ""), key->flavour))
			return k;
	return NULL;
}

static const char *build_id_of(struct kcidb *x, const struct cell *c)
{
	json_t *axes = json_object_get(c->record, "axes");
	const char *name = jstr(axes, "kernel", NULL);
	json_t *kernel = name ? kernel_named(x->g, name, c->key.arch) :
				kernel_for(x->g, &c->key);
	char fallback[2 * POLICY_FIELD + 2];

	if (!name)
		name = jstr(kernel, "name", NULL);
	if (!name) {
		snprintf(fallback, sizeof(fallback), "%s-%s", c->key.arch,
			 c->key.flavour);
		name = fallback;
	}
	return jstr(build(x, name, c->key.arch, c->key.flavour, kernel),
		    "id", "");
}

static const char *status_of(const struct cell *c)
{
	switch (c->j.verdict) {
	case V_OK:
		return c->j.accepted ? "FAIL" : "PASS";
	case V_SKIP:
		return "SKIP";
	case V_FLAKY:
		return "FAIL";
	case V_FAIL:
		break;
	}
	if (!c->got || outcome_is_infra(c->got))
		return "ERROR";
	return "FAIL";
}

static json_t *test_misc(const struct gate *g, const struct cell *c)
{
	json_t *m = json_object();

	put_str(m, "cell", c->id);
	put_str(m, "expected", c->j.expected);
	put_str(m, "got", c->got ? c->got : "missing");
	put_str(m, "gate", judgement_name(&c->j));
	put_str(m, "why", c->j.why);
	put_str(m, "fault", c->fault);
	put_str(m, "deltas", c->deltas);
	put_str(m, "rerun_got", jstr(c->again, "outcome", NULL));
	json_object_set_new(m, "hazard", json_boolean(c->j.hazard));
	if (c->j.accepted)
		put_str(m, "accepted", c->j.why);
	json_object_set_new(m, "blocks", json_boolean(cell_blocks(g, c)));
	json_object_set_new(m, "policy_line", json_integer(c->j.line));
	return m;
}

static void test_log(const struct gate *g, const struct cell *c, json_t *t)
{
	char *rel = c->record ? record_log(c->record) : NULL;
	char *path, *url;

	if (!rel)
		return;
	path = xasprintf("%s/%s", g->run.dir, rel);
	url = file_url(path);
	put_str(t, "log_url", url);
	free(url);
	free(path);
	free(rel);
}

static void test_environment(const struct cell *c, json_t *t)
{
	json_t *misc = json_pack("{s:s, s:s}", "arch", c->key.arch,
				 "machine", c->key.machine);

	put_str(misc, "accel", jstr(c->record, "accel", NULL));
	put_str(misc, "kernel_release",
		jstr(c->record, "kernel_release", NULL));
	json_object_set_new(t, "environment",
			    json_pack("{s:s, s:o}", "comment", c->key.machine,
				      "misc", misc));
}

static void add_test(struct kcidb *x, const struct cell *c)
{
	const struct gate *g = x->g;
	const char *build_id = build_id_of(x, c);
	json_t *duration = json_object_get(c->record, "duration_s");
	bool dflt = !strcmp(c->key.variant, "default");
	json_t *t = json_object();
	char *id, *path, *tail;
	bool waived;

	tail = xasprintf("%s%s%s", c->key.workload, dflt ? "" : ".",
			 dflt ? "" : c->key.variant);
	path = tidy(tail, path_char);
	id = xasprintf("%s/%s/%s%s%s", build_id, c->key.machine,
		       c->key.workload, dflt ? "" : "@",
		       dflt ? "" : c->key.variant);
	put_str(t, "id", id);
	put_str(t, "build_id", build_id);
	put_str(t, "origin", KCIDB_ORIGIN);
	put_str(t, "path", path);
	put_str(t, "comment", c->id);
	put_str(t, "status", status_of(c));
	waived = (c->j.verdict == V_FLAKY && !g->policy.flaky_blocks) ||
		 (c->j.verdict == V_OK && c->j.accepted);
	json_object_set_new(t, "waived", json_boolean(waived));
	if (json_is_number(duration))
		json_object_set(t, "duration", duration);
	put_str(t, "start_time", jstr(c->record, "started_utc", NULL));
	test_log(g, c, t);
	test_environment(c, t);
	json_object_set_new(t, "misc", test_misc(g, c));
	json_array_append_new(x->tests, t);
	free(id);
	free(path);
	free(tail);
}

/* Every package gated is a build, whether or not a cell of it ran. */
static void add_kernels(struct kcidb *x)
{
	const char *name;
	json_t *k;
	size_t i;

	json_array_foreach(x->g->run.kernels, i, k) {
		name = jstr(k, "name", NULL);
		if (name)
			build(x, name, jstr(k, "arch", ""),
			      jstr(k, "flavour", ""), k);
	}
}

static json_t *build_list(json_t *builds)
{
	json_t *list = json_array(), *b;
	const char *name;

	json_object_foreach(builds, name, b)
		json_array_append(list, b);
	return list;
}

int gate_kcidb(const struct gate *g, const struct source *src,
	       const char *path)
{
	struct kcidb x = { .g = g };
	json_t *root;
	size_t i;
	int ret;

	x.checkout_id = xasprintf("%s:%s-%s", KCIDB_ORIGIN, release_of(g, src),
				  run_id(&g->run));
	x.builds = json_object();
	x.tests = json_array();
	add_kernels(&x);
	for (i = 0; i < g->n_cells; i++)
		add_test(&x, &g->cells[i]);
	root = json_pack("{s:{s:i, s:i}, s:[o], s:o, s:o}",
			 "version", "major", 4, "minor", 0,
			 "checkouts", checkout(&x, src),
			 "builds", build_list(x.builds), "tests", x.tests);
	ret = json_dump_file(root, path, JSON_INDENT(1));
	if (ret)
		warnx("cannot write %s", path);
	json_decref(root);
	json_decref(x.builds);
	free(x.checkout_id);
	return ret ? -1 : 0;
}
