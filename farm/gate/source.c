// SPDX-License-Identifier: GPL-2.0
/*
 * The source of a release: DIR/debian/changelog's newest entry
 * ("NAME (VERSION) DIST; urgency=...") and `git -C DIR rev-parse HEAD`.
 * Both are optional: a gate run outside the tree simply knows less.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"
#include "util.h"

#define GIT_TIMEOUT_S	10

static void read_changelog(const char *dir, struct source *s)
{
	char *path = xasprintf("%s/debian/changelog", dir);
	char *text = read_text(path, 4096);

	if (text && sscanf(text, "%63[^ (\n] (%63[^)\n])", s->package,
			   s->version) != 2) {
		s->package[0] = '\0';
		s->version[0] = '\0';
	}
	free(text);
	free(path);
}

static bool is_commit(const char *s)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return s[40] == '\n' || s[40] == '\0';
}

static void read_commit(const char *dir, struct source *s)
{
	char tmp[] = "/tmp/gate-git.XXXXXX";
	char *argv[] = { "git", "-C", (char *)dir, "rev-parse", "--verify",
			 "--quiet", "HEAD", NULL };
	char *out;
	int fd = mkstemp(tmp);

	if (fd < 0)
		return;
	close(fd);
	if (run_argv(argv, tmp, "/dev/null", GIT_TIMEOUT_S) == 0) {
		out = read_text(tmp, 64);
		if (out && is_commit(out))
			snprintf(s->commit, sizeof(s->commit), "%.40s", out);
		free(out);
	}
	unlink(tmp);
}

void source_read(const char *dir, struct source *s)
{
	memset(s, 0, sizeof(*s));
	read_changelog(dir, s);
	read_commit(dir, s);
}
