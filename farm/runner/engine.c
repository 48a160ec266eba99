// SPDX-License-Identifier: GPL-2.0
/* What every engine may need: see engine.h. */
#include <stdlib.h>

#include "engine.h"

void engine_verdict(const struct job *j, const char *reason,
		    const char *evidence)
{
	char *path = job_path(j, "classify.json");
	json_t *r = json_pack("{s:s, s:s, s:s}", "outcome", "infra-error",
			      "reason", reason, "evidence", evidence);

	json_dump_file(r, path, JSON_COMPACT);
	json_decref(r);
	free(path);
}
