/*
 * The walk of a change set's upper layer (apply.h). overlayfs records a
 * removal as a character device 0/0 (a whiteout), a directory that
 * replaced the host's as one marked opaque (marks.h), and anything
 * written as the whole file. Without redirects (userxattr has none) a
 * renamed directory is a removal and an addition; with them (root's
 * overlays) it is moved first (rename_apply.c). The host tree may have
 * changed since the run: nothing here follows a link in it, and a
 * directory that has become something else fails its entries, which stay
 * in the change set.
 */
#include "apply.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/string_list.h"
#include "base/syscalls.h"
#include "place.h"
#include "upper_access.h"
#include "policy/path_rule.h"


int changes_walk_line(struct changes_walk *w, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	return string_list_take(&w->lines, &w->n_lines, line);
}

static bool in_filter(const struct changes_walk *w, const char *path);
static bool holds_filter(const struct changes_walk *w, const char *path);

bool changes_walk_asked(const struct changes_walk *w, const char *path, bool below)
{
	return in_filter(w, path) || (below && holds_filter(w, path));
}

int changes_walk_judge_ready(struct changes_walk *w, struct procage_error *err)
{
	if (w->judge_ready)
		return 0;
	int rc = changes_judge_init(&w->judge, w->roots, w->n_roots, err);
	if (rc == 0)
		w->judge_ready = true;
	return rc;
}

static bool in_filter(const struct changes_walk *w, const char *path)
{
	for (size_t i = 0; i < w->n_filter; i++)
		if (path_within(path, w->filter[i]))
			return true;
	return w->n_filter == 0;
}

/* Does a filter path lie below path (the directory must then be walked)? */
static bool holds_filter(const struct changes_walk *w, const char *path)
{
	for (size_t i = 0; i < w->n_filter; i++)
		if (path_within(w->filter[i], path))
			return true;
	return false;
}

/*
 * Removes name in dir, whose directory entry said type (DT_UNKNOWN: not
 * known). A directory is removed first as if empty, and walked only when
 * it is not: most of what a run leaves, and the skeleton of an emptied
 * change set, is empty directories. No link is followed.
 */
static int remove_entry(int dir, const char *name, unsigned char type)
{
	if (type != DT_DIR && type != DT_UNKNOWN)
		return unlinkat(dir, name, 0) == 0 || errno == ENOENT ? 0 : -errno;
	if (unlinkat(dir, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (errno == ENOTDIR)
		return unlinkat(dir, name, 0) == 0 ? 0 : -errno;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return -errno;
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	/* overlayfs leaves its work directory without permissions, and a run may leave any. */
	int fd = upper_dir_open(dir, name, st.st_mode);
	if (fd < 0)
		return fd;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = remove_entry(dirfd(d), e->d_name, e->d_type);
	closedir(d);
	if (rc == 0 && unlinkat(dir, name, AT_REMOVEDIR) != 0)
		rc = -errno;
	return rc;
}

int changes_remove_tree(int dir, const char *name)
{
	return remove_entry(dir, name, DT_UNKNOWN);
}

static bool whiteout(const struct stat *st);
static const char *kind_word(const struct stat *st, bool host_exists);

static bool whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

static int dir_walk(struct changes_walk *w, const char *tree, int upper, int host, char *rel,
		    struct procage_error *err);

/*
 * Did overlayfs copy this entry up from a host file? It marks a copy-up
 * with user.overlay.origin; in a user namespace the mark is empty (the
 * lower file's handle would need CAP_DAC_READ_SEARCH in the initial
 * namespace to be used), so it says "the host had a file here", not which.
 */
static bool copied_up(const struct overlay_marks *m, int upper, const char *name,
		      const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return false;
	int fd = upper_file_open(upper, name, O_RDONLY | O_NONBLOCK, st->st_mode);
	if (fd < 0)
		return false;
	bool marked = marks_origin_present(m, fd);
	close(fd);
	return marked;
}

/*
 * Is the host's entry (h, or NULL when it holds none) still the one the
 * run saw? Changed since the run started (its change time at or after
 * the start mark, overlays.c; no program sets a change time back, and a
 * file renamed or linked into place gets a new one too) is -ESTALE; a
 * file the run copied up and the host has removed since is -ENODATA
 * (applying would bring back what the host removed).
 */
static bool stamped_since(const struct changes_walk *w, const struct stat *s)
{
	return s->st_ctim.tv_sec > w->started.tv_sec ||
	       (s->st_ctim.tv_sec == w->started.tv_sec && s->st_ctim.tv_nsec >= w->started.tv_nsec);
}

static int conflict_judge(const struct changes_walk *w, int upper, const char *name,
			  const struct stat *st, const struct stat *h)
{
	if (h && !S_ISDIR(h->st_mode) && stamped_since(w, h))
		return -ESTALE;
	/*
	 * A copy-up with no host file at its name: the host removed it since,
	 * or the run renamed a host file here (overlayfs copies it up whole).
	 * Only a removal changes the host directory: one unchanged since the
	 * start mark (taken before this walk changed it), or one the run made
	 * itself (its upper directory no copy-up of the host's), never held a
	 * file here that is gone now.
	 */
	if (!h && copied_up(w->marks, upper, name, st) && w->dir_may_have_lost)
		return -ENODATA;
	return 0;
}

/* One entry as procage_changes_entries gives it: "KIND\tSIZE\tHELD\tPATH". */
static int entry_line(struct changes_walk *w, const struct stat *st, bool host_exists,
		      const char *why, const char *path)
{
	char held[PATH_MAX + 64];
	snprintf(held, sizeof held, "%s", why ? why : "");
	for (char *p = held; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	long long size = whiteout(st) || S_ISDIR(st->st_mode) ? -1 : (long long)st->st_size;
	return changes_walk_line(w, "%s\t%lld\t%s\t%s", kind_word(st, host_exists), size, held, path);
}

/* Did the run replace the host's directory name (marked opaque)? mode: the directory's. */
static bool getxattrat_opaque(const struct overlay_marks *m, int dir, const char *name,
			      mode_t mode)
{
	int fd = upper_dir_open(dir, name, mode);
	if (fd < 0)
		return false;
	bool opaque = marks_opaque(m, fd);
	upper_dir_done(fd, mode);
	close(fd);
	return opaque;
}

/*
 * The host directory name in host, made (or made anew) as the upper layer
 * says (replaced: marked opaque, marks.h). Its mode is *final once its
 * entries are applied (dir_entry; (mode_t)-1: left as it is): one that
 * keeps its owner out is open to the owner until then.
 */
static int host_dir_ready(bool replaced, const char *name, const struct stat *st, int host,
			  bool apply_here, int *out, mode_t *final)
{
	struct stat h;
	bool opaque = apply_here && replaced;
	if (host < 0)
		return -ENOENT;
	bool there = fstatat(host, name, &h, AT_SYMLINK_NOFOLLOW) == 0;
	/*
	 * A directory the run only wrote into was a directory at its start
	 * (one that replaced anything else is opaque): anything else there
	 * now, a link above all, is the host's change since, never followed
	 * nor removed.
	 */
	if (there && !S_ISDIR(h.st_mode) && !replaced)
		return -ENOTDIR;
	if (there && (opaque || !S_ISDIR(h.st_mode))) {
		int rc = changes_remove_tree(host, name);
		if (rc < 0)
			return rc;
	}
	mode_t filled = upper_dir_mode_while_filled(st->st_mode);
	bool made = mkdirat(host, name, filled) == 0;
	if (!made && errno != EEXIST)
		return -errno;
	*out = openat(host, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*out < 0)
		return -errno;
	/*
	 * The run's permission bits; a host directory kept keeps its sticky
	 * and setgid bits, which a copy-up in a user namespace may lose
	 * without the run asking (a sticky directory must never open up).
	 */
	mode_t mode = st->st_mode & 0777;
	bool kept = there && S_ISDIR(h.st_mode) && !opaque;
	if (kept)
		mode |= h.st_mode & (S_ISGID | S_ISVTX);
	*final = apply_here || made ? mode : (mode_t)-1;
	mode_t now = (mode & 0700) == 0700 ? mode : filled | (mode & (S_ISGID | S_ISVTX));
	if ((apply_here || made) && !(kept && (h.st_mode & 07777) == now) && fchmod(*out, now) != 0)
		return -errno;
	return 0;
}

static const char *kind_word(const struct stat *st, bool host_exists)
{
	if (whiteout(st))
		return "removed";
	if (S_ISDIR(st->st_mode))
		return host_exists ? "directory" : "added directory";
	if (S_ISLNK(st->st_mode))
		return host_exists ? "changed link" : "added link";
	return host_exists ? "modified" : "added";
}

static void target_read(int dir, const char *name, char *buf, size_t size)
{
	ssize_t n = readlinkat(dir, name, buf, size - 1);
	buf[n < 0 ? 0 : n] = '\0';
}

/*
 * What a line of procage_changes_show says after the path: the sizes (the
 * host's, then the run's, for a change), a link's target, a mode change.
 * st: the upper layer's entry; h: the host's, or NULL when it holds none.
 */
static void entry_detail(char *buf, size_t size, const struct stat *st, const struct stat *h,
			 int upper, int host, const char *name)
{
	char old_target[PATH_MAX], new_target[PATH_MAX], mode[40] = "";
	if (h && (h->st_mode & S_IFMT) == (st->st_mode & S_IFMT) &&
	    (h->st_mode & 07777) != (st->st_mode & 07777))
		snprintf(mode, sizeof mode, ", mode %04o -> %04o", h->st_mode & 07777,
			 st->st_mode & 07777);
	buf[0] = '\0';
	if (whiteout(st)) {
		if (h && S_ISDIR(h->st_mode))
			snprintf(buf, size, " (a directory)");
		else if (h)
			snprintf(buf, size, " (%lld bytes)", (long long)h->st_size);
	} else if (S_ISDIR(st->st_mode)) {
		if (mode[0])
			snprintf(buf, size, " (%s)", mode + 2);
	} else if (S_ISLNK(st->st_mode)) {
		target_read(upper, name, new_target, sizeof new_target);
		if (h && S_ISLNK(h->st_mode)) {
			target_read(host, name, old_target, sizeof old_target);
			snprintf(buf, size, " (%s -> %s)", old_target, new_target);
		} else {
			snprintf(buf, size, " (-> %s)", new_target);
		}
	} else if (h && S_ISREG(h->st_mode)) {
		snprintf(buf, size, " (%lld -> %lld bytes%s)", (long long)h->st_size,
			 (long long)st->st_size, mode);
	} else {
		snprintf(buf, size, " (%lld bytes)", (long long)st->st_size);
	}
}

/* A directory of the upper layer: made on the host, then walked. */
static int dir_entry(struct changes_walk *w, const char *tree, int upper, int host,
		     const char *name, const struct stat *st, char *rel, bool apply_here,
		     struct procage_error *err)
{
	int sub_upper = upper_dir_open(upper, name, st->st_mode);
	int sub_host = -1, rc = 0;
	mode_t final = (mode_t)-1;
	if (sub_upper < 0)
		return error_set_sys(err, -sub_upper, PROCAGE_STEP_NONE, "the change set at %s",
				     rel);
	if (w->mode != CHANGES_LIST) {
		bool replaced = marks_opaque(w->marks, sub_upper), opaque = apply_here && replaced;
		rc = host_dir_ready(replaced, name, st, host, apply_here, &sub_host, &final);
		if (rc < 0) {
			char path[PATH_MAX * 2];
			snprintf(path, sizeof path, "%s/%s", tree, rel);
			w->remaining++;
			upper_dir_done(sub_upper, st->st_mode);
			close(sub_upper);
			if (sub_host >= 0)
				close(sub_host);
			return changes_walk_line(w, "not applied: %s: %s", path,
					rc == -ENOTDIR ? "no longer a directory on the host (changed "
							 "since the run)"
						       : strerror(-rc)) < 0
				       ? error_set(err, -ENOMEM, "out of memory")
				       : 0;
		}
		/* Done once: applying the rest later must not empty it again. */
		if (opaque)
			(void)fremovexattr(sub_upper, w->marks->opaque);
	} else if (host >= 0) {
		sub_host = openat(host, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	rc = dir_walk(w, tree, sub_upper, sub_host, rel, err);
	upper_dir_done(sub_upper, st->st_mode);
	close(sub_upper);
	/* Its entries in: the mode the run left, even one that keeps its owner out. */
	if (sub_host >= 0 && final != (mode_t)-1 && (final & 0700) != 0700 &&
	    fchmod(sub_host, final) != 0 && rc == 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "the mode of %s/%s", tree, rel);
	if (sub_host >= 0)
		close(sub_host);
	/* Empty once everything in it is applied. */
	if (rc == 0 && w->mode != CHANGES_LIST)
		(void)unlinkat(upper, name, AT_REMOVEDIR);
	return rc;
}

/*
 * What renames (renames.h) make of an entry: 1 to go on as usual, else
 * done with (0) or failed (< 0). A directory the run renamed is listed
 * against the host directory it came from, and left alone while the host
 * directory has not moved; the whiteout its rename left is no removal;
 * and a host directory that still holds one not moved is not removed.
 */
static int renamed_entry(struct changes_walk *w, const char *tree, int upper, const char *name,
			 const struct stat *st, const struct stat *h, char *rel, const char *path,
			 struct procage_error *err)
{
	struct changes_rename *x = renames_at_new(&w->renames, rel);
	const struct changes_rename *p;
	if (w->renames.n == 0)
		return 1;
	if (x && (x->file ? !S_ISREG(st->st_mode) : !S_ISDIR(st->st_mode)))
		x = NULL;
	/* Its line is the rename's own. */
	if (x && x->file && w->mode == CHANGES_LIST)
		return 0;
	if (x && w->mode == CHANGES_LIST) {
		int sub_upper = upper_dir_open(upper, name, st->st_mode);
		int sub_host = -1, rc;
		if (sub_upper < 0)
			return error_set_sys(err, -sub_upper, PROCAGE_STEP_NONE,
					     "the change set at %s", rel);
		if (w->host_root >= 0)
			(void)changes_rel_dir_open(w->host_root, x->old_rel, &sub_host);
		rc = dir_walk(w, tree, sub_upper, sub_host, rel, err);
		upper_dir_done(sub_upper, st->st_mode);
		close(sub_upper);
		if (sub_host >= 0)
			close(sub_host);
		return rc;
	}
	/* One whose new parent the walk has just made is tried now. */
	if (x && x->state != RENAME_DONE && x->deferred) {
		int rc = changes_rename_now(w, tree, x, err);
		if (rc < 0)
			return rc;
	}
	if (x && x->state != RENAME_DONE) {
		w->remaining += w->mode != CHANGES_LIST;
		return 0;
	}
	/* The whiteout of a rename tried later in the walk is counted after it (tree_walk). */
	const struct changes_rename *left = whiteout(st) ? renames_pending_whiteout(&w->renames, rel)
							 : NULL;
	if (left) {
		w->remaining += w->mode != CHANGES_LIST && !left->deferred;
		return 0;
	}
	if (w->mode == CHANGES_LIST || !h || !S_ISDIR(h->st_mode) || !in_filter(w, path) ||
	    (S_ISDIR(st->st_mode) && !getxattrat_opaque(w->marks, upper, name, st->st_mode)) ||
	    !(p = renames_pending_below(&w->renames, rel)))
		return 1;
	w->remaining++;
	return changes_walk_line(w, "not applied: %s: the run moved %s/%s out of it to %s/%s, "
				    "which is not applied",
				 path, tree, p->old_rel, tree, p->new_rel) < 0
		       ? error_set(err, -ENOMEM, "out of memory")
		       : 0;
}

static int file_apply(struct changes_walk *w, int upper, int host, const char *name,
		      const struct stat *st_in, const struct stat *h_in, bool moved_here,
		      const char *path, struct procage_error *err);

/* One entry of the upper layer, at rel (below the tree root). */
static int entry_take(struct changes_walk *w, const char *tree, int upper, int host,
		      const char *name, char *rel, struct procage_error *err)
{
	char path[PATH_MAX * 2], why[PATH_MAX + 64];
	struct stat st, h;
	snprintf(path, sizeof path, "%s%s%s", tree, strcmp(tree, "/") ? "/" : "", rel);
	if (fstatat(upper, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT && w->renames.n
			       ? 0 /* a whiteout a rename done in this walk took along */
			       : error_set_sys(err, errno, PROCAGE_STEP_NONE,
					       "the change set at %s", rel);
	bool host_exists = host >= 0 && fstatat(host, name, &h, AT_SYMLINK_NOFOLLOW) == 0;
	bool apply_here = in_filter(w, path);
	bool judged = !whiteout(&st) && w->mode != CHANGES_ALL;
	int renamed = renamed_entry(w, tree, upper, name, &st, host_exists ? &h : NULL, rel, path,
				    err);
	if (renamed <= 0)
		return renamed;
	/* A file the renames just moved here: the host holds it now, changed by the move. */
	const struct changes_rename *moved = renames_at_new(&w->renames, rel);
	bool moved_here = moved && moved->file && moved->state == RENAME_DONE;
	if (moved_here && fstatat(upper, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0; /* the same bytes: the move was the whole change */
	if (moved_here)
		host_exists = host >= 0 && fstatat(host, name, &h, AT_SYMLINK_NOFOLLOW) == 0;
	if (judged) {
		int rc = changes_walk_judge_ready(w, err);
		if (rc < 0)
			return rc;
	}
	bool hold = judged && changes_judge_hold(&w->judge, tree, rel, path, &st, upper, name,
						  host, host_exists, why, sizeof why);
	if (w->mode == CHANGES_LIST) {
		char detail[PATH_MAX * 2 + 64];
		entry_detail(detail, sizeof detail, &st, host_exists ? &h : NULL, upper, host, name);
		int rc = w->entries ? entry_line(w, &st, host_exists, hold ? why : NULL, path)
				    : changes_walk_line(w, "%s %s%s%s%s%s", kind_word(&st, host_exists), path,
					       detail, hold ? " (held back: " : "",
					       hold ? why : "", hold ? ")" : "");
		if (rc < 0)
			return error_set(err, -ENOMEM, "out of memory");
		return S_ISDIR(st.st_mode) && !hold
			       ? dir_entry(w, tree, upper, host, name, &st, rel, false, err)
			       : 0;
	}
	if (!apply_here && !(S_ISDIR(st.st_mode) && holds_filter(w, path))) {
		w->remaining++;
		return 0;
	}
	if (hold && apply_here) {
		w->remaining++;
		char size[40] = "";
		if (S_ISREG(st.st_mode))
			snprintf(size, sizeof size, ", %lld bytes", (long long)st.st_size);
		return changes_walk_line(w, "held back: %s (%s)%s", path, why, size) < 0
			       ? error_set(err, -ENOMEM, "out of memory")
			       : 0;
	}
	if (S_ISDIR(st.st_mode))
		return dir_entry(w, tree, upper, host, name, &st, rel, apply_here, err);
	return file_apply(w, upper, host, name, &st, host_exists ? &h : NULL, moved_here, path,
			  err);
}

/*
 * A file, link or removal of the upper layer put on the host (h: the
 * host's entry, or NULL), and the line saying so. A file moved here by
 * its rename (moved_here) was judged then (the host file the run saw,
 * unchanged since its start); the exchange still checks it is the one
 * just read.
 */
static int file_apply(struct changes_walk *w, int upper, int host, const char *name,
		      const struct stat *st_in, const struct stat *h_in, bool moved_here,
		      const char *path, struct procage_error *err)
{
	struct stat st = *st_in, h = h_in ? *h_in : (struct stat){ 0 };
	bool host_exists = h_in != NULL;
	int rc = moved_here ? 0 : conflict_judge(w, upper, name, &st, host_exists ? &h : NULL);
	if (rc == 0)
		rc = host < 0	       ? -ENOENT
		     : whiteout(&st) ? (host_exists ? place_removal(host, name, &h) : 0)
		     : S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)
			     ? place_entry(upper, name, &st, host, host_exists ? &h : NULL)
			     : -EOPNOTSUPP;
	if (rc < 0) {
		w->remaining++;
		return changes_walk_line(w, "not applied: %s: %s", path,
				rc == -EOPNOTSUPP ? "a special file (device, pipe or socket)"
				: rc == -ESTALE	  ? "changed on the host since the run started"
				: rc == -ENODATA  ? "removed on the host since the run started"
						  : strerror(-rc)) < 0
			       ? error_set(err, -ENOMEM, "out of memory")
			       : 0;
	}
	w->applied++;
	(void)unlinkat(upper, name, 0);
	return changes_walk_line(w, "applied: %s", path) < 0 ? error_set(err, -ENOMEM, "out of memory") : 0;
}

static int dir_walk(struct changes_walk *w, const char *tree, int upper, int host, char *rel,
		    struct procage_error *err)
{
	int fd = dup(upper);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	size_t len = strlen(rel);
	int rc = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "reading the change set");
	}
	/* Names first: entries are removed from the directory as they are applied. */
	char **names = NULL;
	size_t n = 0;
	/* Before anything here is applied (conflict_judge). */
	struct stat host_dir;
	bool saved = w->dir_may_have_lost;
	w->dir_may_have_lost = (len == 0 || marks_origin_present(w->marks, upper)) &&
			       (host < 0 || fstat(host, &host_dir) != 0 ||
				stamped_since(w, &host_dir));
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    string_list_append(&names, &n, e->d_name) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
	closedir(d);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (len + strlen(names[i]) + 2 >= PATH_MAX) {
			rc = error_set(err, -ENAMETOOLONG, "a path too long in the change set");
			break;
		}
		snprintf(rel + len, PATH_MAX - len, "%s%s", len ? "/" : "", names[i]);
		rc = entry_take(w, tree, upper, host, names[i], rel, err);
		rel[len] = '\0';
	}
	w->dir_may_have_lost = saved;
	procage_strings_free(names);
	return rc;
}

int changes_tree_walk(struct changes_walk *w, const struct changes_tree *t,
		      struct procage_error *err)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	char rel[PATH_MAX] = "";
	mode_t root_mode = upper_root_mode(t->dir_fd);
	int upper = upper_dir_open(t->dir_fd, "upper", root_mode);
	if (upper < 0)
		return error_set_sys(err, -upper, PROCAGE_STEP_NONE, "the upper layer of %s",
				     t->path);
	/* The tree root itself: no link anywhere on its way. */
	int host = sys_openat2(AT_FDCWD, t->path, &how);
	if (host < 0 && w->mode != CHANGES_LIST) {
		int rc = error_set_sys(err, errno, PROCAGE_STEP_NONE,
				       "the tree %s (gone, or a link on its way)", t->path);
		upper_dir_done(upper, root_mode);
		close(upper);
		return rc;
	}
	/* A tree whose path names another directory now gets nothing; the other trees go on. */
	struct stat root;
	if (host >= 0 && w->mode != CHANGES_LIST &&
	    (fstat(host, &root) != 0 || root.st_dev != t->root_dev || root.st_ino != t->root_ino)) {
		upper_dir_done(upper, root_mode);
		close(upper);
		close(host);
		w->remaining++;
		return changes_walk_line(w, "not applied: %s: the tree is not the directory the run saw "
				   "(replaced since): nothing of it applied",
				t->path) < 0
			       ? error_set(err, -ENOMEM, "out of memory")
			       : 0;
	}
	/*
	 * The overlay's marks; renamed directories only where root made it
	 * (a run cannot write trusted.overlay.* marks, and userxattr has no
	 * redirects). They go first: the rest is applied below their new
	 * names, and a removal that would take one along waits for it.
	 */
	w->marks = overlay_marks_of(t->trusted_marks);
	w->host_root = host;
	w->upper_root = upper;
	int rc = t->trusted_marks ? renames_collect(w->marks, upper, host, t->path, &w->renames) : 0;
	if (rc < 0)
		rc = error_set_sys(err, -rc, PROCAGE_STEP_NONE, "reading the renames of %s", t->path);
	if (rc == 0 && w->renames.n)
		rc = changes_renames_walk(w, t->path, upper, err);
	if (rc == 0)
		rc = dir_walk(w, t->path, upper, host, rel, err);
	for (size_t i = 0; w->mode != CHANGES_LIST && i < w->renames.n; i++)
		w->remaining += w->renames.items[i].deferred &&
				w->renames.items[i].state != RENAME_DONE;
	renames_free(&w->renames);
	w->host_root = -1;
	upper_dir_done(upper, root_mode);
	close(upper);
	if (host >= 0)
		close(host);
	return rc;
}
