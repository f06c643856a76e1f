#include "entry_grants.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "discover/hardlinks.h"
#include "policy/classes.h"

struct expansion {
	const struct cage_paths *paths;
	struct cage_path *out;
	size_t n_out;
	struct broker_zones *zones; /* or NULL */
	/* Every hidden and protected location, inside the grants or not. */
	const struct cage_path *examined;
	size_t n_examined;
	/* Their files with more than one name, walked once when first needed. */
	struct hardlink_inode *linked;
	size_t n_linked;
	bool linked_walked;
};

static int out_add(struct expansion *x, const char *path, enum procage_access access)
{
	char *copy = strdup(path);
	struct cage_path *grown = copy ? realloc(x->out, (x->n_out + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	x->out = grown;
	x->out[x->n_out++] = (struct cage_path){ copy, access, -1, false };
	return 0;
}

/* Does a denial that matters for access lie strictly below path? */
static bool denial_below(const struct expansion *x, const char *path, enum procage_access access,
			 bool hidden_only)
{
	for (size_t i = 0; i < x->paths->n_denials; i++) {
		const struct cage_path *d = &x->paths->denials[i];
		if (strcmp(d->path, path) == 0 || !path_within(d->path, path))
			continue;
		if (d->access == PROCAGE_HIDE || (!hidden_only && access == PROCAGE_WRITE))
			return true;
	}
	return false;
}

/*
 * A git directory: named .git, holding HEAD, objects and refs (a bare one),
 * or HEAD and commondir (a linked worktree's).
 */
static bool git_dir_at(const char *path)
{
	const char *slash = strrchr(path, '/');
	char entry[PATH_MAX];
	struct stat st;
	if (slash && strcmp(slash + 1, ".git") == 0)
		return true;
	/* A linked worktree's git directory: HEAD, and commondir naming the rest. */
	if (snprintf(entry, sizeof entry, "%s/commondir", path) < (int)sizeof entry &&
	    stat(entry, &st) == 0 && snprintf(entry, sizeof entry, "%s/HEAD", path) < (int)sizeof entry &&
	    stat(entry, &st) == 0)
		return true;
	static const char *const parts[] = { "HEAD", "objects", "refs" };
	for (size_t i = 0; i < 3; i++)
		if (snprintf(entry, sizeof entry, "%s/%s", path, parts[i]) >= (int)sizeof entry ||
		    stat(entry, &st) != 0)
			return false;
	return true;
}

/*
 * Does denied lie in a git directory at or below dir, or is it a work
 * tree's .git itself (a gitfile: a linked worktree's or a submodule's)?
 */
static bool denial_in_git_dir(const char *dir, const char *denied)
{
	char ancestor[PATH_MAX];
	size_t base = strlen(dir);
	const char *last = strrchr(denied, '/');
	if (last && strcmp(last + 1, ".git") == 0)
		return true;
	if (strlen(denied) >= sizeof ancestor)
		return false;
	strcpy(ancestor, denied);
	for (char *slash; (slash = strrchr(ancestor, '/')) && (size_t)(slash - ancestor) >= base;) {
		*slash = '\0';
		if (git_dir_at(ancestor[0] ? ancestor : "/"))
			return true;
	}
	return false;
}

/*
 * A directory of a write grant granted only reading, or nothing, because
 * of the denials below it: a zone of the broker, where the supervisor
 * makes the new entries whose names no denial starts with. Only where
 * every denial below lies in a git directory or is a gitfile, or is a
 * workspace's configuration: there the names a new entry must not take
 * are known (the git directory's, and git's own rules inside it,
 * broker_zones.c; a workspace-config location is one of a few fixed names
 * below the workspace, which would be writable without it), while
 * elsewhere (a home) a protected location missing when the cage is made
 * (a startup file) has no denial to refuse its name by, and the directory
 * stays read-only.
 */
static int zone_record(struct expansion *x, const char *path)
{
	int rc = 0;
	if (!x->zones)
		return 0;
	for (size_t i = 0; i < x->paths->n_denials; i++) {
		const char *d = x->paths->denials[i].path;
		if (strcmp(d, path) != 0 && path_within(d, path) &&
		    x->paths->denials[i].cls != CLASS_WORKSPACE_CONFIG &&
		    !denial_in_git_dir(path, d))
			return 0;
	}
	for (size_t i = 0; rc == 0 && i < x->paths->n_denials; i++) {
		const struct cage_path *d = &x->paths->denials[i];
		if (strcmp(d->path, path) != 0 && path_within(d->path, path))
			rc = broker_zones_add(x->zones, path, d->path);
	}
	return rc;
}

/*
 * The access an entry grant may give path, a file with no denial below it:
 * access, unless it is a second name of a hidden or protected file. A rule
 * is on the inode, so granting that name would grant the file under its
 * denied name too (the hard-link check refuses the spawn, but report mode
 * lets it go on): a hidden one gets nothing (-1), a protected one reading.
 */
static int linked_file_access(struct expansion *x, const char *path, enum procage_access access,
			      int *out)
{
	struct stat st;
	*out = (int)access;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	if (!x->linked_walked) {
		int rc = hardlinks_linked_files(x->examined, x->n_examined, &x->linked,
						&x->n_linked);
		if (rc < 0)
			return rc;
		x->linked_walked = true;
	}
	for (size_t i = 0; i < x->n_linked; i++)
		if (x->linked[i].dev == st.st_dev && x->linked[i].ino == st.st_ino) {
			if (x->linked[i].hidden)
				*out = -1;
			else if (*out == PROCAGE_WRITE)
				*out = PROCAGE_READ;
		}
	return 0;
}

static const struct cage_path *denial_at(const struct expansion *x, const char *path)
{
	for (size_t i = 0; i < x->paths->n_denials; i++)
		if (strcmp(x->paths->denials[i].path, path) == 0)
			return &x->paths->denials[i];
	return NULL;
}

static int expand_node(struct expansion *x, const char *path, enum procage_access access,
		       int depth);

static int expand_entries(struct expansion *x, const char *dir, enum procage_access access,
			  int depth)
{
	DIR *d = opendir(dir);
	char child[PATH_MAX];
	int rc = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* A link's target is governed by the grants on the target. */
		if (e->d_type == DT_LNK)
			continue;
		if (snprintf(child, sizeof child, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) >=
		    (int)sizeof child)
			continue;
		rc = expand_node(x, child, access, depth + 1);
	}
	closedir(d);
	return rc;
}

static int expand_node(struct expansion *x, const char *path, enum procage_access access,
		       int depth)
{
	const struct cage_path *d = denial_at(x, path);
	if (d && d->access == PROCAGE_HIDE)
		return 0;
	if (d)
		access = PROCAGE_READ; /* protected: readable, and so is all below */
	if (!denial_below(x, path, access, false)) {
		int given;
		int rc = linked_file_access(x, path, access, &given);
		if (rc < 0 || given < 0)
			return rc;
		return out_add(x, path, (enum procage_access)given);
	}
	if (depth > 64)
		return -ELOOP;
	if (access == PROCAGE_WRITE) {
		int rc = zone_record(x, path);
		if (rc < 0)
			return rc;
	}
	/* Reading the directory itself would reach a hidden path below it. */
	if (!denial_below(x, path, access, true)) {
		int rc = out_add(x, path, PROCAGE_READ);
		if (rc < 0)
			return rc;
	} else if (x->zones) {
		/* Listed only through the broker, and only if the policy accepts it. */
		int rc = broker_zones_add_listing(x->zones, path);
		if (rc < 0)
			return rc;
	}
	return expand_entries(x, path, access, depth);
}

int entry_grants_expand(const struct cage_paths *paths, const struct cage_path *examined,
			size_t n_examined, struct cage_path **out, size_t *n_out,
			struct broker_zones *zones, struct procage_error *err)
{
	struct expansion x = { paths, NULL, 0, zones, examined, n_examined, NULL, 0, false };
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < paths->n_grants; i++)
		rc = expand_node(&x, paths->grants[i].path, paths->grants[i].access, 0);
	free(x.linked);
	if (rc < 0) {
		for (size_t i = 0; i < x.n_out; i++)
			free(x.out[i].path);
		free(x.out);
		if (zones)
			broker_zones_free(zones);
		return error_set(err, rc, "granting entry by entry around the denied paths: %s",
				 strerror(-rc));
	}
	*out = x.out;
	*n_out = x.n_out;
	return 0;
}
