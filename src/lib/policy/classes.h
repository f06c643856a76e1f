/*
 * The hard-deny classes: locations every policy denies unless the caller
 * waives the class by name. The lists are data, in classes.c, and are
 * documented in docs/classes.md.
 */
#ifndef PROCAGE_CLASSES_H
#define PROCAGE_CLASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/path_set.h"

#include "procage.h"

enum class_id {
	CLASS_SECRETS,
	CLASS_TRUST_HANDOFF,
	CLASS_PERSISTENCE,
	CLASS_SERVICE_HANDOFF,
	CLASS_CONTAINER_ENGINES,
	CLASS_PROCESS_ACCESS,
	CLASS_WORKSPACE_CONFIG,
	CLASS__COUNT
};

/* A class location found on this host, with its canonical path. */
struct class_location {
	char *path;
	enum class_id cls;
	enum procage_access deny; /* PROCAGE_HIDE or PROCAGE_PROTECT */
	bool absent; /* missing when found: held at its making (the broker), never masked */
};

struct class_locations {
	struct class_location *items;
	size_t n;
	struct path_set index; /* each item's path, to its position */
};

/* The name of a class ("secrets"), and the id of a name or -1. */
const char *class_name(enum class_id cls);
int class_from_name(const char *name);

/*
 * Every location of the classes not waived (a bitmask of 1 << class_id):
 * under home, the runtime directory and the system. Paths are canonical,
 * a missing one marked absent (its nearest existing ancestor canonical);
 * a pattern row names only what matches now. Duplicates are dropped. The repositories of the
 * writable trees are discover/'s (repository_classes.h).
 */
int classes_expand(unsigned waived, const char *home, const char *runtime_dir,
		   struct class_locations *out, struct procage_error *err);
/*
 * The workspace-config locations below each root: the write grants' roots
 * and the work trees found in them, canonical directories. Like
 * classes_expand, but *out is added to, and left as it is on failure.
 */
int classes_expand_workspaces(unsigned waived, const char *const *roots, size_t n_roots,
			      struct class_locations *out, struct procage_error *err);
void class_locations_free(struct class_locations *locations);
/* Add a canonical location (once: the same place through two rows keeps the hiding). 0 or -ENOMEM. */
int class_locations_add(struct class_locations *out, const char *canonical, enum class_id cls,
			enum procage_access deny, bool absent);

/* The rows of the table, for documentation checks: how many, and row i as
 * "<base>path" with its class and denial. */
size_t classes_row_count(void);
/*
 * The variable of the caller's environment (KUBECONFIG, GNUPGHOME...) that
 * moves a class location to the canonical path location, or NULL.
 */
const char *classes_moved_by(const char *location);

void classes_row_describe(size_t i, char *buf, size_t size, enum class_id *cls,
			  enum procage_access *deny);

#endif
