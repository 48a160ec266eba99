// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-verify: check that every option a config fragment asks for
 * survived "make olddefconfig".
 *
 * merge_config.sh only warns when Kconfig drops or rewrites a requested
 * value (an unmet dependency, a typo, an option that no longer exists).
 * A silently dropped CONFIG_IOMMU_DMA_PCI_SAC would ship the wrong
 * flavour, so this tool turns every such difference into a failure.
 *
 * Usage: kconfig-verify DOTCONFIG FRAGMENT...
 * Exit 0 when all requests hold, 1 when some do not, 2 on bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096

struct option {
	char *name;
	char *value;		/* "n" for "is not set" */
	const char *origin;	/* fragment path, NULL for the .config */
	struct option *next;
};

static const char *prog = "kconfig-verify";

static void *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return d;
}

/*
 * Parse one line of a Kconfig file. Returns 1 and fills @name/@value for
 * "CONFIG_X=v" and "# CONFIG_X is not set", 0 for anything else that is
 * allowed (blank lines, comments), -1 for a malformed line.
 */
static int parse_line(char *line, char **name, char **value)
{
	char *eq, *end;

	line[strcspn(line, "\r\n")] = '\0';
	if (!strncmp(line, "# CONFIG_", 9)) {
		end = strstr(line, " is not set");
		if (!end || end[11] != '\0')
			return 0;
		*end = '\0';
		*name = line + 2;
		*value = "n";
		return 1;
	}
	if (line[0] == '\0' || line[0] == '#')
		return 0;
	if (strncmp(line, "CONFIG_", 7))
		return -1;
	eq = strchr(line, '=');
	if (!eq || eq == line + 7)
		return -1;
	*eq = '\0';
	*name = line;
	*value = eq + 1;
	return 1;
}

static struct option *find(struct option *list, const char *name)
{
	for (; list; list = list->next)
		if (!strcmp(list->name, name))
			return list;
	return NULL;
}

/* Read @path into a list; later lines of the same name replace earlier. */
static int load(const char *path, const char *origin, struct option **list)
{
	char line[MAX_LINE], *name, *value;
	struct option *opt;
	unsigned int lineno = 0;
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, path,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		ret = parse_line(line, &name, &value);
		if (ret < 0) {
			fprintf(stderr, "%s: %s:%u: not a Kconfig line\n",
				prog, path, lineno);
			fclose(f);
			return -1;
		}
		if (!ret)
			continue;
		opt = find(*list, name);
		if (!opt) {
			opt = calloc(1, sizeof(*opt));
			if (!opt) {
				fclose(f);
				return -1;
			}
			opt->name = xstrdup(name);
			opt->next = *list;
			*list = opt;
		} else {
			free(opt->value);
		}
		opt->value = xstrdup(value);
		opt->origin = origin;
	}
	fclose(f);
	return 0;
}

static void free_list(struct option *list)
{
	struct option *next;

	for (; list; list = next) {
		next = list->next;
		free(list->name);
		free(list->value);
		free(list);
	}
}

/*
 * Count the requests that the final config does not honour, printing
 * each one to @out when it is not NULL.
 */
static unsigned int mismatches(struct option *wanted, struct option *have,
			       FILE *out)
{
	struct option *opt, *got;
	unsigned int bad = 0;

	for (opt = wanted; opt; opt = opt->next) {
		got = find(have, opt->name);
		if (got && !strcmp(got->value, opt->value))
			continue;
		/* "not set" and absent mean the same to Kconfig. */
		if (!got && !strcmp(opt->value, "n"))
			continue;
		if (out)
			fprintf(out, "%s%s=%s (from %s, got %s)",
				bad ? ", " : "", opt->name, opt->value,
				opt->origin, got ? got->value : "nothing");
		bad++;
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct option *wanted = NULL, *have = NULL;
	unsigned int bad;
	int i, ret = 2;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DOTCONFIG FRAGMENT...\n", prog);
		return 2;
	}
	if (load(argv[1], argv[1], &have))
		goto out;
	for (i = 2; i < argc; i++)
		if (load(argv[i], argv[i], &wanted))
			goto out;

	ret = 0;
	if (!mismatches(wanted, have, NULL))
		goto out;

	fprintf(stderr, "%s: error: %s lost options the fragments request: ",
		prog, argv[1]);
	bad = mismatches(wanted, have, stderr);
	fprintf(stderr, " [%u option%s]\n", bad, bad == 1 ? "" : "s");
	ret = 1;
out:
	free_list(wanted);
	free_list(have);
	return ret;
}
