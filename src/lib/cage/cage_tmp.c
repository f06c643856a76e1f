/* Where a cage's runs get their private temporary directories (cage.h). */
#include "cage.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "paths.h"

const char *cage_grant_containing(const struct procage_cage *c, const char *path)
{
	for (size_t i = 0; i < c->n_grants; i++)
		if (path_within(path, c->grants[i].path))
			return c->grants[i].path;
	return NULL;
}

const char *cage_grant_within(const struct procage_cage *c, const char *path)
{
	for (size_t i = 0; i < c->n_grants; i++)
		if (path_within(c->grants[i].path, path) && strcmp(c->grants[i].path, path) != 0)
			return c->grants[i].path;
	return NULL;
}

bool cage_grant_writes(const struct procage_cage *c, const char *path)
{
	for (size_t i = 0; i < c->n_write_rules; i++)
		if (path_within(path, c->write_rules[i]))
			return true;
	return false;
}

/*
 * Can candidate hold the runs' private temporary directories? Tier T2
 * makes them in it on the host: only private if no grant reaches it
 * (another run of the same policy would reach them through it, R-10).
 * Tier T1 lays a tmpfs of the run's own over it, in the run's mount
 * namespace: private whatever reaches it, but it must hold no grant
 * either, which the tmpfs would hide. *why says which grant is in the way.
 */
static char *tmp_base_usable(const struct procage_cage *c, const char *candidate,
			     const char **why)
{
	struct stat st;
	char *base;
	if (!candidate || candidate[0] != '/' || !(base = realpath(candidate, NULL)))
		return NULL;
	const char *above = cage_grant_containing(c, base);
	const char *below = c->tier == PROCAGE_TIER_T1 ? cage_grant_within(c, base) : NULL;
	if (!above && !below && stat(base, &st) == 0 && S_ISDIR(st.st_mode))
		return base;
	if (above || below)
		*why = above ? above : below;
	free(base);
	return NULL;
}

/*
 * Where private temporary directories go: the policy's base when it sets
 * one; else the caller's TMPDIR, then /tmp (and on tier T1, where nothing
 * is made on the host, /var/tmp). When none can, the cage is refused.
 */
int cage_choose_tmp_base(struct procage_cage *c, struct procage_error *err)
{
	const char *policy_base = c->policy->tmp_base;
	bool t1 = c->tier == PROCAGE_TIER_T1;
	const char *candidates[] = { policy_base ? policy_base : getenv("TMPDIR"),
				     policy_base ? NULL : "/tmp",
				     policy_base || !t1 ? NULL : "/var/tmp" };
	const char *granted_by[] = { "nothing usable", "nothing usable", "nothing usable" };
	for (size_t i = 0; i < 3; i++) {
		if ((c->tmp_base = tmp_base_usable(c, candidates[i], &granted_by[i]))) {
			c->tmp_mounted = t1;
			/*
			 * Tier T2 makes each run's directory in it on the host,
			 * as the caller: say so now rather than fail the spawn
			 * with a bare errno.
			 */
			if (!t1 && access(c->tmp_base, W_OK | X_OK) != 0)
				return error_set(err, -errno,
						 "cannot make the runs' private temporary directories "
						 "in %s (%s): %s; set TMPDIR to a directory you can "
						 "write, or turn private tmp off",
						 c->tmp_base,
						 policy_base ? "the policy's tmp_base"
						 : i == 0    ? "$TMPDIR"
							     : "the default",
						 strerror(errno));
			return 0;
		}
	}
	const char *relation = t1 ? "lies in or holds" : "lies in";
	if (policy_base)
		return error_set(err, -EINVAL,
				 "cannot make private temporary directories in the policy's base %s: "
				 "it %s the granted %s, so %s",
				 policy_base, relation, granted_by[0],
				 t1 ? "a tmpfs over it would hide that grant"
				    : "other runs could reach them");
	if (t1)
		return error_set(err, -EINVAL,
				 "cannot mount the run's private temporary directory: $TMPDIR %s the "
				 "granted %s, /tmp the granted %s and /var/tmp the granted %s, which a "
				 "tmpfs over it would hide; set TMPDIR to a directory that neither lies "
				 "in nor holds a granted path, or turn private tmp off",
				 relation, granted_by[0], granted_by[1], granted_by[2]);
	return error_set(err, -EINVAL,
			 "cannot make private temporary directories: $TMPDIR lies in the granted %s and "
			 "/tmp in the granted %s, so other runs could reach them; set TMPDIR to a "
			 "directory outside the granted paths or turn private tmp off",
			 granted_by[0], granted_by[1]);
}
