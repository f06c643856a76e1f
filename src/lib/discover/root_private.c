/* Finding what others may not read in a system tree (see root_private.h). */
#include "root_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dir_entries.h"
#include "base/error.h"
#include "path_aliases.h"
#include "base/syscalls.h"
#include "host/ns_holder.h"

#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif

#define ROOT_PRIVATE_DEPTH 16

static int private_walk(int dir_fd, char *path, size_t len, int depth, dev_t dev, char ***list,
			size_t *n);

/* One entry of the directory dir_fd, whose path is path[0..len). */
static int private_entry(int dir_fd, char *path, size_t len, const char *name, unsigned char type,
			 int depth, dev_t dev, char ***list, size_t *n)
{
	struct stat st;
	size_t l = strlen(name);
	/*
	 * Only files and directories count, and the directory entry says
	 * what most entries are: links and the like (a good part of /etc)
	 * need no stat. DT_UNKNOWN is looked at.
	 */
	if ((type != DT_REG && type != DT_DIR && type != DT_UNKNOWN) || len + 1 + l >= PATH_MAX)
		return 0;
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return error_walk_passable(errno) ? 0 : -errno;
	if (!(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return 0;
	path[len] = '/';
	memcpy(path + len + 1, name, l + 1);
	/* A directory others may not read or enter is hidden whole. */
	bool others_read = S_ISDIR(st.st_mode)
			       ? (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH)
			       : (st.st_mode & S_IROTH) != 0;
	int rc = 0;
	if (!others_read) {
		rc = path_strings_add(list, n, path);
	} else if (S_ISDIR(st.st_mode) && st.st_dev == dev && depth < ROOT_PRIVATE_DEPTH) {
		/* Opened from its parent: no path is looked up again. */
		int sub = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			rc = private_walk(sub, path, len + 1 + l, depth + 1, dev, list, n);
		else if (!error_walk_passable(errno))
			rc = -errno;
	}
	path[len] = '\0';
	return rc;
}

/* Walks the directory dir_fd (closed here), whose path is path[0..len). */
static int private_walk(int dir_fd, char *path, size_t len, int depth, dev_t dev, char ***list,
			size_t *n)
{
	struct dir_entries *d = malloc(sizeof *d);
	struct dir_entry e;
	int rc = 0, got;
	if (!d) {
		close(dir_fd);
		return -ENOMEM;
	}
	dir_entries_begin(d, dir_fd);
	while (rc == 0 && (got = dir_entries_next(d, &e)) != 0)
		rc = got < 0 ? got : private_entry(dir_fd, path, len, e.name, e.type, depth, dev, list, n);
	close(dir_fd);
	free(d);
	return rc;
}

/*
 * The tree's walk, one top-level entry at a time, which more than one
 * thread may share (top_walk_share): the thread that began it ahead of
 * the cage, and the cage's own once it has nothing else to do but wait.
 * Each entry is walked by one of them; what they find is gathered under
 * the lock.
 */
struct top_walk {
	int fd; /* the tree, or -1 */
	dev_t dev;
	char root[PATH_MAX];
	char **names;
	unsigned char *types;
	size_t n, next;
	int rc;
	char **paths;
	size_t n_paths;
};

static void top_walk_free(struct top_walk *w)
{
	if (w->fd >= 0)
		close(w->fd);
	path_strings_free(w->names, w->n);
	free(w->types);
	path_strings_free(w->paths, w->n_paths);
	*w = (struct top_walk){ .fd = -1 };
}

/* The tree's top-level entries listed; 0 with none to walk when there is no tree. */
static int top_walk_begin(struct top_walk *w, const char *tree)
{
	struct stat st;
	*w = (struct top_walk){ .fd = -1 };
	if (!realpath(tree, w->root))
		return errno == ENOENT ? 0 : -errno; /* no /etc: nothing to hide */
	w->fd = open(w->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0 || fstat(w->fd, &st) != 0)
		return -errno;
	w->dev = st.st_dev;
	struct dir_entries *d = malloc(sizeof *d);
	if (!d)
		return -ENOMEM;
	/* Listed whole before any walker uses w->fd (for *at calls only: its offset is no matter). */
	int rc = 0, got;
	struct dir_entry e;
	dir_entries_begin(d, w->fd);
	while (rc == 0 && (got = dir_entries_next(d, &e)) != 0) {
		unsigned char *types = got < 0 ? NULL : realloc(w->types, w->n + 1);
		if (got < 0 || !types) {
			rc = got < 0 ? got : -ENOMEM;
			break;
		}
		w->types = types;
		w->types[w->n] = e.type;
		size_t n = w->n;
		if ((rc = path_strings_add(&w->names, &n, e.name)) == 0)
			w->n = n;
	}
	free(d);
	return rc;
}

/*
 * Walk the entries no thread has taken yet, one at a time, until none is
 * left (or a walker failed: the walk fails closed). lock guards w.
 */
static void top_walk_share(struct top_walk *w, pthread_mutex_t *lock)
{
	char path[PATH_MAX];
	size_t len = strlen(w->root);
	memcpy(path, w->root, len + 1);
	pthread_mutex_lock(lock);
	while (w->rc == 0 && w->next < w->n) {
		size_t i = w->next++;
		pthread_mutex_unlock(lock);
		char **found = NULL;
		size_t n_found = 0;
		int rc = private_entry(w->fd, path, len, w->names[i], w->types[i], 0, w->dev, &found,
				       &n_found);
		pthread_mutex_lock(lock);
		for (size_t j = 0; rc == 0 && j < n_found; j++)
			rc = path_strings_add(&w->paths, &w->n_paths, found[j]);
		if (rc < 0 && w->rc == 0)
			w->rc = rc;
		path_strings_free(found, n_found);
	}
	pthread_mutex_unlock(lock);
}

static int path_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What a finished walk found, sorted (on failure, a negative errno and nothing). */
static int top_walk_end(struct top_walk *w, char ***paths, size_t *n)
{
	int rc = w->rc;
	*paths = NULL;
	*n = 0;
	if (rc == 0) {
		if (w->n_paths)
			qsort(w->paths, w->n_paths, sizeof *w->paths, path_order);
		*paths = w->paths;
		*n = w->n_paths;
		w->paths = NULL;
		w->n_paths = 0;
	}
	top_walk_free(w);
	return rc;
}

/* The walk made here and now, by this thread alone. */
static int private_find(const char *tree, char ***paths, size_t *n)
{
	static pthread_mutex_t alone = PTHREAD_MUTEX_INITIALIZER;
	struct top_walk w;
	int rc = top_walk_begin(&w, tree);
	if (rc < 0)
		w.rc = rc;
	else
		top_walk_share(&w, &alone);
	return top_walk_end(&w, paths, n);
}

/*
 * What a root caller's cage will need, prepared ahead (cage/ahead.h) while the
 * command reads its policy: on tier T1 the id map's user namespace, on T2
 * the walk, which the cage joins once it has nothing else to do
 * (root_private_help). Taken once, by the first cage made after it; later
 * ones make their own.
 */
static struct {
	pthread_mutex_t lock;
	bool walking; /* a walk is published: it may be helped, and taken once done */
	int userns_fd; /* tier T1: the id map's user namespace; or -errno */
	struct top_walk walk;
} prepared = { .lock = PTHREAD_MUTEX_INITIALIZER, .userns_fd = -ENOENT, .walk = { .fd = -1 } };

static int userns_make(void);

/*
 * The namespace is tried first: it takes 0.1 ms where user namespaces
 * work (tier T1, most likely), and fails at once where they do not (tier
 * T2), which then walks without waiting for the host's facts. A T1 host
 * whose cage still walks (its grants rule the copy out) walks then.
 */
void root_private_prepare(void)
{
	if (geteuid() != 0)
		return;
	int ns = userns_make();
	struct top_walk walk = { .fd = -1 };
	if (ns < 0) {
		int rc = top_walk_begin(&walk, ROOT_PRIVATE_TREE);
		if (rc < 0)
			walk.rc = rc;
	}
	pthread_mutex_lock(&prepared.lock);
	prepared.userns_fd = ns;
	prepared.walking = ns < 0;
	top_walk_free(&prepared.walk);
	prepared.walk = walk;
	pthread_mutex_unlock(&prepared.lock);
	if (ns < 0)
		top_walk_share(&prepared.walk, &prepared.lock);
}

void root_private_help(void)
{
	pthread_mutex_lock(&prepared.lock);
	bool walking = prepared.walking;
	pthread_mutex_unlock(&prepared.lock);
	if (walking)
		top_walk_share(&prepared.walk, &prepared.lock);
}

int root_private_find(const char *tree, char ***paths, size_t *n)
{
	pthread_mutex_lock(&prepared.lock);
	if (prepared.walking && strcmp(tree, ROOT_PRIVATE_TREE) == 0) {
		prepared.walking = false;
		struct top_walk walk = prepared.walk;
		prepared.walk = (struct top_walk){ .fd = -1 };
		pthread_mutex_unlock(&prepared.lock);
		return top_walk_end(&walk, paths, n);
	}
	pthread_mutex_unlock(&prepared.lock);
	return private_find(tree, paths, n);
}

/*
 * A user namespace that maps one id only, ROOT_PRIVATE_NOBODY, for uids
 * and gids alike: through it, a file owned by anyone else (root above all)
 * has no owner and no group a process could match. Its first process only
 * holds it while we write its maps (host/ns_holder.h); the namespace
 * outlives it through the descriptor.
 */
#define ROOT_PRIVATE_NOBODY "65534 65534 1\n"

static int map_write(pid_t pid, const char *file)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t len = (ssize_t)strlen(ROOT_PRIVATE_NOBODY);
	int rc = write(fd, ROOT_PRIVATE_NOBODY, (size_t)len) == len ? 0 : -errno;
	close(fd);
	return rc;
}

static int userns_make(void)
{
	struct ns_holder holder;
	int rc = ns_holder_start(CLONE_NEWUSER, &holder);
	if (rc < 0)
		return rc;
	if ((rc = map_write(holder.pid, "uid_map")) == 0 &&
	    (rc = map_write(holder.pid, "gid_map")) == 0)
		rc = ns_holder_open(&holder, "user");
	ns_holder_end(&holder);
	return rc;
}

int root_private_tree_open(int userns_fd)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
			    MOUNT_ATTR_NODEV,
		.userns_fd = (uint64_t)userns_fd,
	};
	int tree = sys_open_tree(AT_FDCWD, ROOT_PRIVATE_TREE,
				 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0)
		return -errno;
	if (sys_mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) != 0) {
		int rc = -errno;
		close(tree);
		return rc;
	}
	return tree;
}

int root_private_userns_open(void)
{
	pthread_mutex_lock(&prepared.lock);
	int fd = prepared.userns_fd;
	prepared.userns_fd = -ENOENT; /* taken once */
	pthread_mutex_unlock(&prepared.lock);
	return fd >= 0 ? fd : userns_make();
}
