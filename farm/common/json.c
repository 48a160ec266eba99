// SPDX-License-Identifier: GPL-2.0
/* jansson helpers the host tools share: see json.h. */
#include <stdlib.h>

#include "json.h"
#include "util.h"

const char *jstr(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

char **argv_from_json(json_t *words)
{
	size_t i, n = json_array_size(words);
	char **argv = xcalloc(n + 1, sizeof(*argv));

	for (i = 0; i < n; i++)
		argv[i] = xstrdup(json_string_value(json_array_get(words, i)));
	return argv;
}

void argv_free(char **argv)
{
	char **a;

	if (!argv)
		return;
	for (a = argv; *a; a++)
		free(*a);
	free(argv);
}
