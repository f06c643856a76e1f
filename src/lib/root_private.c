/* Finding what others may not read in a system tree (see root_private.h). */
#include "root_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int root_private_find(const char *tree, char ***paths, size_t *n)
{
	char path[PATH_MAX];
	struct stat st;
	*paths = NULL;
	*n = 0;
	if (!realpath(tree, path) || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return private_walk(path, strlen(path), 0, st.st_dev, paths, n);
}
