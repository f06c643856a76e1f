/*
 * The directories the workspace-config class holds its rows below: each
 * write grant's root that is a directory, and each work tree the
 * repositories' scan found inside the writable trees (an editor or an
 * agent opens either as its workspace).
 */
#ifndef PROCAGE_WORKSPACE_ROOTS_H
#define PROCAGE_WORKSPACE_ROOTS_H

#include <stddef.h>

#include "paths.h"

struct workspace_roots {
	char **roots; /* canonical, each once */
	size_t n;
};

/* 0 or -ENOMEM (with err filled). */
int workspace_roots_add(struct workspace_roots *w, const char *root, struct procage_error *err);
/* The write grants of c that are directories now. */
int workspace_roots_add_grants(struct workspace_roots *w, const struct cage_paths *c,
			       struct procage_error *err);
void workspace_roots_free(struct workspace_roots *w);

#endif
