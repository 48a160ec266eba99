// SPDX-License-Identifier: GPL-2.0
/* XML text escaping that always yields valid UTF-8: see xml.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "xml.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		len = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* XML 1.0's Char production. */
static bool xml_char(uint32_t cp)
{
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	return cp != 0xfffe && cp != 0xffff;
}

static void put_escaped(FILE *f, char c)
{
	switch (c) {
	case '<':
		fputs("&lt;", f);
		break;
	case '>':
		fputs("&gt;", f);
		break;
	case '&':
		fputs("&amp;", f);
		break;
	case '"':
		fputs("&quot;", f);
		break;
	case '\'':
		fputs("&apos;", f);
		break;
	case '\r':
		fputs("&#13;", f);	/* a parser would fold a raw CR away */
		break;
	default:
		fputc(c, f);
	}
}

void xml_textn(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		n = utf8_seq(p + i, len - i, &cp);
		if (!n || !xml_char(cp)) {
			fputs(REPLACEMENT, f);
			i += n ? n : 1;
		} else if (n == 1) {
			put_escaped(f, (char)p[i++]);
		} else {
			fwrite(p + i, 1, n, f);
			i += n;
		}
	}
}

void xml_text(FILE *f, const char *s)
{
	if (s)
		xml_textn(f, s, strlen(s));
}
