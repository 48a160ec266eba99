// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU runs as an unprivileged user when the farm runs as root: a guest
 * that breaks out of QEMU (already under -sandbox: no setuid, fork or
 * exec) is nobody on the host, with no supplementary groups, no
 * capabilities and no way to gain any (no_new_privs).
 *
 * QEMU is started through a tie, "farm-runner --exec-tied PARENT", which
 * makes it die with the program that starts it (util.h). As root the
 * tie does the rest before it execs QEMU, in this order:
 *
 *   --in DIR      enters the job's dir, so QEMU opens the job's own files
 *                 (scratch disk, per-job images) by their names in it,
 *                 however private the directories above it are;
 *   --pidfile F   writes its own pid to F, which after the exec is
 *                 QEMU's: QEMU itself could not create a file in the
 *                 job's dir, nor resolve the path of one there (its
 *                 -pidfile wants both), and its -pidfile word is dropped;
 *   --as U:G[:K]  becomes user U, group G, no supplementary groups but
 *                 K (the group of /dev/kvm, for a KVM guest only), and
 *                 sets no_new_privs; then ties itself to its parent (a
 *                 change of user would have undone an earlier tie).
 *
 * Before that, the worker hands the job's own images to QEMU's user
 * (chown, keeping their mode: a 0600 file stays private to root and
 * that user) and checks, as that user, that QEMU can read every image
 * and write its scratch disk; a job whose QEMU could not is an
 * infra-error naming the file, never a boot that fails halfway.
 *
 * Not as root, QEMU runs as the farm's user, with its words as they are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu-user.h"

#define QEMU_USER_DEFAULT "nobody"

/* user, uid, read or write, the file, why, readable or writable */
#define CANNOT_USE \
	"farm: QEMU runs as %s (uid %u), who cannot %s %s: %s; make it and every directory above it %s by that user, or set FARM_QEMU_USER"

static struct {
	bool drop;		/* QEMU runs as uid:gid, not as the farm */
	uid_t uid;
	gid_t gid;
	char *name;
} qu;

void qemu_user_init(void)
{
	const char *name = getenv("FARM_QEMU_USER");
	bool asked = name && *name;
	struct passwd *pw;

	if (geteuid() != 0 || qu.name)
		return;
	if (!asked)
		name = QEMU_USER_DEFAULT;
	pw = getpwnam(name);
	if (!pw && asked)
		die("FARM_QEMU_USER=%s: no such user", name);
	if (!pw) {
		warnx("no user %s on this host: QEMU runs as root (set FARM_QEMU_USER)",
		      name);
		return;
	}
	if (pw->pw_uid && !pw->pw_gid)
		die("QEMU's user %s has the root group: give it a group of its own",
		    name);
	qu.name = xstrdup(name);
	qu.uid = pw->pw_uid;
	qu.gid = pw->pw_gid;
	qu.drop = pw->pw_uid != 0;	/* FARM_QEMU_USER=root: as root */
}

static void push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

static void push_new(json_t *a, char *s)
{
	push(a, s);
	free(s);
}

/* This program's path, for the ties: rebuilt meanwhile is fine too. */
static const char *self_exe(void)
{
	static const char deleted[] = " (deleted)";
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	size_t d = strlen(deleted);

	if (n < 0)
		die("cannot read /proc/self/exe");
	path[n] = '\0';
	if ((size_t)n > d && !strcmp(path + n - d, deleted))
		path[n - d] = '\0';
	return path;
}

void push_tie(json_t *a, const char *parent)
{
	const char *base = strrchr(parent, '/');

	push(a, self_exe());
	push(a, EXEC_TIED_OPT);
	push(a, base ? base + 1 : parent);
}

/* A path in the job's dir as QEMU sees it there, or NULL if outside. */
static const char *in_job_dir(const struct job *j, const char *path)
{
	size_t n = strlen(j->dir);

	if (strncmp(path, j->dir, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/* QEMU's user and group; for a KVM guest, the group of /dev/kvm too. */
static char *as_word(const struct job *j)
{
	struct stat st;

	if (j->accel == ACCEL_KVM && !stat("/dev/kvm", &st) && st.st_gid &&
	    st.st_gid != qu.gid)
		return xasprintf("%u:%u:%u", (unsigned int)qu.uid,
				 (unsigned int)qu.gid,
				 (unsigned int)st.st_gid);
	return xasprintf("%u:%u", (unsigned int)qu.uid, (unsigned int)qu.gid);
}

/* The tie's options for QEMU's words from its binary on (binary). */
static void push_drop(json_t *a, const struct job *j, char *const *binary)
{
	char *const *q;

	push(a, "--in");
	push(a, j->dir);
	for (q = binary; *q; q++) {
		if (!strcmp(*q, "-pidfile") && q[1] && in_job_dir(j, q[1])) {
			push(a, "--pidfile");
			push(a, in_job_dir(j, q[1]));
			break;
		}
	}
	push(a, "--as");
	push_new(a, as_word(j));
}

void qemu_user_push(json_t *a, const struct job *j, char *const *qemu)
{
	bool drop = qu.drop && j->dir, tied = false;
	char *prefix = drop ? xasprintf("%s/", j->dir) : NULL;
	char *const *q;

	for (q = qemu; *q; q++) {
		if (!tied && q > qemu && !strcmp(*q, j->m->qemu)) {
			push_tie(a, qemu[0]);
			if (drop)
				push_drop(a, j, q);
			tied = true;
		}
		if (!tied || !drop) {
			push(a, *q);
		} else if (!strcmp(*q, "-pidfile") && q[1] &&
			   in_job_dir(j, q[1])) {
			q++;	/* the tie writes it */
		} else {
			push_new(a, str_replace_all(*q, prefix, ""));
		}
	}
	free(prefix);
}

char **qemu_user_argv(const struct job *j, char **qemu)
{
	json_t *a;
	char **argv;

	if (!qu.drop || !j->dir)
		return qemu;
	a = json_array();
	qemu_user_push(a, j, qemu);
	argv = argv_from_json(a);
	json_decref(a);
	argv_free(qemu);
	return argv;
}

/*
 * Becomes uid:gid with the supplementary groups given (none: n = 0)
 * and no way back: 0, or -1 with errno set.
 */
static int become(uid_t uid, gid_t gid, const gid_t *groups, size_t n)
{
	int cap;

	/* an empty bounding set too, for all that no_new_privs makes it moot */
	for (cap = 0; !prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); cap++)
		;
	if (setgroups(n, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	if (uid && !setuid(0)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/*
 * The job's images, each {"label", "path", "words"}: those in the job's
 * dir are QEMU's user's now. NULL, or why one could not be.
 */
static char *hand_over(const struct job *j, json_t *images)
{
	const char *path;
	json_t *img;
	size_t i;
	int fd;

	json_array_foreach(images, i, img) {
		path = jstr(img, "path", "");
		if (!in_job_dir(j, path))
			continue;
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fchown(fd, qu.uid, qu.gid)) {
			if (fd >= 0)
				close(fd);
			return xasprintf("farm: cannot hand %s to QEMU's user %s: %s",
					 path, qu.name, strerror(errno));
		}
		close(fd);
	}
	return NULL;
}

/* In a child, as QEMU's user in the job's dir: the first image it cannot use. */
static void __noreturn check_images(const struct job *j, json_t *images,
				    int out)
{
	const char *path, *rel;
	int bad[2] = { -1, 0 }, mode;
	json_t *img;
	size_t i;

	if (chdir(j->dir) || become(qu.uid, qu.gid, NULL, 0)) {
		bad[1] = errno;
	} else {
		json_array_foreach(images, i, img) {
			path = jstr(img, "path", "");
			rel = in_job_dir(j, path);
			mode = strcmp(jstr(img, "label", ""), "scratch") ?
			       R_OK : R_OK | W_OK;
			if (access(rel ? rel : path, mode)) {
				bad[0] = (int)i;
				bad[1] = errno;
				break;
			}
		}
	}
	if (bad[1] && write(out, bad, sizeof(bad)) != (ssize_t)sizeof(bad))
		_exit(2);
	_exit(bad[1] ? 1 : 0);
}

static char *cannot_check(const struct job *j, int err)
{
	return xasprintf("farm: cannot check %s's access to the job's images in %s: %s",
			 qu.name, j->dir, strerror(err));
}

char *qemu_user_prepare(const struct job *j, json_t *images)
{
	json_t *img;
	int p[2], bad[2] = { -1, 0 }, st;
	bool scratch_img;
	char *why;
	pid_t pid;

	if (!qu.drop || !j->dir)
		return NULL;
	why = hand_over(j, images);
	if (why)
		return why;
	if (pipe2(p, O_CLOEXEC))
		return cannot_check(j, errno);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		check_images(j, images, p[1]);
	close(p[1]);
	if (pid < 0 || read(p[0], bad, sizeof(bad)) < 0)
		bad[1] = errno ? errno : EIO;
	close(p[0]);
	if (pid > 0 && (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			(WEXITSTATUS(st) && !bad[1])))
		bad[1] = EIO;
	img = json_array_get(images, bad[0] < 0 ? 0 : (size_t)bad[0]);
	scratch_img = !strcmp(jstr(img, "label", ""), "scratch");
	if (bad[0] >= 0)
		why = xasprintf(CANNOT_USE, qu.name, (unsigned int)qu.uid,
				scratch_img ? "write" : "read",
				jstr(img, "path", ""), strerror(bad[1]),
				scratch_img ? "writable" : "readable");
	else if (bad[1])
		why = cannot_check(j, bad[1]);
	return why;
}

static void __noreturn tie_fail(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s %s: %s\n", util_prog, what, arg,
		strerror(errno));
	_exit(127);
}

/* Our own pid, QEMU's after the exec, in path (via path.tmp). */
static int write_pidfile(const char *path)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int bad;

	if (!f) {
		free(tmp);
		return -1;
	}
	fprintf(f, "%d\n", (int)getpid());
	bad = fclose(f) || rename(tmp, path);
	if (bad)
		unlink(tmp);
	free(tmp);
	return bad ? -1 : 0;
}

/* --as UID:GID[:GROUP] */
static int become_as(const char *as)
{
	unsigned int uid, gid, extra;
	gid_t groups[1];
	char c;
	int n = sscanf(as, "%u:%u:%u%c", &uid, &gid, &extra, &c);

	if (n != 2 && n != 3) {
		errno = EINVAL;
		return -1;
	}
	groups[0] = extra;
	return become(uid, gid, groups, n == 3 ? 1 : 0);
}

void qemu_user_exec_tied(const char *parent, char **argv)
{
	const char *dir = NULL, *pidfile = NULL, *as = NULL;

	for (; argv[0] && argv[1]; argv += 2) {
		if (!strcmp(argv[0], "--in"))
			dir = argv[1];
		else if (!strcmp(argv[0], "--pidfile"))
			pidfile = argv[1];
		else if (!strcmp(argv[0], "--as"))
			as = argv[1];
		else
			break;
	}
	if (!argv[0]) {
		errno = EINVAL;
		tie_fail("no program after", EXEC_TIED_OPT);
	}
	if (dir && chdir(dir))
		tie_fail("cannot enter", dir);
	if (pidfile && write_pidfile(pidfile))
		tie_fail("cannot write", pidfile);
	if (as && become_as(as))
		tie_fail("cannot become", as);
	exec_tied(parent, argv);
}
