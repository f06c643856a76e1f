/*
 * A path rule as the stages after the policy carry it: a canonical path,
 * the access it grants or denies, and where it came from (the policy, a
 * hard-deny class, another name of a denied location). The cage resolves
 * them (cage/paths.h); the walks of discover/ read them.
 */
#ifndef PROCAGE_PATH_RULE_H
#define PROCAGE_PATH_RULE_H

#include <stdbool.h>
#include <stddef.h>

#include "procage.h"

struct cage_path {
	char *path;               /* canonical */
	enum procage_access access; /* grants: READ or WRITE; denials: PROTECT or HIDE */
	int cls;                  /* enum class_id, -1 for the policy's own rule, CAGE_PATH_ALIAS,
				   * or CAGE_PATH_LISTED */
	/*
	 * A denial of a path that did not exist when the cage was made (a
	 * repository's commondir, config.worktree, an include target): a
	 * mount cannot mask it (tier T1 masks it only if it exists at
	 * spawn), the entry-by-entry grants of tier T2 leave its directory
	 * without the right to create it, and the end-of-run trust-handoff
	 * report says when it has come to exist.
	 */
	bool absent;
	/*
	 * A grant given whole although a denial lies below its name, because
	 * the name was no directory when it was listed: a directory there
	 * now would grant the denial (cage_grant_append refuses it).
	 */
	bool no_directory;
};

/*
 * The origin of a denial laid over a mount inside a grant whose content
 * has another name the policy hides or does not let the command write.
 */
#define CAGE_PATH_ALIAS (-2)
/*
 * The origin of a grant on an entry that a granted directory's listing
 * gave (entry_grants.c): an entry removed since is no longer granted.
 */
#define CAGE_PATH_LISTED (-3)

/* Is path equal to or below tree? Both canonical. */
bool path_within(const char *path, const char *tree);
/* What a denial is, for messages: "the secrets class" or "the policy". */
const char *cage_path_origin(const struct cage_path *p, char *buf, size_t size);
#endif
