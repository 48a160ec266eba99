/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What source the gated packages were built from: the package version
 * in debian/changelog and the git commit of the source tree.
 */
#ifndef GATE_SOURCE_H
#define GATE_SOURCE_H

struct source {
	char package[64];	/* source package name, or "" */
	char version[64];	/* its version, or "" */
	char commit[41];	/* git HEAD, or "" */
};

/* Whatever DIR tells; what it does not is left "". */
void source_read(const char *dir, struct source *s);

#endif /* GATE_SOURCE_H */
