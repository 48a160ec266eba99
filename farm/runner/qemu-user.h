/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's process: started through a tie to its parent (it dies with it)
 * and, when the farm runs as root, as an unprivileged user with no
 * supplementary groups (qemu-user.c).
 */
#ifndef FARM_QEMU_USER_H
#define FARM_QEMU_USER_H

#include "runner.h"

/*
 * In the runner, before any job: as root, QEMU's user is $FARM_QEMU_USER
 * or nobody (one that is root means QEMU runs as root); as anyone else,
 * QEMU runs as that user. Dies naming a FARM_QEMU_USER that is no user.
 */
void qemu_user_init(void);

/* The words that run what follows tied to parent (a program's path). */
void push_tie(json_t *a, const char *parent);

/*
 * Appends the QEMU command qemu (timeout ... QEMU ...) to a with a tie
 * before the machine's binary: it dies with its parent, and runs as
 * QEMU's user in the job's dir, which writes qemu.pid for it.
 */
void qemu_user_push(json_t *a, const struct job *j, char *const *qemu);

/* qemu, freed, with the tie as above; as is unless QEMU changes user. */
char **qemu_user_argv(const struct job *j, char **qemu);

/*
 * In the worker, before QEMU starts: the job's own images (images, as
 * job_images gives them) go to QEMU's user (their mode kept), then every
 * image is checked as that user. NULL, or why QEMU could not use one
 * (the caller frees it).
 */
char *qemu_user_prepare(const struct job *j, json_t *images);

/* farm-runner --exec-tied PARENT [--in DIR] [--pidfile F] [--as U:G[:G]] */
void qemu_user_exec_tied(const char *parent, char **argv) __noreturn;

#endif /* FARM_QEMU_USER_H */
