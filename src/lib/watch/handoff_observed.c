/* The git directories a run was seen writing (see handoff_observed.h). */
#include "handoff_observed.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cage/paths.h"

void handoff_observed_init(struct handoff_observed *o)
{
	memset(o, 0, sizeof *o);
	pthread_mutex_init(&o->lock, NULL);
}

void handoff_observed_destroy(struct handoff_observed *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->gitdirs[i]);
	o->n = 0;
	pthread_mutex_destroy(&o->lock);
}

static bool name_is(const char *name, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(name, word, len) == 0;
}

static bool exists_in(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	return snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path &&
	       lstat(path, &st) == 0;
}

/* name is in dir, or is the entry being made there (made). */
static bool present(const char *dir, const char *name, const char *made)
{
	return strcmp(made, name) == 0 || exists_in(dir, name);
}

/*
 * Would git take dir for a store (setup.c, is_git_directory): HEAD, with
 * objects and refs or with a commondir? made, the entry the change makes
 * or writes there, counts as present.
 */
static bool looks_like_gitdir(const char *dir, const char *made)
{
	return present(dir, "HEAD", made) &&
	       ((present(dir, "objects", made) && present(dir, "refs", made)) ||
		present(dir, "commondir", made));
}

/* The files of a git directory git reads as config or follows as its common directory. */
static bool config_name(const char *name, size_t len)
{
	return name_is(name, len, "config") || name_is(name, len, "config.worktree") ||
	       name_is(name, len, "commondir");
}

/*
 * The git directory a change of path touches where git runs or reads, in
 * out; false when it touches none. Below a ".git" component: the ".git"
 * itself made or rewritten, or a hooks directory, a config or commondir
 * anywhere in it (its submodules' and worktrees' included). Elsewhere (a
 * bare repository, a gitfile's store): a config, commondir or hooks
 * directory of a directory git takes for a store, or the entry that makes
 * one a store.
 */
static bool gitdir_of_change(const char *path, bool existed, char *out, size_t size)
{
	const char *c = path, *dot_git_end = NULL, *hooks = NULL, *last = path;
	bool executes = false;
	while (*c) {
		while (*c == '/')
			c++;
		const char *end = strchrnul(c, '/');
		size_t len = (size_t)(end - c);
		if (len) {
			last = c;
			if (!dot_git_end && name_is(c, len, ".git"))
				dot_git_end = end;
			else if (name_is(c, len, "hooks"))
				hooks = c;
			executes = executes ||
				   (dot_git_end && end > dot_git_end &&
				    (name_is(c, len, "hooks") || (!*end && config_name(c, len))));
		}
		c = end;
	}
	size_t dir_len = (size_t)(last - path) - (last > path + 1);
	if (dot_git_end) {
		if (*dot_git_end && !executes)
			return false;
		return snprintf(out, size, "%.*s", (int)(dot_git_end - path), path) < (int)size;
	}
	char dir[PATH_MAX];
	if (dir_len >= sizeof dir)
		return false;
	snprintf(dir, sizeof dir, "%.*s", (int)(dir_len ? dir_len : 1), path);
	bool store_entry =
	    strcmp(last, "HEAD") == 0 || strcmp(last, "objects") == 0 || strcmp(last, "refs") == 0;
	if ((config_name(last, strlen(last)) || (store_entry && !existed)) &&
	    looks_like_gitdir(dir, last))
		return snprintf(out, size, "%s", dir) < (int)size;
	if (hooks && hooks > path + 1) {
		size_t len = (size_t)(hooks - path) - 1;
		if (len < sizeof dir) {
			snprintf(dir, sizeof dir, "%.*s", (int)len, path);
			if (looks_like_gitdir(dir, "hooks"))
				return snprintf(out, size, "%s", dir) < (int)size;
		}
	}
	return false;
}

/* Keep gitdir once; past the bound, count it. Called locked. */
static void keep(struct handoff_observed *o, const char *gitdir)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->gitdirs[i], gitdir) == 0)
			return;
	if (o->n < HANDOFF_OBSERVED_KEPT && (o->gitdirs[o->n] = strdup(gitdir)))
		o->n++;
	else
		o->more++;
}

void handoff_observed_change(struct handoff_observed *o, enum denial_op op, const char *path,
			     bool existed)
{
	char gitdir[PATH_MAX];
	if ((op != DENIAL_CREATE && op != DENIAL_WRITE) ||
	    !gitdir_of_change(path, existed, gitdir, sizeof gitdir))
		return;
	pthread_mutex_lock(&o->lock);
	keep(o, gitdir);
	pthread_mutex_unlock(&o->lock);
}

void handoff_observed_unseen(struct handoff_observed *o)
{
	pthread_mutex_lock(&o->lock);
	o->unseen++;
	pthread_mutex_unlock(&o->lock);
}

void handoff_observed_rename(struct handoff_observed *o, const char *from, const char *to)
{
	char moved[PATH_MAX];
	size_t len = strlen(from);
	pthread_mutex_lock(&o->lock);
	/* Only those kept before: what this adds lies below to, not from. */
	for (size_t i = 0, n = o->n; i < n; i++)
		if (path_within(o->gitdirs[i], from) &&
		    snprintf(moved, sizeof moved, "%s%s", to, o->gitdirs[i] + len) <
			(int)sizeof moved)
			keep(o, moved);
	pthread_mutex_unlock(&o->lock);
}

int handoff_observed_list(struct handoff_observed *o, char ***out, uint64_t *more,
			  uint64_t *unseen)
{
	pthread_mutex_lock(&o->lock);
	char **list = calloc(o->n + 1, sizeof *list);
	bool ok = list != NULL;
	for (size_t i = 0; ok && i < o->n; i++)
		ok = (list[i] = strdup(o->gitdirs[i])) != NULL;
	*more = o->more;
	*unseen = o->unseen;
	pthread_mutex_unlock(&o->lock);
	if (!ok) {
		for (size_t i = 0; list && list[i]; i++)
			free(list[i]);
		free(list);
		return -ENOMEM;
	}
	*out = list;
	return 0;
}
