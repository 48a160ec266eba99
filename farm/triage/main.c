// SPDX-License-Identifier: GPL-2.0
/*
 * triage [FILE|-] [--lspci FILE] [--json]: reads a kernel log (dmesg,
 * journalctl -k, a console log, a paste from a bug tracker) and says, per
 * PCI device, whether its IOMMU faults look like the SAC trick's hazard,
 * with the iommu.sac_devices= entry and the quirk line to fix it.
 * Exit status: 0 nothing found, 1 findings, 2 bad usage or unreadable
 * input (one line on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "triage.h"
#include "util.h"

#define EXIT_NOTHING	0
#define EXIT_FOUND	1
#define EXIT_BAD	2

struct options {
	const char *input;	/* "-": stdin */
	const char *lspci;
	bool json;
};

static const char usage[] =
	"usage: triage [FILE|-] [--lspci FILE] [--json]\n"
	"       triage --help\n"
	"\n"
	"Reads a kernel log (plain dmesg, journalctl -k with or without its\n"
	"prefixes, a farm console log, a paste from a bug tracker; standard\n"
	"input when FILE is - or missing) and reports, per PCI device, its IOMMU\n"
	"faults (Intel DMAR, AMD-Vi, Arm SMMUv3, virtio-iommu), whether they\n"
	"look like a device that decodes fewer address bits than its driver\n"
	"claims, and the iommu.sac_devices= entry and quirk line to try.\n"
	"\n"
	"  --lspci FILE   lspci -nn output from the same machine, for vendor:device\n"
	"  --json         one JSON object instead of text\n"
	"\n"
	"Exit status: 0 nothing SAC-related found, 1 findings, 2 bad usage or\n"
	"unreadable input.\n";

static void __noreturn bad_usage(const char *why, const char *arg)
{
	fprintf(stderr, "triage: error: %s%s%s (triage --help)\n", why,
		arg ? " " : "", arg ? arg : "");
	exit(EXIT_BAD);
}

static void parse_opts(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lspci", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->lspci = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(EXIT_NOTHING);
		case ':':
			bad_usage("--lspci wants a FILE", NULL);
		default:
			bad_usage("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		bad_usage("one log at a time, got another:", argv[optind]);
}

static void read_lspci(struct triage *t, const char *path)
{
	int n = tri_read_lspci(t, path);

	if (n < 0)
		die("%s: %s", path, strerror(errno));
	if (!n)
		die("%s: no lspci -nn line in it (\"BB:DD.F class: name [vvvv:dddd]\")",
		    path);
}

static void read_log(struct triage *t, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f)
		die("%s: %s", path, strerror(errno));
	if (tri_read(t, f))
		die("%s: read error: %s", path, strerror(errno));
	if (f != stdin)
		fclose(f);
}

static void write_report(const struct triage *t, bool json)
{
	json_t *o;

	if (!json) {
		tri_report_text(t, stdout);
	} else {
		o = tri_report_json(t);
		if (!o)
			die("out of memory");
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	}
	if (fflush(stdout) || ferror(stdout))
		die("writing the report: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct options o = { .input = "-" };
	const char *label;
	struct triage *t;
	char name[256];
	int rc;

	util_prog = "triage";
	parse_opts(&o, argc, argv);
	t = malloc(sizeof(*t));
	if (!t)
		die("out of memory");
	label = strcmp(o.input, "-") ? o.input : "(stdin)";
	tri_clean_text(name, sizeof(name), label, strlen(label));
	tri_init(t, name);
	if (o.lspci)
		read_lspci(t, o.lspci);
	read_log(t, o.input);
	tri_finish(t);
	write_report(t, o.json);
	rc = tri_found(t) ? EXIT_FOUND : EXIT_NOTHING;
	free(t);
	return rc;
}
