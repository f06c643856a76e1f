/*
 * Metadata outside the write grants. Landlock (ABI 7 and below)
 * does not judge chmod, chown, utimes or extended attributes, so a file the
 * cage may only read, or may not reach at all but by path, would have its
 * mode, owner or times changed: a root caller's cage could make a
 * root-owned copy of a program setuid-root. On tier T1 everything but the
 * write grants is read-only in the run's mount namespace, and each call
 * fails with EROFS; on tier T2 the filter sends them to the supervisor's
 * metadata broker, which refuses them (EPERM) outside the write grants.
 * tests/escape/metadata_broker.c attacks the broker's judgement.
 *
 * Judged from outside: each file's mode and modification time after the
 * attempt, and the probe's exit code.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "escape.h"

struct r40_state {
	mode_t mode;
	time_t mtime;
	uid_t uid;
	gid_t gid;
};

static bool r40_stat(const char *path, struct r40_state *s)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	*s = (struct r40_state){st.st_mode & 07777, st.st_mtime, st.st_uid, st.st_gid};
	return true;
}

static bool r40_unchanged(const char *path, const struct r40_state *before)
{
	struct r40_state now;
	char value[8];
	return r40_stat(path, &now) && now.mode == before->mode && now.mtime == before->mtime &&
	       now.uid == before->uid && now.gid == before->gid &&
	       getxattr(path, "user.probe", value, sizeof value) < 0;
}

/* T1 refuses through its read-only mounts, T2 through the metadata broker. */
static void r40_check(const struct tier *t, bool ok, const struct caged_result *r, const char *what)
{
	check(t, ok, r, "%s", what);
}

void r40_metadata_outside_the_write_grants_is_refused(const struct tier *t)
{
	char outside[PATH_MAX], tool[PATH_MAX], readable[PATH_MAX], bashrc[PATH_MAX], key[PATH_MAX],
	    inside[PATH_MAX], git_config[PATH_MAX], head[PATH_MAX], what[PATH_MAX + 200];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r40");
	if (!ws || cage_refused_here(t, ws, "r40"))
		goto out;
	if (!path_join(t, outside, ws->root, "outside.txt") ||
	    !path_join(t, tool, ws->root, "tool") || !path_join(t, readable, ws->ro, "data") ||
	    !path_join(t, bashrc, ws->home, ".bashrc") ||
	    !path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, inside, ws->rw, "build.sh") ||
	    !path_join(t, git_config, ws->rw, "repo/.git/config") ||
	    !path_join(t, head, ws->rw, "repo/.git/HEAD"))
		goto out;
	if (!fixture(t,
		     put_file(outside, "r40: outside\n") && put_file(tool, "#!/bin/sh\n") &&
			 chmod(tool, 0755) == 0 && put_file(readable, "r40: data\n") &&
			 put_file(bashrc, "# r40\n") && put_file(key, "r40: key\n") &&
			 chmod(key, 0600) == 0 && put_file(inside, "#!/bin/sh\n") &&
			 chmod(inside, 0644) == 0 && put_file(git_config, "[core]\n") &&
			 put_file(head, "ref: refs/heads/main\n"),
		     "r40: fixtures in %s", ws->root))
		goto out;

	struct {
		const char *path, *name;
	} targets[] = {
	    {outside, "a file outside every grant"},
	    {tool, "a program outside every grant"},
	    {readable, "a file of a read-only grant"},
	    {bashrc, "~/.bashrc (protected)"},
	    {key, "~/.ssh/id_ed25519 (hidden)"},
	    {git_config, "a repository's .git/config in the workspace (protected)"},
	};
	struct {
		const char *action, *arg, *name;
	} calls[] = {
	    {"chmod", "0666", "chmod 0666"},
	    {"chmod", "04755", "chmod 04755 (setuid)"},
	    {"fchmod-ro", "0666", "fchmod 0666 through a read-only descriptor"},
	    {"set-xattr", NULL, "setxattr user.probe"},
	    {"set-times", NULL, "utimensat"},
	    {"chown-self", NULL, "chown to its own ids"},
	};
	for (size_t i = 0; i < sizeof targets / sizeof *targets; i++)
		for (size_t j = 0; j < sizeof calls / sizeof *calls; j++) {
			struct r40_state before = {0};
			if (!fixture(t, r40_stat(targets[i].path, &before), "r40: stat %s",
				     targets[i].path))
				goto out;
			r = run_caged(ws, NULL, calls[j].action, targets[i].path, calls[j].arg,
				      NULL);
			snprintf(what, sizeof what, "r40: %s on %s is refused and changes nothing",
				 calls[j].name, targets[i].name);
			r40_check(t, refused(&r) && r40_unchanged(targets[i].path, &before), &r,
				  what);
			/* Put it back for the next call (the sandbox may be off). */
			(void)chmod(targets[i].path, before.mode);
		}

	struct r40_state before_inside = {0};
	if (!fixture(t, r40_stat(inside, &before_inside), "r40: stat %s", inside))
		goto out;
	r = run_caged(ws, NULL, "chmod", inside, "0755", "then", "set-times", inside, NULL);
	struct r40_state after_inside = {0};
	check(t,
	      did_it(&r) && r40_stat(inside, &after_inside) && after_inside.mode == 0755 &&
		  after_inside.mtime == 1000000000,
	      &r, "r40: control: in the cage chmod +x and utimensat work inside the write grant");
	r = run_uncaged(ws, NULL, "chmod", outside, "0666", "then", "fchmod-ro", git_config, "0666",
			"then", "set-times", tool, NULL);
	struct r40_state after_outside = {0};
	check(t, did_it(&r) && r40_stat(outside, &after_outside) && after_outside.mode == 0666, &r,
	      "r40: control: without the cage a file outside every grant changes its mode, and "
	      ".git/config through a read-only descriptor");
	char value[8];
	r = run_uncaged(ws, NULL, "set-xattr", outside, NULL);
	if (r.how == CAGED_EXITED && r.code == PROBE_ERROR && strstr(r.err, "EOPNOTSUPP"))
		skip(t,
		     "r40: control: setxattr without the cage: CANNOT RUN HERE: the file system of "
		     "%s has no user extended attributes (%s)",
		     ws->root, r.summary);
	else
		check(t, did_it(&r) && getxattr(outside, "user.probe", value, sizeof value) == 1,
		      &r,
		      "r40: control: without the cage a file outside every grant takes an extended "
		      "attribute");
out:
	caged_ws_free(ws);
}
