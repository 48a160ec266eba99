// SPDX-License-Identifier: GPL-2.0
/*
 * triage-fuzz [-n N] [-s SEED] [-e EVERY] [-x I] [-k DIR] TRIAGE SAMPLE...
 *
 * Feeds N inputs made from the SAMPLE logs by a small deterministic
 * generator (random byte flips, junk and NUL/CR bytes, cut, doubled and
 * deleted spans, very long lines, and fragments of every fault format
 * spliced in with random numbers) to triage's own code, in this process
 * (tri_read, tri_finish, both reports; built with -fsanitize this is the
 * sanitizer run), every fifth with a mutated lspci file. Every EVERY-th
 * input (default 20, 0: never) also goes to the TRIAGE program, which
 * must exit 0 or 1 with nothing on stderr, its --json output parsing.
 * The inputs depend only on SEED and their number: -x I writes input I to
 * DIR (default .) instead, to replay a failure. Prints one summary line;
 * exit 0 when every input passed.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "triage.h"
#include "util.h"

#define MAX_SAMPLES	32
#define SAMPLE_MAX	(256 * 1024)
#define INPUT_MAX	(96 * 1024)

struct buf {
	char *p;
	size_t n;
};

static uint64_t rng_state = 0x5ac0ffee00c0ffeeULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

/* Pieces of every format triage reads, to splice in with random numbers. */
static const char *const pieces[] = {
	"DMAR: [DMA Read NO_PASID] Request device [", "DMAR: [DMA Write] Request device [",
	"] fault addr 0x", " [fault reason 0x", "] PTE Read access is not set",
	"DMAR: DRHD: handling fault status reg ", "DMAR:[fault reason ",
	"DMAR: [INTR-REMAP] Request device [", " PASID ffffffff",
	"AMD-Vi: Event logged [", "AMD-Vi: Event logged [IO_PAGE_FAULT device=",
	"IO_PAGE_FAULT device=", " domain=0x", " address=0x", " flags=0x", "]",
	"ahci 0000:28:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d address=0x",
	"arm-smmu-v3 9050000.smmuv3: event 0x", " received:",
	"arm-smmu-v3 9050000.smmuv3: \t0x", "arm-smmu-v3 x: event: F_TRANSLATION client: ",
	" sid: 0x", " iova: 0x", "arm-smmu-v3 9050000.smmuv3: EVTQ overflow detected",
	"arm-smmu 1.iommu: Unhandled context fault: iova=0x",
	"virtio_iommu virtio0: page fault from EP ", " at 0x", " [RW]",
	"dmar_fault: ", " callbacks suppressed", ": Using ", "-bit DMA addresses",
	"32-bit IOVA space full iommu.sac_devices=", "pci 0000:00:02.0: [",
	"SAC 5ac0ffee00c0ffee identity {\"pci\":[{\"bdf\":\"", "\",\"vendor\":\"",
	"SAC 5ac0ffee00c0ffee result {\"workload\":\"edu-lying\",\"status\":\"fail\",\"reason\":\"data-corruption\",\"details\":{\"dev0\":\"",
	"SAC 5ac0ffee00c0ffee result 3 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef ",
	" ws=", " above_4g=", " iova=0x", "-0x", " coh_tx=0x", "\",\"dev0.xfer", "\":\"src=0x",
	" dst=0x", "\"}}",
	"Reached target ", "A start job is running for ", " (",
	"Linux version ", "Kernel command line: iommu.forcedac=1 iommu.sac_devices=",
	"00:02.0", "0000:ff:1f.7", "0x00:0x02.0x0", ":", ".", "[  12.345678] ", "> ",
	"Dec 04 10:00:01 host kernel: ", "\r\n", "\n", "\t",
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > INPUT_MAX)
		n = INPUT_MAX - b->n;
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_number(struct buf *b)
{
	static const char *const fmts[] = { "%llx", "%llu", "%016llx", "0x%llx" };
	char num[40];
	unsigned long long v = rnd() >> below(64);

	snprintf(num, sizeof(num), fmts[below(4)], v);
	put(b, num, strlen(num));
}

/* Replaces b[at..at+cut) with what @fill writes. */
static void splice(struct buf *b, size_t at, size_t cut,
		   void (*fill)(struct buf *, void *), void *arg)
{
	struct buf mid = { xmalloc(INPUT_MAX), 0 };
	size_t tail = b->n - at - cut, room;

	fill(&mid, arg);
	room = INPUT_MAX - at;
	if (mid.n > room)
		mid.n = room;
	if (tail > room - mid.n)
		tail = room - mid.n;
	memmove(b->p + at + mid.n, b->p + at + cut, tail);
	memcpy(b->p + at, mid.p, mid.n);
	b->n = at + mid.n + tail;
	free(mid.p);
}

static void fill_pieces(struct buf *m, void *arg)
{
	int i, n = 1 + (int)below(6);

	(void)arg;
	for (i = 0; i < n; i++) {
		const char *s = pieces[below(ARRAY_SIZE(pieces))];

		put(m, s, strlen(s));
		if (below(2))
			put_number(m);
	}
}

static void fill_junk(struct buf *m, void *arg)
{
	size_t i, n = below(64);
	char c;

	(void)arg;
	for (i = 0; i < n; i++) {
		c = below(4) ? (char)rnd() : "\0\r\n\xff"[below(4)];
		put(m, &c, 1);
	}
}

static void fill_long(struct buf *m, void *arg)
{
	size_t i, n = 8000 + below(12000);
	char c = (char)('A' + below(26));

	(void)arg;
	for (i = 0; i < n; i++)
		put(m, &c, 1);
}

static void fill_copy(struct buf *m, void *arg)
{
	const struct buf *b = arg;
	size_t at = below(b->n), n = below(b->n - at + 1);

	put(m, b->p + at, n < 4096 ? n : 4096);
}

static void fill_none(struct buf *m, void *arg)
{
	(void)m;
	(void)arg;
}

static void mutate(struct buf *b)
{
	size_t at = below(b->n + 1), cut = below(b->n - at + 1) % 512;
	struct buf copy;

	switch (below(7)) {
	case 0:
		if (b->n)
			b->p[below(b->n)] ^= (char)(1 << below(8));
		break;
	case 1:
	case 2:
		splice(b, at, below(2) ? 0 : cut, fill_pieces, NULL);
		break;
	case 3:
		splice(b, at, 0, fill_junk, NULL);
		break;
	case 4:
		splice(b, at, cut, fill_none, NULL);
		break;
	case 5:
		copy.p = xmalloc(b->n + 1);
		copy.n = b->n;
		memcpy(copy.p, b->p, b->n);
		splice(b, at, 0, fill_copy, &copy);
		free(copy.p);
		break;
	case 6:
		if (!below(8))
			splice(b, at, 0, fill_long, NULL);
		else
			b->n = at;	/* cut short */
		break;
	}
}

/* A window of a sample (or nothing: a log of pieces alone), mutated. */
static void make_input(struct buf *b, const struct buf *samples, int n_samples)
{
	const struct buf *s = &samples[below(n_samples)];
	size_t at, n, i, rounds = 1 + below(12);

	b->n = 0;
	if (below(6)) {
		at = below(s->n);
		n = below(s->n - at + 1);
		put(b, s->p + at, n);
	}
	for (i = 0; i < rounds; i++)
		mutate(b);
}

static int write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return -1;
	bad = fwrite(b->p, 1, b->n, f) != b->n;
	return fclose(f) || bad ? -1 : 0;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* Runs the TRIAGE program; "" when it behaved, else what went wrong. */
static const char *run(const char *triage, const char *in, const char *lspci,
		       bool json, const char *out, const char *err)
{
	const char *argv[6] = { triage, in };
	int argc = 2, st;
	json_t *o;
	pid_t pid;

	if (json)
		argv[argc++] = "--json";
	if (lspci) {
		argv[argc++] = "--lspci";
		argv[argc++] = lspci;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return "fork failed";
	if (!pid) {
		if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
			_exit(127);
		execv(triage, (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return "waitpid failed";
	if (WIFSIGNALED(st))
		return "the program was killed by a signal";
	if (WEXITSTATUS(st) > 1)
		return "the program's exit status is not 0 or 1";
	if (file_size(err) != 0)
		return "the program wrote to stderr";
	if (!json)
		return "";
	o = json_load_file(out, 0, NULL);
	json_decref(o);
	return o ? "" : "the program's --json output does not parse";
}

/* triage's code on one input, here; "" when it behaved. */
static const char *in_process(const struct buf *in, const char *lspci,
			      FILE *devnull, unsigned long *found)
{
	struct triage *t = xmalloc(sizeof(*t));
	const char *why = "";
	json_t *o, *back;
	char *text;
	FILE *f;

	tri_init(t, "fuzz");
	f = in->n ? fmemopen(in->p, in->n, "r") : fopen("/dev/null", "r");
	if (!f)
		die("fmemopen failed");
	if (lspci && tri_read_lspci(t, lspci) < 0)
		why = "reading the lspci file failed";
	if (tri_read(t, f))
		why = "tri_read failed";
	fclose(f);
	tri_finish(t);
	*found += tri_found(t);
	tri_report_text(t, devnull);
	o = tri_report_json(t);
	text = o ? json_dumps(o, 0) : NULL;
	back = text ? json_loads(text, 0, NULL) : NULL;
	if (!back)
		why = "the JSON report is not valid JSON";
	json_decref(back);
	json_decref(o);
	free(text);
	free(t);
	return why;
}

static int load_samples(char **paths, int n, struct buf *samples)
{
	int i;

	for (i = 0; i < n && i < MAX_SAMPLES; i++) {
		samples[i].p = read_text(paths[i], SAMPLE_MAX);
		if (!samples[i].p)
			die("%s: cannot read", paths[i]);
		samples[i].n = strlen(samples[i].p);
	}
	return i;
}

struct fuzz {
	unsigned long n, every, replay, found;
	bool do_replay;
	const char *dir, *triage;
	struct buf samples[MAX_SAMPLES], in, lspci;
	int n_samples;
	char *f_in, *f_lspci, *f_out, *f_err;
	FILE *devnull;
};

/* Input @i (and its lspci file when it has one) into the files. */
static bool make_files(struct fuzz *z, unsigned long i)
{
	bool lspci = i % 5 == 4;

	make_input(&z->in, z->samples, z->n_samples);
	if (lspci) {
		make_input(&z->lspci, z->samples, z->n_samples);
		z->lspci.n %= 2048;
		put(&z->lspci, "\n28:00.0 SATA [0106]: X [1b21:0612]\n", 36);
		if (write_file(z->f_lspci, &z->lspci))
			die("%s: cannot write", z->f_lspci);
	}
	if ((z->every && i % z->every == 0) || z->do_replay)
		if (write_file(z->f_in, &z->in))
			die("%s: cannot write", z->f_in);
	return lspci;
}

static unsigned long fuzz_all(struct fuzz *z)
{
	unsigned long i, bad = 0;
	const char *why;
	bool lspci;

	for (i = 0; i < z->n; i++) {
		lspci = make_files(z, i);
		why = in_process(&z->in, lspci ? z->f_lspci : NULL, z->devnull,
				 &z->found);
		if (!*why && z->every && i % z->every == 0)
			why = run(z->triage, z->f_in, lspci ? z->f_lspci : NULL,
				  i % 2, z->f_out, z->f_err);
		if (!*why)
			continue;
		bad++;
		printf("input %lu: %s (replay: -x %lu)\n", i, why, i);
	}
	return bad;
}

static void replay(struct fuzz *z)
{
	unsigned long i;
	char *to;

	for (i = 0; i <= z->replay; i++)
		make_files(z, i);
	to = xasprintf("%s/fuzz-%lu.log", z->dir, z->replay);
	if (copy_file(z->f_in, to))
		die("%s: cannot write", to);
	printf("input %lu: %s", z->replay, to);
	free(to);
	if (z->replay % 5 == 4) {
		to = xasprintf("%s/fuzz-%lu.lspci", z->dir, z->replay);
		if (copy_file(z->f_lspci, to))
			die("%s: cannot write", to);
		printf(", lspci file %s", to);
		free(to);
	}
	putchar('\n');
}

static void parse_opts(struct fuzz *z, int argc, char **argv)
{
	static const char usage[] =
		"usage: triage-fuzz [-n N] [-s SEED] [-e EVERY] [-x I] [-k DIR] TRIAGE SAMPLE...";
	int c;

	while ((c = getopt(argc, argv, "n:s:e:x:k:")) != -1) {
		if (c == 'n')
			z->n = strtoul(optarg, NULL, 10);
		else if (c == 's')
			rng_state = strtoull(optarg, NULL, 0) | 1;
		else if (c == 'e')
			z->every = strtoul(optarg, NULL, 10);
		else if (c == 'x')
			z->replay = strtoul(optarg, NULL, 10), z->do_replay = true;
		else if (c == 'k')
			z->dir = optarg;
		else
			die("%s", usage);
	}
	if (argc - optind < 2)
		die("%s", usage);
	z->triage = argv[optind];
	z->n_samples = load_samples(argv + optind + 1, argc - optind - 1,
				    z->samples);
}

static void fuzz_free(struct fuzz *z)
{
	int i;

	for (i = 0; i < z->n_samples; i++)
		free(z->samples[i].p);
	free(z->in.p);
	free(z->lspci.p);
	free(z->f_in);
	free(z->f_lspci);
	free(z->f_out);
	free(z->f_err);
	fclose(z->devnull);
}

int main(int argc, char **argv)
{
	struct fuzz z = { .n = 1000, .every = 20, .dir = "." };
	char tmp[] = "/tmp/triage-fuzz.XXXXXX";
	unsigned long bad = 0;

	util_prog = "triage-fuzz";
	parse_opts(&z, argc, argv);
	if (!mkdtemp(tmp))
		die("mkdtemp failed");
	z.f_in = xasprintf("%s/in", tmp);
	z.f_lspci = xasprintf("%s/lspci", tmp);
	z.f_out = xasprintf("%s/out", tmp);
	z.f_err = xasprintf("%s/err", tmp);
	z.in.p = xmalloc(INPUT_MAX);
	z.lspci.p = xmalloc(INPUT_MAX);
	z.devnull = fopen("/dev/null", "w");
	if (!z.devnull)
		die("/dev/null: cannot open");
	if (z.do_replay)
		replay(&z);
	else
		bad = fuzz_all(&z);
	rm_rf(tmp);
	if (!z.do_replay)
		printf("%lu inputs (%lu with findings), %lu failed\n", z.n,
		       z.found, bad);
	fuzz_free(&z);
	return bad ? 1 : 0;
}
