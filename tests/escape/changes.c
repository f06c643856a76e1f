/*
 * Changes as an overlay (R-50, tier T1): the run's writes land in an
 * upper layer in procage's store, which no run can reach, its own or
 * another's; and applying a change set never follows a link planted in
 * the host tree after the run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

/* The store under the workspace's home: set for the canary's length. */
static bool store_env(const struct tier *t, struct caged_ws *ws, char *state)
{
	if (!path_join(t, state, ws->home, ".local/state"))
		return false;
	return fixture(t, setenv("XDG_STATE_HOME", state, 1) == 0, "r50: XDG_STATE_HOME set");
}

/* The newest kept change set's ID, in id; false when none. */
static bool newest_set(char *id, size_t size)
{
	char **ids = NULL;
	struct procage_error err = { 0 };
	size_t n = 0;
	if (procage_changes_list(&ids, &err) != 0 || !ids)
		return false;
	while (ids[n])
		n++;
	snprintf(id, size, "%s", ids[n - 1]);
	procage_strings_free(ids);
	return true;
}

static bool overlay_policy(const struct tier *t, struct caged_ws *ws)
{
	struct procage_error err = { 0 };
	return fixture(t, procage_policy_set_changes(ws->policy, PROCAGE_CHANGES_OVERLAY, &err) == 0,
		       "r50: changes as an overlay set: %s", err.message);
}

/*
 * A first run keeps a change set holding a secret it wrote; a second run
 * cannot read it in the store, nor list the store, nor its own upper layer.
 */
void r50_a_run_reaches_no_change_set(const struct tier *t)
{
	char state[PATH_MAX], file[PATH_MAX], kept[PATH_MAX * 2 + 64], store[PATH_MAX], id[64];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r50");
	if (!ws || cage_refused_here(t, ws, "r50"))
		goto out;
	if (!tier_is_t1(t)) {
		skip(t, "r50: changes as an overlay need tier T1 (a mount namespace)");
		goto out;
	}
	if (!store_env(t, ws, state) || !overlay_policy(t, ws) ||
	    !path_join(t, file, ws->rw, "r50-secret") ||
	    !path_join(t, store, state, "procage/changes"))
		goto out;
	r = run_caged(ws, NULL, "write-file", file, "kept in the store", NULL);
	bool have = did_it(&r) && newest_set(id, sizeof id) && inode_of(file) == 0;
	check(t, have, &r, "r50: a run's write lands in a kept change set, not in the tree");
	if (!have)
		goto out;
	snprintf(kept, sizeof kept, "%s/%s/0/upper/r50-secret", store, id);
	r = run_caged(ws, NULL, "read-file", kept, NULL);
	check(t, refused(&r) && !strstr(r.out, "kept in the store"), &r,
	      "r50: another run cannot read a kept change set's upper layer");
	r = run_caged(ws, NULL, "list-dir", store, NULL);
	check(t, refused(&r) || !strstr(r.out, id), &r,
	      "r50: a run cannot list the store of change sets");
	r = run_uncaged(ws, NULL, "read-file", kept, NULL);
	check(t, did_it(&r) && strstr(r.out, "kept in the store"), &r,
	      "r50: control: without the cage the upper layer is read");
out:
	unsetenv("XDG_STATE_HOME");
	caged_ws_free(ws);
}

/*
 * After the run, the host replaces a directory the change set writes
 * into by a link to a directory outside the tree: applying writes
 * nothing outside, says what it did not apply and keeps it.
 */
void r50_a_change_set_is_not_applied_through_a_planted_link(const struct tier *t)
{
	char state[PATH_MAX], dir[PATH_MAX], file[PATH_MAX], outside[PATH_MAX], landed[PATH_MAX];
	char id[64];
	struct caged_result r;
	struct procage_error err = { 0 };
	char **lines = NULL;
	int kept = 0;
	struct caged_ws *ws = workspace(t, "r50");
	if (!ws || cage_refused_here(t, ws, "r50"))
		goto out;
	if (!tier_is_t1(t)) {
		skip(t, "r50: changes as an overlay need tier T1 (a mount namespace)");
		goto out;
	}
	if (!store_env(t, ws, state) || !overlay_policy(t, ws) ||
	    !path_join(t, dir, ws->rw, "r50-dir") || !path_join(t, file, dir, "f") ||
	    !path_join(t, outside, ws->root, "r50-outside") ||
	    !path_join(t, landed, outside, "f") || !fixture(t, make_dirs(dir), "r50: %s", dir) ||
	    !fixture(t, make_dirs(outside), "r50: %s", outside))
		goto out;
	r = run_caged(ws, NULL, "write-file", file, "from the run", NULL);
	bool have = did_it(&r) && newest_set(id, sizeof id);
	/* The host changes the tree meanwhile. */
	bool planted = rmdir(dir) == 0 && symlink(outside, dir) == 0;
	int rc = have && planted ? procage_changes_apply(id, PROCAGE_APPLY_ALL, NULL, 0, &lines,
							 &kept, &err)
				 : -1;
	bool said = lines && lines[0] && strstr(lines[0], "not applied");
	check(t, have && rc == 0 && said && kept && inode_of(landed) == 0, &r,
	      "r50: a change set is not applied through a link planted in the host tree");
	procage_strings_free(lines);
	lines = NULL;
	/* Control: the link gone, the directory back, the same set applies. */
	(void)unlink(dir);
	(void)make_dirs(dir);
	rc = have ? procage_changes_apply(id, PROCAGE_APPLY_ALL, NULL, 0, &lines, &kept, &err) : -1;
	check_role(t, ROLE_NEEDS_CAGE, rc == 0 && !kept && file_is(file, "from the run"), &r,
		   "r50: control: with the directory back the change set applies");
	procage_strings_free(lines);
	r = run_uncaged(ws, NULL, "write-file", landed, "uncaged", NULL);
	check(t, did_it(&r) && file_is(landed, "uncaged"), &r,
	      "r50: control: without the cage the directory outside is written");
out:
	unsetenv("XDG_STATE_HOME");
	caged_ws_free(ws);
}
