/*
 * Tier T1 with the policy's changes set to overlay (procage_policy_set_changes):
 * each write grant on a directory becomes an overlay in the run's mount
 * namespace, and what the run wrote is judged when it is applied, by what
 * changed (src/lib/changes/). Here the cage's share: the refusal where no
 * mount namespace exists, and the denials the overlay makes unneeded.
 */
#include "changes_overlay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "cage.h"

int cage_changes_refusal(const struct procage_policy *policy, int tier, struct procage_error *err)
{
	if (policy->changes_limit && policy->changes != PROCAGE_CHANGES_OVERLAY)
		return error_set(err, -EINVAL,
				 "a bound on the change set (--limit changes=, \"limits\": "
				 "{\"changes\": ...}) needs changes as an overlay: add --changes "
				 "overlay, or drop the bound");
	if (policy->changes != PROCAGE_CHANGES_OVERLAY || tier == PROCAGE_TIER_T1)
		return 0;
	return error_set(err, -EOPNOTSUPP,
			 "changes as an overlay need tier T1 (a mount namespace of the run's "
			 "own), and this host gives tier T2; run without --changes overlay");
}

/* Is path inside (or at) a write grant on a directory? */
static bool within_overlay(const struct cage_paths *paths, const char *path)
{
	for (size_t i = 0; i < paths->n_grants; i++) {
		const struct cage_path *g = &paths->grants[i];
		struct stat st;
		if (g->access == PROCAGE_WRITE && path_within(path, g->path) &&
		    stat(g->path, &st) == 0 && S_ISDIR(st.st_mode))
			return true;
	}
	return false;
}

/*
 * In an overlaid tree the run writes only its own upper layer: what it
 * makes of a protected location is judged when the change set is
 * applied, so the protections there need no mask (git may then rewrite
 * its config, and a hook the run plants is held back afterwards). A
 * hidden location that exists still is masked: its content is a secret
 * of the host tree. One still missing needs nothing: whatever the run
 * makes there is its own.
 */
void cage_changes_denials_filter(const struct procage_policy *policy, struct cage_paths *paths)
{
	size_t kept = 0;
	if (policy->changes != PROCAGE_CHANGES_OVERLAY)
		return;
	for (size_t i = 0; i < paths->n_denials; i++) {
		struct cage_path *d = &paths->denials[i];
		if (within_overlay(paths, d->path) && (d->access != PROCAGE_HIDE || d->absent)) {
			free(d->path);
			continue;
		}
		paths->denials[kept++] = *d;
	}
	paths->n_denials = kept;
}
