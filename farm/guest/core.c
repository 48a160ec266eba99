// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's pure parts: command line parsing, bounded JSON, result
 * helpers and line framing. No system calls beyond write(2) and the
 * clock, so the host unit test links this file as it is.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/module.h>

#include "agent.h"

static const struct sac_cmdline *cur_cmdline;

void sac_set_cmdline(const struct sac_cmdline *c)
{
	cur_cmdline = c;
}

const struct sac_cmdline *sac_get_cmdline(void)
{
	return cur_cmdline;
}

double sac_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sac_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "sac-agent: ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		return;	/* nowhere left to report it */
}

/* ---- JSON ---- */

/* Writes the escape for c into out (>= 7 bytes); returns its length. */
static size_t json_escape_char(char *out, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"':
	case '\\':
		out[0] = '\\';
		out[1] = c;
		return 2;
	case '\n':
		memcpy(out, "\\n", 2);
		return 2;
	case '\t':
		memcpy(out, "\\t", 2);
		return 2;
	case '\r':
		memcpy(out, "\\r", 2);
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		out[0] = c;
		return 1;
	}
	/* Control and non-ASCII bytes: \u00XX keeps the output pure ASCII. */
	memcpy(out, "\\u00", 4);
	out[4] = hex[c >> 4];
	out[5] = hex[c & 15];
	return 6;
}

size_t sac_json_escape(char *dst, size_t cap, const char *src)
{
	size_t in = 0, out = 0;
	char esc[8];
	size_t n;

	if (!cap)
		return 0;
	for (; src[in]; in++) {
		n = json_escape_char(esc, src[in]);
		if (out + n > cap - 1)
			break;
		memcpy(dst + out, esc, n);
		out += n;
	}
	dst[out] = '\0';
	return in;
}

void sac_jw_init(struct sac_jw *w, char *buf, size_t size)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->cap = size ? size - 1 : 0;	/* room for the terminating NUL */
	w->full = !size;
	if (size)
		buf[0] = '\0';
}

static void jw_put(struct sac_jw *w, const char *s, size_t n)
{
	if (w->full)
		return;
	if (w->len + n > w->cap) {
		w->full = true;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* Escaped string, whole or (cut) as much of it as fits in maxlen. */
static void jw_quoted(struct sac_jw *w, const char *s, size_t maxlen, bool cut)
{
	size_t room, used;

	jw_put(w, "\"", 1);
	if (w->full)
		return;
	room = w->cap - w->len;
	if (room < 1) {
		w->full = true;
		return;
	}
	room -= 1;	/* the closing quote */
	if (room > maxlen)
		room = maxlen;
	used = sac_json_escape(w->buf + w->len, room + 1, s);
	if (s[used] && !cut) {
		w->full = true;
		return;
	}
	w->len += strlen(w->buf + w->len);
	jw_put(w, "\"", 1);
}

/* Comma and key before a new item in the innermost container. */
static void jw_item(struct sac_jw *w, const char *key)
{
	if (w->depth > 0 && w->items[w->depth - 1]++ > 0)
		jw_put(w, ",", 1);
	if (key) {
		jw_quoted(w, key, (size_t)-1, false);
		jw_put(w, ":", 1);
	}
}

/* An item is written whole or not at all, so the text stays valid. */
static void jw_undo_if_full(struct sac_jw *w, size_t len, unsigned int items)
{
	if (!w->full)
		return;
	w->len = len;
	if (w->depth)
		w->items[w->depth - 1] = items;
}

void sac_jw_open(struct sac_jw *w, const char *key, char brace)
{
	char c = brace == '[' ? '[' : '{';
	struct sac_jw_mark m = sac_jw_mark(w);

	if (w->depth >= SAC_JW_DEPTH) {
		w->full = true;
		return;
	}
	jw_item(w, key);
	jw_put(w, &c, 1);
	if (!w->full && w->cap == w->len)
		w->full = true;		/* no room for the closer */
	jw_undo_if_full(w, m.len, m.items);
	/* The closer of a failed open is not written: NUL marks it. */
	w->closer[w->depth] = w->full ? '\0' : (c == '[' ? ']' : '}');
	if (!w->full)
		w->cap--;
	w->items[w->depth++] = 0;
}

void sac_jw_close(struct sac_jw *w)
{
	char c;

	if (!w->depth)
		return;
	c = w->closer[--w->depth];
	if (!c)
		return;
	/* Reserved at open, so it always fits even when the writer is full. */
	w->cap++;
	w->buf[w->len++] = c;
}

void sac_jw_str(struct sac_jw *w, const char *key, const char *val)
{
	struct sac_jw_mark m = sac_jw_mark(w);

	jw_item(w, key);
	jw_quoted(w, val, (size_t)-1, false);
	jw_undo_if_full(w, m.len, m.items);
}

void sac_jw_strcut(struct sac_jw *w, const char *key, const char *val,
		   size_t maxlen)
{
	struct sac_jw_mark m = sac_jw_mark(w);

	jw_item(w, key);
	jw_quoted(w, val, maxlen, true);
	jw_undo_if_full(w, m.len, m.items);
}

/* A number, a literal: anything already formatted as JSON. */
static void jw_raw_item(struct sac_jw *w, const char *key, const char *text)
{
	struct sac_jw_mark m = sac_jw_mark(w);

	jw_item(w, key);
	jw_put(w, text, strlen(text));
	jw_undo_if_full(w, m.len, m.items);
}

void sac_jw_int(struct sac_jw *w, const char *key, long long val)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", val);
	jw_raw_item(w, key, num);
}

void sac_jw_num(struct sac_jw *w, const char *key, double val)
{
	char num[40];

	/* Integers (IOVAs, byte counts) exactly; others to 10 digits. */
	if (isfinite(val) && val == (double)(long long)val)
		snprintf(num, sizeof(num), "%lld", (long long)val);
	else if (isfinite(val))
		snprintf(num, sizeof(num), "%.10g", val);
	else
		strcpy(num, "null");
	jw_raw_item(w, key, num);
}

void sac_jw_bool(struct sac_jw *w, const char *key, bool val)
{
	jw_raw_item(w, key, val ? "true" : "false");
}

struct sac_jw_mark sac_jw_mark(const struct sac_jw *w)
{
	struct sac_jw_mark m = {
		.len = w->len,
		.cap = w->cap,
		.depth = w->depth,
		.items = w->depth ? w->items[w->depth - 1] : 0,
	};

	return m;
}

void sac_jw_rollback(struct sac_jw *w, struct sac_jw_mark m)
{
	w->len = m.len;
	w->cap = m.cap;
	w->depth = m.depth;
	if (w->depth)
		w->items[w->depth - 1] = m.items;
	w->full = false;
}

const char *sac_jw_finish(struct sac_jw *w)
{
	while (w->depth)
		sac_jw_close(w);
	w->buf[w->len] = '\0';
	return w->buf;
}

size_t sac_line(char *line, struct sac_chain *c, const char *nonce,
		const char *kind, const char *json)
{
	size_t n;

	/* SAC_LINE_MAX - 1: room for the newline */
	n = sac_chain_line(c, line, SAC_LINE_MAX - 1, nonce, kind, json);
	if (!n)		/* a bug upstream; stay framed and chained */
		n = sac_chain_line(c, line, SAC_LINE_MAX - 1, nonce, kind,
				   "{\"error\":\"line-too-long\"}");
	line[n++] = '\n';
	line[n] = '\0';
	return n;
}

/* ---- command line ---- */

static bool valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len > SAC_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_'))
			return false;
	}
	return true;
}

static bool valid_nonce(const char *s)
{
	size_t i;

	if (strlen(s) != SAC_NONCE_LEN)
		return false;
	for (i = 0; i < SAC_NONCE_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void cmdline_error(struct sac_cmdline *c, const char *what,
			  const char *tok)
{
	if (!c->errors++)
		snprintf(c->first_error, sizeof(c->first_error), "%s: '%.60s'",
			 what, tok);
}

static int parse_run(struct sac_cmdline *c, const char *val, const char *tok)
{
	const char *p = val, *comma;
	size_t len;

	c->nrun = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		/* A list that is partly wrong runs nothing. */
		if (!valid_name(p, len)) {
			cmdline_error(c, "bad workload name in sac.run", tok);
			c->nrun = 0;
			return -1;
		}
		if (c->nrun == SAC_MAX_RUN) {
			cmdline_error(c, "too many workloads in sac.run", tok);
			c->nrun = 0;
			return -1;
		}
		memcpy(c->run[c->nrun], p, len);
		c->run[c->nrun++][len] = '\0';
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* sac.W.KEY=VALUE; name is "W.KEY". */
static void parse_param(struct sac_cmdline *c, const char *name,
			const char *val, const char *tok)
{
	const char *dot = strchr(name, '.');
	struct sac_param *p = NULL;
	int i;

	if (!dot || !valid_name(name, dot - name) ||
	    !valid_name(dot + 1, strlen(dot + 1)) || !printable(val)) {
		cmdline_error(c, "malformed parameter", tok);
		return;
	}
	if (strlen(val) >= SAC_VALUE_MAX) {
		cmdline_error(c, "parameter value too long", tok);
		return;
	}
	for (i = 0; i < c->nparams; i++)	/* the last one wins */
		if (!strcmp(c->params[i].key, name))
			p = &c->params[i];
	if (!p) {
		if (c->nparams == SAC_MAX_PARAMS) {
			cmdline_error(c, "too many parameters", tok);
			return;
		}
		p = &c->params[c->nparams++];
	}
	strcpy(p->key, name);
	strcpy(p->value, val);
}

static void parse_token(char *tok, void *arg)
{
	struct sac_cmdline *c = arg;
	char *name = tok + 4, *eq;

	if (strncmp(tok, "sac.", 4))
		return;		/* the kernel's or someone else's */
	eq = strchr(name, '=');
	if (!eq) {
		cmdline_error(c, "sac parameter without a value", tok);
		return;
	}
	*eq = '\0';
	if (!strcmp(name, "nonce")) {
		if (valid_nonce(eq + 1))
			strcpy(c->nonce, eq + 1);
		else
			cmdline_error(c, "bad nonce (want 16 lower-case hex)",
				      eq + 1);
	} else if (!strcmp(name, "run")) {
		parse_run(c, eq + 1, eq + 1);
	} else if (!strcmp(name, "stall")) {
		if (valid_name(eq + 1, strlen(eq + 1)))
			strcpy(c->stall, eq + 1);
		else
			cmdline_error(c, "bad sac.stall", eq + 1);
	} else if (strlen(name) < sizeof(c->params[0].key)) {
		parse_param(c, name, eq + 1, name);
	} else {
		cmdline_error(c, "parameter name too long", name);
	}
	*eq = '=';
}

/*
 * Calls fn(word, arg) for each word of text (at most len bytes, which
 * must be below SAC_CMDLINE_MAX), split like the kernel splits its
 * command line: blanks separate, double quotes group and are dropped.
 */
void sac_cmdline_words(const char *text, size_t len,
		       void (*fn)(char *word, void *arg), void *arg)
{
	char tok[SAC_CMDLINE_MAX];
	size_t i, n = 0;
	bool quoted = false;

	for (i = 0; i <= len; i++) {
		char ch = i < len ? text[i] : '\0';

		if (ch == '"') {
			quoted = !quoted;
			continue;
		}
		if (ch && (quoted || (ch != ' ' && ch != '\t' && ch != '\n'))) {
			tok[n++] = ch;
			continue;
		}
		if (n) {
			tok[n] = '\0';
			fn(tok, arg);
			n = 0;
		}
		if (!ch)
			break;
	}
}

/*
 * Reads text as a command line (sac_cmdline_words). Input beyond
 * SAC_CMDLINE_MAX is cut (and counted). Returns the number of
 * malformed sac.* tokens.
 */
int sac_cmdline_parse(struct sac_cmdline *c, const char *text, size_t len)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->nonce, "none");
	if (len >= SAC_CMDLINE_MAX) {
		cmdline_error(c, "command line too long, cut", "");
		len = SAC_CMDLINE_MAX - 1;
	}
	sac_cmdline_words(text, len, parse_token, c);
	return c->errors;
}

const char *sac_cmdline_get(const struct sac_cmdline *c, const char *key)
{
	int i;

	if (!c)
		return NULL;
	for (i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].key, key))
			return c->params[i].value;
	return NULL;
}

const char *sac_kconfig_state(const char *text, size_t len, const char *name)
{
	size_t nl = strlen(name), ll;
	const char *p = text, *end = text + len, *eol;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		ll = eol - p;
		if (ll == nl + 2 && !memcmp(p, name, nl) &&
		    !memcmp(p + nl, "=y", 2))
			return "y";
		if (ll == nl + 13 && !memcmp(p, "# ", 2) &&
		    !memcmp(p + 2, name, nl) &&
		    !memcmp(p + 2 + nl, " is not set", 11))
			return "n";
	}
	return "unknown";
}

/* ---- results ---- */

const char *sac_status_name(enum sac_status s)
{
	switch (s) {
	case SAC_PASS:
		return "pass";
	case SAC_FAIL:
		return "fail";
	case SAC_SKIP:
		return "skip";
	}
	return "fail";
}

void sac_result_init(struct sac_result *r, const char *workload)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", workload);
	r->status = SAC_PASS;
}

void sac_metric(struct sac_result *r, const char *name, double value)
{
	struct sac_metric *m;

	if (r->nmetrics == SAC_MAX_METRICS || !isfinite(value)) {
		r->dropped++;
		return;
	}
	m = &r->metrics[r->nmetrics++];
	snprintf(m->name, sizeof(m->name), "%s%s", r->prefix ?: "", name);
	m->value = value;
}

void sac_detail(struct sac_result *r, const char *name, const char *fmt, ...)
{
	struct sac_detail *d;
	va_list ap;

	if (r->ndetails == SAC_MAX_DETAILS) {
		r->dropped++;
		return;
	}
	d = &r->details[r->ndetails++];
	snprintf(d->name, sizeof(d->name), "%s%s", r->prefix ?: "", name);
	va_start(ap, fmt);
	vsnprintf(d->value, sizeof(d->value), fmt, ap);
	va_end(ap);
}

/*
 * The first word of every line of @f, as details NAME1, NAME2, ...: each
 * a space-separated run that fits a detail's value. A word longer than
 * a value is cut; the lines of /proc/modules have none.
 */
void sac_detail_words(struct sac_result *r, const char *name, FILE *f)
{
	char line[512], run[SAC_DETAIL_MAX], key[SAC_NAME_MAX + 1];
	size_t len = 0, n;
	int part = 0;

	while (fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\n\t ");
		if (len && len + 1 + n >= sizeof(run)) {
			snprintf(key, sizeof(key), "%s%d", name, ++part);
			sac_detail(r, key, "%s", run);
			len = 0;
		}
		len += snprintf(run + len, sizeof(run) - len, "%s%.*s",
				len ? " " : "", (int)n, line);
		len = len < sizeof(run) ? len : sizeof(run) - 1;
	}
	if (!len)
		return;
	snprintf(key, sizeof(key), "%s%d", name, ++part);
	sac_detail(r, key, "%s", run);
}

static void set_status(struct sac_result *r, enum sac_status s,
		       const char *fmt, va_list ap)
{
	if (r->status == SAC_FAIL || (r->status == SAC_SKIP && s == SAC_SKIP))
		return;
	r->status = s;
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
}

void sac_fail(struct sac_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(r, SAC_FAIL, fmt, ap);
	va_end(ap);
}

void sac_skip(struct sac_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(r, SAC_SKIP, fmt, ap);
	va_end(ap);
}

const char *sac_param(const struct sac_result *r, const char *key,
		      const char *def)
{
	char full[SAC_NAME_MAX * 2 + 2];
	const char *v;

	snprintf(full, sizeof(full), "%s.%s", r->workload, key);
	v = sac_cmdline_get(cur_cmdline, full);
	return v ? v : def;
}

int sac_param_uint(struct sac_result *r, const char *key, unsigned long def,
		   unsigned long min, unsigned long max, unsigned long *out)
{
	const char *v = sac_param(r, key, NULL);
	unsigned long n;
	char *end;

	*out = def;
	if (!v)
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || n < min || n > max) {
		sac_fail(r, "bad-parameter: sac.%s.%s=%.40s (want %lu..%lu)",
			 r->workload, key, v, min, max);
		return -1;
	}
	*out = n;
	return 0;
}

u64 sac_nonce_seed(void)
{
	const char *s = cur_cmdline ? cur_cmdline->nonce : "none";
	u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* Serialises r; items that do not fit are dropped whole and counted. */
void sac_result_json(struct sac_jw *w, const struct sac_result *r)
{
	struct sac_jw_mark m;
	int i, dropped = r->dropped;
	const size_t keep = 48;	/* room for the "truncated" detail */
	size_t reserve;

	sac_jw_open(w, NULL, '{');
	sac_jw_str(w, "workload", r->workload);
	sac_jw_str(w, "status", sac_status_name(r->status));
	sac_jw_strcut(w, "reason", r->reason, 700);
	reserve = w->cap >= w->len + 2 * keep ? keep : 0;
	w->cap -= reserve;
	sac_jw_open(w, "metrics", '{');
	for (i = 0; i < r->nmetrics; i++) {
		m = sac_jw_mark(w);
		sac_jw_num(w, r->metrics[i].name, r->metrics[i].value);
		if (w->full) {
			sac_jw_rollback(w, m);
			dropped++;
		}
	}
	sac_jw_close(w);
	sac_jw_open(w, "details", '{');
	for (i = 0; i < r->ndetails; i++) {
		m = sac_jw_mark(w);
		sac_jw_strcut(w, r->details[i].name, r->details[i].value, 400);
		if (w->full) {
			sac_jw_rollback(w, m);
			dropped++;
		}
	}
	w->cap += reserve;
	if (dropped)
		sac_jw_int(w, "truncated", dropped);
	sac_jw_finish(w);
}

void sac_identity_json(struct sac_jw *w, const struct sac_identity *id)
{
	struct sac_jw_mark m;
	const struct sac_pci *p;
	int i;

	sac_jw_open(w, NULL, '{');
	sac_jw_strcut(w, "uname", id->uname, 200);
	sac_jw_strcut(w, "arch", id->arch, 64);
	sac_jw_str(w, "sac", id->sac);
	sac_jw_strcut(w, "cmdline", id->cmdline, 1200);
	w->cap -= 24;	/* room for "pci_total" should the list be cut */
	sac_jw_open(w, "pci", '[');
	for (i = 0; i < id->npci; i++) {
		p = &id->pci[i];
		m = sac_jw_mark(w);
		sac_jw_open(w, NULL, '{');
		sac_jw_str(w, "bdf", p->bdf);
		sac_jw_str(w, "vendor", p->vendor);
		sac_jw_str(w, "device", p->device);
		sac_jw_int(w, "group", p->group);
		sac_jw_str(w, "domain", p->domain);
		sac_jw_close(w);
		if (w->full) {
			sac_jw_rollback(w, m);
			break;
		}
	}
	sac_jw_close(w);
	w->cap += 24;
	if (i < id->npci)
		sac_jw_int(w, "pci_total", id->npci);
	sac_jw_finish(w);
}

int sac_pci_attr(const char *bdf, const char *attr, char *buf, size_t size)
{
	char path[320];
	int rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", SAC_PCI_DIR, bdf, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		rc = -EIO;
	fclose(f);
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int sac_sysfs_write(const char *path, const char *text)
{
	int rc = 0;
	FILE *f;

	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* unbuffered: the kernel's answer to this write is the result */
	setvbuf(f, NULL, _IONBF, 0);
	if (fputs(text, f) == EOF)
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

int sac_pci_write(const char *bdf, const char *attr, const char *text)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%s/%s", SAC_PCI_DIR, bdf, attr);
	return sac_sysfs_write(path, text);
}

unsigned long sac_pci_hex(const char *bdf, const char *attr)
{
	char buf[32];

	if (sac_pci_attr(bdf, attr, buf, sizeof(buf)))
		return 0;
	return strtoul(buf, NULL, 16);
}

bool sac_pci_bound(const char *bdf)
{
	char path[320];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/driver", SAC_PCI_DIR, bdf);
	return lstat(path, &st) == 0;
}

int sac_pci_bind(const char *bdf, const char *driver)
{
	char path[128];
	int rc = sac_pci_write(bdf, "driver_override", driver);

	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/bind", driver);
	return sac_sysfs_write(path, bdf);
}

int sac_kmsg_each(void (*fn)(const char *rec, void *arg), void *arg)
{
	char rec[8192];
	ssize_t n;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;	/* EPIPE: records overwritten, go on */
		if (n <= 0)
			break;		/* EAGAIN: the end of the log */
		rec[n] = '\0';
		fn(rec, arg);
	}
	close(fd);
	return 0;
}

bool sac_pci_find(unsigned long vendor, unsigned long device, bool bound,
		  char *bdf, size_t cap)
{
	struct dirent *e;
	bool found = false;
	DIR *d;

	d = opendir(SAC_PCI_DIR);
	if (!d)
		return false;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= cap ||
		    sac_pci_hex(e->d_name, "vendor") != vendor ||
		    sac_pci_hex(e->d_name, "device") != device ||
		    sac_pci_bound(e->d_name) != bound)
			continue;
		/* same-length DDDD:BB:SS.F names sort like addresses */
		if (!found || strcmp(e->d_name, bdf) < 0)
			snprintf(bdf, cap, "%s", e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

int sac_module_init_flags(const char *path)
{
	static const char *const compressed[] = { ".xz", ".zst", ".gz" };
	size_t len = strlen(path), n, i;

	for (i = 0; i < ARRAY_SIZE(compressed); i++) {
		n = strlen(compressed[i]);
		if (len > n && !strcmp(path + len - n, compressed[i]))
			return MODULE_INIT_COMPRESSED_FILE;
	}
	return 0;
}
