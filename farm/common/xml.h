/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from untrusted places (a guest's console, a reason quoting it)
 * written into XML or HTML. The output is always well-formed UTF-8
 * that XML 1.0 allows: markup is escaped, and a byte that is not valid
 * UTF-8 or a character XML forbids becomes U+FFFD, so one bad console
 * line cannot make a CI server drop the whole report.
 */
#ifndef FARM_COMMON_XML_H
#define FARM_COMMON_XML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes), with its
 * code point in *cp; 0 when the bytes are not one (overlong forms,
 * surrogates and values past U+10FFFF included).
 */
size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);

void xml_text(FILE *f, const char *s);
void xml_textn(FILE *f, const char *s, size_t len);

#endif /* FARM_COMMON_XML_H */
