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
 * With --against UNTRIMMED it also proves that a release config trimmed
 * to the farm's modules changed nothing but modules: against the same
 * config before the trim, every option is as it was, or was =m and is
 * now off (a trimmed module), or was =y and is now off (an option Kconfig
 * dropped with the trimmed module it depends on, or that only such a
 * module selected). It prints each change, one a line, then the counts.
 *
 * Usage: kconfig-verify [--against UNTRIMMED] DOTCONFIG FRAGMENT...
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

struct trim_counts {
	unsigned int trimmed, modules_kept, builtin_kept, gone, builtin_gone;
	unsigned int other;
};

/*
 * Sort one option of the untrimmed config (@was, its value there) by
 * what became of it (@now, NULL when the trimmed config has no line for
 * it: Kconfig hid it, as it hides whatever depends on a module that is
 * off); print it unless it is unchanged.
 */
static void count_change(struct trim_counts *c, const char *name,
			 const char *was, const struct option *now)
{
	const char *value = now ? now->value : "n";

	if (!strcmp(was, value)) {
		c->modules_kept += !strcmp(was, "m");
		c->builtin_kept += !strcmp(was, "y");
		return;
	}
	if (!strcmp(was, "m") && !strcmp(value, "n")) {
		printf("%s m -> n trimmed\n", name);
		c->trimmed++;
	} else if (!now) {
		printf("%s %s -> gone with a trimmed module\n", name, was);
		c->gone++;
		c->builtin_gone += !strcmp(was, "y");
	} else {
		printf("%s %s -> %s NOT A TRIM\n", name, was, value);
		c->other++;
	}
}

/*
 * Compare @have with @untrimmed, both ways (an option the trim turned on
 * is in @have alone). Returns the changes that are not a trim.
 */
static unsigned int trim_report(struct option *untrimmed, struct option *have,
				const char *path)
{
	struct trim_counts c = { 0 };
	struct option *opt;

	for (opt = untrimmed; opt; opt = opt->next)
		count_change(&c, opt->name, opt->value,
			     find(have, opt->name));
	for (opt = have; opt; opt = opt->next)
		if (!find(untrimmed, opt->name))
			count_change(&c, opt->name, "n", opt);
	printf("%s: %u modules trimmed (=m -> not set), %u kept; ",
	       path, c.trimmed, c.modules_kept);
	printf("%u =y options kept; %u options gone with the trimmed ",
	       c.builtin_kept, c.gone);
	printf("modules they depend on (%u of them =y); ", c.builtin_gone);
	printf("%u other changes\n", c.other);
	return c.other;
}

int main(int argc, char **argv)
{
	struct option *wanted = NULL, *have = NULL, *untrimmed = NULL;
	const char *against = NULL;
	unsigned int bad;
	int i, ret = 2;

	if (argc > 2 && !strcmp(argv[1], "--against")) {
		against = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: %s [--against UNTRIMMED] DOTCONFIG FRAGMENT...\n",
			prog);
		return 2;
	}
	if (load(argv[1], argv[1], &have))
		goto out;
	for (i = 2; i < argc; i++)
		if (load(argv[i], argv[i], &wanted))
			goto out;
	if (against && load(against, against, &untrimmed))
		goto out;

	ret = 0;
	if (mismatches(wanted, have, NULL)) {
		fprintf(stderr, "%s: error: %s lost options the fragments request: ",
			prog, argv[1]);
		bad = mismatches(wanted, have, stderr);
		fprintf(stderr, " [%u option%s]\n", bad, bad == 1 ? "" : "s");
		ret = 1;
	}
	if (against && trim_report(untrimmed, have, argv[1])) {
		fprintf(stderr, "%s: error: %s changed more than modules ",
			prog, argv[1]);
		fprintf(stderr, "against %s (lines NOT A TRIM)\n", against);
		ret = 1;
	}
out:
	free_list(wanted);
	free_list(have);
	free_list(untrimmed);
	return ret;
}
