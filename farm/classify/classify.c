// SPDX-License-Identifier: GPL-2.0
/*
 * classify --log LOG --status STATUS --nonce HEX --workloads W1,W2 [--job-id ID]
 *
 * Prints one JSON outcome record on stdout (farm/PROTOCOL.md). Exit 0
 * whenever a record was printed, whatever the outcome; a missing log or
 * status file is an infra-error record, not a tool failure. Exit 2 on a
 * usage or I/O error, with one line on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

#define MAX_WORKLOADS	64
#define MAX_FILE	(256u << 20)	/* a console log bigger than this is a bug */

static const char usage_line[] =
	"usage: classify --log LOG --status STATUS --nonce HEX --workloads W1,W2 [--job-id ID]";

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "classify: %s: %s\n", what, why);
	return 2;
}

/* Read all of @path. A missing file is not an error: *@buf stays NULL. */
static int slurp(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, got;
	char *b, *nb;

	*buf = NULL;
	*len = 0;
	if (!f)
		return errno == ENOENT ? 0 : fail(path, strerror(errno));
	b = malloc(cap);
	if (!b)
		goto nomem;
	while ((got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		if (cap >= MAX_FILE)
			goto too_big;
		nb = realloc(b, cap * 2);
		if (!nb)
			goto nomem;
		b = nb;
		cap *= 2;
	}
	if (ferror(f))
		goto io;
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
io:
	free(b);
	fclose(f);
	return fail(path, "read error (is it a directory?)");
too_big:
	free(b);
	fclose(f);
	return fail(path, "larger than 256 MiB");
nomem:
	free(b);
	fclose(f);
	return fail(path, "out of memory");
}

/* Split @list in place on commas into @w; returns the count or -1. */
static int split_workloads(char *list, const char **w)
{
	char *save = NULL, *t;
	int n = 0;

	if (!*list || list[strlen(list) - 1] == ',')
		return -1;
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == MAX_WORKLOADS || !cls_valid_workload(t))
			return -1;
		w[n++] = t;
	}
	return n ? n : -1;
}

static int run(struct cls_job *job, const char *log, const char *status)
{
	char *lbuf = NULL, *sbuf = NULL;
	json_t *rec;
	int rc;

	rc = slurp(log, &lbuf, &job->log_len);
	if (rc)
		return rc;
	rc = slurp(status, &sbuf, &job->status_len);
	if (rc)
		goto out;
	job->log = lbuf;
	job->status = sbuf;
	rec = cls_classify(job);
	if (!rec) {
		rc = fail("classify", "out of memory");
		goto out;
	}
	if (json_dumpf(rec, stdout, JSON_COMPACT) || puts("") == EOF ||
	    fflush(stdout))
		rc = fail("stdout", strerror(errno));
	json_decref(rec);
out:
	free(lbuf);
	free(sbuf);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "status", required_argument, NULL, 's' },
		{ "nonce", required_argument, NULL, 'n' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "job-id", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *log = NULL, *status = NULL, *w[MAX_WORKLOADS];
	struct cls_job job = { 0 };
	char *list = NULL;
	int c, n;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			log = optarg;
			break;
		case 's':
			status = optarg;
			break;
		case 'n':
			job.nonce = optarg;
			break;
		case 'w':
			list = optarg;
			break;
		case 'j':
			job.job_id = optarg;
			break;
		default:
			return fail("usage", usage_line + 7);
		}
	}
	if (optind != argc || !log || !status || !job.nonce || !list)
		return fail("usage", usage_line + 7);
	if (!cls_valid_nonce(job.nonce))
		return fail("--nonce", "not 16 lower-case hex digits");
	n = split_workloads(list, w);
	if (n < 0)
		return fail("--workloads", "want NAME[,NAME...] of [a-z0-9_-]");
	job.workloads = w;
	job.n_workloads = n;
	job.log_name = log;
	job.status_name = status;
	return run(&job, log, status);
}
