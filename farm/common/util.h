/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host tools' shared helpers: allocation that cannot fail, files,
 * running a child under a deadline, the host's Debian architecture.
 * Every host program (runner, classifier, gate) links this once.
 */
#ifndef FARM_COMMON_UTIL_H
#define FARM_COMMON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __printf(a, b) __attribute__((__format__(__printf__, a, b)))
#define __noreturn __attribute__((__noreturn__))
#define __maybe_unused __attribute__((__unused__))

/* The program name die() and warnx() print first ("farm", "gate"). */
extern const char *util_prog;

void die(const char *fmt, ...) __printf(1, 2) __noreturn;
void warnx(const char *fmt, ...) __printf(1, 2);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __printf(1, 2);
double now_s(void);
bool is_file(const char *path);
bool is_dir(const char *path);
int mkdir_p(const char *path);
int rm_rf(const char *path);
char *read_text(const char *path, size_t max);
int write_text(const char *path, const char *text);
int copy_file(const char *from, const char *to);
char *str_replace_all(const char *s, const char *from, const char *to);
const char *host_arch(void);

/*
 * Processes that die with their parent. tie_to_parent(), in a child just
 * forked by parent: the kernel sends it sig when parent dies, however
 * parent dies (PR_SET_PDEATHSIG, which exec keeps); false if parent has
 * died already, and the child should exit. After tie_children(), every
 * child fork_call() and run_argv() make is tied to its maker with SIGKILL.
 * exec_tied() is for a program started by another program: it ties
 * itself to its parent, which must be named parent_comm (its /proc comm)
 * or it has died already, and execs argv; farm-runner does it when called
 * as "farm-runner " EXEC_TIED_OPT " PARENT_COMM PROG [ARG]...".
 */
#define EXEC_TIED_OPT "--exec-tied"
bool tie_to_parent(pid_t parent, int sig);
void tie_children(void);
void exec_tied(const char *parent_comm, char *const argv[]) __noreturn;

/*
 * Calls fn(arg) in a child process (which exits 0 if fn returns). With
 * timeout_s > 0 the child gets a process group of its own, killed whole
 * past the deadline; with 0 it stays in ours, so a foreground program
 * keeps the terminal. Returns the exit status, 128 + signal, or -1 if
 * the child could not be made.
 */
int fork_call(void (*fn)(void *), void *arg, double timeout_s);

/*
 * fork_call() for a program: runs argv with stdout to out_path and stderr to err_path (NULL:
 * inherited; the same path: both in one file). With timeout_s > 0 the
 * child gets a process group of its own, killed whole past the
 * deadline; with 0 it stays in ours, so a foreground program keeps the
 * terminal. Returns the exit status, 128 + signal, or -1 if it could
 * not start.
 */
int run_argv(char *const argv[], const char *out_path, const char *err_path,
	     double timeout_s);

#endif /* FARM_COMMON_UTIL_H */
