// SPDX-License-Identifier: GPL-2.0
/*
 * The release policy (farm/policy.conf): its parser and the one
 * judgement of a cell against it. One rule per line:
 *
 *   expect FLAVOUR ARCH MACHINE WORKLOAD[@VARIANT] OUTCOME[|OUTCOME...]
 *          [because REASON...]
 *   limit  METRIC +PERCENT|-PERCENT
 *   flaky  block|allow
 *
 * Later expect rules override earlier ones, so a file reads from the
 * general case to the exceptions. A rule that lets a failure through
 * (pass and any outcome but skip) must give its reason, and a cell it
 * lets through is judged accepted, with that reason, not passed.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outcome.h"
#include "policy.h"

static int bad(const char *path, unsigned int line, const char *what)
{
	fprintf(stderr, "%s:%u: %s\n", path, line, what);
	return -1;
}

static int copy_field(char *dst, const char *src)
{
	if (strlen(src) >= POLICY_FIELD)
		return -1;
	strcpy(dst, src);
	return 0;
}

static int parse_outcomes(const char *s)
{
	const char *p = s;

	while (*p) {
		size_t n = strcspn(p, "|");

		if (!n || !outcome_known(p, n))
			return -1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static bool word_is(const char *p, size_t n, const char *word)
{
	return n == strlen(word) && !strncmp(p, word, n);
}

/* The set holds pass and a failure (an outcome other than pass or skip). */
static bool accepts_failure(const char *set)
{
	const char *p;
	size_t n;

	if (!outcome_in("pass", set))
		return false;
	for (p = set; *p; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		if (!word_is(p, n, "pass") && !word_is(p, n, "skip"))
			return true;
	}
	return false;
}

static int parse_expect(struct policy *p, char **tok, int ntok,
			const char *because, const char *path,
			unsigned int line)
{
	struct expect_rule *r;
	char *at;

	if (ntok != 6)
		return bad(path, line, "expect needs FLAVOUR ARCH MACHINE WORKLOAD[@VARIANT] OUTCOMES");
	if (p->n_expect == POLICY_MAX_RULES)
		return bad(path, line, "too many expect rules");
	r = &p->expect[p->n_expect];
	at = strchr(tok[4], '@');
	if (at)
		*at++ = '\0';
	if (copy_field(r->match.flavour, tok[1]) ||
	    copy_field(r->match.arch, tok[2]) ||
	    copy_field(r->match.machine, tok[3]) ||
	    copy_field(r->match.workload, tok[4]) ||
	    copy_field(r->match.variant, at ? at : "*"))
		return bad(path, line, "field too long");
	if (strlen(tok[5]) >= sizeof(r->outcomes) || parse_outcomes(tok[5]))
		return bad(path, line, "unknown outcome (see PROTOCOL.md for the list)");
	strcpy(r->outcomes, tok[5]);
	r->hazard = !outcome_in("pass", r->outcomes);
	r->accepts = accepts_failure(r->outcomes);
	if (because && !*because)
		return bad(path, line, "because needs a reason");
	if (because && strlen(because) >= sizeof(r->because))
		return bad(path, line, "reason too long");
	if (r->accepts && !because)
		return bad(path, line, "a rule that accepts a failure besides pass must say why: ... because REASON");
	strcpy(r->because, because ? because : "");
	r->line = line;
	p->n_expect++;
	return 0;
}

static int parse_limit(struct policy *p, char **tok, int ntok,
		       const char *path, unsigned int line)
{
	struct limit_rule *r;
	char *end;

	if (ntok != 3)
		return bad(path, line, "limit needs METRIC +PERCENT|-PERCENT");
	if (p->n_limit == POLICY_MAX_RULES)
		return bad(path, line, "too many limit rules");
	r = &p->limit[p->n_limit];
	if (copy_field(r->metric, tok[1]))
		return bad(path, line, "metric name too long");
	if (tok[2][0] != '+' && tok[2][0] != '-')
		return bad(path, line, "limit must start with + (may grow) or - (may drop)");
	r->percent = strtod(tok[2], &end);
	if (end == tok[2] || (*end && strcmp(end, "%")) || r->percent == 0)
		return bad(path, line, "limit is not a non-zero percentage");
	r->line = line;
	p->n_limit++;
	return 0;
}

/* The text after the word "because" (t), trimmed; "" if there is none. */
static char *reason_after(char *t, char *end)
{
	char *r = t + strlen(t), *e = end;

	if (r < end)
		r++;
	r += strspn(r, " \t");
	while (e > r && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	return r;
}

static int parse_line(struct policy *p, char *s, const char *path,
		      unsigned int line)
{
	char *tok[8], *because = NULL, *end;
	int ntok = 0;
	char *t;

	s[strcspn(s, "#\r\n")] = '\0';
	end = s + strlen(s);
	for (t = strtok(s, " \t"); t; t = strtok(NULL, " \t")) {
		if (!strcmp(t, "because")) {
			because = reason_after(t, end);
			break;
		}
		if (ntok == 8)
			return bad(path, line, "too many fields");
		tok[ntok++] = t;
	}
	if (!ntok)
		return because ? bad(path, line, "because without a rule") : 0;
	if (!strcmp(tok[0], "expect"))
		return parse_expect(p, tok, ntok, because, path, line);
	if (because)
		return bad(path, line, "only an expect rule takes a reason (because ...)");
	if (!strcmp(tok[0], "limit"))
		return parse_limit(p, tok, ntok, path, line);
	if (!strcmp(tok[0], "flaky") && ntok == 2 &&
	    (!strcmp(tok[1], "block") || !strcmp(tok[1], "allow"))) {
		p->flaky_blocks = !strcmp(tok[1], "block");
		return 0;
	}
	return bad(path, line, "expected 'expect', 'limit' or 'flaky block|allow'");
}

int policy_load(const char *path, struct policy *p)
{
	unsigned int line = 0;
	char buf[1024];
	int ret = 0;
	FILE *f;

	memset(p, 0, sizeof(*p));
	p->path = path;
	p->flaky_blocks = true;
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot read the policy %s\n", path);
		return -1;
	}
	while (!ret && fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f))
			ret = bad(path, line, "line too long");
		else
			ret = parse_line(p, buf, path, line);
	}
	fclose(f);
	if (!ret && !p->n_expect)
		ret = bad(path, line, "no expect rules");
	return ret;
}

static bool field_match(const char *pattern, const char *value)
{
	return !fnmatch(pattern, value, 0);
}

/*
 * The flavour axis is FLAVOUR on the farm base and BASE:FLAVOUR on the
 * others (release:server). A pattern without a colon is about the
 * flavour on every base; one with a colon about the base too, the farm
 * base then being "farm:".
 */
static bool flavour_match(const char *pattern, const char *flavour)
{
	const char *colon = strchr(flavour, ':');
	char full[POLICY_FIELD + sizeof("farm:")];

	if (!strchr(pattern, ':'))
		return field_match(pattern, colon ? colon + 1 : flavour);
	snprintf(full, sizeof(full), "%s%s", colon ? "" : "farm:", flavour);
	return field_match(pattern, full);
}

const struct expect_rule *policy_expect(const struct policy *p,
					const struct cell_key *k)
{
	const struct expect_rule *r;
	int i;

	for (i = p->n_expect - 1; i >= 0; i--) {
		r = &p->expect[i];
		if (flavour_match(r->match.flavour, k->flavour) &&
		    field_match(r->match.arch, k->arch) &&
		    field_match(r->match.machine, k->machine) &&
		    field_match(r->match.workload, k->workload) &&
		    field_match(r->match.variant, k->variant))
			return r;
	}
	return NULL;
}

const struct limit_rule *policy_limit(const struct policy *p,
				      const char *metric)
{
	int i;

	for (i = p->n_limit - 1; i >= 0; i--)
		if (field_match(p->limit[i].metric, metric))
			return &p->limit[i];
	return NULL;
}

const char *verdict_name(enum verdict v)
{
	static const char *const names[] = {
		[V_OK] = "ok", [V_SKIP] = "skip", [V_FLAKY] = "flaky",
		[V_FAIL] = "FAIL",
	};
	return names[v];
}

const char *judgement_name(const struct judgement *j)
{
	return j->verdict == V_OK && j->accepted ? "accepted" :
	       verdict_name(j->verdict);
}

void cell_key_id(const struct cell_key *k, char *buf, size_t len)
{
	bool dflt = !strcmp(k->variant, "default");

	snprintf(buf, len, "%s/%s/%s/%s%s%s", k->flavour, k->arch, k->machine,
		 k->workload, dflt ? "" : "@", dflt ? "" : k->variant);
}

/*
 * A skip is a cell that could not run. Only the policy can say that is
 * fine: a device that never appeared (a driver that failed to probe
 * behind the IOMMU) ends as a skip too, and that is what the farm is for.
 */
static enum verdict judge_outcome(struct judgement *j,
				  const struct expect_rule *rule,
				  const char *got, const char *reason,
				  char *why, size_t len)
{
	if (!got) {
		snprintf(why, len, "cell missing from the run");
		return V_FAIL;
	}
	if (outcome_in(got, j->expected)) {
		if (!strcmp(got, "skip")) {
			snprintf(why, len, "skipped, as the policy expects: %s",
				 reason);
			return V_SKIP;
		}
		j->accepted = rule && rule->accepts && strcmp(got, "pass");
		if (j->accepted)
			snprintf(why, len, "accepted: %s", rule->because);
		else if (j->hazard && rule->because[0])
			snprintf(why, len, "known hazard seen, as expected: %s",
				 rule->because);
		else
			snprintf(why, len, "%s",
				 j->hazard ? "known hazard seen, as expected" : "");
		return V_OK;
	}
	if (!strcmp(got, "skip"))
		snprintf(why, len, "unexpected skip (a cell that did not run is not a pass): %s",
			 reason);
	else if (j->hazard && !strcmp(got, "pass"))
		snprintf(why, len, "known hazard passed: the farm no longer sees %s",
			 j->expected);
	else
		snprintf(why, len, "expected %s, got %s: %s", j->expected, got,
			 reason);
	return V_FAIL;
}

void policy_judge(const struct policy *p, const struct cell_key *k,
		  const char *got, const char *reason, struct judgement *j)
{
	const struct expect_rule *rule = policy_expect(p, k);
	char why[sizeof(j->why) - 40];

	j->expected = rule ? rule->outcomes : "pass";
	j->hazard = rule ? rule->hazard : false;
	j->accepted = false;
	j->line = rule ? rule->line : 0;
	j->verdict = judge_outcome(j, rule, got, reason ? reason : "", why,
				   sizeof(why));
	if ((j->verdict == V_FAIL || j->accepted) && j->line)
		snprintf(j->why, sizeof(j->why), "%s (policy line %u)", why,
			 j->line);
	else
		snprintf(j->why, sizeof(j->why), "%s", why);
}

/* Copies the text up to @stop (or the end) into @dst; the rest or NULL. */
static const char *field(const char *s, int stop, char *dst)
{
	const char *end = stop ? strchr(s, stop) : NULL;
	size_t n = end ? (size_t)(end - s) : strlen(s);

	if (!n || n >= POLICY_FIELD)
		return NULL;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return end ? end + 1 : s + n;
}

int cell_key_parse(const char *id, struct cell_key *k)
{
	const char *p = id;

	p = field(p, '/', k->flavour);
	p = p ? field(p, '/', k->arch) : NULL;
	p = p ? field(p, '/', k->machine) : NULL;
	if (!p || strchr(p, '/'))
		return -1;
	if (!strchr(p, '@')) {
		strcpy(k->variant, "default");
		return field(p, 0, k->workload) ? 0 : -1;
	}
	p = field(p, '@', k->workload);
	return p && field(p, 0, k->variant) ? 0 : -1;
}
