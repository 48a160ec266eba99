// SPDX-License-Identifier: GPL-2.0
/*
 * farm run --engine lava-run: one cell through LAVA's own dispatcher.
 *
 * The worker renders the cell's LAVA job and device dictionary into the
 * job dir, runs lava-run, and reads its log: one YAML mapping a line,
 * the guest's console as "target" and "feedback" records, test cases and
 * LAVA's verdict on the job as "results" records. From that it writes
 * the console.log and status file the local console driver would have
 * written, so the same classifier judges both engines; then it checks
 * LAVA's own cases against the classifier's and marks any disagreement
 * as an infra-error. A pass needs LAVA's job to have passed too: only
 * then is the status file's event "done".
 *
 * farm lava submit sends the same job to a LAVA lab instead (lavacli
 * jobs submit, wait, logs --raw): the server's log is the same records
 * as a YAML list, read the same way.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "boot.h"
#include "lava.h"
#include "stages.h"

/* Where lava-run keeps a job's downloads, by job id (fixed in LAVA). */
#define LAVA_TMP "/var/lib/lava/dispatcher/tmp"

/* The lab lava submit names, split up; lavacli's identity for it. */
static struct {
	char *scheme, *user, *token, *host;	/* host: HOST[:PORT]/RPC2 */
	char *cred;		/* scheme://USER:TOKEN, masked in errors */
	char *dir;		/* private: lavacli.yaml, mode 0600 */
	pid_t owner;		/* the runner, which removes dir */
} lab;

#define LAB_IDENTITY "farm"

/* Seconds a job may wait in the lab's queue on top of its own budget. */
#define LAB_QUEUE_SLACK 120

/* Nested deeper than this, a log record is not one of LAVA's. */
#define MAX_DEPTH 16

/* The console stages (farm/common/stages.c), walked over the lines. */
struct walk {
	const struct job *j;
	const struct stage *seq[STAGES_MAX];	/* the job's boot's stages */
	size_t nseq;
	regex_t marks[STAGES_MAX];
	size_t next;		/* the stage being waited for */
	double t0;		/* QEMU started; 0 until known */
	json_t *timings;	/* stage -> ms */
};

struct lava_log {
	FILE *console;
	bool console_open;	/* false once LAVA has typed into the guest */
	struct walk walk;
	json_t *cases;		/* workload -> LAVA's result */
	json_t *job;		/* LAVA's result for the job, or NULL */
	char *other;		/* the last line that is no log record */
};

static json_t *node_json(yaml_document_t *doc, yaml_node_t *n, int depth);

static json_t *mapping_json(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	json_t *o = json_object();
	yaml_node_pair_t *p;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		json_t *v = node_json(doc, yaml_document_get_node(doc, p->value),
				      depth + 1);
		char *key;

		if (!k || k->type != YAML_SCALAR_NODE || !v) {
			json_decref(v);
			json_decref(o);
			return NULL;
		}
		key = strndup((char *)k->data.scalar.value,
			      k->data.scalar.length);
		json_object_set_new(o, key ? key : "", v);
		free(key);
	}
	return o;
}

static json_t *sequence_json(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	json_t *a = json_array(), *v;
	yaml_node_item_t *i;

	for (i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		v = node_json(doc, yaml_document_get_node(doc, *i), depth + 1);
		if (!v) {
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, v);
	}
	return a;
}

/* A YAML node as JSON; every scalar a string, which is all we need. */
static json_t *node_json(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	if (!n || depth > MAX_DEPTH)
		return NULL;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return json_stringn((char *)n->data.scalar.value,
				    n->data.scalar.length);
	case YAML_MAPPING_NODE:
		return mapping_json(doc, n, depth);
	case YAML_SEQUENCE_NODE:
		return sequence_json(doc, n, depth);
	default:
		return NULL;
	}
}

/* One line of lava-run's log as an object; NULL if it is not a record. */
static json_t *parse_record(const char *line, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	json_t *o = NULL;

	if (!yaml_parser_initialize(&parser))
		return NULL;
	yaml_parser_set_input_string(&parser, (const unsigned char *)line,
				     len);
	if (yaml_parser_load(&parser, &doc)) {
		o = node_json(&doc, yaml_document_get_root_node(&doc), 0);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	if (o && !json_is_string(json_object_get(o, "lvl"))) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

static const char *str_of(json_t *o, const char *key)
{
	return jstr(o, key, "");
}

/* "2026-12-03T14:47:25.471730" (UTC) in seconds; 0 if unreadable. */
static double record_time(json_t *rec)
{
	struct tm tm = { 0 };
	double sec;

	if (sscanf(str_of(rec, "dt"), "%d-%d-%dT%d:%d:%lf", &tm.tm_year,
		   &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm) + sec;
}

static bool stage_seen(struct walk *w, const char *line)
{
	return w->next < w->nseq &&
	       !regexec(&w->marks[w->next], line, 0, NULL, 0);
}

/* As console.exp does: each stage is the first match after the last. */
static void walk_line(struct walk *w, const char *line, double t)
{
	if (!w->t0)
		w->t0 = t;
	if (!stage_seen(w, line))
		return;
	json_object_set_new(w->timings,
			    stage_name(w->seq[w->next], w->j->w->name),
			    json_integer((json_int_t)((t - w->t0) * 1000)));
	w->next++;
}

/*
 * LAVA's logger writes every " of the console as \" and changes nothing
 * else it keeps: dropping the backslash before each " restores the line.
 */
static size_t unescape_console(char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (!(s[i] == '\\' && i + 1 < len && s[i + 1] == '"'))
			s[n++] = s[i];
	s[n] = '\0';
	return n;
}

static void console_record(struct lava_log *l, json_t *rec)
{
	json_t *msg = json_object_get(rec, "msg");
	size_t len;
	char *text;

	if (!l->console_open || !json_is_string(msg))
		return;
	len = json_string_length(msg);
	text = xmalloc(len + 1);
	memcpy(text, json_string_value(msg), len);
	len = unescape_console(text, len);
	fwrite(text, 1, len, l->console);
	fputc('\n', l->console);
	walk_line(&l->walk, text, record_time(rec));
	free(text);
}

static void results_record(struct lava_log *l, json_t *rec)
{
	json_t *msg = json_object_get(rec, "msg");
	const char *def = str_of(msg, "definition"), *c = str_of(msg, "case");

	if (!strcmp(def, "lava") && !strcmp(c, "job")) {
		json_decref(l->job);
		l->job = json_incref(msg);
	} else if (!strcmp(def, "lava") && !strcmp(c, "execute-qemu")) {
		l->walk.t0 = record_time(rec);
	} else if (!strcmp(def, lava_results_suite())) {
		json_object_set_new(l->cases,
				    str_of(json_object_get(msg, "extra"),
					   "test_case_id"),
				    json_string(str_of(msg, "result")));
	}
}

static void read_line(struct lava_log *l, char *line, size_t len)
{
	json_t *rec;
	const char *lvl;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	/* the server keeps the records as the items of one YAML list */
	if (!strncmp(line, "- {", 3)) {
		line += 2;
		len -= 2;
	}
	rec = parse_record(line, len);
	if (!rec) {
		if (len) {
			free(l->other);
			l->other = xstrdup(line);
		}
		return;
	}
	lvl = str_of(rec, "lvl");
	if (!strcmp(lvl, "target") || !strcmp(lvl, "feedback"))
		console_record(l, rec);
	else if (!strcmp(lvl, "results"))
		results_record(l, rec);
	else if (!strcmp(lvl, "input"))
		l->console_open = false;	/* LAVA's typing, then its echo */
	json_decref(rec);
}

static void read_log(struct lava_log *l, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0)
		read_line(l, line, (size_t)n);
	free(line);
	fclose(f);
}

/* LAVA's Timeout says "<action> timed out after N seconds". */
static bool lava_timed_out(const struct lava_log *l)
{
	return strstr(str_of(l->job, "error_msg"), " timed out after ");
}

/*
 * The console driver's status file. LAVA does not report QEMU's exit
 * status: a job LAVA passed saw the power-down line its last monitor
 * waits for, which stands in for QEMU's clean exit.
 */
static int write_status(const struct lava_log *l, const char *path)
{
	const struct walk *w = &l->walk;
	const char *workload = w->j->w->name;
	size_t last = w->nseq - 1;
	bool done = w->next > last && !strcmp(str_of(l->job, "result"),
					      "pass");
	const char *event = done ? "done" :
			    lava_timed_out(l) ? "timeout" : "eof";
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	fprintf(f, "event=%s\nstage=%s\nqemu_status=%s\n", event,
		stage_name(w->seq[w->next < last ? w->next : last], workload),
		done ? "0" : "unknown");
	for (i = 0; i < w->nseq; i++) {
		const char *name = stage_name(w->seq[i], workload);
		json_t *ms = json_object_get(w->timings, name);

		if (ms && (i < last || done))
			fprintf(f, "t_%s_ms=%lld\n", name,
				(long long)json_integer_value(ms));
	}
	return fclose(f);
}

/* workload -> status, as the classifier read the agent's result lines */
static json_t *console_cases(json_t *record)
{
	json_t *cases = json_object(), *r;
	size_t i;

	json_array_foreach(json_object_get(record, "results"), i, r)
		json_object_set_new(cases, str_of(r, "workload"),
				    json_string(str_of(r, "status")));
	return cases;
}

static void set_reason(json_t *r, char *reason)
{
	json_object_set_new(r, "reason", json_string(reason));
	free(reason);
}

/* LAVA's cases must be the console's; LAVA's error explains ours. */
static void cross_check(json_t *r, const struct lava_log *l)
{
	json_t *mine = console_cases(r);
	char *a, *b;

	if (!json_equal(mine, l->cases)) {
		a = json_dumps(l->cases, JSON_COMPACT | JSON_SORT_KEYS);
		b = json_dumps(mine, JSON_COMPACT | JSON_SORT_KEYS);
		json_object_set_new(r, "outcome", json_string("infra-error"));
		set_reason(r, xasprintf("lava-run: LAVA's cases %s disagree with the console's %s",
					a, b));
		free(a);
		free(b);
	} else if (!strcmp(str_of(r, "outcome"), "infra-error") &&
		   strcmp(str_of(l->job, "result"), "pass")) {
		set_reason(r, xasprintf("%s; lava-run: %s error: %s",
					str_of(r, "reason"),
					str_of(l->job, "error_type"),
					str_of(l->job, "error_msg")));
	}
	json_decref(mine);
	json_object_set_new(r, "lava",
			    json_pack("{s:s, s:s, s:s, s:O}", "job",
				      str_of(l->job, "result"), "error_type",
				      str_of(l->job, "error_type"), "error_msg",
				      str_of(l->job, "error_msg"), "cases",
				      l->cases));
}

static void judge(const struct job *j, const struct lava_log *l, int rc)
{
	char *path = job_path(j, "classify.json"), *why;
	const char *last;
	json_t *r;

	if (!l->job) {
		last = l->other ? l->other : "(no output)";
		why = xasprintf("%s ended (status %d) without a result for the job: %s",
				j->engine->name, rc, last);
		engine_verdict(j, why, last);
		free(why);
		free(path);
		return;
	}
	job_classify(j);
	r = json_load_file(path, 0, NULL);
	if (json_is_object(r)) {
		cross_check(r, l);
		json_dump_file(r, path, JSON_COMPACT);
	}
	json_decref(r);
	free(path);
}

static int render(const struct job *j, const char *scratch, char *job_yaml,
		  char *device_yaml)
{
	json_t *images = lava_images_local(j, scratch);
	int rc = lava_write_job(j, images, job_yaml) ||
		 lava_write_device(j, device_yaml);

	json_decref(images);
	return rc;
}

/*
 * LAVA's download dir of a job, LAVA_TMP/farm-<nonce>, is removed on
 * every way the job can end. LAVA removes it at the end of a job it
 * finished; the worker removes it after lava-run, and when a stop
 * signal (passed on by the runner, or the runner's death: pool.c) ends
 * the job, after ending lava-run; the runner, after reaping a worker
 * that was killed (engine reaped); and a run's start, for one whose
 * runner and worker were both killed.
 *
 * Which dirs are stale is told by a lock, not a pid: before lava-run
 * starts, the worker holds an flock on LAVA_TMP/farm-<nonce>.lock, and
 * lava-run inherits it, so it is held while either lives, and a dead
 * owner's lock is free whatever pid comes next. The lock file goes
 * only after its dir; a farm-<nonce> dir without one is stale too,
 * once it is an hour old (a farm from before the locks made none).
 * Whoever takes a free lock (making the file if there is none) removes
 * the dir, then the lock file; an owner takes its lock before lava-run
 * starts and checks that the file it locked is still there.
 */
#define LAVA_TMP_PREFIX "farm-"

/* Seconds lava-run has to cancel its job after a stop, before SIGKILL. */
#define LAVA_STOP_GRACE 2

/* Seconds the runner waits for a reaped job's lock (its lava-run dying). */
#define LAVA_REAP_WAIT 2

/* Seconds before a download dir without a lock file counts as stale. */
#define LAVA_ORPHAN_AGE 3600

static char *lava_tmp_dir(const char *nonce)
{
	return xasprintf("%s/%s%s", LAVA_TMP, LAVA_TMP_PREFIX, nonce);
}

static char *lava_tmp_lock(const char *nonce)
{
	return xasprintf("%s/%s%s.lock", LAVA_TMP, LAVA_TMP_PREFIX, nonce);
}

/* Is fd (locked) still the file at path, or did a sweep unlink it? */
static bool lock_is_path(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * The worker's lock on its job's dir, before the dir exists; not
 * close-on-exec, so lava-run holds it too. The fd, or -1.
 */
static int lava_tmp_claim(const char *nonce)
{
	char *path = lava_tmp_lock(nonce);
	int fd = -1, tries;

	if (mkdir_p(LAVA_TMP))
		goto out;
	for (tries = 0; tries < 10; tries++) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
		if (fd < 0)
			break;
		if (!flock(fd, LOCK_EX) && lock_is_path(fd, path))
			break;
		close(fd);
		fd = -1;
	}
out:
	free(path);
	return fd;
}

/* Removes the dir, then (if that worked) the lock file; drops the lock. */
static void lava_tmp_release(const char *nonce, int fd)
{
	char *dir = lava_tmp_dir(nonce), *lock = lava_tmp_lock(nonce);

	if (!rm_rf(dir))
		unlink(lock);
	close(fd);
	free(dir);
	free(lock);
}

/*
 * Removes a job's dir if no process holds its lock, waiting up to
 * wait_s for one that is dying; leaves a live job's alone. A lock file
 * it does not find it makes, so that an owner starting meanwhile waits;
 * but a dir without one that is younger than LAVA_ORPHAN_AGE may be a
 * live job of a farm from before the locks, and stays.
 */
static void lava_tmp_reclaim(const char *nonce, double wait_s)
{
	char *lock = lava_tmp_lock(nonce), *dir = lava_tmp_dir(nonce);
	double end = now_s() + wait_s;
	struct stat st;
	int fd = -1;

	if (access(lock, F_OK) && errno == ENOENT &&
	    (lstat(dir, &st) || time(NULL) - st.st_mtime < LAVA_ORPHAN_AGE))
		goto out;
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	while (flock(fd, LOCK_EX | LOCK_NB) && now_s() < end)
		usleep(50000);
	if (!flock(fd, LOCK_EX | LOCK_NB) && lock_is_path(fd, lock)) {
		lava_tmp_release(nonce, fd);
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(lock);
	free(dir);
}

/* farm-<16 hex digits>, or the same with .lock: the nonce, or NULL. */
static char *lava_tmp_nonce(const char *name)
{
	size_t n = strlen(LAVA_TMP_PREFIX), i;

	if (strncmp(name, LAVA_TMP_PREFIX, n))
		return NULL;
	name += n;
	for (i = 0; i < NONCE_LEN; i++)
		if (!name[i] || !strchr("0123456789abcdef", name[i]))
			return NULL;
	if (name[i] && strcmp(name + i, ".lock"))
		return NULL;
	return strndup(name, NONCE_LEN);
}

/* Run start: what the jobs of runs killed outright left behind. */
static void lava_run_sweep(void)
{
	DIR *d = opendir(LAVA_TMP);
	struct dirent *de;
	char *nonce;

	if (!d)
		return;
	while ((de = readdir(d))) {
		nonce = lava_tmp_nonce(de->d_name);
		if (nonce)
			lava_tmp_reclaim(nonce, 0);
		free(nonce);
	}
	closedir(d);
}

/* In the runner: a killed worker (deadline, stop grace) could not. */
static void lava_run_reaped(const struct job *j)
{
	lava_tmp_reclaim(j->nonce, LAVA_REAP_WAIT);
}

/*
 * The stop signals (job.c) stay blocked in the worker while lava-run
 * runs, and are picked up between polls: no handler runs meanwhile.
 */
static sigset_t lava_stops;

/* lava-run, stdout and stderr to log, with mask; dies with the worker. */
static pid_t lava_spawn(char *const argv[], const char *log,
			const sigset_t *mask)
{
	pid_t worker = getpid(), pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	if (!tie_to_parent(worker, SIGKILL))
		_exit(128 + SIGKILL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		dup2(fd, 0);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", util_prog, argv[0],
		strerror(errno));
	_exit(127);
}

/*
 * Waits for lava-run. After a stop signal (*stop) it gets SIGTERM (LAVA
 * cancels the job: QEMU ends, its dir goes), from the runner with the
 * worker's process group or else from here, and LAVA_STOP_GRACE
 * seconds, then SIGKILL (its QEMU, on lava-run's pty, exits on the
 * hang-up). Its exit status, or 128 + the signal that ended it.
 */
static int lava_wait(pid_t pid, pid_t runner, int *stop)
{
	struct timespec poll = { 0, 20 * 1000 * 1000 };
	double end = 0;
	int st = 0, sig;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (*stop && !end) {
			/* the runner passes a stop on to lava-run too */
			if (getppid() != runner)
				kill(pid, SIGTERM);
			end = now_s() + LAVA_STOP_GRACE;
		}
		if (end && now_s() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		sig = sigtimedwait(&lava_stops, NULL, &poll);
		if (sig > 0 && !*stop)
			*stop = sig;
	}
	if (r < 0)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static int run_lava(const struct job *j, const char *out_dir,
		    char *job_yaml, char *device_yaml, const char *log)
{
	const char *prog = getenv("FARM_LAVA_RUN");
	char *id = xasprintf("%s%s", LAVA_TMP_PREFIX, j->nonce);
	char *const argv[] = { (char *)(prog && *prog ? prog : "lava-run"),
			       "--job-id", id, "--output-dir",
			       (char *)out_dir, "--device", device_yaml,
			       job_yaml, NULL };
	pid_t runner = getppid(), pid;
	int rc = -1, lock, stop = 0;
	sigset_t old;
	char *err;

	/* a stop from here on ends lava-run first, then the worker */
	sigemptyset(&lava_stops);
	sigaddset(&lava_stops, SIGINT);
	sigaddset(&lava_stops, SIGTERM);
	sigaddset(&lava_stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &lava_stops, &old);
	lock = lava_tmp_claim(j->nonce);
	if (lock < 0) {
		err = xasprintf("farm: cannot lock %s/%s.lock: %s\n", LAVA_TMP,
				id, strerror(errno));
		write_text(log, err);
		free(err);
	} else {
		pid = lava_spawn(argv, log, &old);
		rc = pid < 0 ? -1 : lava_wait(pid, runner, &stop);
		lava_tmp_release(j->nonce, lock);
	}
	free(id);
	if (stop)
		raise(stop);	/* pending: job.c's handler once unblocked */
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/*
 * lavacli never sees the lab's token on its command line, where any
 * local user's ps would: it reads identity "farm" from lavacli.yaml
 * (mode 0600) in a private directory (mode 0700) of this run, named to
 * it by XDG_CONFIG_HOME. The directory goes at the runner's exit and,
 * whatever ends the runner and its workers (SIGKILL too), with the last
 * of them: a guard process removes it when they are all gone.
 */
static int lab_config(void)
{
	char *path = xasprintf("%s/lavacli.yaml", lab.dir);
	FILE *f = NULL;
	int fd, bad;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd >= 0 && !fchmod(fd, 0600))
		f = fdopen(fd, "w");
	free(path);
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* single-quoted YAML scalars; lava_lab_use() let no ' or newline in */
	fprintf(f, "%s:\n  uri: '%s://%s'\n  username: '%s'\n  token: '%s'\n",
		LAB_IDENTITY, lab.scheme, lab.host, lab.user, lab.token);
	bad = ferror(f);
	return fclose(f) || bad ? -1 : 0;
}

static void lab_cleanup(void)
{
	if (lab.dir && getpid() == lab.owner)
		rm_rf(lab.dir);
}

/* The guard: a grandchild in a session of its own, past Ctrl-C and kill. */
static void __noreturn lab_guard(int fd)
{
	int i, null = open("/dev/null", O_RDWR);
	pid_t pid = fork();
	char c;

	if (pid)
		_exit(pid < 0 || null < 0);
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (i = 0; i < 3; i++)
		dup2(null, i);
	for (i = 3; i < 1024; i++)
		if (i != fd)
			close(i);
	/* end of file: the runner and every worker have exited */
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	rm_rf(lab.dir);
	_exit(0);
}

static int lab_guard_start(void)
{
	int p[2], st;
	pid_t pid;

	/* close-on-exec: only the runner and its forked workers hold it */
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		lab_guard(p[0]);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	if (waitpid(pid, &st, 0) != pid || st) {
		close(p[1]);
		return -1;
	}
	return 0;	/* p[1] stays open until the runner ends */
}

/* A user or token lavacli.yaml can hold as a quoted scalar. */
static bool lab_word(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == '\'' || *s == 0x7f)
			return false;
	return true;
}

/*
 * The lab at scheme://host (host: HOST[:PORT]), as user with token, from
 * lava submit. No error here quotes the token.
 */
void lava_lab_use(const char *scheme, const char *host, const char *user,
		  const char *token)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	lab.scheme = xstrdup(scheme);
	lab.user = xstrdup(user);
	lab.token = xstrdup(token);
	lab.host = xasprintf("%s/RPC2", host);
	lab.cred = xasprintf("%s://%s:%s", scheme, user, token);
	if (!*lab.token || !lab_word(lab.user) || !lab_word(lab.token) ||
	    !lab_word(lab.host))
		die("lava submit: a user, token or URL lavacli.yaml cannot hold");
	dir = xasprintf("%s/farm-lavacli.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		die("cannot make a private directory %s: %s", dir,
		    strerror(errno));
	lab.dir = dir;
	lab.owner = getpid();
	atexit(lab_cleanup);
	if (lab_config() || lab_guard_start())
		die("cannot write lavacli's identity into %s: %s", dir,
		    strerror(errno));
}

/*
 * lavacli's errors quote the URI, token and all: path is rewritten with
 * the credentials masked (the job dir keeps no token). Its text, or NULL.
 */
static char *lab_mask(const char *path)
{
	char *text = read_text(path, 65536), *masked, *mask;

	if (!text)
		return NULL;
	mask = xasprintf("%s://<user>:<token>", lab.scheme);
	masked = str_replace_all(text, lab.cred, mask);
	free(text);
	text = str_replace_all(masked, lab.token, "<token>");
	free(masked);
	free(mask);
	write_text(path, text);
	return text;
}

/*
 * lavacli says why it failed in the last line of out (it prints its
 * errors on stdout): that line, masked, is appended to log so that
 * judge() names it.
 */
static void lab_error(const char *what, const char *out, const char *log)
{
	char *text = lab_mask(out), *line = text ? text : (char *)"";
	size_t n = strlen(line);
	FILE *f;

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	line = strrchr(line, '\n') ? strrchr(line, '\n') + 1 : line;
	f = fopen(log, "a");
	if (f) {
		fprintf(f, "farm: %s: %s\n", what, *line ? line : "failed");
		fclose(f);
	}
	free(text);
}

/* The lab's id for the submitted job, or NULL after lab_error(). */
static char *lab_submit(const struct job *j, char *job_yaml, const char *log)
{
	char *idf = job_path(j, "lava/lab-job-id"), *id = NULL;
	char *const argv[] = { "lavacli", "--identity", LAB_IDENTITY, "jobs",
			       "submit", job_yaml, NULL };

	/* lavacli prints the id, or why not, on stdout */
	if (run_argv(argv, idf, idf, 60) == 0)
		id = read_text(idf, 64);
	if (id)
		id[strcspn(id, "\n")] = '\0';
	if (!id || !*id || strspn(id, "0123456789") != strlen(id)) {
		lab_error("lavacli jobs submit", idf, log);
		free(id);
		id = NULL;
	}
	free(idf);
	return id;
}

/* Submit to the lab, wait for the job, fetch its log into log. */
static int run_lab(const struct job *j, const char *out_dir __maybe_unused,
		   char *job_yaml, char *device_yaml __maybe_unused,
		   const char *log)
{
	char *err = job_path(j, "lava/lavacli.err");
	char *wait_s = xasprintf("%d", (int)job_budget(j) + LAB_QUEUE_SLACK);
	char *id;
	int rc = 1;

	unlink(log);
	/* the worker's lavacli runs find identity LAB_IDENTITY there */
	if (setenv("XDG_CONFIG_HOME", lab.dir, 1))
		goto out_free;
	id = lab_submit(j, job_yaml, log);
	if (!id)
		goto out_free;
	char *const wait[] = { "lavacli", "--identity", LAB_IDENTITY, "jobs",
			       "wait", "--polling", "2", "--timeout", wait_s,
			       id, NULL };
	char *const logs[] = { "lavacli", "--identity", LAB_IDENTITY, "jobs",
			       "logs", "--raw", "--no-follow", id, NULL };

	rc = run_argv(wait, err, err, 0);
	if (rc) {
		lab_error("lavacli jobs wait", err, log);
		goto out;
	}
	rc = run_argv(logs, log, err, 120);
	if (rc) {
		free(lab_mask(err));
		lab_error("lavacli jobs logs", log, log);
	}
out:
	free(id);
out_free:
	free(err);
	free(wait_s);
	return rc;
}

/* The stage marks as POSIX regexes; 0, or -1 naming the bad one. */
static int walk_init(struct walk *w, const struct job *j)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->j = j;
	w->timings = json_object();
	w->nseq = stages_of(j->w->boot->name, w->seq);
	for (i = 0; i < w->nseq; i++) {
		char *re = stage_expand(w->seq[i]->mark, j->nonce,
					j->m->iommu_regex);
		int bad = regcomp(&w->marks[i], re, REG_EXTENDED | REG_NOSUB);

		free(re);
		if (bad)
			return -1;
	}
	return 0;
}

/*
 * How a rendered job runs: dispatch leaves LAVA's log in log, as
 * records, and returns its exit status.
 */
typedef int (*lava_dispatch)(const struct job *j, const char *out_dir,
			     char *job_yaml, char *device_yaml,
			     const char *log);

/* In the worker, instead of console.exp. */
static void __noreturn lava_drive(struct job *j, const char *scratch,
				  lava_dispatch dispatch)
{
	char *out = job_path(j, "lava"), *log = job_path(j, "lava-run.log");
	char *job_yaml = job_path(j, "lava/job.yaml");
	char *device_yaml = job_path(j, "lava/device.yaml");
	char *console = job_path(j, "console.log");
	char *status = job_path(j, "status");
	struct lava_log l = { .cases = json_object() };
	int rc;

	if (walk_init(&l.walk, j)) {
		engine_verdict(j,
			       "farm: a stage mark (or the machine's iommu_regex) is not a POSIX extended regex",
			       j->m->iommu_regex);
		_exit(0);
	}
	if (mkdir_p(out) || render(j, scratch, job_yaml, device_yaml))
		die("cannot write the LAVA job in %s", out);
	rc = dispatch(j, out, job_yaml, device_yaml, log);
	if (scratch)
		unlink(scratch);
	l.console = fopen(console, "w");
	if (!l.console)
		die("cannot write %s", console);
	l.console_open = true;
	read_log(&l, log);
	if (fclose(l.console) || write_status(&l, status))
		die("cannot write %s or %s", console, status);
	judge(j, &l, rc);
	_exit(0);
}

static void __noreturn lava_run_exec(struct job *j, const char *scratch)
{
	lava_drive(j, scratch, run_lava);
}

/* lava_lab_use() has named the lab it submits to. */
static void __noreturn lava_lab_exec(struct job *j, const char *scratch)
{
	lava_drive(j, scratch, run_lab);
}

const struct engine engine_lava_run = {
	.name = "lava-run",
	.exec = lava_run_exec,
	.start = lava_run_sweep,
	.reaped = lava_run_reaped,
};

const struct engine engine_lava_lab = {
	.name = "lava-lab",
	.exec = lava_lab_exec,
};
