/*
 * A test's own temporary directory, below $TMPDIR (else /tmp), by its
 * canonical path: the paths a cage or the broker gives back are
 * canonical, and compare with it. The test removes it (tmpdir_remove).
 */
#ifndef PROCAGE_TEST_SCRATCH_H
#define PROCAGE_TEST_SCRATCH_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* Malloc'd; NULL when it could not be made. */
static inline char *scratch_dir(const char *name)
{
	const char *base = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof tmpl, "%s/procage-test-%s-XXXXXX", base ? base : "/tmp", name);
	return mkdtemp(tmpl) ? realpath(tmpl, NULL) : NULL;
}

#endif
