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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path_aliases.h"

#define ROOT_PRIVATE_DEPTH 16

static int private_walk(char *path, size_t len, int depth, dev_t dev, char ***list, size_t *n)
{
	DIR *d = opendir(path);
	int rc = 0;
	if (!d)
		return 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		struct stat st;
		size_t l = strlen(e->d_name);
		/*
		 * Only files and directories count, and the directory entry
		 * says what most entries are: links and the like (a good part
		 * of /etc) need no stat. DT_UNKNOWN is looked at.
		 */
		if (e->d_type != DT_REG && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    len + 1 + l >= PATH_MAX ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, l + 1);
		/* A directory others may not read or enter is hidden whole. */
		bool others_read = S_ISDIR(st.st_mode)
				       ? (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH)
				       : (st.st_mode & S_IROTH) != 0;
		if (!others_read)
			rc = path_strings_add(list, n, path);
		else if (S_ISDIR(st.st_mode) && st.st_dev == dev && depth < ROOT_PRIVATE_DEPTH)
			rc = private_walk(path, len + 1 + l, depth + 1, dev, list, n);
	}
	path[len] = '\0';
	closedir(d);
	return rc;
}

static int private_find(const char *tree, char ***paths, size_t *n)
{
	char path[PATH_MAX];
	struct stat st;
	*paths = NULL;
	*n = 0;
	if (!realpath(tree, path) || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return private_walk(path, strlen(path), 0, st.st_dev, paths, n);
}

/*
 * The walk of ROOT_PRIVATE_TREE begun ahead, on a thread of its own: a
 * command knows it runs as root long before its cage is made, and the
 * walk (a few milliseconds on a Debian /etc) then overlaps reading the
 * policy and probing the host. Its result is taken once, by the first
 * cage made after it; later ones walk again.
 */
static struct {
	pthread_mutex_t lock;
	pthread_t thread;
	bool started;
	int rc;
	char **paths;
	size_t n;
} ahead = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *walk_ahead(void *unused)
{
	(void)unused;
	ahead.rc = private_find(ROOT_PRIVATE_TREE, &ahead.paths, &ahead.n);
	return NULL;
}

void root_private_begin(void)
{
	sigset_t all, saved;
	if (geteuid() != 0)
		return;
	pthread_mutex_lock(&ahead.lock);
	if (!ahead.started) {
		/* The caller's signal handlers stay on the caller's threads. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &saved);
		ahead.started = pthread_create(&ahead.thread, NULL, walk_ahead, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
	}
	pthread_mutex_unlock(&ahead.lock);
}

int root_private_find(const char *tree, char ***paths, size_t *n)
{
	pthread_mutex_lock(&ahead.lock);
	if (ahead.started && strcmp(tree, ROOT_PRIVATE_TREE) == 0) {
		pthread_join(ahead.thread, NULL);
		ahead.started = false;
		*paths = ahead.paths;
		*n = ahead.n;
		ahead.paths = NULL;
		ahead.n = 0;
		int rc = ahead.rc;
		pthread_mutex_unlock(&ahead.lock);
		return rc;
	}
	pthread_mutex_unlock(&ahead.lock);
	return private_find(tree, paths, n);
}
