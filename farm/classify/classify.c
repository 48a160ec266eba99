// SPDX-License-Identifier: GPL-2.0
/*
 * classify --log LOG --status STATUS --key KEY --nonce HEX --workloads W1,W2
 *          [--job-id ID]
 *
 * Prints one JSON outcome record on stdout (farm/PROTOCOL.md). Exit 0
 * whenever a record was printed, whatever the outcome; a missing log,
 * status or key file is an infra-error record, not a tool failure. Exit
 * 2 on a usage or I/O error, with one line on stderr.
 */
#define _GNU_SOURCE	/* memrchr */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chain.h"
#include "classify.h"

#define MAX_WORKLOADS	64
/*
 * A console log up to LOG_WHOLE is read whole; a bigger one (a flood:
 * console.exp keeps at most 16 MiB, a job prints ~100 KiB) only its first
 * and last LOG_PART bytes, cut to whole lines. The gap is judged as a
 * flood (farm/PROTOCOL.md, log-flood); the end of the log still counts.
 */
#define LOG_PART	(16u << 20)
#define LOG_WHOLE	(2 * LOG_PART)
#define STATUS_MAX	(1024u * 1024)	/* a status file is a few lines */

static const char usage_line[] =
	"usage: classify --log LOG --status STATUS --key KEY --nonce HEX --workloads W1,W2 [--job-id ID]";

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "classify: %s: %s\n", what, why);
	return 2;
}

/* Read all of @f, at most @max bytes, into *@buf. */
static int slurp(FILE *f, const char *path, size_t max, char **buf,
		 size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	char *b = malloc(cap), *nb;

	if (!b)
		return fail(path, "out of memory");
	while ((got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		if (cap >= max) {
			free(b);
			return fail(path, "too large");
		}
		nb = realloc(b, cap * 2);
		if (!nb) {
			free(b);
			return fail(path, "out of memory");
		}
		b = nb;
		cap *= 2;
	}
	if (ferror(f)) {
		free(b);
		return fail(path, "read error (is it a directory?)");
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Read @len bytes at @off of @f into @b. */
static int read_at(FILE *f, const char *path, off_t off, char *b, size_t len)
{
	if (fseeko(f, off, SEEK_SET) || fread(b, 1, len, f) != len)
		return fail(path, ferror(f) ? strerror(errno) : "shrank while read");
	return 0;
}

/* The first and last LOG_PART bytes of @f (@size bytes), whole lines. */
static int read_ends(FILE *f, const char *path, off_t size,
		     struct cls_job *job, char **buf)
{
	char *b = malloc(2 * LOG_PART), *nl;
	size_t head = LOG_PART, tail = LOG_PART, skip = 0;

	if (!b)
		return fail(path, "out of memory");
	if (read_at(f, path, 0, b, LOG_PART) ||
	    read_at(f, path, size - LOG_PART, b + LOG_PART, LOG_PART)) {
		free(b);
		return 2;
	}
	nl = memrchr(b, '\n', LOG_PART);
	if (nl)
		head = nl - b + 1;
	nl = memchr(b + LOG_PART, '\n', LOG_PART);
	if (nl)
		skip = nl - (b + LOG_PART) + 1;
	tail -= skip;
	memmove(b + head, b + LOG_PART + skip, tail);
	*buf = b;
	job->log_len = head + tail;
	job->log_gap_at = head;
	job->log_gap = (unsigned long long)size - head - tail;
	return 0;
}

/* The log, or its ends; a missing file is not an error (*@buf NULL). */
static int read_log(const char *path, struct cls_job *job, char **buf)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	int rc;

	*buf = NULL;
	if (!f)
		return errno == ENOENT ? 0 : fail(path, strerror(errno));
	if (fstat(fileno(f), &st))
		rc = fail(path, strerror(errno));
	else if (S_ISREG(st.st_mode) && st.st_size > (off_t)LOG_WHOLE)
		rc = read_ends(f, path, st.st_size, job, buf);
	else
		rc = slurp(f, path, LOG_WHOLE, buf, &job->log_len);
	fclose(f);
	return rc;
}

/* The status file; a missing one is not an error (*@buf NULL). */
static int read_status(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	int rc;

	*buf = NULL;
	*len = 0;
	if (!f)
		return errno == ENOENT ? 0 : fail(path, strerror(errno));
	rc = slurp(f, path, STATUS_MAX, buf, len);
	fclose(f);
	return rc;
}

/*
 * The job's key file (farm/PROTOCOL.md, "Integrity"): 64 hex digits. A
 * missing one is not an error here (job->key stays NULL).
 */
static int read_key(const char *path, struct cls_job *job, uint8_t *key)
{
	char text[SAC_KEY_HEX + 2];
	FILE *f = fopen(path, "rb");
	size_t n;
	int bad;

	if (!f)
		return errno == ENOENT ? 0 : fail(path, strerror(errno));
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	bad = sac_key_parse(text, n, key);
	explicit_bzero(text, sizeof(text));
	if (bad)
		return fail(path, "not a job key (64 hex digits)");
	job->key = key;
	return 0;
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

	rc = read_log(log, job, &lbuf);
	if (rc)
		return rc;
	rc = read_status(status, &sbuf, &job->status_len);
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
		{ "key", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	const char *log = NULL, *status = NULL, *w[MAX_WORKLOADS];
	struct cls_job job = { 0 };
	uint8_t key[SAC_KEY_LEN];
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
		case 'k':
			job.key_name = optarg;
			break;
		default:
			return fail("usage", usage_line + 7);
		}
	}
	if (optind != argc || !log || !status || !job.key_name || !job.nonce ||
	    !list)
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
	if (read_key(job.key_name, &job, key))
		return 2;
	return run(&job, log, status);
}
