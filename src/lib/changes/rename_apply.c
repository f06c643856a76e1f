/*
 * Renamed directories, listed or moved on the host (apply.h), before the
 * walk of the other changes. A move is by identity: the host directory
 * at the old path (reached from the tree root, no link followed) must be
 * the one the run saw, its handle the one overlayfs recorded when the run
 * renamed it (the origin mark); it is moved in one step, never over
 * anything (RENAME_NOREPLACE), and the directory that arrived is checked
 * to be the one judged, else moved back. A directory that cannot be
 * moved keeps, with everything inside it, in the change set.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "apply.h"

int changes_rel_dir_open(int root, const char *rel, int *out)
{
	char buf[PATH_MAX], *save = NULL;
	int fd = dup(root);
	*out = -1;
	if (fd < 0)
		return -errno;
	if ((size_t)snprintf(buf, sizeof buf, "%s", rel) >= sizeof buf) {
		close(fd);
		return -ENAMETOOLONG;
	}
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (next < 0)
			return -e;
		fd = next;
	}
	*out = fd;
	return 0;
}

/* rel's parent (in parent) and last component (a pointer into rel). */
static const char *rel_split(const char *rel, char *parent, size_t size)
{
	const char *slash = strrchr(rel, '/');
	snprintf(parent, size, "%.*s", slash ? (int)(slash - rel) : 0, rel);
	return slash ? slash + 1 : rel;
}

/* The whiteout the run's rename of x left in the upper layer, removed: the rename holds it. */
static void whiteout_drop(const struct changes_walk *w, int upper, const struct changes_rename *x)
{
	char rel[PATH_MAX], parent[PATH_MAX];
	struct stat st;
	int dir;
	renames_whiteout_of(&w->renames, x, rel, sizeof rel);
	const char *name = rel_split(rel, parent, sizeof parent);
	if (!rel[0] || changes_rel_dir_open(upper, parent, &dir) < 0)
		return;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(0, 0))
		(void)unlinkat(dir, name, 0);
	close(dir);
}

/* The checks, then the move, of x (see the head of this file). */
static int rename_checked(struct changes_walk *w, int upper, struct changes_rename *x,
			  int from, const char *old_name, int to, const char *new_name)
{
	struct stat judged, moved;
	int marked;
	int rc = changes_rel_dir_open(upper, x->new_rel, &marked);
	if (rc < 0)
		return rc;
	if (fstatat(from, old_name, &judged, AT_SYMLINK_NOFOLLOW) != 0)
		rc = errno == ENOENT ? -ENODATA : -errno;
	else if (!S_ISDIR(judged.st_mode))
		rc = -ESTALE;
	else if (!marks_origin_present(w->marks, marked))
		rc = -ENOKEY;
	else if (!marks_origin_is(w->marks, marked, from, old_name))
		rc = -ESTALE;
	else if (fstatat(to, new_name, &moved, AT_SYMLINK_NOFOLLOW) == 0)
		rc = -EEXIST;
	else if (renameat2(from, old_name, to, new_name, RENAME_NOREPLACE) != 0)
		rc = -errno;
	else if (fstatat(to, new_name, &moved, AT_SYMLINK_NOFOLLOW) != 0 ||
		 moved.st_dev != judged.st_dev || moved.st_ino != judged.st_ino) {
		(void)renameat2(to, new_name, from, old_name, RENAME_NOREPLACE);
		rc = -ESTALE;
	}
	/* Done once: applying the rest later must not move it again. */
	if (rc == 0)
		(void)fremovexattr(marked, w->marks->redirect);
	close(marked);
	return rc;
}

static int rename_do(struct changes_walk *w, int upper, struct changes_rename *x)
{
	char old_now[PATH_MAX], old_parent[PATH_MAX], new_parent[PATH_MAX];
	int from = -1, to = -1, rc;
	if (w->host_root < 0)
		return -ENOENT;
	renames_host_now(&w->renames, x->old_rel, old_now, sizeof old_now);
	if (!old_now[0])
		return -ENAMETOOLONG;
	const char *old_name = rel_split(old_now, old_parent, sizeof old_parent);
	const char *new_name = rel_split(x->new_rel, new_parent, sizeof new_parent);
	rc = changes_rel_dir_open(w->host_root, old_parent, &from);
	if (rc == 0)
		rc = changes_rel_dir_open(w->host_root, new_parent, &to);
	if (rc == 0)
		rc = rename_checked(w, upper, x, from, old_name, to, new_name);
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	if (rc == 0) {
		x->state = RENAME_DONE;
		whiteout_drop(w, upper, x);
	}
	return rc;
}

static const char *rename_refusal(int rc)
{
	switch (rc) {
	case -ENODATA:
		return "its old path holds nothing on the host now (moved or removed since the run "
		       "started)";
	case -ESTALE:
		return "its old path holds another directory on the host now (changed since the "
		       "run started)";
	case -ENOKEY:
		return "the change set does not say which directory it was";
	case -EEXIST:
		return "the host has something at its new path now";
	case -ENOENT:
	case -ENOTDIR:
	case -ELOOP:
		return "a directory on its way is missing on the host, or no longer a directory";
	default:
		return strerror(-rc);
	}
}

/* One rename, as a line of show or entries. */
static int rename_list(struct changes_walk *w, const char *tree, const struct changes_rename *x,
		       const char *why)
{
	const char *sep = strcmp(tree, "/") ? "/" : "";
	if (w->entries)
		return changes_walk_line(w, "renamed\t-1\t%s\t%s%s%s", why ? why : "", tree, sep,
					 x->new_rel);
	return changes_walk_line(w, "renamed %s%s%s -> %s%s%s%s%s%s", tree, sep, x->old_rel, tree,
				 sep, x->new_rel, why ? " (held back: " : "", why ? why : "",
				 why ? ")" : "");
}

int changes_renames_walk(struct changes_walk *w, const char *tree, int upper,
			 struct procage_error *err)
{
	const char *sep = strcmp(tree, "/") ? "/" : "";
	for (size_t i = 0; i < w->renames.n; i++) {
		struct changes_rename *x = &w->renames.items[i];
		char path_new[PATH_MAX * 2], why[PATH_MAX + 64];
		bool hold = false;
		int rc = 0;
		snprintf(path_new, sizeof path_new, "%s%s%s", tree, sep, x->new_rel);
		if (w->mode != CHANGES_ALL) {
			if ((rc = changes_walk_judge_ready(w, err)) < 0)
				return rc;
			hold = changes_judge_hold_move(&w->judge, x->new_rel, path_new, why,
						       sizeof why);
		}
		if (w->mode == CHANGES_LIST)
			rc = rename_list(w, tree, x, hold ? why : NULL);
		else if (!changes_walk_asked(w, path_new, true))
			continue;
		else if (hold)
			rc = changes_walk_line(w, "held back: %s (renamed from %s%s%s: %s)", path_new,
					       tree, sep, x->old_rel, why);
		else if ((rc = rename_do(w, upper, x)) < 0)
			rc = changes_walk_line(w, "not applied: %s: renamed from %s%s%s, but %s",
					       path_new, tree, sep, x->old_rel, rename_refusal(rc));
		else if ((rc = changes_walk_line(w, "applied: %s (renamed from %s%s%s)", path_new,
						 tree, sep, x->old_rel)) == 0)
			w->applied++;
		if (rc < 0)
			return error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}
