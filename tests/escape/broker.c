/*
 * Attacks on the broker. A workspace holding a repository is
 * granted writing: the workspace and its .git are the broker's zones
 * (.git holds names still missing, commondir among them, on both tiers),
 * where the supervisor makes new entries itself. The cage races
 * it (another thread rewriting the path, swapping a link, renaming a
 * directory on the way), reaches .git by `..`, a magic link or a
 * descriptor of its own, dies with calls pending and floods it; what it
 * must never get is judged outside, on the files: .git/commondir, a
 * directory smuggled into .git, a hook, a changed .git/config. Next to
 * each, the allowed creation the broker performs (a lock file in .git, a
 * file at the workspace's root) shows it was there to race.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"

static const char config_text[] = "[core]\n\tbare = false\n";
static const char evil[] = "#!/bin/sh\necho r45: planted\n";

/* rw/.git (HEAD, objects, refs, hooks, config) and rw/sub, an ordinary directory. */
static bool r45_fixtures(const struct tier *t, struct caged_ws *ws)
{
	static const char *const dirs[] = {".git/objects/ab", ".git/refs/heads", ".git/hooks",
					   "sub"};
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		if (!path_join(t, path, ws->rw, dirs[i]) ||
		    !fixture(t, make_dirs(path), "r45: %s made", path))
			return false;
	static const char *const files[][2] = {
	    {".git/HEAD", "ref: refs/heads/main\n"},
	    {".git/config", config_text},
	    {"README.md", "r45: readme\n"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (!path_join(t, path, ws->rw, files[i][0]) ||
		    !fixture(t, put_file(path, files[i][1]), "r45: %s written", path))
			return false;
	return true;
}

/* The workspace, or NULL when this tier has no broker or the cage is refused. */
static struct caged_ws *r45_workspace(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r45");
	if (!ws || cage_refused_here(t, ws, "r45") || !r45_fixtures(t, ws)) {
		caged_ws_free(ws);
		return NULL;
	}
	return ws;
}

/* rel under the workspace, in buf (PATH_MAX); "" if it does not fit. */
static const char *in_ws(struct caged_ws *ws, const char *rel, char *buf)
{
	size_t base = strlen(ws->rw), len = strlen(rel);
	buf[0] = '\0';
	if (base + 1 + len < PATH_MAX) {
		memcpy(buf, ws->rw, base);
		buf[base] = '/';
		memcpy(buf + base + 1, rel, len + 1);
	}
	return buf;
}

/* None of what a planted git directory needs is in .git, and config is intact. */
static bool r45_git_intact(struct caged_ws *ws)
{
	static const char *const absent[] = {".git/commondir", ".git/evil", ".git/hooks/pre-commit",
					     ".git/config.worktree", ".git/modules"};
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
		if (caged_path_exists(in_ws(ws, absent[i], path)))
			return false;
	return file_is(in_ws(ws, ".git/config", path), config_text);
}

void r45_a_path_rewritten_while_the_call_is_pending_changes_nothing(const struct tier *t)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct caged_opts slow = {.timeout_ms = 120000};
	struct caged_ws *ws = r45_workspace(t);
	if (!ws)
		return;
	struct caged_result r =
	    run_caged(ws, &slow, "race-create", "text", in_ws(ws, ".git/index.lock", a),
		      in_ws(ws, ".git/commondir", b), "3000", NULL);
	check(t, r45_git_intact(ws), &r,
	      "r45: a thread flipping the path between .git/index.lock and .git/commondir "
	      "makes no commondir");
	check(t, did_it(&r), &r, "r45: control: lock files were made in .git meanwhile");
	r = run_caged(ws, &slow, "race-create", "text-mkdir", in_ws(ws, ".git/logs", a),
		      in_ws(ws, ".git/evil", b), "2000", NULL);
	check(t, r45_git_intact(ws) && did_it(&r), &r,
	      "r45: a thread flipping a mkdir between .git/logs and .git/evil smuggles no "
	      "directory into .git, while .git/logs was made");
	r = run_caged(ws, &slow, "race-create", "text", in_ws(ws, "ok-file", a),
		      in_ws(ws, ".git/hooks/pre-commit", b), "3000", NULL);
	check(t, r45_git_intact(ws), &r,
	      "r45: a thread flipping the path between a new file at the root and a hook plants "
	      "no hook");
	check(t, did_it(&r), &r,
	      "r45: control: new files were made at the workspace's root meanwhile");
	caged_ws_free(ws);
}

void r45_links_and_renames_raced_on_the_path_change_nothing(const struct tier *t)
{
	char link[PATH_MAX], spec[PATH_MAX * 2], moving[PATH_MAX], path[PATH_MAX];
	struct caged_opts slow = {.timeout_ms = 120000};
	struct caged_ws *ws = r45_workspace(t);
	if (!ws)
		return;
	in_ws(ws, "lnk", link);
	snprintf(spec, sizeof spec, "sub:.git:%.4000s/commondir", link);
	struct caged_result r =
	    run_caged(ws, &slow, "race-create", "link", link, spec, "2000", NULL);
	check(t, r45_git_intact(ws), &r,
	      "r45: a link swapped between sub and .git on the way makes no .git/commondir");
	check(t, did_it(&r) && caged_path_exists(in_ws(ws, "sub/commondir", path)), &r,
	      "r45: control: the same creations landed in sub meanwhile");
	in_ws(ws, "sub", moving);
	in_ws(ws, "sub/../.git/commondir", spec);
	r = run_caged(ws, &slow, "race-create", "rename", moving, spec, "2000", NULL);
	check(t, r45_git_intact(ws), &r,
	      "r45: sub renamed to and fro under sub/../.git/commondir makes no commondir");
	in_ws(ws, "sub/../made-through-sub", spec);
	r = run_caged(ws, &slow, "race-create", "rename", moving, spec, "2000", NULL);
	check(t, did_it(&r) && caged_path_exists(in_ws(ws, "made-through-sub", path)), &r,
	      "r45: control: sub/../NAME made NAME at the root meanwhile");
	caged_ws_free(ws);
}

void r45_dotdot_magic_links_and_descriptors_reach_no_protected_name(const struct tier *t)
{
	char path[PATH_MAX], git[PATH_MAX], hooks[PATH_MAX], lock[PATH_MAX];
	struct caged_ws *ws = r45_workspace(t);
	if (!ws)
		return;
	in_ws(ws, ".git", git);
	in_ws(ws, ".git/hooks", hooks);
	static const char *const dotdot[] = {"sub/../.git/config", "sub/../.git/commondir",
					     ".git/refs/../hooks/pre-commit",
					     ".git/refs/heads/../../../.git/config.worktree"};
	for (size_t i = 0; i < sizeof dotdot / sizeof *dotdot; i++) {
		struct caged_result r =
		    run_caged(ws, NULL, "write-file", in_ws(ws, dotdot[i], path), evil, NULL);
		check(t, refused(&r) && r45_git_intact(ws), &r, "r45: writing %s is refused",
		      dotdot[i]);
	}
	const struct {
		const char *mode, *dir, *name, *what;
	} via[] = {
	    {"fd", git, "commondir", "openat on a descriptor of .git"},
	    {"fd", hooks, "pre-commit", "openat on a descriptor of .git/hooks"},
	    {"magic", git, "commondir", "/proc/self/fd/N/commondir, N a descriptor of .git"},
	    {"magic", hooks, "pre-commit", "/proc/self/fd/N/pre-commit (.git/hooks)"},
	    {"cwd", git, "commondir", "/proc/self/cwd/commondir in .git"},
	    {"fd", git, "config", "openat on a descriptor of .git, for config"},
	};
	for (size_t i = 0; i < sizeof via / sizeof *via; i++) {
		struct caged_result r =
		    run_caged(ws, NULL, "create-via", via[i].mode, via[i].dir, via[i].name, NULL);
		check(t, refused(&r) && r45_git_intact(ws), &r, "r45: %s is refused", via[i].what);
	}
	struct caged_result r =
	    run_caged(ws, NULL, "symlink", "../sub", in_ws(ws, ".git/logs", path), NULL);
	check(t, refused(&r) && !caged_path_exists(path), &r,
	      "r45: no symbolic link is made in .git (logs pointing at the work tree)");
	char sub[PATH_MAX];
	r = run_caged(ws, NULL, "symlink", in_ws(ws, "sub", sub), in_ws(ws, "lnk-logs", lock),
		      "then", "rename", lock, in_ws(ws, ".git/logs", path), NULL);
	check(t, !caged_path_exists(path), &r, "r45: nor is one made beside it moved into .git");
	r = run_caged(ws, NULL, "create-via", "fd", git, "index.lock", "then", "write-file",
		      in_ws(ws, "sub/../dotdot-ok", path), "ok", NULL);
	check(t,
	      did_it(&r) && caged_path_exists(in_ws(ws, ".git/index.lock", lock)) &&
		  file_is(path, "ok"),
	      &r,
	      "r45: control: through the same descriptor the lock file is made, and sub/../NAME "
	      "at the root");
	r = run_uncaged(ws, NULL, "create-via", "magic", ws->rw, "via-magic", NULL);
	check(t, did_it(&r) && caged_path_exists(in_ws(ws, "via-magic", path)), &r,
	      "r45: control: without the cage a file is made through a magic link (in the cage "
	      "the broker leaves magic links to Landlock)");
	caged_ws_free(ws);
}

/* The supervisor runs in this process: its resident memory, in kB. */
static long resident_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

void r45_dying_callers_and_floods_leave_the_broker_whole(const struct tier *t)
{
	char path[PATH_MAX], after[PATH_MAX];
	struct caged_opts slow = {.timeout_ms = 180000};
	struct caged_ws *ws = r45_workspace(t);
	if (!ws)
		return;
	struct caged_result r =
	    run_caged(ws, &slow, "broker-die", ws->rw, "16", "then", "write-file",
		      in_ws(ws, ".git/commondir", path), "x", NULL);
	check(t,
	      refused(&r) && strstr(r.out, "killed 16") &&
		  caged_path_exists(in_ws(ws, "after", after)) && r45_git_intact(ws),
	      &r,
	      "r45: 16 processes killed with brokered calls pending: the broker then still makes "
	      "a file at the root and still refuses .git/commondir");
	long before = resident_kb();
	r = run_caged(ws, &slow, "broker-flood", ws->rw, "32", "300", "then", "write-file", path,
		      "x", NULL);
	long grown = resident_kb() - before;
	check(t,
	      refused(&r) && strstr(r.out, "rounds 9600 of 9600") && r45_git_intact(ws) &&
		  before > 0 && grown < 16 * 1024,
	      &r,
	      "r45: a flood of 38400 brokered calls from 32 threads is served to the end, then "
	      ".git/commondir is still refused; the supervisor grew by %ld kB (bound 16 MB)",
	      grown);
	caged_ws_free(ws);
}

/*
 * A home inside the workspace holds ~/.bashrc (protected), and ~/.profile
 * is missing: the home is a zone whose missing startup files are names
 * the broker refuses, while the rest of it takes new entries. (A missing
 * location below a directory with no denial at all, ~/.config/systemd in
 * a ~/.config granted whole, is R-23's
 * r23_a_missing_planting_location_cannot_be_made_through_a_grant.)
 */
void r45_no_missing_startup_file_is_made_beside_a_protected_one(const struct tier *t)
{
	char home[PATH_MAX], profile[PATH_MAX], other[PATH_MAX], bashrc[PATH_MAX];
	struct caged_ws *ws = r45_workspace(t);
	if (!ws)
		return;
	in_ws(ws, "home", home);
	in_ws(ws, "home/.profile", profile);
	in_ws(ws, "home/.bashrc", bashrc);
	in_ws(ws, "home/.config/other/settings", other);
	if (!fixture(t, put_file(bashrc, "r45: bashrc\n") && put_file(other, "x"),
		     "r45: a home with ~/.bashrc and ~/.config"))
		goto out;
	snprintf(ws->home, sizeof ws->home, "%s", home);
	struct caged_result r = run_caged(ws, NULL, "write-file", profile, evil, NULL);
	check(t, refused(&r) && !caged_path_exists(profile), &r,
	      "r45: a missing ~/.profile is not made beside the protected ~/.bashrc");
	r = run_caged(ws, NULL, "write-file", other, "changed", NULL);
	check(t, did_it(&r) && file_is(other, "changed"), &r,
	      "r45: control: an existing file of the home's ~/.config is written");
out:
	caged_ws_free(ws);
}

/*
 * What the host's git reads as key in the config file path (git config
 * --file): its output without the newline, "" when it prints nothing;
 * false when git could not be run or could not read the file.
 */
static bool host_git_get(const char *path, const char *key, char *out, size_t size)
{
	int fds[2];
	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) != 0)
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		execlp("git", "git", "config", "--file", path, "--get", key, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t n;
	while (pid > 0 && (n = read(fds[0], out + got, size - 1 - got)) > 0 && got + 1 < size)
		got += (size_t)n;
	/* One line of TAP: the value without its newline, any other control as '?'. */
	while (got && out[got - 1] == '\n')
		got--;
	out[got] = '\0';
	for (size_t i = 0; i < got; i++)
		if ((unsigned char)out[i] < 0x20)
			out[i] = '?';
	close(fds[0]);
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return false;
	/* 0: found, 1: not there; anything else: git did not read it. */
	return WEXITSTATUS(status) <= 1;
}

/*
 * git's config.lock renamed over config is judged by content: the cage
 * writes an allowed change (user.name) and renames it, while another
 * thread keeps rewriting config.lock through its own descriptor with the
 * same change plus core.fsmonitor, and writes that once more after the
 * rename succeeded. What lands must be the text the broker judged: the
 * host's git finds no core.fsmonitor. Without the cage, the last write
 * lands in the renamed file.
 */
void r45_the_git_config_judged_is_the_one_that_lands(const struct tier *t)
{
	static const char allowed[] = "[core]\n\tbare = false\n[user]\n\tname = r45\n";
	static const char refused_text[] = "[core]\n\tbare = false\n\tfsmonitor = /bin/r45\n";
	static const char control[] = "[core]\n\tbare = false\n[user]\n\tname = r45-control\n";
	char git[PATH_MAX], config[PATH_MAX], lock[PATH_MAX], got[256];
	struct caged_opts slow = {.timeout_ms = 120000};
	struct caged_ws *ws = r45_workspace(t);
	if (!ws)
		return;
	in_ws(ws, ".git", git);
	in_ws(ws, ".git/config", config);
	in_ws(ws, ".git/config.lock", lock);
	if (!fixture(t, host_git_get(config, "core.bare", got, sizeof got),
		     "r45: the host's git reads the config"))
		goto out;
	struct caged_result r =
	    run_caged(ws, &slow, "config-race", git, allowed, refused_text, "200", NULL);
	bool read = host_git_get(config, "core.fsmonitor", got, sizeof got);
	check(t, read && got[0] == '\0', &r,
	      "r45: config.lock rewritten with core.fsmonitor through the cage's descriptor "
	      "during and after its rename: the host's git finds no core.fsmonitor (got \"%.40s\")",
	      got);
	put_file(config, config_text);
	(void)unlink(lock);
	r = run_caged(ws, NULL, "write-file", lock, control, "then", "rename", lock, config, NULL);
	check(t,
	      did_it(&r) && host_git_get(config, "user.name", got, sizeof got) &&
		  strcmp(got, "r45-control") == 0 && file_is(config, control),
	      &r, "r45: control: the same change without the race lands (git reads user.name)");
out:
	caged_ws_free(ws);
}
