/*
 * The metadata broker attacked (R-40 on tier T2, the same assertions on
 * T1, where read-only mounts refuse): a file's mode, owner and times
 * changed through a link in the write grant that points at ~/.bashrc,
 * through a descriptor open for reading, an O_PATH descriptor or a
 * /proc/self/fd magic link of a protected file, a repository's hook and
 * .git/config by path and by `..`, and a path another thread rewrites
 * while the call is pending. The controls: the same calls on files
 * inside the write grant, a new file beside the repository's .git, and
 * the link's own owner.
 *
 * Judged from outside: each target's mode, owner and times after the run.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

struct meta_state {
	mode_t mode;
	time_t mtime;
	uid_t uid;
	gid_t gid;
};

static bool meta_stat(const char *path, struct meta_state *s)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	*s = (struct meta_state){st.st_mode & 07777, st.st_mtime, st.st_uid, st.st_gid};
	return true;
}

static bool meta_same(const char *path, const struct meta_state *before)
{
	struct meta_state now;
	return meta_stat(path, &now) && now.mode == before->mode && now.mtime == before->mtime &&
	       now.uid == before->uid && now.gid == before->gid;
}

struct meta_paths {
	char bashrc[PATH_MAX], config[PATH_MAX], hook[PATH_MAX], readonly[PATH_MAX];
	char link[PATH_MAX], dotdot[PATH_MAX], script[PATH_MAX], beside[PATH_MAX];
	char git_head[PATH_MAX];
};

static bool meta_fixtures(const struct tier *t, struct caged_ws *ws, struct meta_paths *p)
{
	char repo[PATH_MAX];
	if (!path_join(t, p->bashrc, ws->home, ".bashrc") || !path_join(t, repo, ws->rw, "repo") ||
	    !path_join(t, p->config, repo, ".git/config") ||
	    !path_join(t, p->hook, repo, ".git/hooks/pre-commit") ||
	    !path_join(t, p->git_head, repo, ".git/HEAD") ||
	    !path_join(t, p->readonly, ws->ro, "data") ||
	    !path_join(t, p->link, ws->rw, "link-to-bashrc") ||
	    !path_join(t, p->dotdot, repo, ".git/hooks/../config") ||
	    !path_join(t, p->script, ws->rw, "build/run.sh") ||
	    !path_join(t, p->beside, repo, "new.sh"))
		return false;
	char objects[PATH_MAX], refs[PATH_MAX];
	if (!path_join(t, objects, repo, ".git/objects") ||
	    !path_join(t, refs, repo, ".git/refs/heads"))
		return false;
	return fixture(t,
		       put_file(p->bashrc, "# meta\n") && put_file(p->config, "[core]\n") &&
			   put_file(p->hook, "#!/bin/sh\nexit 0\n") && chmod(p->hook, 0644) == 0 &&
			   put_file(p->git_head, "ref: refs/heads/main\n") && make_dirs(objects) &&
			   make_dirs(refs) && put_file(p->readonly, "meta\n") &&
			   symlink(p->bashrc, p->link) == 0 && put_file(p->script, "#!/bin/sh\n") &&
			   chmod(p->script, 0644) == 0 && put_file(p->beside, "#!/bin/sh\n") &&
			   chmod(p->beside, 0644) == 0,
		       "meta: fixtures in %s", ws->root);
}

/* One attempt on target, judged by its state before and after. */
static void meta_attempt(const struct tier *t, struct caged_ws *ws, const char *target,
			 const char *what, const char *action, const char *a1, const char *a2)
{
	struct meta_state before = {0};
	if (!fixture(t, meta_stat(target, &before), "meta: stat %s", target))
		return;
	struct caged_result r = run_caged(ws, NULL, action, a1, a2, NULL);
	check(t, refused(&r) && meta_same(target, &before), &r,
	      "r40: %s is refused and changes nothing", what);
	(void)chmod(target, before.mode); /* for the next attempt, the sandbox may be off */
}

static void meta_canaries(const struct tier *t, struct caged_ws *ws, const struct meta_paths *p)
{
	meta_attempt(t, ws, p->bashrc, "chmod 0666 through a link in the write grant to ~/.bashrc",
		     "chmod", p->link, "0666");
	meta_attempt(t, ws, p->bashrc, "utimensat through a link in the write grant to ~/.bashrc",
		     "set-times", p->link, NULL);
	meta_attempt(t, ws, p->bashrc, "chown through a link in the write grant to ~/.bashrc",
		     "chown-self", p->link, NULL);
	meta_attempt(t, ws, p->hook, "chmod 0755 of a repository's hook", "chmod", p->hook, "0755");
	meta_attempt(t, ws, p->hook, "utimensat of a repository's hook", "set-times", p->hook,
		     NULL);
	meta_attempt(t, ws, p->config, "chmod 0666 of .git/config through hooks/..", "chmod",
		     p->dotdot, "0666");
	meta_attempt(t, ws, p->config, "futimens of .git/config through a read-only descriptor",
		     "meta-futimens-ro", p->config, NULL);
	meta_attempt(t, ws, p->hook, "chmod of a hook through /proc/self/fd/N", "meta-procfd",
		     p->hook, "0755");
	meta_attempt(t, ws, p->bashrc, "chmod of ~/.bashrc through /proc/self/fd/N", "meta-procfd",
		     p->bashrc, "0666");
	meta_attempt(t, ws, p->hook, "fchmodat2 of a hook through an O_PATH descriptor",
		     "meta-opath", p->hook, "0755");
	meta_attempt(t, ws, p->config, "fchownat of .git/config through an O_PATH descriptor",
		     "meta-opath-chown", p->config, NULL);
	meta_attempt(t, ws, p->readonly,
		     "chmod of a read-only grant's file through /proc/self/fd/N", "meta-procfd",
		     p->readonly, "0666");
}

/* chmod 0777 of a path flipped between a file in the write grant and a hook. */
static void meta_race(const struct tier *t, struct caged_ws *ws, const struct meta_paths *p)
{
	struct meta_state hook_before = {0};
	if (!fixture(t, meta_stat(p->hook, &hook_before) && chmod(p->script, 0644) == 0,
		     "meta: race fixtures"))
		return;
	const char *args[] = {"meta-race", p->script, p->hook, "3000", "0777", NULL};
	struct caged_result r = run_caged_argv(ws, NULL, args);
	struct meta_state script_after;
	check(t, meta_same(p->hook, &hook_before), &r,
	      "r40: a path rewritten by another thread while chmod is pending never reaches the "
	      "hook");
	check_role(t, ROLE_CONTROL,
		   did_it(&r) && meta_stat(p->script, &script_after) && script_after.mode == 0777,
		   &r, "r40: control: in the same run the file in the write grant took the mode");
	(void)chmod(p->hook, hook_before.mode);
}

static void meta_controls(const struct tier *t, struct caged_ws *ws, const struct meta_paths *p)
{
	struct meta_state s;
	(void)chmod(p->script, 0644);
	struct caged_result r =
	    run_caged(ws, NULL, "meta-procfd", p->script, "0700", "then", "meta-opath", p->script,
		      "0750", "then", "meta-futimens-ro", p->script, "then", "meta-opath-chown",
		      p->script, "then", "meta-lchown", p->link, NULL);
	check(t, did_it(&r) && meta_stat(p->script, &s) && s.mode == 0750 && s.mtime == 1000000000,
	      &r,
	      "r40: control: in the cage /proc/self/fd, O_PATH, read-only descriptors and lchown "
	      "change files and links inside the write grant");
	r = run_caged(ws, NULL, "chmod", p->beside, "0755", "then", "set-times", p->beside, "then",
		      "chown-self", p->beside, NULL);
	check(t, did_it(&r) && meta_stat(p->beside, &s) && s.mode == 0755 && s.mtime == 1000000000,
	      &r,
	      "r40: control: in the cage a file beside the repository's .git takes chmod +x "
	      "and times");
	r = run_uncaged(ws, NULL, "meta-procfd", p->hook, "0755", "then", "meta-opath-chown",
			p->config, NULL);
	check(t, did_it(&r) && meta_stat(p->hook, &s) && s.mode == 0755, &r,
	      "r40: control: without the cage the hook's mode changes through /proc/self/fd");
	(void)chmod(p->hook, 0644);
}

void r40_the_metadata_broker_judges_the_inode_not_the_path(const struct tier *t)
{
	struct meta_paths p;
	struct caged_ws *ws = workspace(t, "r40");
	if (!ws || cage_refused_here(t, ws, "r40"))
		goto out;
	if (!meta_fixtures(t, ws, &p))
		goto out;
	meta_canaries(t, ws, &p);
	meta_race(t, ws, &p);
	meta_controls(t, ws, &p);
out:
	caged_ws_free(ws);
}
