/*
 * --apply safe (judge.h). A change set is what the run made; whatever a
 * program of the host would later run or trust because of it is held
 * back: the locations of the hard-deny classes (the class tables, not a
 * copy of them), a git directory's files other than what git writes for
 * a commit, a new repository, a link out of the tree, a new executable in
 * a directory of the caller's $PATH, and set-id bits.
 */
#include "judge.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/string_list.h"
#include "cage/paths.h"
#include "policy/path_rule.h"
#include "watch/git_config_judge.h"

static int path_dirs_read(struct changes_judge *j)
{
	const char *env = getenv("PATH");
	char *copy = strdup(env ? env : ""), *save = NULL;
	if (!copy)
		return -ENOMEM;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		/* One missing now may be what the change set makes: taken as written. */
		char *canonical = d[0] != '/' ? NULL : realpath(d, NULL);
		if (!canonical && d[0] == '/')
			canonical = strdup(d);
		if (canonical && string_list_take(&j->path_dirs, &j->n_path_dirs, canonical) < 0) {
			free(copy);
			return -ENOMEM;
		}
	}
	free(copy);
	return 0;
}

int changes_judge_init(struct changes_judge *j, const char *const *roots, size_t n_roots,
		       struct procage_error *err)
{
	char runtime[PATH_MAX];
	memset(j, 0, sizeof *j);
	const char *home = getenv("HOME");
	int rc = classes_expand(0, home, paths_runtime_directory(runtime, sizeof runtime),
				&j->classes, err);
	if (rc == 0)
		rc = classes_expand_workspaces(0, roots, n_roots, &j->classes, err);
	if (rc == 0 && path_dirs_read(j) < 0)
		rc = error_set(err, -ENOMEM, "out of memory");
	if (rc < 0)
		changes_judge_free(j);
	return rc;
}

void changes_judge_free(struct changes_judge *j)
{
	class_locations_free(&j->classes);
	procage_strings_free(j->path_dirs);
	memset(j, 0, sizeof *j);
}

/* Small files only: a config larger than the judge reads is held. */
static char *file_read(int dir, const char *name, size_t *len)
{
	int fd = dir < 0 ? -1 : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = malloc(GIT_CONFIG_JUDGE_MAX + 1);
	ssize_t n = buf ? read(fd, buf, GIT_CONFIG_JUDGE_MAX + 1) : -1;
	close(fd);
	if (n < 0 || n > GIT_CONFIG_JUDGE_MAX) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

/* A repository's config, judged by what the new text changes. */
static bool config_hold(int upper_dir, const char *name, int host_dir, char *why, size_t size)
{
	size_t old_len = 0, new_len = 0;
	char *old_text = file_read(host_dir, name, &old_len);
	char *new_text = file_read(upper_dir, name, &new_len);
	struct git_config_verdict v = { 0 };
	int rc = old_text && new_text
			 ? git_config_judge(old_text, old_len, new_text, new_len, &v)
			 : -EACCES;
	free(old_text);
	free(new_text);
	if (rc == 0)
		return false;
	if (v.kind == GIT_CONFIG_KEY_REFUSED || v.kind == GIT_CONFIG_VALUE_REFUSED)
		snprintf(why, size, "a git config change (%s)", v.key);
	else
		snprintf(why, size, "a git config change (not judged: unreadable or new)");
	return true;
}

/* What git writes for a commit, a fetch or a checkout: nothing it runs. */
static bool git_own_name(const char *sub)
{
	static const char *const trees[] = { "objects", "refs", "logs" };
	static const char *const files[] = { "index", "HEAD", "ORIG_HEAD", "COMMIT_EDITMSG",
					     "packed-refs" };
	for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
		size_t n = strlen(trees[i]);
		if (strncmp(sub, trees[i], n) == 0 && (sub[n] == '/' || sub[n] == '\0'))
			return true;
	}
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (strcmp(sub, files[i]) == 0)
			return true;
	return false;
}

/* The part of rel below its last ".git" component, or NULL (rel ends there: ""). */
static const char *git_sub(const char *rel)
{
	const char *found = NULL;
	for (const char *p = rel; (p = strstr(p, ".git")); p++)
		if ((p == rel || p[-1] == '/') && (p[4] == '/' || p[4] == '\0'))
			found = p[4] ? p + 5 : p + 4;
	return found;
}

static bool git_hold(const char *rel, const struct stat *st, int upper_dir, const char *name,
		     int host_dir, bool host_exists, char *why, size_t size)
{
	const char *sub = git_sub(rel);
	if (!sub)
		return false;
	if (*sub == '\0') {
		snprintf(why, size, S_ISDIR(st->st_mode) ? "a new repository" : "a gitfile");
		return !(S_ISDIR(st->st_mode) && host_exists);
	}
	if (S_ISDIR(st->st_mode))
		return false; /* what it holds is judged entry by entry */
	if (git_own_name(sub))
		return false;
	if (strcmp(sub, "config") == 0)
		return config_hold(upper_dir, name, host_dir, why, size);
	snprintf(why, size, "inside a git directory (%s)",
		 strncmp(sub, "hooks/", 6) == 0 ? "a hook" : sub);
	return true;
}

/* Does the link's target, taken where the link is, leave the tree? */
static bool link_leaves(const char *rel, int upper_dir, const char *name)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(upper_dir, name, target, sizeof target - 1);
	if (n < 0 || target[0] == '/')
		return true;
	target[n] = '\0';
	/* The depth of the link's directory below the root, then the target's walk. */
	long depth = 0;
	for (const char *p = rel; (p = strchr(p, '/')); p++)
		depth++;
	char *save = NULL;
	for (char *c = strtok_r(target, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, "..") == 0) {
			if (--depth < 0)
				return true;
		} else if (strcmp(c, ".") != 0) {
			depth++;
		}
	}
	return false;
}

static bool in_path_dirs(const struct changes_judge *j, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	for (size_t i = 0; i < j->n_path_dirs; i++)
		if (strlen(j->path_dirs[i]) == (n ? n : 1) &&
		    strncmp(j->path_dirs[i], n ? path : "/", n ? n : 1) == 0)
			return true;
	return false;
}

bool changes_judge_hold(const struct changes_judge *j, const char *tree, const char *rel,
			const char *path, const struct stat *st, int upper_dir, const char *name,
			int host_dir, bool host_exists, char *why, size_t size)
{
	(void)tree;
	if (S_ISREG(st->st_mode) && (st->st_mode & (S_ISUID | S_ISGID))) {
		snprintf(why, size, "set-id bits");
		return true;
	}
	if (git_hold(rel, st, upper_dir, name, host_dir, host_exists, why, size))
		return true;
	for (size_t i = 0; i < j->classes.n; i++)
		if (path_within(path, j->classes.items[i].path)) {
			snprintf(why, size, "the class %s", class_name(j->classes.items[i].cls));
			return true;
		}
	if (S_ISLNK(st->st_mode) && link_leaves(rel, upper_dir, name)) {
		snprintf(why, size, "a link leaving the tree");
		return true;
	}
	if (S_ISREG(st->st_mode) && (st->st_mode & 0111) && in_path_dirs(j, path)) {
		snprintf(why, size, "an executable in a directory of $PATH");
		return true;
	}
	return false;
}

bool changes_judge_hold_move(const struct changes_judge *j, const char *rel_new,
			     const char *path_new, char *why, size_t size)
{
	/* What the directory holds arrives unjudged: into a git directory, or as one, never. */
	if (git_sub(rel_new)) {
		snprintf(why, size, "into a git directory");
		return true;
	}
	for (size_t i = 0; i < j->classes.n; i++)
		if (path_within(path_new, j->classes.items[i].path) ||
		    path_within(j->classes.items[i].path, path_new)) {
			snprintf(why, size, "the class %s", class_name(j->classes.items[i].cls));
			return true;
		}
	for (size_t i = 0; i < j->n_path_dirs; i++)
		if (path_within(j->path_dirs[i], path_new)) {
			snprintf(why, size, "a directory of $PATH");
			return true;
		}
	return false;
}
