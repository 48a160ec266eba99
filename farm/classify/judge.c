// SPDX-License-Identifier: GPL-2.0
/*
 * judge: read one job's console log and status file and decide its
 * outcome, first match wins, in the order of farm/PROTOCOL.md:
 * qemu-crash, panic, oops, log-flood, hang, iommu-fault, kernel-error,
 * data-corruption, workload-fail, infra-error, skip, pass.
 *
 * The console is untrusted: lines are cut at CLS_LINE_MAX, NUL and CR are
 * dropped, anything unprintable (or not UTF-8) is shown as '?', and only SAC lines that
 * carry this job's nonce and continue its chain under the job's key
 * (farm/common/chain.h) count as the agent's word; after the first that
 * does not, none does. What a line says is lines.c's business.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "classify.h"
#include "faults.h"
#include "stages.h"
#include "xml.h"
#include "util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One remembered console line: the evidence for some rule. */
struct ev {
	char *text;		/* sanitised copy, NULL when unset */
	unsigned int no;	/* 1-based line number */
};

/* An agent line with kernel text spliced in, waiting for its tail. */
struct pend {
	char *line;		/* the console line as read; NULL: none waits */
	size_t n, head;		/* its length; the agent's part ends at head */
	unsigned int no;
	bool stamped;		/* the kernel part starts with a printk time */
};

struct scan {
	const struct cls_job *job;
	unsigned int lines, cut, foreign, bad, faults, kerrs, joined, notices;
	struct ev last, panic, oops, crash, qemu_msg, fault, foreign_ev;
	struct ev start, done, bad_ev, skip_ev, kerr, dmesg_ev, flood_ev;
	struct ev notice;	/* the first SAC fallback notice */
	struct ev systemd;	/* systemd's last status line, unadorned */
	struct ev waiting;	/* its last line about a job still waiting */
	/* fault addresses cut to k bits (flt_cut_bits()): a device's width */
	unsigned int cut_faults, cut_bits;
	char cut_dev[FLT_BDF_LEN];	/* the first such fault's device, or "" */
	const char *kerr_class;
	char bad_why[200];
	/* the agent's lines: the chain's next, and where it broke (0: not) */
	struct sac_chain chain;
	unsigned int broken_at;
	long done_results;
	json_t *identity, *dmesg, *results, *result_lines;
	struct pend pend;
	/* where bytes were dropped: console.exp's marker or our read gap */
	unsigned int gap_no;
	bool have_gap;
	/* status file */
	bool have_status;
	char event[16], stage[64], qemu_status[32];
	unsigned long long dropped;	/* log_dropped= */
	json_t *timings;
	char status_err[200];
};

static const char *const sac_kinds[] = {
	"start", "identity", "begin", "result", "dmesg", "done", NULL,
};

int cls_valid_nonce(const char *s)
{
	size_t i;

	for (i = 0; i < 16; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return 0;
	return s[16] == '\0';
}

int cls_valid_workload(const char *s)
{
	if (!*s || strlen(s) > 48)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '-' && *s != '_')
			return 0;
	return 1;
}

/*
 * A console line as a reason may quote it: printable ASCII and valid,
 * printable UTF-8 (systemd's status lines cut unit names with "\u2026")
 * as they are, a tab as a blank, anything else as '?'.
 */
static char *sanitise(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out = malloc(n + 1);
	size_t i, len;
	uint32_t cp;

	if (!out)
		return NULL;
	for (i = 0; i < n; i += len) {
		len = u[i] >= 0x80 ? utf8_seq(u + i, n - i, &cp) : 0;
		if (len && cp >= 0xa0) {
			memcpy(out + i, s + i, len);
			continue;
		}
		len = 1;
		out[i] = u[i] == '\t' ? ' ' : (u[i] >= 0x20 && u[i] < 0x7f) ? s[i] : '?';
	}
	out[n] = '\0';
	return out;
}

static void ev_set(struct ev *e, const char *line, size_t n, unsigned int no)
{
	free(e->text);
	e->text = sanitise(line, n);
	e->no = no;
}

static void ev_first(struct ev *e, const char *line, size_t n, unsigned int no)
{
	if (!e->text)
		ev_set(e, line, n, no);
}

static void ev_free(struct ev *e)
{
	free(e->text);
	e->text = NULL;
}

/* Remember the first reason the agent's lines cannot be trusted. */
static int bad_line(struct scan *s, const char *line, size_t n,
		    unsigned int no, const char *fmt, ...)
{
	va_list ap;

	s->bad++;
	if (s->bad_ev.text)
		return -1;
	ev_set(&s->bad_ev, line, n, no);
	va_start(ap, fmt);
	vsnprintf(s->bad_why, sizeof(s->bad_why), fmt, ap);
	va_end(ap);
	return -1;
}

static bool metrics_ok(json_t *m)
{
	const char *k;
	json_t *v;

	if (!m)
		return true;
	if (!json_is_object(m))
		return false;
	json_object_foreach(m, k, v)
		if (!json_is_number(v))
			return false;
	return true;
}

/* A result object: checks its shape and its place in the asked order. */
static int take_result(struct scan *s, json_t *o, const char *line,
		       size_t n, unsigned int no)
{
	size_t i = json_array_size(s->results);
	const char *w = json_string_value(json_object_get(o, "workload"));
	const char *st = json_string_value(json_object_get(o, "status"));
	json_t *reason = json_object_get(o, "reason");
	char *text;

	if (!w || !st || (strcmp(st, "pass") && strcmp(st, "fail") &&
			  strcmp(st, "skip")))
		return bad_line(s, line, n, no,
				"result without a workload and a pass/fail/skip status");
	if (reason && !json_is_string(reason))
		return bad_line(s, line, n, no, "result reason is not a string");
	if (!metrics_ok(json_object_get(o, "metrics")))
		return bad_line(s, line, n, no,
				"result metrics are not an object of numbers");
	if (i >= s->job->n_workloads)
		return bad_line(s, line, n, no,
				"result %zu for %s, but only %zu workloads were asked for",
				i + 1, w, s->job->n_workloads);
	if (strcmp(w, s->job->workloads[i]))
		return bad_line(s, line, n, no, "result %zu is for %s, expected %s",
				i + 1, w, s->job->workloads[i]);
	text = sanitise(line, n);
	json_array_append(s->results, o);
	json_array_append_new(s->result_lines,
			      json_pack("{s:s,s:i}", "text", text ? text : "",
					"no", no));
	free(text);
	if (!strcmp(st, "skip"))
		ev_first(&s->skip_ev, line, n, no);
	return 0;
}

static int take_dmesg(struct scan *s, json_t *o, const char *line,
		      size_t n, unsigned int no)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
		if (!json_is_integer(v))
			return bad_line(s, line, n, no, "dmesg count %s is not an integer", k);
	json_decref(s->dmesg);
	s->dmesg = json_incref(o);
	ev_set(&s->dmesg_ev, line, n, no);
	return 0;
}

static int take_done(struct scan *s, json_t *o, const char *line,
		     size_t n, unsigned int no)
{
	json_t *r = json_object_get(o, "results");

	if (!json_is_integer(r))
		return bad_line(s, line, n, no, "done without a results count");
	s->done_results = (long)json_integer_value(r);
	ev_set(&s->done, line, n, no);
	return 0;
}

static int sac_kind(const char *k, size_t n)
{
	int i;

	for (i = 0; sac_kinds[i]; i++)
		if (strlen(sac_kinds[i]) == n && !strncmp(sac_kinds[i], k, n))
			return i;
	return -1;
}

/*
 * The fields of "SAC <nonce> <kind> <seq> <mac> <json>" after the nonce
 * (farm/PROTOCOL.md): @line starts with "SAC ".
 */
struct fields {
	int kind;		/* in sac_kinds[], -1: unknown */
	const char *json;	/* NULL: nothing after the kind */
	const char *mac;	/* NULL: no chain fields, json after the kind */
	unsigned long seq;
};

static void split_fields(const char *line, size_t n, struct fields *f)
{
	const char *end = line + n, *k = line + 4 + CLS_NONCE_LEN + 1;
	const char *p = k < end ? memchr(k, ' ', end - k) : NULL;

	f->kind = k < end ? sac_kind(k, (p ? p : end) - k) : -1;
	f->mac = NULL;
	f->json = p ? p + 1 : NULL;
	if (p)
		f->json = sac_chain_fields(p + 1, end, &f->seq, &f->mac) ?:
			  f->json;
}

/* Why the chain did not take a line, for the record's reason. */
static int chain_refused(struct scan *s, const char *line, size_t n,
			 unsigned int no, const struct fields *f,
			 enum sac_chain_verdict v)
{
	const char *kind = sac_kinds[f->kind];
	unsigned long due = s->chain.seq;

	if (v == SAC_CHAIN_GAP)
		return bad_line(s, line, n, no,
				"SAC %s line has sequence %lu where %lu was due: %lu line%s before it missing, or out of order",
				kind, f->seq, due, f->seq - due,
				f->seq - due == 1 ? "" : "s");
	if (v == SAC_CHAIN_BACK)
		return bad_line(s, line, n, no,
				"SAC %s line has sequence %lu where %lu was due: repeated or out of order",
				kind, f->seq, due);
	return bad_line(s, line, n, no,
			"SAC %s line's mac does not verify: not line %lu of this job's agent's chain (forged, altered, or from another job)",
			kind, due);
}

/*
 * An agent line of this job's nonce, checked: its object, or NULL with
 * the reason recorded. The chain takes only the line it expects next.
 */
static json_t *agent_object(struct scan *s, const char *line, size_t n,
			    unsigned int no, int *kind)
{
	const char *end = line + n;
	enum sac_chain_verdict v;
	struct fields f;
	json_error_t err;
	json_t *o;

	split_fields(line, n, &f);
	*kind = f.kind;
	if (f.kind < 0) {
		bad_line(s, line, n, no, "unknown SAC line kind");
		return NULL;
	}
	if (s->broken_at) {
		bad_line(s, line, n, no, "SAC %s line after the chain broke at line %u",
			 sac_kinds[f.kind], s->broken_at);
		return NULL;
	}
	if (s->done.text) {
		bad_line(s, line, n, no, "SAC line after done");
		return NULL;
	}
	if (f.json && !f.mac) {
		bad_line(s, line, n, no,
			 "SAC %s line has no sequence number and mac (cut, or an older agent's)",
			 sac_kinds[f.kind]);
		return NULL;
	}
	o = f.json ? json_loadb(f.json, end - f.json, JSON_REJECT_DUPLICATES, &err) : NULL;
	if (!json_is_object(o)) {
		json_decref(o);
		bad_line(s, line, n, no, "SAC %s line has no JSON object%s%s",
			 sac_kinds[f.kind], f.json ? ": " : "", f.json ? err.text : "");
		return NULL;
	}
	v = sac_chain_take(&s->chain, line, n, f.seq, f.mac);
	if (v != SAC_CHAIN_OK) {
		json_decref(o);
		chain_refused(s, line, n, no, &f, v);
		return NULL;
	}
	return o;
}

/* "SAC <nonce> ...": @line starts with "SAC ". */
static int sac_line(struct scan *s, const char *line, size_t n,
		    unsigned int no)
{
	const char *p = line + 4;
	json_t *o;
	int kind;

	if (n < 21 || memcmp(p, s->job->nonce, 16) || p[16] != ' ') {
		s->foreign++;
		ev_first(&s->foreign_ev, line, n, no);
		return 0;
	}
	/* without the job's key, judge() says so: no line can be trusted */
	o = s->job->key ? agent_object(s, line, n, no, &kind) : NULL;
	if (!o) {
		/* nothing after a line the chain did not take can be trusted */
		if (!s->broken_at)
			s->broken_at = no;
		return -1;
	}
	if (kind != 0 && !s->start.text) {
		json_decref(o);
		return bad_line(s, line, n, no, "SAC %s line before start",
				sac_kinds[kind]);
	}
	switch (kind) {
	case 0:
		if (s->start.text)
			bad_line(s, line, n, no, "second start line (agent restarted?)");
		else
			ev_set(&s->start, line, n, no);
		break;
	case 1:
		json_decref(s->identity);
		s->identity = json_incref(o);
		break;
	case 3:
		take_result(s, o, line, n, no);
		break;
	case 4:
		take_dmesg(s, o, line, n, no);
		break;
	case 5:
		take_done(s, o, line, n, no);
		break;
	}
	json_decref(o);
	return 0;
}

/* A fault at an address cut to k bits: the device decodes about k. */
static void note_cut(struct scan *s, const char *line)
{
	struct flt_line fl;
	unsigned int k;

	flt_parse_line(line, &fl);
	k = fl.has_addr ? flt_cut_bits(fl.addr) : 0;
	if (!k)
		return;
	if (!s->cut_faults++) {
		s->cut_bits = k;
		if (fl.has_dev)
			flt_format_bdf(fl.dev, s->cut_dev);
	}
}

static void systemd_said(struct scan *s, const char *said, unsigned int no)
{
	ev_set(&s->systemd, said, strlen(said), no);
	if (cls_systemd_waits(said))
		ev_set(&s->waiting, said, strlen(said), no);
}

/* A line the kernel (or QEMU) printed: remember what it says. */
static void kernel_line(struct scan *s, const char *line, size_t n,
			unsigned int no)
{
	const char *notice;
	char said[256];

	switch (cls_match_line(line)) {
	case CLS_QEMU_CRASH:
		ev_first(&s->crash, line, n, no);
		break;
	case CLS_PANIC:
		ev_first(&s->panic, line, n, no);
		break;
	case CLS_OOPS:
		ev_first(&s->oops, line, n, no);
		break;
	case CLS_FAULT:
		s->faults++;
		ev_first(&s->fault, line, n, no);
		note_cut(s, line);
		break;
	case CLS_KERNEL_ERROR:
		if (!s->kerrs++) {
			s->kerr_class = cls_kernel_error(line);
			ev_set(&s->kerr, line, n, no);
		}
		break;
	case CLS_QEMU_MSG:
		ev_first(&s->qemu_msg, line, n, no);
		break;
	case CLS_NONE:
		notice = cls_sac_notice(line);
		if (notice && !s->notices++)
			ev_set(&s->notice, notice, n - (notice - line), no);
		else if (cls_systemd_line(line, said, sizeof(said)))
			systemd_said(s, said, no);
		break;
	}
}

/* The JSON object of SAC line @line parses (a whole agent line). */
static bool sac_parses(const char *line, size_t n)
{
	struct fields f;
	json_t *o;
	bool ok;

	if (n < 22)
		return false;
	split_fields(line, n, &f);
	if (!f.json)
		return false;
	o = json_loadb(f.json, line + n - f.json, JSON_REJECT_DUPLICATES, NULL);
	ok = json_is_object(o);
	json_decref(o);
	return ok;
}

static void pend_clear(struct scan *s)
{
	free(s->pend.line);
	s->pend.line = NULL;
}

/* The agent's part and its kernel part, each judged as its own line. */
static void take_split(struct scan *s, const char *agent, size_t an,
		       const struct pend *p, bool judge_kernel)
{
	sac_line(s, agent, an, p->no);
	if (judge_kernel)
		kernel_line(s, p->line + p->head, p->n - p->head, p->no);
	s->joined++;
}

/*
 * A SAC line whose object does not parse, with kernel text inside: the
 * kernel printed a record (ending in a newline) while the console was
 * sending the agent's line. Keep the agent's part until its tail comes.
 * Returns false when @line is not such a line.
 */
static bool pend_start(struct scan *s, const char *line, size_t n,
		       unsigned int no)
{
	struct pend p = { .n = n, .no = no };

	if (sac_parses(line, n))
		return false;
	p.head = cls_kernel_split(line, n, &p.stamped);
	if (!p.head)
		return false;
	p.line = malloc(n + 1);
	if (!p.line)
		return false;
	memcpy(p.line, line, n + 1);
	if (sac_parses(line, p.head)) {	/* spliced after the object's end */
		take_split(s, line, p.head, &p, true);
		free(p.line);
		return true;
	}
	if (p.stamped)
		kernel_line(s, line + p.head, n - p.head, no);
	s->pend = p;
	return true;
}

static bool is_sac(const char *line, size_t n)
{
	return n >= 4 && !memcmp(line, "SAC ", 4);
}

/* "SAC " cut inside by a printk time: "SA[    1.498211] ...". */
static bool is_sac_cut(const char *line, size_t n)
{
	size_t k;

	for (k = 1; k < 4 && k < n && line[k - 1] == "SAC "[k - 1]; k++)
		if (cls_stamp_at(line + k, line + n))
			return true;
	return false;
}

/*
 * No tail fits: an agent line is judged whole, as it came; of a cut
 * "SAC " only the kernel text counts (judged already).
 */
static void pend_fail(struct scan *s)
{
	if (!s->pend.line)
		return;
	if (is_sac(s->pend.line, s->pend.n))
		sac_line(s, s->pend.line, s->pend.n, s->pend.no);
	pend_clear(s);
}

/*
 * A line after a waiting agent part: more kernel records are judged as
 * usual (returns false); the first other line is the tail if the agent's
 * part and it make a SAC line whose object parses (returns true).
 */
static bool pend_take(struct scan *s, const char *line, size_t n)
{
	struct pend *p = &s->pend;
	size_t an = p->head + n;
	char *agent;

	if (cls_stamp_at(line, line + n))
		return false;
	agent = malloc(an + 1);
	if (!agent) {
		pend_fail(s);
		return false;
	}
	memcpy(agent, p->line, p->head);
	memcpy(agent + p->head, line, n);
	agent[an] = '\0';
	if (!sac_parses(agent, an)) {
		free(agent);
		pend_fail(s);
		return false;
	}
	/* a kernel part without a printk time counts only once joined */
	take_split(s, agent, an, p, !p->stamped);
	free(agent);
	pend_clear(s);
	return true;
}

/* console.exp's marker, "console.exp: N bytes dropped", for N in status. */
static bool is_marker(const struct scan *s, const char *line)
{
	char want[64];

	if (!s->dropped || s->have_gap)
		return false;
	snprintf(want, sizeof(want), "console.exp: %llu bytes dropped",
		 s->dropped);
	return !strcmp(line, want);
}

/* Bytes were dropped after line @no: the evidence is the last line kept. */
static void mark_gap(struct scan *s, unsigned int no)
{
	pend_fail(s);	/* no tail comes from across the gap */
	s->have_gap = true;
	s->gap_no = no;
	if (s->last.text)
		ev_set(&s->flood_ev, s->last.text, strlen(s->last.text),
		       s->last.no);
}

static void console_line(struct scan *s, const char *line, size_t n,
			 unsigned int no)
{
	size_t i;

	if (is_marker(s, line)) {
		mark_gap(s, no - 1);
		return;
	}
	for (i = 0; i < n && isspace((unsigned char)line[i]); i++)
		;
	if (i < n)
		ev_set(&s->last, line, n, no);
	if (s->pend.line && pend_take(s, line, n))
		return;
	if ((is_sac(line, n) || is_sac_cut(line, n)) &&
	    pend_start(s, line, n, no))
		return;
	if (is_sac(line, n))
		sac_line(s, line, n, no);
	else
		kernel_line(s, line, n, no);
}

/* Splits the log into lines, dropping NUL and CR and cutting long ones. */
struct splitter {
	char *buf;
	size_t n;
	bool cut, open;
};

static void split_end(struct scan *s, struct splitter *sp)
{
	sp->buf[sp->n] = '\0';
	console_line(s, sp->buf, sp->n, ++s->lines);
	sp->n = 0;
	sp->cut = false;
	sp->open = false;
}

static void split_feed(struct scan *s, struct splitter *sp, const char *p,
		       size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = p[i];

		if (c == '\n') {
			split_end(s, sp);
			continue;
		}
		sp->open = true;
		if (c == '\0' || c == '\r')
			continue;
		if (sp->n == CLS_LINE_MAX) {
			if (!sp->cut)
				s->cut++;
			sp->cut = true;
			continue;
		}
		sp->buf[sp->n++] = c;
	}
}

/* The log, with the reader's gap (if any) as a line break. */
static int scan_log(struct scan *s, const char *log, size_t len)
{
	struct splitter sp = { .buf = malloc(CLS_LINE_MAX + 1) };
	size_t at = s->job->log_gap ? s->job->log_gap_at : len;

	if (!sp.buf)
		return -1;
	if (at > len)
		at = len;
	split_feed(s, &sp, log, at);
	if (s->job->log_gap) {
		if (sp.open)
			split_end(s, &sp);
		mark_gap(s, s->lines);
	}
	split_feed(s, &sp, log + at, len - at);
	if (sp.open)	/* the log ends mid-line */
		split_end(s, &sp);
	pend_fail(s);
	free(sp.buf);
	return 0;
}

static int status_fail(struct scan *s, unsigned int no, const char *why)
{
	if (!s->status_err[0])
		snprintf(s->status_err, sizeof(s->status_err), "%s:%u: %s",
			 s->job->status_name, no, why);
	return -1;
}

static bool all_digits(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (!isdigit((unsigned char)*v))
			return false;
	return true;
}

static int copy_val(char *dst, size_t len, const char *v, struct scan *s,
		    unsigned int no)
{
	if (strlen(v) >= len)
		return status_fail(s, no, "value too long");
	strcpy(dst, v);
	return 0;
}

static bool qemu_status_ok(const char *v)
{
	if (!strcmp(v, "unknown") || all_digits(v))
		return true;
	return !strncmp(v, "signal:", 7) && all_digits(v + 7);
}

static int status_kv(struct scan *s, char *key, char *v, unsigned int no)
{
	size_t kl = strlen(key);

	if (!strcmp(key, "event")) {
		if (strcmp(v, "done") && strcmp(v, "timeout") && strcmp(v, "eof"))
			return status_fail(s, no, "event is not done, timeout or eof");
		return copy_val(s->event, sizeof(s->event), v, s, no);
	} else if (!strcmp(key, "stage")) {
		return copy_val(s->stage, sizeof(s->stage), v, s, no);
	} else if (!strcmp(key, "qemu_status")) {
		if (!qemu_status_ok(v))
			return status_fail(s, no, "qemu_status is not N or signal:N");
		return copy_val(s->qemu_status, sizeof(s->qemu_status), v, s, no);
	} else if (!strcmp(key, "log_dropped")) {
		if (!all_digits(v) || strlen(v) > 19)
			return status_fail(s, no, "log_dropped is not a number of bytes");
		s->dropped = strtoull(v, NULL, 10);
	} else if (kl > 5 && !strncmp(key, "t_", 2) &&
		   !strcmp(key + kl - 3, "_ms")) {
		if (!all_digits(v) || strlen(v) > 12)
			return status_fail(s, no, "stage time is not a number of ms");
		key[kl - 3] = '\0';
		json_object_set_new(s->timings, key + 2,
				    json_integer(strtoll(v, NULL, 10)));
	}
	/* other keys: from a newer console driver, not ours to judge */
	return 0;
}

static void scan_status(struct scan *s, const char *text, size_t len)
{
	char line[512], *eq;
	unsigned int no = 0;
	size_t i = 0, n;

	s->have_status = true;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);

		n = (nl ? (size_t)(nl - text) : len) - i;
		no++;
		if (n >= sizeof(line) || memchr(text + i, '\0', n)) {
			status_fail(s, no, "not a key=value line");
			break;
		}
		memcpy(line, text + i, n);
		line[n] = '\0';
		i += n + 1;
		if (!n)
			continue;
		eq = strchr(line, '=');
		if (!eq || eq == line) {
			status_fail(s, no, "not a key=value line");
			break;
		}
		*eq = '\0';
		status_kv(s, line, eq + 1, no);
	}
	if (!s->status_err[0] && (!s->event[0] || !s->stage[0] ||
				  !s->qemu_status[0]))
		status_fail(s, no, "event, stage or qemu_status missing");
}

/* ---- the record ---- */

struct verdict {
	const char *outcome;
	json_t *reason;
	const struct ev *evidence;
};

static void decide(struct verdict *v, const char *outcome,
		   const struct ev *e, json_t *reason)
{
	v->outcome = outcome;
	v->reason = reason;
	v->evidence = e && e->text ? e : NULL;
}

static const char *last_text(const struct scan *s)
{
	return s->last.text ? s->last.text : "(none)";
}

static bool qemu_exit_bad(const struct scan *s)
{
	return !strcmp(s->event, "eof") && strcmp(s->qemu_status, "0") &&
	       strcmp(s->qemu_status, "unknown");
}

static bool judge_crash(struct scan *s, struct verdict *v)
{
	if (s->crash.text && (!s->done.text || s->crash.no < s->done.no)) {
		decide(v, "qemu-crash", &s->crash,
		       json_sprintf("QEMU aborted (status %s) at line %u: %s",
				    s->qemu_status, s->crash.no, s->crash.text));
		return true;
	}
	if (!qemu_exit_bad(s))
		return false;
	decide(v, "qemu-crash", &s->qemu_msg,
	       json_sprintf("QEMU ended with status %s while waiting for stage %s; "
			    "last console line: %s",
			    s->qemu_status, s->stage,
			    s->qemu_msg.text ? s->qemu_msg.text : last_text(s)));
	return true;
}

static bool judge_fatal(struct scan *s, struct verdict *v)
{
	if (s->panic.text) {
		decide(v, "panic", &s->panic,
		       json_sprintf("kernel panic at line %u", s->panic.no));
		return true;
	}
	if (s->oops.text) {
		decide(v, "oops", &s->oops,
		       json_sprintf("kernel oops/BUG/WARNING at line %u",
				    s->oops.no));
		return true;
	}
	return false;
}

/* "; first kernel error: CLASS at line N", or "". */
static const char *kerr_note(const struct scan *s, char *buf, size_t len)
{
	if (!s->kerr.text)
		return "";
	snprintf(buf, len, "; first kernel error: %s at line %u",
		 s->kerr_class, s->kerr.no);
	return buf;
}

#define FLOOD_FMT "console log flooded: %llu bytes dropped (%s) after line %u; no panic, oops or IOMMU fault in the head and tail kept%s"

/* Bytes dropped (console.exp's cap, our read limit) and no fault kept. */
static bool judge_flood(struct scan *s, struct verdict *v)
{
	unsigned long long n = s->dropped + s->job->log_gap;
	char note[96];

	if (!n || s->faults)
		return false;
	decide(v, "log-flood", &s->flood_ev,
	       json_sprintf(FLOOD_FMT, n,
			    s->dropped ? "console.exp cap" : "classifier read limit",
			    s->gap_no, kerr_note(s, note, sizeof(note))));
	return true;
}

/*
 * An installed system that stopped coming up: what a person reads on
 * its console is systemd's last word and the IOMMU's complaints before
 * it, not the spinner's redraws.
 */
static bool judge_userspace_hang(struct scan *s, struct verdict *v)
{
	char faults[320] = "", waits[320] = "";

	if (s->waiting.text && s->waiting.no != s->systemd.no)
		snprintf(waits, sizeof(waits), "; still waiting (line %u): %s",
			 s->waiting.no, s->waiting.text);
	if (s->faults)
		snprintf(faults, sizeof(faults),
			 "; %u IOMMU fault line%s before it, first at line %u: %s",
			 s->faults, s->faults == 1 ? "" : "s", s->fault.no,
			 s->fault.text);
	decide(v, "hang", &s->systemd,
	       json_sprintf("timed out waiting for stage %s; last systemd line (line %u): %s%s%s",
			    s->stage, s->systemd.no, s->systemd.text, waits,
			    faults));
	return true;
}

static bool judge_hang(struct scan *s, struct verdict *v)
{
	char note[96];

	if (strcmp(s->event, "timeout"))
		return false;
	if (s->systemd.text && !s->start.text)
		return judge_userspace_hang(s, v);
	decide(v, "hang", &s->last,
	       json_sprintf("timed out waiting for stage %s; last console line: %s%s",
			    s->stage, last_text(s),
			    kerr_note(s, note, sizeof(note))));
	return true;
}

#define CUT_FMT "%u IOMMU fault line%s, first at line %u; %u at an address just below 2^%u, a top-of-range IOVA cut to %u bits: device%s%s decodes about %u bits"

static bool judge_fault(struct scan *s, struct verdict *v)
{
	if (!s->faults)
		return false;
	if (!s->cut_faults) {
		decide(v, "iommu-fault", &s->fault,
		       json_sprintf("%u IOMMU fault line%s, first at line %u",
				    s->faults, s->faults == 1 ? "" : "s",
				    s->fault.no));
		return true;
	}
	decide(v, "iommu-fault", &s->fault,
	       json_sprintf(CUT_FMT,
			    s->faults, s->faults == 1 ? "" : "s", s->fault.no,
			    s->cut_faults, s->cut_bits, s->cut_bits,
			    *s->cut_dev ? " " : "", s->cut_dev, s->cut_bits));
	return true;
}

static json_int_t level(const struct scan *s, const char *name)
{
	return json_integer_value(json_object_get(s->dmesg, name));
}

/* The agent's dmesg counts: more than CLS_ERR_MAX err, or any worse. */
static bool judge_err_flood(struct scan *s, struct verdict *v)
{
	json_int_t err = level(s, "err"), crit = level(s, "crit");
	json_int_t alert = level(s, "alert"), emerg = level(s, "emerg");

	if (err <= CLS_ERR_MAX && !crit && !alert && !emerg)
		return false;
	decide(v, "kernel-error", &s->dmesg_ev,
	       json_sprintf("err-flood: the kernel logged %" JSON_INTEGER_FORMAT
			    " err, %" JSON_INTEGER_FORMAT " crit, %"
			    JSON_INTEGER_FORMAT " alert and %" JSON_INTEGER_FORMAT
			    " emerg records (limit: %d err, no crit, alert or emerg)",
			    err, crit, alert, emerg, CLS_ERR_MAX));
	return true;
}

static bool judge_kerr(struct scan *s, struct verdict *v)
{
	if (!s->kerr.text)
		return s->dmesg && judge_err_flood(s, v);
	decide(v, "kernel-error", &s->kerr,
	       json_sprintf("%s at line %u (%u kernel error line%s)",
			    s->kerr_class, s->kerr.no, s->kerrs,
			    s->kerrs == 1 ? "" : "s"));
	return true;
}

static const char *res_str(json_t *r, const char *key)
{
	const char *v = json_string_value(json_object_get(r, key));

	return v ? v : "";
}

/* Result @i as evidence: @e is caller storage. */
static const struct ev *res_ev(struct scan *s, size_t i, struct ev *e)
{
	json_t *l = json_array_get(s->result_lines, i);

	e->text = (char *)json_string_value(json_object_get(l, "text"));
	e->no = (unsigned int)json_integer_value(json_object_get(l, "no"));
	return e;
}

static bool judge_results(struct scan *s, struct verdict *v, struct ev *tmp)
{
	size_t i, n = json_array_size(s->results);
	json_t *r;

	json_array_foreach(s->results, i, r)
		if (!strncmp(res_str(r, "reason"), "data-corruption", 15)) {
			decide(v, "data-corruption", res_ev(s, i, tmp),
			       json_sprintf("%s: %s", res_str(r, "workload"),
					    res_str(r, "reason")));
			return true;
		}
	json_array_foreach(s->results, i, r)
		if (!strcmp(res_str(r, "status"), "fail")) {
			decide(v, "workload-fail", res_ev(s, i, tmp),
			       json_sprintf("%s failed: %s", res_str(r, "workload"),
					    res_str(r, "reason")));
			return true;
		}
	/* Missing results are the agent's fault only when its lines are sane. */
	if (n < s->job->n_workloads && s->start.text && !s->bad) {
		decide(v, "workload-fail", &s->last,
		       json_sprintf("%zu of %zu results: none for %s; last console line: %s",
				    n, s->job->n_workloads,
				    s->job->workloads[n], last_text(s)));
		return true;
	}
	return false;
}

#define FOREIGN_FMT "%u SAC line%s with another nonce (forged or stale), first at line %u"

static bool judge_infra(struct scan *s, struct verdict *v)
{
	const char *why = NULL;
	const struct ev *e = NULL;

	if (s->bad) {
		decide(v, "infra-error", &s->bad_ev,
		       json_sprintf("line %u: %s", s->bad_ev.no, s->bad_why));
		return true;
	}
	if (s->foreign) {
		decide(v, "infra-error", &s->foreign_ev,
		       json_sprintf(FOREIGN_FMT, s->foreign, s->foreign == 1 ? "" : "s",
				    s->foreign_ev.no));
		return true;
	}
	if (!s->start.text) {
		why = "the agent never started (no SAC start line)";
		e = &s->last;
	} else if (!s->done.text || strcmp(s->event, "done")) {
		why = "the guest stopped before the agent's done";
		e = &s->last;
	} else if (s->done_results != (long)json_array_size(s->results)) {
		why = "the done line's result count disagrees with the results seen";
		e = &s->done;
	} else if (!strcmp(s->qemu_status, "unknown")) {
		why = "the console driver could not get QEMU's exit status";
	}
	if (!why)
		return false;
	decide(v, "infra-error", e,
	       json_sprintf("%s (event %s, stage %s, QEMU status %s); last console line: %s",
			    why, s->event, s->stage, s->qemu_status,
			    last_text(s)));
	return true;
}

static void judge_end(struct scan *s, struct verdict *v)
{
	size_t i, n = json_array_size(s->results), skips = 0;
	json_t *r;

	json_array_foreach(s->results, i, r)
		skips += !strcmp(res_str(r, "status"), "skip");
	if (n && skips == n) {
		r = json_array_get(s->results, 0);
		decide(v, "skip", &s->skip_ev,
		       json_sprintf("every result is skip; %s: %s",
				    res_str(r, "workload"), res_str(r, "reason")));
		return;
	}
	decide(v, "pass", &s->done,
	       json_sprintf("%zu of %zu workloads passed%s", n - skips, n,
			    skips ? " (the rest skipped)" : ""));
}

/* Adds "; NOTE" to the reason; an infra-error's reason stays as it is. */
static void __printf(2, 3) note(struct verdict *v, const char *fmt, ...)
{
	json_t *text, *r;
	va_list ap;

	if (!strcmp(v->outcome, "infra-error") || !v->reason)
		return;
	va_start(ap, fmt);
	text = json_vsprintf(fmt, ap);
	va_end(ap);
	if (!text)
		return;
	r = json_sprintf("%s; %s", json_string_value(v->reason),
			 json_string_value(text));
	json_decref(text);
	if (!r)
		return;
	json_decref(v->reason);
	v->reason = r;
}

/* Lines with another nonce never count, but a reader should know of them. */
static void note_foreign(struct scan *s, struct verdict *v)
{
	if (s->foreign)
		note(v, "ignored %u SAC line%s with another nonce", s->foreign,
		     s->foreign == 1 ? "" : "s");
}

/*
 * A device that left 32-bit IOVAs (adaptive SAC's switch, or the trick's
 * first fallback) is what a reader of a fault that follows wants first:
 * quote the notice, and how many came.
 */
static void note_notice(struct scan *s, struct verdict *v)
{
	if (s->notices)
		note(v, "%u SAC fallback notice%s, first at line %u: \"%s\"",
		     s->notices, s->notices == 1 ? "" : "s", s->notice.no,
		     s->notice.text);
}

static void judge(struct scan *s, struct verdict *v, struct ev *tmp)
{
	if (!s->job->log) {
		decide(v, "infra-error", NULL,
		       json_sprintf("console log %s is missing", s->job->log_name));
		return;
	}
	if (!s->have_status) {
		decide(v, "infra-error", NULL,
		       json_sprintf("status file %s is missing: the console driver did not finish",
				    s->job->status_name));
		return;
	}
	if (!s->job->key) {
		decide(v, "infra-error", NULL,
		       json_sprintf("key file %s is missing: the agent's lines cannot be checked",
				    s->job->key_name));
		return;
	}
	if (s->status_err[0]) {
		decide(v, "infra-error", NULL, json_string(s->status_err));
		return;
	}
	if (judge_crash(s, v) || judge_fatal(s, v) || judge_flood(s, v) ||
	    judge_hang(s, v) || judge_fault(s, v) || judge_kerr(s, v) ||
	    judge_results(s, v, tmp) || judge_infra(s, v))
		return;
	judge_end(s, v);
}

/* The last stage reached, in the order the console driver walks them. */
static json_t *last_stage(const struct scan *s)
{
	const char *last = NULL, *name;
	size_t i, k;

	for (i = 0; i < n_stages; i++) {
		for (k = 0; k < (stages[i].name ? 1 : s->job->n_workloads); k++) {
			name = stages[i].name ? stages[i].name :
			       s->job->workloads[k];
			if (json_object_get(s->timings, name))
				last = name;
		}
	}
	return last ? json_string(last) : json_null();
}

static json_t *metrics(const struct scan *s)
{
	json_t *out = json_object(), *r, *v;
	const char *k;
	char name[256];
	size_t i;

	json_array_foreach(s->results, i, r) {
		json_object_foreach(json_object_get(r, "metrics"), k, v) {
			snprintf(name, sizeof(name), "%s.%s",
				 res_str(r, "workload"), k);
			json_object_set(out, name, v);
		}
	}
	return out;
}

static json_t *levels(const struct scan *s)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "err", "warn",
	};
	json_t *out, *v;
	size_t i;

	if (!s->dmesg)
		return json_null();
	out = json_object();
	for (i = 0; i < 5; i++) {
		v = json_object_get(s->dmesg, names[i]);
		if (v)
			json_object_set(out, names[i], v);
	}
	return out;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *counts(const struct scan *s)
{
	return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:I}", "lines", s->lines,
			 "cut", s->cut, "foreign", s->foreign, "bad", s->bad,
			 "joined", s->joined, "kernel_errors", s->kerrs,
			 "dropped", (json_int_t)(s->dropped + s->job->log_gap));
}

static json_t *record(struct scan *s, struct verdict *v)
{
	const struct ev *e = v->evidence;
	json_t *r = json_object();

	if (!r)
		return NULL;
	json_object_set_new(r, "outcome", json_string(v->outcome));
	json_object_set_new(r, "reason", v->reason ? v->reason : json_null());
	json_object_set_new(r, "evidence", e ? json_string(e->text) : json_null());
	json_object_set_new(r, "evidence_line", e ? json_integer(e->no) : json_null());
	json_object_set_new(r, "stage", last_stage(s));
	json_object_set_new(r, "event", str_or_null(s->event));
	json_object_set_new(r, "qemu_status", str_or_null(s->qemu_status));
	json_object_set(r, "timings_ms", s->timings);
	json_object_set_new(r, "identity",
			    s->identity ? json_incref(s->identity) : json_null());
	json_object_set(r, "results", s->results);
	json_object_set_new(r, "metrics", metrics(s));
	json_object_set_new(r, "levels", levels(s));
	json_object_set_new(r, "faults", json_integer(s->faults));
	json_object_set_new(r, "counts", counts(s));
	json_object_set_new(r, "last_line", str_or_null(s->last.text));
	json_object_set_new(r, "nonce", json_string(s->job->nonce));
	json_object_set_new(r, "job_id", str_or_null(s->job->job_id));
	/* a failed allocation above leaves a key out: no half-truths */
	if (json_object_size(r) != 17) {
		json_decref(r);
		return NULL;
	}
	return r;
}

static void scan_free(struct scan *s)
{
	struct ev *evs[] = { &s->last, &s->panic, &s->oops, &s->crash,
			     &s->qemu_msg, &s->fault, &s->foreign_ev, &s->start,
			     &s->done, &s->bad_ev, &s->skip_ev, &s->kerr,
			     &s->dmesg_ev, &s->flood_ev, &s->notice,
			     &s->systemd, &s->waiting };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(evs); i++)
		ev_free(evs[i]);
	json_decref(s->identity);
	json_decref(s->dmesg);
	json_decref(s->results);
	json_decref(s->result_lines);
	json_decref(s->timings);
	pend_clear(s);
	sac_chain_wipe(&s->chain);
}

json_t *cls_classify(const struct cls_job *job)
{
	struct scan s = { .job = job };
	struct verdict v = { 0 };
	struct ev tmp = { 0 };
	json_t *out = NULL;

	if (job->key)
		sac_chain_init(&s.chain, job->key, job->nonce);
	s.results = json_array();
	s.result_lines = json_array();
	s.timings = json_object();
	if (!s.results || !s.result_lines || !s.timings)
		goto out;
	/* the status first: it says whether console.exp dropped bytes */
	if (job->status)
		scan_status(&s, job->status, job->status_len);
	if (job->log && scan_log(&s, job->log, job->log_len))
		goto out;
	judge(&s, &v, &tmp);
	note_notice(&s, &v);
	note_foreign(&s, &v);
	out = record(&s, &v);
out:
	scan_free(&s);
	return out;
}
