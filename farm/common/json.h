/* SPDX-License-Identifier: GPL-2.0 */
/* jansson helpers the host tools share. */
#ifndef FARM_COMMON_JSON_H
#define FARM_COMMON_JSON_H

#include <jansson.h>

/* o[key] when it is a string, else dflt (which may be NULL). */
const char *jstr(const json_t *o, const char *key, const char *dflt);

/* A NULL-terminated argv copied from a JSON array of strings. */
char **argv_from_json(json_t *words);
void argv_free(char **argv);

#endif /* FARM_COMMON_JSON_H */
