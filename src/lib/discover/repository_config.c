/*
 * What git reads for a repository, followed as git follows it: the config
 * files (config, config.worktree) and every include target (include.path
 * and includeIf.*.path whatever the condition: a condition the cage can
 * make true later must not hide a target now), core.hooksPath, the
 * submodules a work tree's .gitmodules names, a linked worktree's gitdir
 * file, and the writable trees' ancestors (git discovers upward). Also
 * joining a path a config names to the file that names it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/git_config.h"
#include "repository_internal.h"

/* More than any config file or gitfile git writes; a larger one is refused. */
#define SMALL_FILE_MAX (4 * 1024 * 1024)

char *file_read_small(const char *path, size_t *len)
{
	struct stat st;
	/* Non-blocking: a FIFO in a config's place must not stall the caller. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SMALL_FILE_MAX) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	char *text = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	ssize_t n = 0;
	while (text && got < (size_t)st.st_size &&
	       (n = read(fd, text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (!text) {
		errno = ENOMEM;
		return NULL;
	}
	text[got] = '\0';
	if (len)
		*len = got;
	return text;
}

char *path_join_relative(const char *base, const char *rel, bool base_is_file)
{
	char *out = NULL;
	if (rel[0] == '/')
		return strdup(rel);
	size_t dir_len = strlen(base);
	if (base_is_file) {
		const char *slash = strrchr(base, '/');
		dir_len = slash ? (size_t)(slash - base) : 0;
	}
	if (asprintf(&out, "%.*s/%s", (int)dir_len, base, rel) < 0)
		return NULL;
	return out;
}

/* git's interpolate_path: "~/" and "~user/"; NULL for what cannot be expanded. */
static char *interpolate(const struct discovery *d, const char *value)
{
	char *out = NULL;
	if (strncmp(value, "%(prefix)/", 10) == 0)
		return NULL; /* git's own installation, outside every writable tree */
	if (value[0] != '~')
		return strdup(value);
	const char *slash = strchrnul(value, '/');
	const char *home = NULL;
	if (slash == value + 1) {
		home = getenv("HOME") ? getenv("HOME") : d->home;
	} else {
		char user[256];
		snprintf(user, sizeof user, "%.*s", (int)(slash - value - 1), value + 1);
		struct passwd *pw = getpwnam(user);
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || asprintf(&out, "%s%s", home, slash) < 0)
		return NULL;
	return out;
}

/* The most core.worktree values of one store's config files taken as bases. */
#define CORE_WORKTREES_MAX 8

/*
 * One store's config files, read twice: first for core.worktree (where
 * hooks run, and so what a relative core.hooksPath is relative to, may be
 * set after core.hooksPath or in an include), then for what is protected.
 */
struct store_config {
	const char *gitdir, *worktree;
	bool collecting; /* the first reading */
	char *core_worktrees[CORE_WORKTREES_MAX];
	size_t n_core_worktrees;
};

struct config_walk {
	struct discovery *d;
	struct store_config *store;
	const char *file; /* as git would spell it: include paths are relative to it */
	int depth;
};

static int config_follow(struct discovery *d, struct store_config *store, const char *file,
			 int depth);

/*
 * A relative core.hooksPath, from every base: a command run in a bare
 * store, the work tree found, and each core.worktree the config sets.
 */
static int hooks_path_bases(struct discovery *d, const struct store_config *sc,
			    const char *relative)
{
	const char *bases[2 + CORE_WORKTREES_MAX] = {sc->worktree, sc->gitdir};
	int rc = 0;
	for (size_t i = 0; i < sc->n_core_worktrees; i++)
		bases[2 + i] = sc->core_worktrees[i];
	for (size_t i = 0; rc == 0 && i < 2 + sc->n_core_worktrees; i++) {
		char *joined = bases[i] ? path_join_relative(bases[i], relative, false) : NULL;
		if (bases[i] && !joined)
			rc = -ENOMEM;
		else if (joined)
			rc = discovery_protect(d, joined, NULL);
		free(joined);
	}
	return rc;
}

/*
 * core.hooksPath: relative to where hooks run (the work tree, or GIT_DIR
 * when bare). One from the global or system config applies to every
 * store: kept until the stores are found.
 */
static int hooks_path(struct config_walk *w, const char *value)
{
	struct discovery *d = w->d;
	if (strncmp(value, ":(optional)", 11) == 0)
		value += 11;
	char *expanded = interpolate(d, value);
	int rc = 0;
	if (!expanded)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (expanded[0] == '/') {
		rc = discovery_protect(d, expanded, NULL);
	} else if (!w->store->gitdir) {
		if (d->n_global_hooks_paths < sizeof d->global_hooks_paths / sizeof(char *)) {
			d->global_hooks_paths[d->n_global_hooks_paths++] = expanded;
			return 0;
		}
	} else {
		rc = hooks_path_bases(d, w->store, expanded);
	}
	free(expanded);
	return rc;
}

static int include_path(struct config_walk *w, const char *value)
{
	char *expanded = interpolate(w->d, value);
	char *target = expanded ? path_join_relative(w->file, expanded, true) : NULL;
	bool absent = false;
	int rc = 0;
	if (expanded && !target)
		rc = -ENOMEM;
	else if (target && !w->store->collecting)
		rc = discovery_protect(w->d, target, &absent);
	else if (target)
		absent = access(target, F_OK) != 0;
	if (rc == 0 && target && !absent && w->depth < REPOSITORY_INCLUDE_DEPTH)
		rc = config_follow(w->d, w->store, target, w->depth + 1);
	free(expanded);
	free(target);
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* core.worktree: relative to the git directory, as git takes it. */
static int core_worktree(struct config_walk *w, const char *value)
{
	struct store_config *sc = w->store;
	char *expanded = interpolate(w->d, value);
	char *joined = expanded ? path_join_relative(sc->gitdir, expanded, false) : NULL;
	free(expanded);
	if (!joined)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (sc->n_core_worktrees < CORE_WORKTREES_MAX)
		sc->core_worktrees[sc->n_core_worktrees++] = joined;
	else
		free(joined);
	return 0;
}

static int config_entry(const char *name, const char *value, void *ctx)
{
	struct config_walk *w = ctx;
	if (!value)
		return 0;
	if (w->store->collecting && strcmp(name, "core.worktree") == 0)
		return core_worktree(w, value);
	if (!w->store->collecting && strcmp(name, "core.hookspath") == 0)
		return hooks_path(w, value);
	if (strcmp(name, "include.path") == 0 ||
	    (strncmp(name, "includeif.", 10) == 0 && ends_with(name, ".path")))
		return include_path(w, value);
	return 0;
}

/*
 * One config file: a file git would refuse is refused here too (git would
 * stop, but a reader that disagreed with git on one line could miss what
 * git runs: fail closed).
 */
static int config_follow(struct discovery *d, struct store_config *store, const char *file,
			 int depth)
{
	size_t len = 0;
	int bad_line = 0;
	char *text = file_read_small(file, &len);
	if (!text)
		return errno == ENOMEM ? -ENOMEM : 0;
	struct config_walk w = {d, store, file, depth};
	int rc = git_config_parse(text, len, config_entry, &w, &bad_line);
	free(text);
	if (rc == -EINVAL)
		return error_set(
		    d->err, -EINVAL,
		    "%s, a config file git reads for %s%s, cannot be read at line %d (git "
		    "refuses it too); fix the line, or waive the trust-handoff class",
		    file, store->gitdir ? "the repository " : "every repository",
		    store->gitdir ? store->gitdir : "", bad_line);
	return rc;
}

int store_configs(struct discovery *d, const char *gitdir, const char *worktree)
{
	static const char *const names[] = {"config", "config.worktree"};
	struct store_config store = {.gitdir = gitdir, .worktree = worktree, .collecting = true};
	char file[PATH_MAX];
	int rc = 0;
	for (int pass = 0; rc == 0 && pass < 2; pass++, store.collecting = false)
		for (size_t i = 0; rc == 0 && i < 2; i++)
			if (snprintf(file, sizeof file, "%s/%s", gitdir, names[i]) <
			    (int)sizeof file)
				rc = config_follow(d, &store, file, 0);
	for (size_t i = 0; rc == 0 && i < d->n_global_hooks_paths; i++)
		rc = hooks_path_bases(d, &store, d->global_hooks_paths[i]);
	for (size_t i = 0; i < store.n_core_worktrees; i++)
		free(store.core_worktrees[i]);
	return rc;
}

/*
 * The system and global config git reads for every repository: an
 * include target or a core.hooksPath there may lie in a writable tree.
 * (The global files themselves are the home rows' to keep read-only.)
 */
int global_configs(struct discovery *d)
{
	const char *home = getenv("HOME") && getenv("HOME")[0] == '/' ? getenv("HOME") : d->home;
	const char *xdg = getenv("XDG_CONFIG_HOME");
	struct store_config global = {.collecting = false};
	char files[3][PATH_MAX];
	size_t n = 0;
	snprintf(files[n++], PATH_MAX, "/etc/gitconfig");
	if (xdg && xdg[0] == '/')
		snprintf(files[n++], PATH_MAX, "%s/git/config", xdg);
	else if (home)
		snprintf(files[n++], PATH_MAX, "%s/.config/git/config", home);
	if (home)
		snprintf(files[n++], PATH_MAX, "%s/.gitconfig", home);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = config_follow(d, &global, files[i], 0);
	return rc;
}

struct worktree_lookup {
	const char *gitdir;
	char *found; /* the last core.worktree, resolved against gitdir */
};

static int worktree_entry(const char *name, const char *value, void *ctx)
{
	struct worktree_lookup *w = ctx;
	if (!value || strcmp(name, "core.worktree") != 0)
		return 0;
	free(w->found);
	w->found = path_join_relative(w->gitdir, value, false);
	return w->found ? 0 : -ENOMEM;
}

bool store_names_worktree(const char *gitdir, const char *worktree)
{
	char path[PATH_MAX];
	size_t len = 0;
	if (snprintf(path, sizeof path, "%s/config", gitdir) >= (int)sizeof path)
		return false;
	char *text = file_read_small(path, &len);
	if (!text)
		return false;
	struct worktree_lookup w = {gitdir, NULL};
	int rc = git_config_parse(text, len, worktree_entry, &w, NULL);
	char *canonical = rc == 0 && w.found ? realpath(w.found, NULL) : NULL;
	bool same = canonical && strcmp(canonical, worktree) == 0;
	free(canonical);
	free(w.found);
	free(text);
	return same;
}

/*
 * A linked worktree's git directory (GIT_DIR/worktrees/NAME): its gitdir
 * file names the worktree's ".git" file, whose directory is the worktree.
 */
int worktree_of(struct discovery *d, const char *worktree_gitdir, char **worktree, int depth)
{
	char path[PATH_MAX];
	*worktree = NULL;
	if (snprintf(path, sizeof path, "%s/gitdir", worktree_gitdir) >= (int)sizeof path)
		return 0;
	int rc = discovery_protect(d, path, NULL);
	char *text = rc == 0 ? file_read_small(path, NULL) : NULL;
	if (!text)
		return rc < 0 ? rc : (errno == ENOMEM ? -ENOMEM : 0);
	text[strcspn(text, "\r\n")] = '\0';
	char *gitfile = text[0] ? path_join_relative(worktree_gitdir, text, false) : NULL;
	char *slash = gitfile ? strrchr(gitfile, '/') : NULL;
	struct stat st;
	if (gitfile && lstat(gitfile, &st) == 0 && S_ISREG(st.st_mode))
		rc = discovery_gitfile(d, gitfile, NULL, depth);
	if (rc == 0 && slash && slash > gitfile) {
		*slash = '\0';
		*worktree = realpath(gitfile, NULL);
	}
	free(gitfile);
	free(text);
	return rc;
}

struct submodule_walk {
	struct discovery *d;
	const char *worktree;
	int depth;
};

/* submodule.NAME.path in .gitmodules: the submodule's ".git", a gitfile or a store. */
static int submodule_entry(const char *name, const char *value, void *ctx)
{
	struct submodule_walk *w = ctx;
	char git[PATH_MAX], sub[PATH_MAX];
	struct stat st;
	if (!value || strncmp(name, "submodule.", 10) != 0 || !ends_with(name, ".path") ||
	    value[0] == '/' ||
	    snprintf(sub, sizeof sub, "%s/%s", w->worktree, value) >= (int)sizeof sub ||
	    snprintf(git, sizeof git, "%s/.git", sub) >= (int)sizeof git || lstat(git, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return discovery_gitfile(w->d, git, sub, w->depth);
	if (!S_ISDIR(st.st_mode))
		return 0;
	char *store = realpath(git, NULL);
	int rc = store ? discovery_store(w->d, store, sub, w->depth + 1) : 0;
	free(store);
	return rc;
}

/* .gitmodules is the work tree's (writable): a hint, its errors ignored. */
int worktree_submodules(struct discovery *d, const char *worktree, int depth)
{
	char path[PATH_MAX];
	size_t len = 0;
	if (snprintf(path, sizeof path, "%s/.gitmodules", worktree) >= (int)sizeof path)
		return 0;
	char *text = file_read_small(path, &len);
	if (!text)
		return errno == ENOMEM ? -ENOMEM : 0;
	struct submodule_walk w = {d, worktree, depth};
	int rc = git_config_parse(text, len, submodule_entry, &w, NULL);
	free(text);
	return rc == -EINVAL ? 0 : rc;
}

/* Does dir_fd look like a git directory git would use (HEAD, objects, refs)? */
static bool looks_like_store(int dir_fd)
{
	struct stat st;
	return fstatat(dir_fd, "HEAD", &st, 0) == 0 && S_ISREG(st.st_mode) &&
	       fstatat(dir_fd, "objects", &st, 0) == 0 && S_ISDIR(st.st_mode) &&
	       fstatat(dir_fd, "refs", &st, 0) == 0 && S_ISDIR(st.st_mode);
}

static int store_refusal(struct discovery *d, const char *tree, const char *store, bool bare)
{
	return error_set(d->err, -EPERM,
			 "the writable tree %s %s the repository store %s (%s): git on the host "
			 "runs hooks and reads config from there, and the cage could plant them; "
			 "grant the repository's work tree instead, or waive the trust-handoff "
			 "class",
			 tree, strcmp(tree, store) == 0 ? "is" : "lies inside", store,
			 bare ? "a bare repository" : "a .git directory");
}

/*
 * The tree and each of its ancestors: a store among them refuses the
 * tree; a ".git" in a strict ancestor is the repository git finds when
 * it discovers upward from the tree.
 */
int ancestors_check(struct discovery *d, const char *tree)
{
	char path[PATH_MAX];
	int rc = 0;
	snprintf(path, sizeof path, "%s", tree);
	for (size_t len = strlen(path); rc == 0;) {
		int fd = open(len ? path : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && (rc = discovery_unopened(d, len ? path : "/", errno)) < 0)
			break;
		const char *base = strrchr(path, '/');
		bool named_git = base && strcmp(base + 1, ".git") == 0;
		if (fd >= 0 && (d->options & REPOSITORIES_REFUSE_STORES) &&
		    (named_git || looks_like_store(fd)))
			rc = store_refusal(d, tree, len ? path : "/", !named_git);
		struct stat st;
		if (rc == 0 && fd >= 0 && strcmp(path, tree) != 0 &&
		    fstatat(fd, ".git", &st, 0) == 0) {
			char git[PATH_MAX];
			/* Longer than a path can be: the kernel could not open it either. */
			bool fits = snprintf(git, sizeof git, "%s/.git", path) < (int)sizeof git;
			if (fits && S_ISREG(st.st_mode)) {
				rc = discovery_gitfile(d, git, len ? path : "/", 0);
			} else if (fits && S_ISDIR(st.st_mode)) {
				char *store = realpath(git, NULL);
				rc = store ? discovery_store(d, store, path, 0) : 0;
				free(store);
			}
		}
		if (fd >= 0)
			close(fd);
		if (len == 0)
			break;
		while (len > 0 && path[len - 1] != '/')
			len--;
		len = len > 0 ? len - 1 : 0;
		path[len] = '\0';
	}
	return rc;
}
