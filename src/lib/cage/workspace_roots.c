/* The workspace-config class's bases (see workspace_roots.h). */
#include "workspace_roots.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "policy/path_rule.h"

int workspace_roots_add(struct workspace_roots *w, const char *root, struct procage_error *err)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->roots[i], root) == 0)
			return 0;
	char *copy = strdup(root);
	char **grown = copy ? realloc(w->roots, (w->n + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return error_set(err, -ENOMEM, "out of memory listing the workspaces");
	}
	w->roots = grown;
	w->roots[w->n++] = copy;
	return 0;
}

/*
 * A write grant that is a file (/dev/null) holds no workspace; a missing
 * one holds nothing yet.
 */
int workspace_roots_add_grants(struct workspace_roots *w, const struct cage_paths *c,
			       struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < c->n_grants; i++) {
		struct stat st;
		if (c->grants[i].access == PROCAGE_WRITE && stat(c->grants[i].path, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			rc = workspace_roots_add(w, c->grants[i].path, err);
	}
	return rc;
}

void workspace_roots_free(struct workspace_roots *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->roots[i]);
	free(w->roots);
	w->roots = NULL;
	w->n = 0;
}
