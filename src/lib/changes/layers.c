/*
 * A bounded change set's upper layers, copied from the run's tmpfs into
 * the store (layers.h). The tmpfs is the caller's alone by now: the run's
 * processes are gone, and none of them held a descriptor of it. Its
 * files are the caller's (the run's user namespace maps the caller alone)
 * or, for a root caller, anyone's; a mode that keeps the caller out is
 * opened up on the tmpfs's side, which is thrown away afterwards.
 */
#include "layers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/dir_entries.h"
#include "procage.h"
#include "store.h"

/* Deeper than this the copy stops: two descriptors are open per level. */
#define LAYERS_DEPTH_MAX 200

struct linked_file {
	dev_t dev;
	ino_t ino;
	char *rel; /* its first name's path below the upper layer's root; NULL: a free slot */
};

struct layer_copy {
	int dst_root;
	bool root; /* the caller may give owners */
	/*
	 * Files with more than one name, by identity: a table of cap slots
	 * (a power of two), never more than half full. The run chooses how
	 * many (each name takes an inode of the bounded tmpfs), so a lookup
	 * must not grow with them.
	 */
	struct linked_file *linked;
	size_t n_linked, cap;
	char rel[PATH_MAX];    /* the directory being copied, below the root ("" at it) */
	char failed[PATH_MAX + NAME_MAX + 2]; /* the first entry not copied, or "" */
};

/* One of the overlay's own marks, without which the change set would read otherwise. */
static bool overlay_mark(const char *attr)
{
	return strncmp(attr, "user.overlay.", 13) == 0 || strncmp(attr, "trusted.overlay.", 16) == 0;
}

/*
 * Every extended attribute of name in src_dir onto the same name in
 * dst_dir. Applying never carries one to the host, nor does showing a
 * change set read any but the overlay's marks: another that the caller
 * may not set (a file capability the run gave in its namespace) is left
 * behind, a mark never.
 */
static int attrs_copy(int src_dir, int dst_dir, const char *name)
{
	char src[64 + NAME_MAX], dst[64 + NAME_MAX];
	snprintf(src, sizeof src, "/proc/self/fd/%d/%s", src_dir, name);
	snprintf(dst, sizeof dst, "/proc/self/fd/%d/%s", dst_dir, name);
	ssize_t size = llistxattr(src, NULL, 0);
	if (size <= 0)
		return size < 0 && errno != ENOTSUP ? -errno : 0;
	char *names = malloc((size_t)size), *value = malloc(XATTR_SIZE_MAX);
	int rc = names && value ? 0 : -ENOMEM;
	if (rc == 0 && (size = llistxattr(src, names, (size_t)size)) < 0)
		rc = -errno;
	for (ssize_t at = 0; rc == 0 && at < size; at += (ssize_t)strlen(names + at) + 1) {
		ssize_t n = lgetxattr(src, names + at, value, XATTR_SIZE_MAX);
		if (n < 0 || lsetxattr(dst, names + at, value, (size_t)n, 0) != 0)
			rc = overlay_mark(names + at) || (errno != EPERM && errno != EOPNOTSUPP)
				     ? -errno
				     : 0;
	}
	free(names);
	free(value);
	return rc;
}

/* What an entry's inode carries besides its content: attributes, owner, mode, times. */
static int meta_copy(const struct layer_copy *c, int src_dir, int dst_dir, const char *name,
		     const struct stat *st)
{
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	int rc = attrs_copy(src_dir, dst_dir, name);
	/* Owner before mode: giving an owner clears set-id bits. */
	if (rc == 0 && c->root &&
	    fchownat(dst_dir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) != 0)
		rc = -errno;
	if (rc == 0 && !S_ISLNK(st->st_mode) && fchmodat(dst_dir, name, st->st_mode & 07777, 0) != 0)
		rc = -errno;
	if (rc == 0 && utimensat(dst_dir, name, times, AT_SYMLINK_NOFOLLOW) != 0)
		rc = -errno;
	return rc;
}

/*
 * name in src_dir opened with flags; where its mode keeps the caller out,
 * that mode is opened up for the owner first (on the tmpfs only).
 */
static int source_open(const struct layer_copy *c, int src_dir, const char *name,
		       const struct stat *st, int flags, mode_t needed)
{
	if (!c->root && (st->st_mode & needed) != needed &&
	    fchmodat(src_dir, name, (st->st_mode & 07777) | needed, 0) != 0)
		return -errno;
	int fd = openat(src_dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int content_copy(int in, int out)
{
	for (;;) {
		ssize_t n = sendfile(out, in, NULL, 1 << 30);
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static size_t linked_slot(const struct linked_file *table, size_t cap, dev_t dev, ino_t ino)
{
	size_t i = (size_t)((ino * 0x9E3779B97F4A7C15ULL) ^ dev) & (cap - 1);
	while (table[i].rel && (table[i].dev != dev || table[i].ino != ino))
		i = (i + 1) & (cap - 1);
	return i;
}

static int linked_grow(struct layer_copy *c)
{
	size_t cap = c->cap ? c->cap * 2 : 64;
	struct linked_file *table = calloc(cap, sizeof *table);
	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->linked[i].rel)
			table[linked_slot(table, cap, c->linked[i].dev, c->linked[i].ino)] =
			    c->linked[i];
	free(c->linked);
	c->linked = table;
	c->cap = cap;
	return 0;
}

/* A second name of a file copied already: linked to its first. */
static int link_known(struct layer_copy *c, int dst_dir, const char *name, const struct stat *st,
		      bool *done)
{
	*done = false;
	if ((c->n_linked + 1) * 2 > c->cap && linked_grow(c) < 0)
		return -ENOMEM;
	struct linked_file *slot = &c->linked[linked_slot(c->linked, c->cap, st->st_dev, st->st_ino)];
	if (slot->rel) {
		*done = true;
		return linkat(c->dst_root, slot->rel, dst_dir, name, 0) == 0 ? 0 : -errno;
	}
	if (asprintf(&slot->rel, "%s%s%s", c->rel, c->rel[0] ? "/" : "", name) < 0) {
		slot->rel = NULL;
		return -ENOMEM;
	}
	slot->dev = st->st_dev;
	slot->ino = st->st_ino;
	c->n_linked++;
	return 0;
}

static int file_copy(struct layer_copy *c, int src_dir, int dst_dir, const char *name,
		     const struct stat *st)
{
	bool done = false;
	int rc = st->st_nlink > 1 ? link_known(c, dst_dir, name, st, &done) : 0;
	if (rc < 0 || done)
		return rc;
	int in = source_open(c, src_dir, name, st, O_RDONLY, S_IRUSR);
	if (in < 0)
		return in;
	int out = openat(dst_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = out < 0 ? -errno : content_copy(in, out);
	close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static int link_copy(int src_dir, int dst_dir, const char *name)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(src_dir, name, target, sizeof target);
	if (n < 0 || n >= (ssize_t)sizeof target)
		return n < 0 ? -errno : -ENAMETOOLONG;
	target[n] = '\0';
	return symlinkat(target, dst_dir, name) == 0 ? 0 : -errno;
}

static int tree_copy(struct layer_copy *c, int src, int dst, int depth);

static int dir_copy(struct layer_copy *c, int src_dir, int dst_dir, const char *name,
		    const struct stat *st, int depth)
{
	size_t len = strlen(c->rel);
	if (depth >= LAYERS_DEPTH_MAX)
		return -ELOOP;
	if (len + 1 + strlen(name) >= sizeof c->rel)
		return -ENAMETOOLONG;
	int src = source_open(c, src_dir, name, st, O_RDONLY | O_DIRECTORY, S_IRUSR | S_IXUSR);
	if (src < 0)
		return src;
	int dst = mkdirat(dst_dir, name, 0700) == 0
			  ? openat(dst_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			  : -1;
	int rc = dst < 0 ? -errno : 0;
	if (rc == 0) {
		snprintf(c->rel + len, sizeof c->rel - len, "%s%s", len ? "/" : "", name);
		rc = tree_copy(c, src, dst, depth + 1);
		c->rel[len] = '\0';
	}
	close(src);
	if (dst >= 0)
		close(dst);
	return rc;
}

static int entry_copy(struct layer_copy *c, int src_dir, int dst_dir, const char *name,
		      int depth)
{
	struct stat st;
	int rc;
	if (fstatat(src_dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	switch (st.st_mode & S_IFMT) {
	case S_IFDIR:
		rc = dir_copy(c, src_dir, dst_dir, name, &st, depth);
		break;
	case S_IFREG:
		rc = file_copy(c, src_dir, dst_dir, name, &st);
		break;
	case S_IFLNK:
		rc = link_copy(src_dir, dst_dir, name);
		break;
	/* A whiteout (the overlay's mark of a removal) is a character device 0:0. */
	case S_IFCHR:
		rc = st.st_rdev == 0 ? (mknodat(dst_dir, name, S_IFCHR | 0600, 0) == 0 ? 0 : -errno)
				     : -EPERM;
		break;
	case S_IFIFO:
	case S_IFSOCK:
		rc = mknodat(dst_dir, name, st.st_mode & S_IFMT, 0) == 0 ? 0 : -errno;
		break;
	default:
		rc = -EPERM;
	}
	if (rc == 0)
		rc = meta_copy(c, src_dir, dst_dir, name, &st);
	if (rc < 0 && !c->failed[0])
		snprintf(c->failed, sizeof c->failed, "%s%s%s", c->rel, c->rel[0] ? "/" : "", name);
	return rc;
}

static int tree_copy(struct layer_copy *c, int src, int dst, int depth)
{
	struct dir_entries *d = malloc(sizeof *d);
	struct dir_entry e;
	int rc = d ? 0 : -ENOMEM, got;
	if (d)
		dir_entries_begin(d, src);
	while (rc == 0 && (got = dir_entries_next(d, &e)) != 0)
		rc = got < 0 ? got : entry_copy(c, src, dst, e.name, depth);
	free(d);
	/* The directory's own, once its entries are in. */
	if (rc == 0) {
		struct stat st;
		rc = fstat(src, &st) == 0 ? meta_copy(c, src, dst, ".", &st) : -errno;
	}
	return rc;
}

/*
 * Tree index's upper layer, from the tmpfs into the set; 1 when there is
 * none. Why it failed in where.
 */
static int layer_copy(int layers, int set_fd, size_t index, char *where, size_t size)
{
	char name[48];
	struct stat st;
	struct layer_copy *c = calloc(1, sizeof *c);
	int src = -1, dst = -1, rc;
	if (!c)
		return -ENOMEM;
	c->root = geteuid() == 0;
	snprintf(name, sizeof name, "%zu/upper", index);
	if (fstatat(layers, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		rc = errno == ENOENT ? 1 : -errno;
	else if ((src = source_open(c, layers, name, &st, O_RDONLY | O_DIRECTORY,
				    S_IRUSR | S_IXUSR)) < 0)
		rc = src;
	else if ((dst = openat(set_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = -errno;
	else {
		c->dst_root = dst;
		rc = tree_copy(c, src, dst, 0);
	}
	if (rc == -ELOOP)
		snprintf(where, size, "tree %zu: deeper than %d directories", index, LAYERS_DEPTH_MAX);
	else if (rc < 0)
		snprintf(where, size, "tree %zu%s%s: %s", index, c->failed[0] ? ", " : "", c->failed,
			 strerror(-rc));
	for (size_t i = 0; i < c->cap; i++)
		free(c->linked[i].rel);
	free(c->linked);
	free(c);
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	return rc;
}

int changes_layers_keep(const char *id, int layers, struct procage_error *err)
{
	char store[PATH_MAX], where[PATH_MAX + NAME_MAX + 64] = "";
	int store_fd = -1, set_fd = -1;
	int rc = changes_store_open(store, sizeof store, &store_fd, err);
	if (rc == 0)
		rc = changes_set_open(store_fd, id, &set_fd, err);
	for (size_t i = 0; rc == 0 && i < CHANGES_MAX_TREES; i++) {
		int copied = layer_copy(layers, set_fd, i, where, sizeof where);
		if (copied == 1)
			break;
		if (copied < 0)
			rc = error_set(err, copied,
				       "the run's change set %s could not be copied out of its "
				       "bounded layers, so it is removed and nothing of it is "
				       "applied (%s)",
				       id, where);
	}
	if (set_fd >= 0)
		close(set_fd);
	if (store_fd >= 0)
		close(store_fd);
	if (rc < 0)
		(void)procage_changes_discard(id, NULL);
	return rc;
}
