// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the jobs, at most N at a time, each in a worker process of its own
 * process group. Every worker is reaped; one that outlives its deadline
 * (stage timeouts plus slack) is killed with its QEMU, so a hung guest or
 * a stuck driver never hangs the farm. Ctrl-C ends every job the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

/* Past the worker's own deadline: time for its classifier to finish. */
#define REAP_SLACK 30

/*
 * SIGINT and SIGTERM stay blocked in the runner and are picked up while
 * it waits between polls, so no handler ever runs in the middle of work.
 */
static int interrupted;
static sigset_t stop_signals;

static void wait_a_little(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	if (sigtimedwait(&stop_signals, NULL, &ts) > 0)
		interrupted = 1;
}

static void kill_job(struct job *j)
{
	kill(-j->pid, SIGKILL);
	job_kill_qemu(j);
}

static void start(struct job *j)
{
	j->started = now_s();
	j->deadline = j->started + job_budget(j) + REAP_SLACK;
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0)
		die("fork: %s", strerror(errno));
	if (j->pid == 0) {
		sigprocmask(SIG_UNBLOCK, &stop_signals, NULL);
		setpgid(0, 0);
		job_run(j);
	}
	setpgid(j->pid, j->pid);
}

static void finish(struct job *j, size_t total, size_t *done)
{
	j->pid = 0;
	if (!j->record)
		job_collect(j);
	record_finish(j);
	progress_line(j, total, ++*done);
}

static struct job *find(struct job *jobs, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (jobs[i].pid == pid)
			return &jobs[i];
	return NULL;
}

/* Kills workers past their deadline (all of them once interrupted). */
static void enforce(struct job *jobs, size_t n)
{
	double t = now_s();
	size_t i;

	for (i = 0; i < n; i++) {
		struct job *j = &jobs[i];

		if (!j->pid || (!interrupted && t < j->deadline))
			continue;
		kill_job(j);
		if (!interrupted)
			j->record = json_pack("{s:s, s:s, s:s}", "outcome",
					      "infra-error", "reason",
					      "farm: job outlived its deadline and was killed",
					      "evidence", "worker deadline");
	}
}

static void reap(struct job *jobs, size_t n, size_t *running, size_t *done)
{
	struct job *j;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		j = find(jobs, n, pid);
		if (!j)
			continue;
		(*running)--;
		finish(j, n, done);
	}
}

void pool_run(struct job *jobs, size_t njobs, int parallel)
{
	size_t next = 0, running = 0, done = 0;

	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_signals, NULL);
	while (done < njobs) {
		while (!interrupted && next < njobs && running < (size_t)parallel) {
			struct job *j = &jobs[next++];

			if (j->preset) {
				job_skip(j);
				finish(j, njobs, &done);
				continue;
			}
			start(j);
			running++;
		}
		if (interrupted && next < njobs && !running)
			break;
		enforce(jobs, njobs);
		reap(jobs, njobs, &running, &done);
		if (done < njobs)
			wait_a_little();
	}
	if (interrupted)
		die("interrupted: %zu of %zu jobs finished", done, njobs);
}
