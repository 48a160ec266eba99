// SPDX-License-Identifier: GPL-2.0
/*
 * scan: the log in, one bounded line at a time. A line ends at '\n'; CR
 * and NUL are dropped (CRLF logs, the console's "\r\r\n", binary junk),
 * and whatever passes TRI_LINE_MAX is cut and counted. Each line goes to
 * the fault reader and to the context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "triage.h"

#define TRI_CHUNK (1 << 16)

struct line_buf {
	char *text;
	size_t n;
	bool cut, open;
};

void tri_init(struct triage *t, const char *input)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->input = input;
	t->ctx.forcedac = -1;
	for (i = 0; i < FLT_FAM_COUNT; i++)
		t->fam[i].last_dev = -1;
	flt_reader_init(&t->reader, tri_event, t);
}

/* Drops CR and NUL in place. */
static size_t squeeze(char *s, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++)
		if (s[i] != '\r' && s[i] != '\0')
			s[o++] = s[i];
	return o;
}

static void end_line(struct triage *t, struct line_buf *b)
{
	if (memchr(b->text, '\r', b->n) || memchr(b->text, '\0', b->n))
		b->n = squeeze(b->text, b->n);
	b->text[b->n] = '\0';
	t->lines++;
	flt_reader_line(&t->reader, b->text, t->lines);
	tri_context_line(t, b->text, t->lines);
	b->n = 0;
	b->cut = false;
	b->open = false;
}

static void append(struct triage *t, struct line_buf *b, const char *p,
		   size_t n)
{
	size_t room = TRI_LINE_MAX - b->n;

	if (n)
		b->open = true;
	if (n > room) {
		if (!b->cut)
			t->cut_lines++;
		b->cut = true;
		n = room;
	}
	memcpy(b->text + b->n, p, n);
	b->n += n;
}

static void split(struct triage *t, struct line_buf *b, const char *p,
		  size_t n)
{
	const char *nl;

	while (n && (nl = memchr(p, '\n', n))) {
		append(t, b, p, nl - p);
		end_line(t, b);
		n -= nl - p + 1;
		p = nl + 1;
	}
	append(t, b, p, n);
}

int tri_read(struct triage *t, FILE *f)
{
	struct line_buf b = { 0 };
	char *chunk = malloc(TRI_CHUNK);
	int ret = -1, err = ENOMEM;
	size_t got;

	b.text = malloc(TRI_LINE_MAX + 1);
	if (!chunk || !b.text)
		goto out;
	while ((got = fread(chunk, 1, TRI_CHUNK, f)) > 0)
		split(t, &b, chunk, got);
	if (ferror(f)) {
		err = errno;
		goto out;
	}
	if (b.open)
		end_line(t, &b);	/* the log ends mid-line */
	flt_reader_end(&t->reader);
	ret = 0;
out:
	free(b.text);
	free(chunk);
	errno = err;
	return ret;
}
