// SPDX-License-Identifier: GPL-2.0
/* Small helpers every host tool shares: see util.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *util_prog = "farm";

/* One line on stderr: "PROG: " and what, then the message. */
static void vsay(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", util_prog, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("error: ", fmt, ap);
	va_end(ap);
	exit(2);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return p;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	char *s;
	int ret = 0;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			ret = -1;
		*s = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		ret = -1;
	free(p);
	return ret;
}

/* Removes a tree without following symlinks out of it. */
int rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		ret |= rm_rf(sub);
		free(sub);
	}
	closedir(d);
	return ret | rmdir(path);
}

/* Reads at most max bytes of a file as a string; NULL if unreadable. */
char *read_text(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = xmalloc(max + 1);
	n = fread(buf, 1, max, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* Copies a file through a temporary name, so no half copy is left. */
int copy_file(const char *from, const char *to)
{
	char *tmp = xasprintf("%s.tmp%d", to, getpid()), buf[1 << 16];
	int in, out, ret = -1;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		goto out_free;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		goto out_in;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (close(out) == 0 && n == 0 && rename(tmp, to) == 0)
		ret = 0;
	else
		unlink(tmp);
out_in:
	close(in);
out_free:
	free(tmp);
	return ret;
}

char *str_replace_all(const char *s, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = strstr(s, from); p; p = strstr(p + flen, from))
		n++;
	out = xmalloc(strlen(s) + n * tlen + 1);
	o = out;
	while ((p = strstr(s, from))) {
		memcpy(o, s, p - s);
		o += p - s;
		memcpy(o, to, tlen);
		o += tlen;
		s = p + flen;
	}
	strcpy(o, s);
	return out;
}

/* The host's Debian architecture name (amd64, arm64), from uname. */
const char *host_arch(void)
{
	static struct utsname u;

	uname(&u);
	if (!strcmp(u.machine, "x86_64"))
		return "amd64";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	return u.machine;
}

static void redirect(const char *path, int to)
{
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		_exit(127);
	dup2(fd, to);
	close(fd);
}

struct exec_args {
	char *const *argv;
	const char *out_path, *err_path;
};

static void child_exec(void *arg)
{
	const struct exec_args *e = arg;
	int fd;

	redirect(e->out_path, 1);
	if (e->err_path && e->out_path && !strcmp(e->err_path, e->out_path))
		dup2(1, 2);
	else
		redirect(e->err_path, 2);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	execvp(e->argv[0], e->argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", util_prog, e->argv[0],
		strerror(errno));
	_exit(127);
}

/* Set by tie_children(): fork_call()'s children die with their maker. */
static bool tie_forks;

bool tie_to_parent(pid_t parent, int sig)
{
	return !prctl(PR_SET_PDEATHSIG, sig) && getppid() == parent;
}

void tie_children(void)
{
	tie_forks = true;
}

/* Is our parent (still) the process named comm, truncated as /proc does? */
static bool parent_is(const char *comm)
{
	char *path = xasprintf("/proc/%d/comm", (int)getppid());
	char *text = read_text(path, 64);
	bool yes;

	free(path);
	if (text)
		text[strcspn(text, "\n")] = '\0';
	yes = text && !strncmp(text, comm, 15) &&
	      strlen(text) == (strlen(comm) < 15 ? strlen(comm) : 15);
	free(text);
	return yes;
}

void exec_tied(const char *parent_comm, char *const argv[])
{
	/*
	 * Tied first, then checked: a parent that dies after the prctl
	 * sends SIGKILL; one that died before has handed us to a reaper.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || !parent_is(parent_comm))
		_exit(128 + SIGKILL);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", util_prog, argv[0],
		strerror(errno));
	_exit(127);
}

int fork_call(void (*fn)(void *), void *arg, double timeout_s)
{
	double end = timeout_s > 0 ? now_s() + timeout_s : 0;
	pid_t pid, parent = getpid();
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (tie_forks && !tie_to_parent(parent, SIGKILL))
			_exit(128 + SIGKILL);
		if (end)
			setpgid(0, 0);
		fn(arg);
		_exit(0);
	}
	if (end)
		setpgid(pid, pid);
	for (;;) {
		pid_t r = waitpid(pid, &status, end ? WNOHANG : 0);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (end && now_s() > end) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		if (end)
			usleep(20000);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int run_argv(char *const argv[], const char *out_path, const char *err_path,
	     double timeout_s)
{
	struct exec_args e = { argv, out_path, err_path };

	return fork_call(child_exec, &e, timeout_s);
}
