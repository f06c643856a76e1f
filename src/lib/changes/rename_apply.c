/*
 * Renamed directories and files, listed or moved on the host (apply.h),
 * before the walk of the other changes. A move is by identity: what the
 * host holds at the old path (reached from the tree root, no link
 * followed) must be what the run saw, its handle the one overlayfs
 * recorded (the origin mark), and a file unchanged since the start mark;
 * it is moved in one step, never over anything (RENAME_NOREPLACE), and
 * what arrived is checked to be what was judged, else moved back. One
 * that cannot be moved keeps, with everything changed inside it, in the
 * change set; one whose new parent is new too is moved when the walk has
 * made that parent (changes_rename_now).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "apply.h"
#include "base/string_list.h"
#include "judge.h"

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

/* The upper layer's entry of x, opened (a directory, or a file for reading). */
static int marked_open(int upper, const struct changes_rename *x, int *out)
{
	char parent[PATH_MAX];
	int dir;
	*out = -1;
	if (!x->file)
		return changes_rel_dir_open(upper, x->new_rel, out);
	const char *name = rel_split(x->new_rel, parent, sizeof parent);
	int rc = changes_rel_dir_open(upper, parent, &dir);
	if (rc < 0)
		return rc;
	*out = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	rc = *out < 0 ? -errno : 0;
	close(dir);
	return rc;
}

/* Changed since the run started: its change time at or after the start mark. */
static bool changed_since(const struct changes_walk *w, const struct stat *st)
{
	return st->st_ctim.tv_sec > w->started.tv_sec ||
	       (st->st_ctim.tv_sec == w->started.tv_sec && st->st_ctim.tv_nsec >= w->started.tv_nsec);
}

/* Do the two open files hold the same bytes and permissions? */
static bool same_content(int a, int b)
{
	struct stat sa, sb;
	char ba[65536], bb[sizeof ba];
	if (fstat(a, &sa) != 0 || fstat(b, &sb) != 0 || sa.st_size != sb.st_size ||
	    (sa.st_mode & 07777) != (sb.st_mode & 07777))
		return false;
	for (off_t at = 0; at < sa.st_size;) {
		ssize_t na = pread(a, ba, sizeof ba, at), nb = pread(b, bb, sizeof bb, at);
		if (na <= 0 || na != nb || memcmp(ba, bb, (size_t)na) != 0)
			return false;
		at += na;
	}
	return true;
}

/*
 * A renamed file moved: is what the run left at its new name the same as
 * what arrived? Then the change is whole and leaves the change set; else
 * the walk writes the run's bytes over the moved file.
 */
static void moved_file_settle(int upper, const struct changes_rename *x, int marked, int to,
			      const char *new_name)
{
	char parent[PATH_MAX];
	int host = openat(to, new_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), dir;
	bool same = host >= 0 && same_content(marked, host);
	if (host >= 0)
		close(host);
	if (!same)
		return;
	const char *name = rel_split(x->new_rel, parent, sizeof parent);
	if (changes_rel_dir_open(upper, parent, &dir) == 0) {
		(void)unlinkat(dir, name, 0);
		close(dir);
	}
}

/* The checks, then the move, of x (see the head of this file). */
static int rename_checked(struct changes_walk *w, int upper, struct changes_rename *x,
			  int from, const char *old_name, int to, const char *new_name)
{
	struct stat judged, moved;
	int marked;
	int rc = marked_open(upper, x, &marked);
	if (rc < 0)
		return rc;
	if (fstatat(from, old_name, &judged, AT_SYMLINK_NOFOLLOW) != 0)
		rc = errno == ENOENT ? -ENODATA : -errno;
	else if (x->file ? !S_ISREG(judged.st_mode) || changed_since(w, &judged)
			 : !S_ISDIR(judged.st_mode))
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
	if (rc == 0 && !x->file)
		(void)fremovexattr(marked, w->marks->redirect);
	if (rc == 0 && x->file)
		moved_file_settle(upper, x, marked, to, new_name);
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
	if (rc == 0 && (rc = changes_rel_dir_open(w->host_root, new_parent, &to)) == -ENOENT &&
	    !x->deferred)
		rc = -EAGAIN; /* its new parent is new: made by the walk, tried then */
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

static const char *rename_refusal(int rc, bool file)
{
	switch (rc) {
	case -ENODATA:
		return "its old path holds nothing on the host now (moved or removed since the run "
		       "started)";
	case -ESTALE:
		return file ? "its old path holds another file on the host now, or one changed "
			      "since the run started"
			    : "its old path holds another directory on the host now (changed since "
			      "the run started)";
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

/* x moved (rename_do), and the line saying so; one deferred to the walk says nothing yet. */
static int rename_report(struct changes_walk *w, int upper, const char *tree,
			 struct changes_rename *x, const char *path_new)
{
	const char *sep = strcmp(tree, "/") ? "/" : "";
	int rc = rename_do(w, upper, x);
	if (rc == -EAGAIN) {
		x->deferred = true;
		return 0;
	}
	if (rc < 0)
		return changes_walk_line(w, "not applied: %s: renamed from %s%s%s, but %s", path_new,
					 tree, sep, x->old_rel, rename_refusal(rc, x->file));
	w->applied++;
	return changes_walk_line(w, "applied: %s (renamed from %s%s%s)", path_new, tree, sep,
				 x->old_rel);
}

/* One rename, as a line of show or entries. */
static int rename_list(struct changes_walk *w, const char *tree, const struct changes_rename *x,
		       long long size, const char *why)
{
	const char *sep = strcmp(tree, "/") ? "/" : "";
	char bytes[40] = "";
	if (w->entries) {
		char *from = NULL, *to = NULL;
		if (asprintf(&from, "%s%s%s", tree, sep, x->old_rel) < 0)
			from = NULL;
		if (asprintf(&to, "%s%s%s", tree, sep, x->new_rel) < 0)
			to = NULL;
		int rc = string_list_take(&w->renamed_from, &w->n_renamed_from, from);
		if (rc == 0)
			rc = string_list_take(&w->renamed_from, &w->n_renamed_from, to);
		else
			free(to);
		if (rc < 0)
			return rc;
		return changes_walk_line(w, "renamed\t%lld\t%s\t%s%s%s", size, why ? why : "", tree,
					 sep, x->new_rel);
	}
	if (size >= 0)
		snprintf(bytes, sizeof bytes, " (%lld bytes)", size);
	return changes_walk_line(w, "renamed %s%s%s -> %s%s%s%s%s%s%s", tree, sep, x->old_rel,
				 tree, sep, x->new_rel, bytes, why ? " (held back: " : "",
				 why ? why : "", why ? ")" : "");
}

/*
 * Why the safe rule holds rename x, in why. A directory: by where it
 * lands with all it holds (changes_judge_hold_move); a file: as the file
 * it is at its new path. Its size in *size (-1: a directory).
 */
static bool rename_hold(struct changes_walk *w, const char *tree, int upper,
			const struct changes_rename *x, const char *path_new, long long *size,
			char *why, size_t why_size)
{
	char parent[PATH_MAX];
	struct stat st;
	int dir;
	*size = -1;
	if (!x->file)
		return changes_judge_hold_move(&w->judge, x->new_rel, path_new, why, why_size);
	const char *name = rel_split(x->new_rel, parent, sizeof parent);
	if (changes_rel_dir_open(upper, parent, &dir) < 0)
		return false;
	bool hold = false;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		*size = (long long)st.st_size;
		hold = changes_judge_hold(&w->judge, tree, x->new_rel, path_new, &st, dir, name, -1,
					  false, why, why_size);
	}
	close(dir);
	return hold;
}

int changes_renames_walk(struct changes_walk *w, const char *tree, int upper,
			 struct procage_error *err)
{
	const char *sep = strcmp(tree, "/") ? "/" : "";
	for (size_t i = 0; i < w->renames.n; i++) {
		struct changes_rename *x = &w->renames.items[i];
		char path_new[PATH_MAX * 2], why[PATH_MAX + 64];
		bool hold = false;
		long long size = -1;
		int rc = 0;
		snprintf(path_new, sizeof path_new, "%s%s%s", tree, sep, x->new_rel);
		if (w->mode != CHANGES_ALL) {
			if ((rc = changes_walk_judge_ready(w, err)) < 0)
				return rc;
			hold = rename_hold(w, tree, upper, x, path_new, &size, why, sizeof why);
		}
		if (w->mode == CHANGES_LIST)
			rc = rename_list(w, tree, x, size, hold ? why : NULL);
		else if (!changes_walk_asked(w, path_new, true))
			continue;
		else if (hold)
			rc = changes_walk_line(w, "held back: %s (renamed from %s%s%s: %s)", path_new,
					       tree, sep, x->old_rel, why);
		else
			rc = rename_report(w, upper, tree, x, path_new);
		if (rc < 0)
			return error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int changes_rename_now(struct changes_walk *w, const char *tree, struct changes_rename *x,
		       struct procage_error *err)
{
	char path_new[PATH_MAX * 2];
	snprintf(path_new, sizeof path_new, "%s%s%s", tree, strcmp(tree, "/") ? "/" : "",
		 x->new_rel);
	return rename_report(w, w->upper_root, tree, x, path_new) < 0
		       ? error_set(err, -ENOMEM, "out of memory")
		       : 0;
}
