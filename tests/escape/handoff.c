/*
 * Trust handoff: files a program outside the cage later runs or
 * trusts. A writable workspace holding repositories (hooks, config, a
 * nested repository, a submodule's store, a bare repository) and, with
 * $HOME inside it, shell startup files, git's config, a program directory
 * and secrets: the first are read-only in the cage, the secrets unreadable
 * and unlistable, and the workspace's ordinary files stay writable.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

static const char hook_text[] = "#!/bin/sh\necho r07: the real hook\n";
static const char config_text[] = "[core]\n\tbare = false\n";
static const char evil[] = "#!/bin/sh\necho r07: planted\n";

struct r07_target {
	const char *rel; /* under the workspace */
	const char *what;
	bool exists; /* an existing file, else one the cage tries to create */
};

static const struct r07_target r07_targets[] = {
    {"repo/.git/hooks/pre-commit", "a new hook in .git/hooks", false},
    {"repo/.git/hooks/post-checkout", "an existing hook", true},
    {"repo/.git/config", ".git/config", true},
    {"repo/.git/info/attributes", ".git/info/attributes", true},
    {"repo/vendor/.git/hooks/pre-commit", "a hook of a nested repository", false},
    {"repo/vendor/.git/config", "a nested repository's config", true},
    {"repo/.git/modules/sub/hooks/pre-commit", "a hook in a submodule's store", false},
    {"repo/.git/modules/sub/config", "a submodule's config", true},
    {"mirror.git/hooks/pre-receive", "a hook of a bare repository", false},
    {"mirror.git/config", "a bare repository's config", true},
    {"home/.bashrc", "~/.bashrc with $HOME in the workspace", true},
    {"home/.profile", "~/.profile", true},
    {"home/.gitconfig", "~/.gitconfig", true},
    {"home/.local/bin/git", "a program in ~/.local/bin", false},
};
#define R07_N (sizeof r07_targets / sizeof *r07_targets)

static bool r07_fixtures(const struct tier *t, struct caged_ws *ws)
{
	static const char *const dirs[] = {
	    "repo/.git/objects/ab", "repo/.git/refs/heads",  "repo/src",
	    "mirror.git/objects",   "mirror.git/refs/heads", "repo/vendor/.git/hooks",
	    "mirror.git/hooks",	    "repo/.git/hooks",	     "repo/.git/modules/sub/hooks",
	    "home/.local/bin",
	};
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		if (!path_join(t, path, ws->rw, dirs[i]) ||
		    !fixture(t, make_dirs(path), "r07: %s made", path))
			return false;
	for (size_t i = 0; i < R07_N; i++) {
		if (!r07_targets[i].exists)
			continue;
		const char *text = strstr(r07_targets[i].rel, "hooks/") ? hook_text : config_text;
		if (!path_join(t, path, ws->rw, r07_targets[i].rel) ||
		    !fixture(t, put_file(path, text), "r07: %s written", path))
			return false;
	}
	static const char *const files[][2] = {
	    {"repo/.git/HEAD", "ref: refs/heads/main\n"},
	    {"mirror.git/HEAD", "ref: refs/heads/main\n"},
	    {"repo/README.md", "r07: readme\n"},
	    {"home/.ssh/id_ed25519", "r07: secret key\n"},
	    {"home/.git-credentials", "https://r07:secret-token@example.test\n"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (!path_join(t, path, ws->rw, files[i][0]) ||
		    !fixture(t, put_file(path, files[i][1]), "r07: %s written", path))
			return false;
	return true;
}

static bool r07_unchanged(const char *path, const struct r07_target *target)
{
	const char *text = strstr(target->rel, "hooks/") ? hook_text : config_text;
	return target->exists ? file_is(path, text) : !caged_path_exists(path);
}

/*
 * Without the approximation its tier needs, the same workspace is refused
 * before any child runs, naming it.
 */
static void r07_refused_without_the_approximation(const struct tier *t, struct caged_ws *ws)
{
	const char *needed = tier_is_t1(t) ? "spawn-snapshot" : "entry-grants";
	struct procage_error err;
	struct procage_policy *plain = procage_policy_new(), *saved = ws->policy;
	if (!fixture(t, plain && procage_policy_allow(plain, ws->rw, PROCAGE_WRITE, &err) == 0,
		     "r07: a policy granting only the workspace is made"))
		goto out;
	ws->policy = plain;
	struct caged_result r = run_caged(ws, NULL, "print", "r07: ran", NULL);
	ws->policy = saved;
	check(t, refused_before_any_child(&r) && strstr(r.error, needed), &r,
	      "r07: without accepting %s the same workspace is refused before any child runs, "
	      "naming it",
	      needed);
out:
	ws->policy = saved;
	procage_policy_free(plain);
}

/* Rename DIR away, make it anew, plant FILE in it; put things back after. */
static void r07_moved_away(const struct tier *t, struct caged_ws *ws, const char *dir_rel,
			   const char *file_rel, const char *what)
{
	char dir[PATH_MAX], moved[PATH_MAX], file[PATH_MAX], parent[PATH_MAX];
	char moved_rel[128];
	snprintf(moved_rel, sizeof moved_rel, "%s-moved", dir_rel);
	if (!path_join(t, dir, ws->rw, dir_rel) || !path_join(t, file, ws->rw, file_rel) ||
	    !path_join(t, moved, ws->rw, moved_rel))
		return;
	snprintf(parent, sizeof parent, "%s", file);
	*strrchr(parent, '/') = '\0';
	bool existed = caged_path_exists(file);
	char before[256] = "";
	caged_read_file(file, before, sizeof before);
	const char *args[] = {"rename", dir,	moved,	"then",	      "mkdir", dir,  "then",
			      "mkdir",	parent, "then", "write-file", file,    evil, NULL};
	if (strcmp(parent, dir) == 0) /* no second mkdir */
		memmove(&args[7], &args[10], 4 * sizeof *args);
	struct caged_result r = run_caged_argv(ws, NULL, args);
	bool kept = existed ? file_is(file, before) : !caged_path_exists(file);
	check(t, refused(&r) && kept, &r,
	      "r07: renaming %s away and making it anew does not plant %s", dir_rel, what);
	if (caged_path_exists(moved)) {
		caged_remove_tree(dir);
		(void)rename(moved, dir);
	}
}

void r07_trust_handoff_files_are_protected_in_a_writable_workspace(const struct tier *t)
{
	char path[PATH_MAX], ssh[PATH_MAX], key[PATH_MAX], creds[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r07");
	if (!ws || cage_refused_here(t, ws, "r07"))
		goto out;
	if (!r07_fixtures(t, ws) || !path_join(t, ssh, ws->rw, "home/.ssh") ||
	    !path_join(t, key, ssh, "id_ed25519") ||
	    !path_join(t, creds, ws->rw, "home/.git-credentials") ||
	    !path_join(t, ws->home, ws->rw, "home"))
		goto out;

	for (size_t i = 0; i < R07_N; i++) {
		const struct r07_target *target = &r07_targets[i];
		if (!path_join(t, path, ws->rw, target->rel))
			continue;
		r = run_caged(ws, NULL, "write-file", path, evil, NULL);
		check(t, refused(&r) && r07_unchanged(path, target), &r,
		      "r07: writing %s (%s) is refused", target->what, target->rel);
		if (r07_unchanged(path, target))
			continue;
		/* It changed (without the cage): put it back for what follows. */
		if (target->exists)
			put_file(path, strstr(target->rel, "hooks/") ? hook_text : config_text);
		else
			(void)unlink(path);
	}
	r = run_caged(ws, NULL, "read-file", key, NULL);
	check(t, refused(&r) && !strstr(r.out, "r07:"), &r,
	      "r07: the secret ~/.ssh/id_ed25519 cannot be read");
	r = run_caged(ws, NULL, "list-dir", ssh, NULL);
	check(t, refused(&r) && !strstr(r.out, "id_ed25519"), &r, "r07: ~/.ssh cannot be listed");
	r = run_caged(ws, NULL, "read-file", creds, NULL);
	check(t, refused(&r) && !strstr(r.out, "secret-token"), &r,
	      "r07: ~/.git-credentials cannot be read");
	r07_moved_away(t, ws, "repo/.git", "repo/.git/hooks/pre-commit", "a hook");
	r07_moved_away(t, ws, "repo/.git", "repo/.git/config", "a new .git/config");
	r07_moved_away(t, ws, "home", "home/.bashrc", "a new ~/.bashrc");
	r07_refused_without_the_approximation(t, ws);

	char readme[PATH_MAX], new_src[PATH_MAX], object[PATH_MAX], config[PATH_MAX],
	    bashrc[PATH_MAX], hook[PATH_MAX];
	if (!path_join(t, readme, ws->rw, "repo/README.md") ||
	    !path_join(t, new_src, ws->rw, "repo/src/main.c") ||
	    !path_join(t, object, ws->rw, "repo/.git/objects/ab/cdef") ||
	    !path_join(t, config, ws->rw, "repo/.git/config") ||
	    !path_join(t, bashrc, ws->rw, "home/.bashrc") ||
	    !path_join(t, hook, ws->rw, "repo/.git/hooks/pre-commit"))
		goto out;
	r = run_caged(ws, NULL, "write-file", readme, "r07: edited", "then", "write-file", new_src,
		      "int main(void) { return 0; }\n", "then", "write-file", object, "blob", NULL);
	check(t, did_it(&r) && file_is(readme, "r07: edited") && file_is(object, "blob"), &r,
	      "r07: control: in the cage the workspace's ordinary files are written and created, "
	      "and git's object store stays writable");
	r = run_caged(ws, NULL, "read-file", config, "then", "read-file", bashrc, NULL);
	check(t, did_it(&r) && strstr(r.out, "bare = false"), &r,
	      "r07: control: in the cage .git/config and ~/.bashrc stay readable");
	r = run_uncaged(ws, NULL, "write-file", hook, evil, "then", "read-file", key, NULL);
	check(t, did_it(&r) && file_is(hook, evil) && strstr(r.out, "r07: secret key"), &r,
	      "r07: control: without the cage a hook is planted and the secret read");
out:
	caged_ws_free(ws);
}
