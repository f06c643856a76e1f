/*
 * The diff of a change set against the host trees (diff.h). The upper
 * layer is walked as apply.c walks it (a whiteout is a removal, an opaque
 * directory replaced the host's whole), but nothing is written: the host
 * side is read from descriptors opened one component at a time without
 * following a link, so a link planted in the host tree since the run is
 * never read through. Names come from the run: a name holding a control
 * byte is shown quoted and escaped, so that a header stays one line.
 */
#include "diff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/string_list.h"
#include "base/syscalls.h"
#include "common/text_escape.h"
#include "policy/path_rule.h"
#include "apply.h"
#include "unified.h"
#include "upper_access.h"

/* A file larger than this is named as differing, not read. */
#define DIFF_MAX_FILE (8 << 20)
/* A NUL byte in this much of the head makes a file binary, as git and diff judge. */
#define DIFF_BINARY_PROBE 8000

static bool in_filter(const struct changes_diff *d, const char *path)
{
	for (size_t i = 0; i < d->n_filter; i++)
		if (path_within(path, d->filter[i]))
			return true;
	return d->n_filter == 0;
}

static bool holds_filter(const struct changes_diff *d, const char *path)
{
	for (size_t i = 0; i < d->n_filter; i++)
		if (path_within(d->filter[i], path))
			return true;
	return false;
}

/* path as printed: as it is, or quoted and escaped when it holds a byte to escape. */
static void name_put(FILE *out, const char *path)
{
	char *quoted = escape_quoted_dup(path);
	if (quoted && strlen(quoted) == strlen(path) + 2)
		fputs(path, out);
	else
		fputs(quoted ? quoted : "\"?\"", out);
	free(quoted);
}

/*
 * The whole of a small regular file below dir; -EFBIG past DIFF_MAX_FILE.
 * upper: the upper layer's entry (dir is the upper layer's), read back
 * whatever mode the run left it (upper_access.h); NULL on the host's side.
 */
static int file_read(int dir, const char *name, const struct stat *upper, char **buf, size_t *len)
{
	struct stat st;
	*buf = NULL;
	*len = 0;
	int fd = upper ? upper_file_open(dir, name, O_RDONLY | O_NONBLOCK, upper->st_mode)
		       : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return upper ? fd : -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st.st_size > DIFF_MAX_FILE) {
		close(fd);
		return -EFBIG;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (*len < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + *len, (size_t)st.st_size - *len);
		if (n <= 0)
			break; /* shorter now: what was read is what is shown */
		*len += (size_t)n;
	}
	close(fd);
	return 0;
}

static bool binary(const char *buf, size_t len)
{
	return memchr(buf, '\0', len < DIFF_BINARY_PROBE ? len : DIFF_BINARY_PROBE) != NULL;
}

/* "--- OLD\n+++ NEW\n" with /dev/null for the side that has no file. */
static void headers_put(FILE *out, const char *path, bool old_side, bool new_side)
{
	fputs("--- ", out);
	name_put(out, old_side ? path : "/dev/null");
	fputs("\n+++ ", out);
	name_put(out, new_side ? path : "/dev/null");
	fputc('\n', out);
}

/*
 * A regular file's change: host_dir/name (or none: -1) against
 * upper/name (or none: -1). A mode change is a line of its own.
 */
static int file_diff_named(FILE *out, const char *path, int host_dir, const char *host_name,
			   const struct stat *hs, int upper, const char *name, const struct stat *us);

static int file_diff(FILE *out, const char *path, int host_dir, const struct stat *hs, int upper,
		     const char *name, const struct stat *us)
{
	return file_diff_named(out, path, host_dir, name, hs, upper, name, us);
}

/* The same, the host's file under another name (a renamed file's old one). */
static int file_diff_named(FILE *out, const char *path, int host_dir, const char *host_name,
			   const struct stat *hs, int upper, const char *name, const struct stat *us)
{
	char *old_text = NULL, *new_text = NULL;
	size_t old_len = 0, new_len = 0;
	int rc_old = 0, rc_new = 0, rc = 0;
	if (hs && us && (hs->st_mode & 07777) != (us->st_mode & 07777)) {
		fputs("mode ", out);
		name_put(out, path);
		fprintf(out, ": %04o -> %04o\n", hs->st_mode & 07777, us->st_mode & 07777);
	}
	if (hs)
		rc_old = file_read(host_dir, host_name, NULL, &old_text, &old_len);
	if (us)
		rc_new = file_read(upper, name, us, &new_text, &new_len);
	if (rc_old == -ENOMEM || rc_new == -ENOMEM) {
		rc = -ENOMEM;
	} else if (rc_old < 0 || rc_new < 0) {
		int why = rc_old < 0 ? rc_old : rc_new;
		fputs("Files ", out);
		name_put(out, hs ? path : "/dev/null");
		fputs(" and ", out);
		name_put(out, us ? path : "/dev/null");
		fprintf(out, " differ (%s: not shown)\n",
			why == -EFBIG ? "larger than 8 MiB" : strerror(-why));
	} else if (hs && us && old_len == new_len && memcmp(old_text, new_text, old_len) == 0) {
		/* the same bytes: only the mode, if anything, changed */
	} else if (binary(old_text ? old_text : "", old_len) ||
		   binary(new_text ? new_text : "", new_len)) {
		fputs("Binary files ", out);
		name_put(out, hs ? path : "/dev/null");
		fputs(" and ", out);
		name_put(out, us ? path : "/dev/null");
		fputs(" differ\n", out);
	} else {
		headers_put(out, path, hs != NULL, us != NULL);
		rc = unified_hunks(out, old_text ? old_text : "", old_len, new_text ? new_text : "",
				   new_len);
	}
	free(old_text);
	free(new_text);
	return rc;
}

static void target_read(int dir, const char *name, char *buf, size_t size)
{
	ssize_t n = readlinkat(dir, name, buf, size - 1);
	buf[n < 0 ? 0 : n] = '\0';
}

/* A link's change, stated: made, retargeted or removed. */
static void link_put(FILE *out, const char *path, const char *old_target, const char *new_target)
{
	fputs(old_target && new_target ? "link " : new_target ? "new link " : "removed link ", out);
	name_put(out, path);
	if (old_target && new_target) {
		fputs(": ", out);
		name_put(out, old_target);
		fputs(" -> ", out);
		name_put(out, new_target);
	} else {
		fputs(new_target ? " -> " : " (was -> ", out);
		name_put(out, new_target ? new_target : old_target);
		if (!new_target)
			fputc(')', out);
	}
	fputc('\n', out);
}

static int name_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of a directory, without . and .. (procage_strings_free). */
static int names_read(int dir, char ***names, size_t *n)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = fd < 0 ? NULL : fdopendir(fd);
	*names = NULL;
	*n = 0;
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(dp));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = string_list_append(names, n, e->d_name);
	closedir(dp);
	if (rc == 0 && *n)
		qsort(*names, *n, sizeof **names, name_compare);
	return rc;
}

static int host_removed(const struct changes_diff *d, const char *path, int host, const char *name);

/* Everything of a host directory removed, entry by entry. */
static int host_dir_removed(const struct changes_diff *d, const char *path, int host,
			    const char *name, char *const *keep, size_t n_keep)
{
	int sub = openat(host, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **names = NULL;
	size_t n = 0;
	if (sub < 0)
		return 0; /* gone since, or unreadable: nothing to show */
	int rc = names_read(sub, &names, &n);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char sub_path[PATH_MAX];
		if (n_keep && bsearch(&names[i], keep, n_keep, sizeof *keep, name_compare))
			continue;
		if ((size_t)snprintf(sub_path, sizeof sub_path, "%s/%s", path, names[i]) >=
		    sizeof sub_path)
			continue;
		rc = host_removed(d, sub_path, sub, names[i]);
	}
	procage_strings_free(names);
	close(sub);
	return rc;
}

static int host_removed(const struct changes_diff *d, const char *path, int host, const char *name)
{
	struct stat hs;
	char target[PATH_MAX];
	if (fstatat(host, name, &hs, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	if (S_ISDIR(hs.st_mode))
		return host_dir_removed(d, path, host, name, NULL, 0);
	if (!in_filter(d, path))
		return 0;
	if (S_ISREG(hs.st_mode))
		return file_diff(d->out, path, host, &hs, -1, name, NULL);
	if (S_ISLNK(hs.st_mode)) {
		target_read(host, name, target, sizeof target);
		link_put(d->out, path, target, NULL);
		return 0;
	}
	fputs("removed special file ", d->out);
	name_put(d->out, path);
	fputc('\n', d->out);
	return 0;
}

static int upper_walk(const struct changes_diff *d, const char *path, int upper, int host,
		      bool opaque);

/* path below the tree root ("" for the root). */
static const char *rel_of(const struct changes_diff *d, const char *path)
{
	size_t n = strlen(d->tree);
	if (strcmp(d->tree, "/") == 0)
		return path + 1;
	return path[n] == '/' ? path + n + 1 : path + n;
}

static void rename_put(const struct changes_diff *d, const char *old_rel, const char *path)
{
	fputs("rename ", d->out);
	name_put(d->out, d->tree);
	fprintf(d->out, "%s", strcmp(d->tree, "/") ? "/" : "");
	name_put(d->out, old_rel);
	fputs(" -> ", d->out);
	name_put(d->out, path);
	fputc('\n', d->out);
}

/* A file the run renamed: stated, then its bytes against the host file it came from. */
static int renamed_file_diff(const struct changes_diff *d, const char *path, int upper,
			     const char *name, const struct stat *us,
			     const struct changes_rename *x)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(x->old_rel, '/');
	const char *old_name = slash ? slash + 1 : x->old_rel;
	struct stat hs;
	int host = -1, rc = 0;
	snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - x->old_rel) : 0, x->old_rel);
	rename_put(d, x->old_rel, path);
	if (d->host_root >= 0 && changes_rel_dir_open(d->host_root, parent, &host) == 0 &&
	    fstatat(host, old_name, &hs, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(hs.st_mode))
		rc = file_diff_named(d->out, path, host, old_name, &hs, upper, name, us);
	if (host >= 0)
		close(host);
	return rc;
}

/*
 * A directory the run renamed (renames.h): stated on a line of its own,
 * then what it holds against the host directory it came from.
 */
static int renamed_diff(const struct changes_diff *d, const char *path, int upper,
			const char *name, const struct stat *us, const struct changes_rename *x)
{
	int sub_upper = upper_dir_open(upper, name, us->st_mode);
	int sub_host = -1;
	if (sub_upper < 0)
		return sub_upper;
	if (in_filter(d, path))
		rename_put(d, x->old_rel, path);
	if (d->host_root >= 0)
		(void)changes_rel_dir_open(d->host_root, x->old_rel, &sub_host);
	int rc = upper_walk(d, path, sub_upper, sub_host, false);
	upper_dir_done(sub_upper, us->st_mode);
	close(sub_upper);
	if (sub_host >= 0)
		close(sub_host);
	return rc;
}

/* A directory of the upper layer: what it replaced on the host, then what it holds. */
static int dir_diff(const struct changes_diff *d, const char *path, int upper, int host,
		    const char *name, const struct stat *us, const struct stat *hs)
{
	int sub_upper = upper_dir_open(upper, name, us->st_mode);
	int sub_host = -1, rc = 0;
	if (sub_upper < 0)
		return sub_upper;
	bool opaque = marks_opaque(d->marks, sub_upper);
	if (hs && !S_ISDIR(hs->st_mode)) {
		rc = host_removed(d, path, host, name);
	} else if (hs) {
		sub_host = openat(host, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (in_filter(d, path) && (hs->st_mode & 07777) != (us->st_mode & 07777)) {
			fputs("mode ", d->out);
			name_put(d->out, path);
			fprintf(d->out, "/: %04o -> %04o\n", hs->st_mode & 07777,
				us->st_mode & 07777);
		}
	}
	if (rc == 0)
		rc = upper_walk(d, path, sub_upper, sub_host, opaque);
	upper_dir_done(sub_upper, us->st_mode);
	close(sub_upper);
	if (sub_host >= 0)
		close(sub_host);
	return rc;
}

/* One entry of the upper layer at path. */
static int entry_diff(const struct changes_diff *d, const char *path, int upper, int host,
		      const char *name)
{
	struct stat us, hs;
	char old_target[PATH_MAX], new_target[PATH_MAX];
	if (fstatat(upper, name, &us, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	bool there = host >= 0 && fstatat(host, name, &hs, AT_SYMLINK_NOFOLLOW) == 0;
	const struct changes_rename *x = renames_at_new(&d->renames, rel_of(d, path));
	if (x && !x->file && S_ISDIR(us.st_mode))
		return in_filter(d, path) || holds_filter(d, path)
			       ? renamed_diff(d, path, upper, name, &us, x)
			       : 0;
	if (x && x->file && S_ISREG(us.st_mode))
		return in_filter(d, path) ? renamed_file_diff(d, path, upper, name, &us, x) : 0;
	/* The whiteout a rename left: the rename says it. */
	if (S_ISCHR(us.st_mode) && us.st_rdev == makedev(0, 0) &&
	    renames_pending_whiteout(&d->renames, rel_of(d, path)))
		return 0;
	if (S_ISDIR(us.st_mode))
		return in_filter(d, path) || holds_filter(d, path)
			   ? dir_diff(d, path, upper, host, name, &us, there ? &hs : NULL)
			   : 0;
	if (!in_filter(d, path))
		return 0;
	if (S_ISCHR(us.st_mode) && us.st_rdev == makedev(0, 0)) /* a whiteout */
		return there ? host_removed(d, path, host, name) : 0;
	if (S_ISREG(us.st_mode)) {
		bool same_kind = there && S_ISREG(hs.st_mode);
		int rc = there && !same_kind ? host_removed(d, path, host, name) : 0;
		return rc < 0 ? rc
			      : file_diff(d->out, path, host, same_kind ? &hs : NULL, upper, name,
					  &us);
	}
	if (S_ISLNK(us.st_mode)) {
		bool same_kind = there && S_ISLNK(hs.st_mode);
		int rc = there && !same_kind ? host_removed(d, path, host, name) : 0;
		target_read(upper, name, new_target, sizeof new_target);
		if (same_kind)
			target_read(host, name, old_target, sizeof old_target);
		if (!same_kind || strcmp(old_target, new_target) != 0)
			link_put(d->out, path, same_kind ? old_target : NULL, new_target);
		return rc;
	}
	fputs("special file ", d->out);
	name_put(d->out, path);
	fputs(" (a device, pipe or socket: never applied)\n", d->out);
	return 0;
}

/*
 * The entries of one upper directory, sorted; opaque: the directory
 * replaced the host's, whose entries not in it were removed.
 */
static int upper_walk(const struct changes_diff *d, const char *path, int upper, int host,
		      bool opaque)
{
	char **names = NULL;
	size_t n = 0;
	int rc = names_read(upper, &names, &n);
	if (rc == 0 && opaque && host >= 0) {
		/* The host directory's own entries the run's one does not hold are gone. */
		rc = host_dir_removed(d, path, host, ".", names, n);
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char sub_path[PATH_MAX];
		if ((size_t)snprintf(sub_path, sizeof sub_path, "%s%s%s", path,
				     strcmp(path, "/") ? "/" : "", names[i]) >= sizeof sub_path) {
			rc = -ENAMETOOLONG;
			break;
		}
		/* What an opaque directory holds is all new: no host side to compare. */
		rc = entry_diff(d, sub_path, upper, opaque ? -1 : host, names[i]);
	}
	procage_strings_free(names);
	return rc;
}

int changes_diff_tree(struct changes_diff *d, const struct changes_tree *t,
		      struct procage_error *err)
{
	struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	mode_t root_mode = upper_root_mode(t->dir_fd);
	int upper = upper_dir_open(t->dir_fd, "upper", root_mode);
	if (upper < 0)
		return error_set_sys(err, -upper, PROCAGE_STEP_NONE, "the upper layer of %s",
				     t->path);
	/* A tree gone from the host (or reached through a link now) shows all as added. */
	int host = sys_openat2(AT_FDCWD, t->path, &how);
	d->tree = t->path;
	d->marks = overlay_marks_of(t->trusted_marks);
	d->host_root = host;
	int rc = t->trusted_marks ? renames_collect(d->marks, upper, host, t->path, &d->renames) : 0;
	if (rc == 0)
		rc = upper_walk(d, t->path, upper, host, false);
	renames_free(&d->renames);
	d->host_root = -1;
	upper_dir_done(upper, root_mode);
	close(upper);
	if (host >= 0)
		close(host);
	if (rc < 0)
		return error_set_sys(err, -rc, PROCAGE_STEP_NONE,
				     "the diff of the change set of %s", t->path);
	return 0;
}
