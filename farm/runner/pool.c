// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the jobs, at most N at a time, each in a worker process of its own
 * process group. Every worker is reaped; one that outlives its deadline
 * (stage timeouts plus slack) is killed with its QEMU, so a hung guest or
 * a stuck driver never hangs the farm. SIGINT, SIGTERM and SIGHUP are
 * passed on to every worker, which ends its job and exits (job.c).
 *
 * Nothing outlives the runner: a worker gets SIGTERM when the runner
 * dies, however it dies (SIGKILL and the OOM killer too), and every
 * process under it dies with the one above it: expect with the worker,
 * then timeout, then QEMU (engine-local.c), and the classifier.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "runner.h"

/*
 * Past the worker's own deadline: the console driver may run 5 s past
 * it (engine-local.c), then the classifier up to 20 s (job.c).
 */
#define REAP_SLACK 30

/* Seconds a worker has to end its job after a signal passed on. */
#define STOP_GRACE 3

struct pool {
	struct job *jobs;
	size_t njobs, next, running, done;
	int parallel;
	int stop_signal;		/* the first SIGINT, SIGTERM or SIGHUP */
	double stop_deadline;		/* then: SIGKILL for workers left */
	int fork_errno;			/* a worker could not be made */
};

/*
 * The stop signals stay blocked in the runner and are picked up while
 * it waits between polls, so no handler ever runs in the middle of work.
 * A signal ignored when the run began (nohup) stays ignored.
 */
static sigset_t stop_signals;

static void block_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	sigemptyset(&stop_signals);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], NULL, &sa) || sa.sa_handler != SIG_IGN)
			sigaddset(&stop_signals, sigs[i]);
	sigprocmask(SIG_BLOCK, &stop_signals, NULL);
}

/* Passes sig on to every worker; past STOP_GRACE they are killed. */
static void stop(struct pool *p, int sig)
{
	size_t i;

	if (p->stop_signal)
		return;
	p->stop_signal = sig;
	p->stop_deadline = now_s() + STOP_GRACE;
	for (i = 0; i < p->njobs; i++)
		if (p->jobs[i].pid)
			kill(-p->jobs[i].pid, sig);
}

static void wait_a_little(struct pool *p)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int sig = sigtimedwait(&stop_signals, NULL, &ts);

	if (sig > 0)
		stop(p, sig);
}

static void kill_job(struct job *j)
{
	kill(-j->pid, SIGKILL);
	job_kill_qemu(j);
}

/*
 * What a finished or killed worker (or its console driver) can leave in
 * the job dir: the scratch disk, the keyed image and a half-written
 * *.tmp. What it can leave elsewhere is its engine's to remove
 * (engine.h, reaped).
 */
static void remove_leftovers(const struct job *j)
{
	struct dirent *de;
	DIR *d = opendir(j->dir);
	size_t n;

	if (!d)
		return;
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (!strcmp(de->d_name, "scratch.img") ||
		    !strcmp(de->d_name, JOB_KEYED_IMAGE) ||
		    (n > 4 && !strcmp(de->d_name + n - 4, ".tmp")))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* In the worker: dies with the runner, then runs the job. */
static void __noreturn worker(struct job *j, pid_t runner)
{
	sigprocmask(SIG_UNBLOCK, &stop_signals, NULL);
	setpgid(0, 0);
	if (!tie_to_parent(runner, SIGTERM))
		_exit(128 + SIGTERM);
	job_run(j);
}

static void start(struct pool *p, struct job *j)
{
	pid_t runner = getpid();

	j->started = now_s();
	j->deadline = j->started + job_budget(j) + REAP_SLACK;
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0) {
		/* a job not started, and the others stopped: never left running */
		p->fork_errno = errno;
		j->pid = 0;
		p->next--;
		stop(p, SIGTERM);
		return;
	}
	if (j->pid == 0)
		worker(j, runner);
	setpgid(j->pid, j->pid);
	p->running++;
}

static void finish(struct pool *p, struct job *j)
{
	bool ran = j->pid;

	j->pid = 0;
	if (j->dir)
		remove_leftovers(j);
	if (ran && j->engine->reaped)
		j->engine->reaped(j);
	if (!j->record)
		job_collect(j);
	record_finish(j);
	progress_line(j, p->njobs, ++p->done);
}

static struct job *find(struct pool *p, pid_t pid)
{
	size_t i;

	for (i = 0; i < p->njobs; i++)
		if (p->jobs[i].pid == pid)
			return &p->jobs[i];
	return NULL;
}

/* Kills workers past their deadline, or past the grace after a stop. */
static void enforce(struct pool *p)
{
	double t = now_s();
	size_t i;

	for (i = 0; i < p->njobs; i++) {
		struct job *j = &p->jobs[i];

		if (!j->pid)
			continue;
		if (p->stop_signal ? t < p->stop_deadline : t < j->deadline)
			continue;
		kill_job(j);
		if (!p->stop_signal && !j->record)
			j->record = json_pack("{s:s, s:s, s:s}", "outcome",
					      "infra-error", "reason",
					      "farm: job outlived its deadline and was killed",
					      "evidence", "worker deadline");
	}
}

static void reap(struct pool *p)
{
	struct job *j;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		j = find(p, pid);
		if (!j)
			continue;
		p->running--;
		finish(p, j);
	}
}

static void start_more(struct pool *p)
{
	while (!p->stop_signal && p->next < p->njobs &&
	       p->running < (size_t)p->parallel) {
		struct job *j = &p->jobs[p->next++];

		if (j->preset) {
			job_skip(j);
			finish(p, j);
			continue;
		}
		start(p, j);
	}
}

void pool_run(struct job *jobs, size_t njobs, int parallel)
{
	struct pool p = { .jobs = jobs, .njobs = njobs, .parallel = parallel };

	block_stop_signals();
	while (p.done < njobs) {
		start_more(&p);
		if (p.stop_signal && p.next < njobs && !p.running)
			break;
		enforce(&p);
		reap(&p);
		if (p.done < njobs)
			wait_a_little(&p);
	}
	if (p.fork_errno)
		die("cannot start a worker: fork: %s (%zu of %zu jobs finished)",
		    strerror(p.fork_errno), p.done, njobs);
	if (p.stop_signal)
		die("interrupted by SIG%s: %zu of %zu jobs finished",
		    sigabbrev_np(p.stop_signal), p.done, njobs);
}
