/* Finding what others may not read in a system tree (see root_private.h). */
#include "root_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/dir_entries.h"
#include "base/error.h"
#include "path_aliases.h"
#include "base/raw_syscall.h"
#include "base/syscalls.h"

#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif

#define ROOT_PRIVATE_DEPTH 16

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
	while (rc == 0 && (got = dir_entries_next(d, &e)) != 0) {
		struct stat st;
		if (got < 0) {
			rc = got;
			break;
		}
		size_t l = strlen(e.name);
		/*
		 * Only files and directories count, and the directory entry
		 * says what most entries are: links and the like (a good part
		 * of /etc) need no stat. DT_UNKNOWN is looked at.
		 */
		if ((e.type != DT_REG && e.type != DT_DIR && e.type != DT_UNKNOWN) ||
		    len + 1 + l >= PATH_MAX)
			continue;
		if (fstatat(dir_fd, e.name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = error_walk_passable(errno) ? 0 : -errno;
			continue;
		}
		if (!(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e.name, l + 1);
		/* A directory others may not read or enter is hidden whole. */
		bool others_read = S_ISDIR(st.st_mode)
				       ? (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH)
				       : (st.st_mode & S_IROTH) != 0;
		if (!others_read) {
			rc = path_strings_add(list, n, path);
		} else if (S_ISDIR(st.st_mode) && st.st_dev == dev && depth < ROOT_PRIVATE_DEPTH) {
			/* Opened from its parent: no path is looked up again. */
			int sub = openat(dir_fd, e.name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				rc = private_walk(sub, path, len + 1 + l, depth + 1, dev, list, n);
			else if (!error_walk_passable(errno))
				rc = -errno;
		}
	}
	path[len] = '\0';
	close(dir_fd);
	free(d);
	return rc;
}

/* On failure (a negative errno) nothing is listed. */
static int private_find(const char *tree, char ***paths, size_t *n)
{
	char path[PATH_MAX];
	struct stat st;
	*paths = NULL;
	*n = 0;
	if (!realpath(tree, path))
		return errno == ENOENT ? 0 : -errno; /* no /etc: nothing to hide */
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		int rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	int rc = private_walk(fd, path, strlen(path), 0, st.st_dev, paths, n);
	if (rc < 0) {
		path_strings_free(*paths, *n);
		*paths = NULL;
		*n = 0;
	}
	return rc;
}

/*
 * What a root caller's cage will need, prepared ahead (cage/ahead.h) while the
 * command reads its policy: on tier T1 the id map's user namespace, on T2
 * the walk. Taken once, by the first cage made after it; later ones make
 * their own.
 */
static struct {
	pthread_mutex_t lock;
	bool walked;
	int rc;
	int userns_fd; /* tier T1: the id map's user namespace; or -errno */
	char **paths;
	size_t n;
} prepared = { .lock = PTHREAD_MUTEX_INITIALIZER, .userns_fd = -ENOENT };

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
	pthread_mutex_lock(&prepared.lock);
	prepared.userns_fd = userns_make();
	prepared.walked = prepared.userns_fd < 0;
	if (prepared.walked)
		prepared.rc = private_find(ROOT_PRIVATE_TREE, &prepared.paths, &prepared.n);
	pthread_mutex_unlock(&prepared.lock);
}

int root_private_find(const char *tree, char ***paths, size_t *n)
{
	pthread_mutex_lock(&prepared.lock);
	if (prepared.walked && strcmp(tree, ROOT_PRIVATE_TREE) == 0) {
		prepared.walked = false;
		*paths = prepared.paths;
		*n = prepared.n;
		prepared.paths = NULL;
		prepared.n = 0;
		int rc = prepared.rc;
		pthread_mutex_unlock(&prepared.lock);
		return rc;
	}
	pthread_mutex_unlock(&prepared.lock);
	return private_find(tree, paths, n);
}

/*
 * A user namespace that maps one id only, ROOT_PRIVATE_NOBODY, for uids
 * and gids alike: through it, a file owned by anyone else (root above all)
 * has no owner and no group a process could match. It is made by a child
 * that does nothing but wait while we write its maps, and outlives it
 * through the descriptor.
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

/*
 * The namespace's first process: it holds it until we have a descriptor,
 * that is until our end of the pipe closes (its own copy of that end it
 * closes first: it has a table of descriptors of its own).
 */
static __attribute__((no_sanitize("address", "undefined"))) int userns_holder(void *go)
{
	/*
	 * Raw calls: the holder runs beside us on our memory with our thread
	 * pointer, where libc would write our errno and a sanitizer its state.
	 */
	char byte;
	raw_syscall6(__NR_close, ((int *)go)[1], 0, 0, 0, 0, 0);
	raw_syscall6(__NR_read, ((int *)go)[0], (long)&byte, 1, 0, 0, 0);
	return 0;
}

static int userns_make(void)
{
	/*
	 * The holder's stack, in this frame (which outlives it: it is reaped
	 * before we return); it only waits in read(), then returns.
	 */
	char stack[16384] __attribute__((aligned(16)));
	int go[2], rc = 0, ns = -1;
	char path[64];
	sigset_t all, saved;
	if (pipe2(go, O_CLOEXEC) != 0)
		return -errno;
	/*
	 * Made with the namespace (no handshake), sharing our memory (no
	 * copy of it), with every signal blocked so that none of our
	 * handlers runs on the holder's stack. It ends with no signal (a
	 * "clone" child, which the caller's wait(-1) and SIGCHLD handlers do
	 * not see), and is waited for with __WCLONE.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pid_t pid = clone(userns_holder, stack + sizeof stack, CLONE_VM | CLONE_NEWUSER, go);
	rc = pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (rc == 0 && (rc = map_write(pid, "uid_map")) == 0 && (rc = map_write(pid, "gid_map")) == 0) {
		snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
		if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			rc = -errno;
	}
	close(go[1]); /* the holder returns */
	if (pid > 0)
		while (waitpid(pid, NULL, __WCLONE) < 0 && errno == EINTR)
			;
	close(go[0]);
	return rc < 0 ? rc : ns;
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
