// SPDX-License-Identifier: GPL-2.0
/*
 * agent-unit: a host-side driver for the agent's pure parts, so that
 * tests/quick/agent-unit.t can feed them input and judge the output.
 *
 *   agent-unit cmdline           parse stdin as /proc/cmdline
 *   agent-unit escape CAP        JSON-escape stdin into CAP bytes
 *   agent-unit gunzip            gzip stdin to stdout
 *   agent-unit sacflag           gzip'd .config on stdin: y, n or unknown
 *   agent-unit result NM ND LEN  a result line: NM metrics, ND details
 *                                of LEN bytes each, reason of LEN bytes
 *   agent-unit identity NPCI LEN an identity line: NPCI devices, a
 *                                command line of LEN bytes
 *   agent-unit sha256            SHA-256 of stdin, in hex
 *   agent-unit hmac KEYHEX       HMAC-SHA256 of stdin under the key
 *   agent-unit sign KEYHEX NONCE the console log on stdin with its agent
 *                                lines of NONCE chained afresh under the
 *                                key, as the agent writes them
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define MAX_INPUT (64 << 20)

static void die(const char *msg)
{
	fprintf(stderr, "agent-unit: %s\n", msg);
	exit(2);
}

static void __noreturn print_usage(void)
{
	static const char *const commands[] = {
		"cmdline", "escape CAP", "gunzip", "sacflag", "modflags PATH",
		"result NM ND LEN", "words NAME", "identity NPCI LEN", "sha256",
		"hmac KEYHEX", "sign KEYHEX NONCE",
	};
	size_t i;

	fputs("usage: agent-unit COMMAND, one of:\n", stderr);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(stderr, "  %s\n", commands[i]);
	exit(2);
}

static unsigned char *read_stdin(size_t *len)
{
	size_t cap = 65536, n = 0;
	unsigned char *buf = malloc(cap + 1);
	ssize_t r;

	while (buf) {
		if (n == cap) {
			if (cap >= MAX_INPUT)
				die("input too large");
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				break;
		}
		r = read(STDIN_FILENO, buf + n, cap - n);
		if (r < 0)
			die("cannot read stdin");
		if (!r) {
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += r;
	}
	die("out of memory");
	return NULL;
}

static long parse_count(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0 || v > max)
		die("bad number argument");
	return v;
}

static int do_cmdline(void)
{
	struct sac_cmdline *c = malloc(sizeof(*c));
	size_t len;
	char *text = (char *)read_stdin(&len);
	int i;

	if (!c)
		die("out of memory");
	sac_cmdline_parse(c, text, len);
	printf("nonce=%s\n", c->nonce);
	printf("run=");
	for (i = 0; i < c->nrun; i++)
		printf("%s%s", i ? "," : "", c->run[i]);
	printf("\nstall=%s\n", c->stall);
	for (i = 0; i < c->nparams; i++)
		printf("param %s=%s\n", c->params[i].key, c->params[i].value);
	printf("errors=%d\n", c->errors);
	if (c->errors)
		printf("first_error=%s\n", c->first_error);
	return 0;
}

static int do_escape(const char *cap_arg)
{
	size_t cap = parse_count(cap_arg, 1 << 20), len, used;
	char *in = (char *)read_stdin(&len);
	char *out = malloc(cap + 1);

	if (!out)
		die("out of memory");
	used = sac_json_escape(out, cap, in);
	printf("%s\n", cap ? out : "");
	fprintf(stderr, "consumed=%zu\n", used);
	return 0;
}

static int do_gunzip(void)
{
	unsigned char *in, *out;
	size_t len, outlen;
	int rc;

	in = read_stdin(&len);
	rc = sac_gunzip(in, len, &out, &outlen, MAX_INPUT);
	if (rc) {
		fprintf(stderr, "agent-unit: gunzip failed (%d)\n", rc);
		return 1;
	}
	fwrite(out, 1, outlen, stdout);
	return 0;
}

static int do_sacflag(void)
{
	unsigned char *in, *out;
	size_t len, outlen;
	const char *state;

	in = read_stdin(&len);
	if (sac_gunzip(in, len, &out, &outlen, MAX_INPUT)) {
		fprintf(stderr, "agent-unit: gunzip failed\n");
		return 1;
	}
	state = sac_kconfig_state((const char *)out, outlen,
				  "CONFIG_IOMMU_DMA_PCI_SAC");
	printf("%s\n", state);
	return 0;
}

/* A string of len bytes cycling through quotes, controls and high bytes. */
static char *nasty(size_t len)
{
	static const char pool[] = "a\"\\\n\x01\x7f\xc3\xa9z";
	char *s = malloc(len + 1);
	size_t i;

	if (!s)
		die("out of memory");
	for (i = 0; i < len; i++)
		s[i] = pool[i % (sizeof(pool) - 1)];
	s[len] = '\0';
	return s;
}

/* A one-line job: nonce 0123456789abcdef, the all-zero key. */
static void print_line(const char *kind, const char *json)
{
	static const u8 zero[SAC_KEY_LEN];
	static const char nonce[] = "0123456789abcdef";
	char line[SAC_LINE_MAX];
	struct sac_chain c;

	sac_chain_init(&c, zero, nonce);
	fwrite(line, 1, sac_line(line, &c, nonce, kind, json), stdout);
}

static int do_result(const char *nm, const char *nd, const char *len_arg)
{
	long m = parse_count(nm, 100), d = parse_count(nd, 100);
	char *s = nasty(parse_count(len_arg, 100000));
	char json[SAC_JSON_MAX], name[16];
	struct sac_result r;
	struct sac_jw w;
	int i;

	sac_result_init(&r, "blk");
	sac_fail(&r, "data-corruption: %s", s);
	for (i = 0; i < m; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		sac_metric(&r, name, i * 1.5);
	}
	for (i = 0; i < d; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		sac_detail(&r, name, "%s", s);
	}
	sac_jw_init(&w, json, sizeof(json));
	sac_result_json(&w, &r);
	print_line("result", json);
	return 0;
}

/* The details sac_detail_words() makes of stdin, as a result line. */
static int do_words(const char *name)
{
	char json[SAC_JSON_MAX];
	struct sac_result r;
	struct sac_jw w;

	sac_result_init(&r, "installed-boot");
	sac_detail_words(&r, name, stdin);
	sac_jw_init(&w, json, sizeof(json));
	sac_result_json(&w, &r);
	print_line("result", json);
	return 0;
}

static int do_identity(const char *np, const char *len_arg)
{
	long n = parse_count(np, 10000), i;
	char *s = nasty(parse_count(len_arg, SAC_CMDLINE_MAX - 1));
	struct sac_identity id = { .sac = "y" };
	char json[SAC_JSON_MAX];
	struct sac_jw w;

	strcpy(id.uname, "6.1.192-sac-desktop");
	strcpy(id.arch, "x86_64");
	strcpy(id.cmdline, s);
	id.pci = calloc(n + 1, sizeof(*id.pci));
	if (!id.pci)
		die("out of memory");
	for (i = 0; i < n; i++) {
		snprintf(id.pci[i].bdf, sizeof(id.pci[i].bdf),
			 "0000:%02x:%02x.0", (unsigned int)(i / 32) & 0xff,
			 (unsigned int)(i % 32));
		strcpy(id.pci[i].vendor, "1af4");
		strcpy(id.pci[i].device, "1042");
		id.pci[i].group = i % 3 ? (int)i : -1;
		strcpy(id.pci[i].domain, i % 3 ? "DMA-FQ" : "none");
	}
	id.npci = n;
	sac_jw_init(&w, json, sizeof(json));
	sac_identity_json(&w, &id);
	print_line("identity", json);
	return 0;
}

/* @hex (an even number of hex digits) as bytes, malloc'd; *@n of them. */
static u8 *hex_arg(const char *hex, size_t *n)
{
	size_t len = strlen(hex);
	u8 *b = malloc(len / 2 + 1);

	if (!b || len % 2 || sac_hex_decode(hex, b, len / 2))
		die("want an even number of lower-case hex digits");
	*n = len / 2;
	return b;
}

static void print_hex(const u8 *b, size_t n)
{
	char hex[2 * SHA256_LEN + 1];

	sac_hex_encode(b, n, hex);
	printf("%s\n", hex);
}

static int do_sha256(void)
{
	u8 digest[SHA256_LEN];
	struct sha256 h;
	size_t len;
	u8 *in = read_stdin(&len);

	sha256_init(&h);
	sha256_update(&h, in, len);
	sha256_final(&h, digest);
	print_hex(digest, sizeof(digest));
	return 0;
}

static int do_hmac(const char *key_hex)
{
	u8 mac[SHA256_LEN], *key;
	struct hmac_sha256 h;
	size_t len, keylen;
	u8 *in = read_stdin(&len);

	key = hex_arg(key_hex, &keylen);
	hmac_sha256_init(&h, key, keylen);
	hmac_sha256_update(&h, in, len);
	hmac_sha256_final(&h, mac);
	print_hex(mac, sizeof(mac));
	return 0;
}

/*
 * The JSON of "SAC <nonce> <kind> [<seq> <mac> ]<json>" in line[0..n)
 * (no NUL inside), with the kind copied out; NULL for any other line.
 */
static const char *agent_json(const char *line, size_t n, const char *nonce,
			      char *kind)
{
	const char *end = line + n, *p = line + 4 + SAC_NONCE_LEN + 1, *q;
	const char *mac;
	unsigned long seq;
	size_t k = 0;

	if (n < 4 + SAC_NONCE_LEN + 1 || memchr(line, '\0', n) ||
	    memcmp(line, "SAC ", 4) || memcmp(line + 4, nonce, SAC_NONCE_LEN) ||
	    line[4 + SAC_NONCE_LEN] != ' ')
		return NULL;
	while (p + k < end && p[k] >= 'a' && p[k] <= 'z' && k < SAC_NAME_MAX)
		k++;
	if (!k || p + k >= end || p[k] != ' ')
		return NULL;
	memcpy(kind, p, k);
	kind[k] = '\0';
	p += k + 1;
	q = sac_chain_fields(p, end, &seq, &mac);
	return q ? q : p;
}

/* One console line (CRs and newline apart) on stdout, chained if it is the agent's. */
static void sign_line(struct sac_chain *c, const char *nonce, const char *s,
		      size_t n)
{
	char kind[SAC_NAME_MAX + 1], *json, line[SAC_LINE_MAX];
	const char *j = agent_json(s, n, nonce, kind);

	if (!j) {
		fwrite(s, 1, n, stdout);
		return;
	}
	json = strndup(j, s + n - j);
	if (!json)
		die("out of memory");
	fwrite(line, 1, sac_line(line, c, nonce, kind, json) - 1, stdout);
	free(json);
}

static int do_sign(const char *key_hex, const char *nonce)
{
	size_t len, keylen, n, cr;
	u8 *key = hex_arg(key_hex, &keylen);
	char *in = (char *)read_stdin(&len), *p = in, *nl;
	struct sac_chain c;

	if (keylen != SAC_KEY_LEN || strlen(nonce) != SAC_NONCE_LEN)
		die("want a 32-byte key and a 16-digit nonce");
	sac_chain_init(&c, key, nonce);
	while (p < in + len) {
		nl = memchr(p, '\n', in + len - p);
		n = (nl ? nl : in + len) - p;
		/* the console's CRs stay where they were */
		for (cr = 0; cr < n && p[n - cr - 1] == '\r'; cr++)
			;
		sign_line(&c, nonce, p, n - cr);
		fwrite(p + n - cr, 1, cr + (nl ? 1 : 0), stdout);
		p += n + 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "cmdline"))
		return do_cmdline();
	if (argc == 3 && !strcmp(argv[1], "escape"))
		return do_escape(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "gunzip"))
		return do_gunzip();
	if (argc == 3 && !strcmp(argv[1], "modflags"))
		return !printf("%d\n", sac_module_init_flags(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "sacflag"))
		return do_sacflag();
	if (argc == 5 && !strcmp(argv[1], "result"))
		return do_result(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "words"))
		return do_words(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "identity"))
		return do_identity(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "sha256"))
		return do_sha256();
	if (argc == 3 && !strcmp(argv[1], "hmac"))
		return do_hmac(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "sign"))
		return do_sign(argv[2], argv[3]);
	print_usage();
}
