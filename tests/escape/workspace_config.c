/*
 * Workspace configuration: what an agent or an editor opening the
 * workspace later acts on, outside any cage (.claude/settings.json and its
 * hooks, .vscode/tasks.json run when the folder opens, .mcp.json). In the
 * writable working directory of the default policy an existing one cannot
 * be written, replaced by a rename or removed, one missing cannot be made,
 * while the files beside it stay writable.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

static const char original[] = "{\"r48\": \"the user's own\"}\n";
static const char evil[] = "{\"r48\": \"planted\"}\n";

/* Existing configuration files of the workspace, under ws->rw. */
static const char *const r48_files[] = {
    ".vscode/tasks.json",
    ".claude/settings.json",
};
#define R48_N (sizeof r48_files / sizeof *r48_files)

/* The same file (inode) with the same content. */
static bool kept(const char *path, unsigned long long ino)
{
	return ino && inode_of(path) == ino && file_is(path, original);
}

/*
 * Put the file back as the fixture made it, after an attempt that changed
 * it (without the cage): its directory moved back, the file rewritten.
 */
static void restore(const char *path, const char *moved, const char *dir, const char *dir_moved)
{
	(void)unlink(moved);
	if (inode_of(dir_moved)) {
		(void)unlink(path);
		(void)rmdir(dir);
		(void)rename(dir_moved, dir);
	}
	(void)unlink(path);
	put_file(path, original);
}

static void r48_attempts(const struct tier *t, struct caged_ws *ws, const char *path)
{
	char incoming[PATH_MAX], moved[PATH_MAX], dir[PATH_MAX], dir_moved[PATH_MAX];
	if (!fixture(t,
		     snprintf(incoming, sizeof incoming, "%s.r48-incoming", path) <
			     (int)sizeof incoming &&
			 snprintf(moved, sizeof moved, "%s.r48-moved", path) < (int)sizeof moved &&
			 snprintf(dir, sizeof dir, "%s", path) < (int)sizeof dir,
		     "r48: the names beside %s fit", path))
		return;
	*strrchr(dir, '/') = '\0';
	if (!fixture(t,
		     snprintf(dir_moved, sizeof dir_moved, "%s-r48-moved", dir) <
			 (int)sizeof dir_moved,
		     "r48: the name beside %s fits", dir))
		return;
	const struct {
		const char *what;
		const char *args[12];
	} attempts[] = {
	    {"writing it in place", {"write-file", path, evil}},
	    {"renaming a file from its own directory over it", {"rename", incoming, path}},
	    {"removing it", {"unlink", path}},
	    {"renaming it away and writing a new one",
	     {"rename", path, moved, "then", "write-file", path, evil}},
	    {"renaming its directory away and writing a new one in a new directory",
	     {"rename", dir, dir_moved, "then", "mkdir", dir, "then", "write-file", path, evil}},
	};
	for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
		/* The incoming file is the fixture's: only the rename is the run's. */
		if (!fixture(t, put_file(incoming, evil), "r48: %s written", incoming))
			return;
		unsigned long long ino = inode_of(path);
		struct caged_result r = run_caged_argv(ws, NULL, attempts[i].args);
		bool same = kept(path, ino);
		check(t, refused(&r) && same, &r,
		      "r48: %s is refused; the same file with the same content stays at %s",
		      attempts[i].what, path);
		(void)unlink(incoming);
		if (!same)
			restore(path, moved, dir, dir_moved);
	}
}

/*
 * An existing .vscode/tasks.json and .claude/settings.json in the writable
 * working directory: written, replaced or removed by the run, they would
 * run the run's commands in the next session of the editor or the agent.
 */
void r48_workspace_configuration_is_read_only(const struct tier *t)
{
	char paths[R48_N][PATH_MAX], beside[PATH_MAX], beside_in[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r48");
	if (!ws || cage_refused_here(t, ws, "r48"))
		goto out;
	for (size_t i = 0; i < R48_N; i++)
		if (!path_join(t, paths[i], ws->rw, r48_files[i]) ||
		    !fixture(t, put_file(paths[i], original), "r48: %s written", paths[i]))
			goto out;
	for (size_t i = 0; i < R48_N; i++)
		r48_attempts(t, ws, paths[i]);

	for (size_t i = 0; i < R48_N; i++) {
		/* Beside it: a new file made, renamed and written. */
		char dir[PATH_MAX];
		if (snprintf(dir, sizeof dir, "%s", paths[i]) >= (int)sizeof dir)
			goto out;
		*strrchr(dir, '/') = '\0';
		if (!path_join(t, beside, dir, "r48-beside.json") ||
		    !path_join(t, beside_in, dir, "r48-beside.in"))
			goto out;
		r = run_caged(ws, NULL, "write-file", beside_in, evil, "then", "rename", beside_in,
			      beside, "then", "write-file", beside, "{}", "then", "read-file",
			      paths[i], NULL);
		check(t, did_it(&r) && file_is(beside, "{}") && strstr(r.out, "the user's own"), &r,
		      "r48: control: in the cage a file beside %s is made, renamed and written, "
		      "and the configuration is read",
		      r48_files[i]);
		(void)unlink(beside);
		(void)unlink(beside_in);
	}
	char file[PATH_MAX];
	if (path_join(t, file, ws->rw, "r48-new.txt")) {
		r = run_caged(ws, NULL, "write-file", file, "new", NULL);
		check(t, did_it(&r) && file_is(file, "new"), &r,
		      "r48: control: in the cage a new file is made at the workspace's root");
	}
	r = run_uncaged(ws, NULL, "write-file", paths[0], evil, "then", "unlink", paths[1], NULL);
	check(t, did_it(&r) && file_is(paths[0], evil) && inode_of(paths[1]) == 0, &r,
	      "r48: control: without the cage the configuration is written and removed");
out:
	caged_ws_free(ws);
}

/*
 * A configuration file missing when the cage is made: .mcp.json at the
 * workspace's root, .vscode/tasks.json beside an existing .vscode/launch.json.
 * The run cannot make it, directly or by a rename, while a new file beside
 * it is made.
 */
void r48_missing_workspace_configuration_cannot_be_made(const struct tier *t)
{
	char mcp[PATH_MAX], tasks[PATH_MAX], launch[PATH_MAX], incoming[PATH_MAX], plain[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r48");
	if (!ws || cage_refused_here(t, ws, "r48"))
		goto out;
	if (!path_join(t, mcp, ws->rw, ".mcp.json") ||
	    !path_join(t, tasks, ws->rw, ".vscode/tasks.json") ||
	    !path_join(t, launch, ws->rw, ".vscode/launch.json") ||
	    !path_join(t, incoming, ws->rw, "r48-incoming.json") ||
	    !path_join(t, plain, ws->rw, ".vscode/r48-plain.json"))
		goto out;
	if (!fixture(t, put_file(launch, original), "r48: %s written", launch))
		goto out;
	r = run_caged(ws, NULL, "write-file", mcp, evil, NULL);
	check(t, refused(&r) && inode_of(mcp) == 0, &r, "r48: a missing .mcp.json cannot be made");
	(void)unlink(mcp);
	r = run_caged(ws, NULL, "write-file", tasks, evil, NULL);
	check(t, refused(&r) && inode_of(tasks) == 0, &r,
	      "r48: a missing .vscode/tasks.json cannot be made");
	(void)unlink(tasks);
	if (!fixture(t, put_file(incoming, evil), "r48: %s written", incoming))
		goto out;
	r = run_caged(ws, NULL, "rename", incoming, tasks, NULL);
	check(t, refused(&r) && inode_of(tasks) == 0, &r,
	      "r48: a missing .vscode/tasks.json cannot be made by a rename");
	(void)unlink(tasks);
	r = run_caged(ws, NULL, "write-file", plain, "{}", NULL);
	check(t, did_it(&r) && file_is(plain, "{}"), &r,
	      "r48: control: in the cage a new file beside them is made");
	if (!fixture(t, put_file(incoming, evil), "r48: %s written again", incoming))
		goto out;
	r = run_uncaged(ws, NULL, "write-file", mcp, evil, "then", "rename", incoming, tasks, NULL);
	check(t, did_it(&r) && file_is(mcp, evil) && file_is(tasks, evil), &r,
	      "r48: control: without the cage both are made");
out:
	caged_ws_free(ws);
}
