/*
 * From the policy's path rules and the hard-deny classes to what a cage
 * enforces: the grants (read or write trees) and the denials that lie
 * inside them (paths to hide or keep read-only), all canonical.
 */
#ifndef PROCAGE_PATHS_H
#define PROCAGE_PATHS_H

#include <stddef.h>

#include "base/path_set.h"
#include "policy/path_rule.h"
#include "policy/policy.h"

struct cage_paths {
	struct cage_path *grants;
	size_t n_grants;
	struct cage_path *denials; /* sorted: an ancestor before its descendants */
	size_t n_denials;
	struct cage_path *sockets; /* Unix sockets the policy lets the command reach */
	size_t n_sockets;
	/* Every hidden and protected location, reached by a grant or not: a
	 * hard link made before the run could give it a name inside one. */
	struct cage_path *examined;
	size_t n_examined;
	struct handoff_snapshot *handoff_snapshot; /* the repositories found (handoff.h) */
	/* While the paths are resolved: the (path, access) pairs of examined
	 * and denials, whose strings they point to. Emptied when done. */
	struct path_set examined_index, denials_index;
};

/*
 * root_private_walk: hide a root caller's root-only files of /etc by
 * walking it (false where each run sees an id-mapped /etc instead).
 */
int paths_resolve(const struct procage_policy *policy, bool root_private_walk,
		  struct cage_paths *out, struct procage_error *err);
/*
 * The same in two parts: what the policy and the classes name, which
 * needs nothing of the host's facts (a cage resolves it while they are
 * measured), then what the host adds (a root caller's /etc, link
 * targets, other mounts' spellings). On failure *out is freed.
 */
int paths_resolve_policy(const struct procage_policy *policy, struct cage_paths *out,
			 struct procage_error *err);
int paths_resolve_host(const struct procage_policy *policy, bool root_private_walk,
		       struct cage_paths *out, struct procage_error *err);
void cage_paths_free(struct cage_paths *paths);
/* Hand the examined locations over to *examined. */
void path_list_release_examined(struct cage_paths *paths, struct cage_path **examined,
				size_t *n_examined);
/* Hand the sockets over to *sockets (or free them when NULL). */
void path_list_release_sockets(struct cage_paths *paths, struct cage_path **sockets,
			       size_t *n_sockets);
/* Hand the denials over to *denials (or free them when NULL). */
void path_list_release_denials(struct cage_paths *paths, struct cage_path **denials,
			       size_t *n_denials);

/* The user's runtime directory: $XDG_RUNTIME_DIR when absolute, else /run/user/UID (in buf). */
const char *paths_runtime_directory(char *buf, size_t size);

#endif
