/*
 * The trust-handoff class's locations in the repositories of the writable
 * trees: what git runs or reads in each (repositories.h), kept read-only,
 * absent ones included (they cannot be masked, only checked after the run).
 */
#ifndef PROCAGE_REPOSITORY_CLASSES_H
#define PROCAGE_REPOSITORY_CLASSES_H

#include <stddef.h>

#include "policy/classes.h"

/*
 * Add the repositories' locations to *out, unless trust-handoff is waived.
 * options are repositories_find's (REPOSITORIES_MAKE_HOOKS,
 * REPOSITORIES_REFUSE_STORES).
 */
int repository_classes_add(unsigned waived, const char *home, const char *const *trees,
			   size_t n_trees, unsigned options, struct class_locations *out,
			   struct procage_error *err);

/* classes_expand, then the repositories of trees (no options); *out is empty on failure. */
int repository_classes_expand(unsigned waived, const char *home, const char *runtime_dir,
			      const char *const *trees, size_t n_trees,
			      struct class_locations *out, struct procage_error *err);

#endif
