#include "own_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage.h"
#include "base/error.h"
#include "policy/policy.h"
#include "base/syscalls.h"

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is st the root of a write grant of the cage? Its path, or NULL. */
static const char *grant_at(const struct procage_cage *cage, const struct stat *st)
{
	const struct procage_policy *p = cage->policy;
	for (size_t i = 0; i < p->n_paths; i++) {
		struct stat grant;
		if (p->paths[i].access == PROCAGE_WRITE && stat(p->paths[i].path, &grant) == 0 &&
		    same_inode(&grant, st))
			return p->paths[i].path;
	}
	return NULL;
}

const char *own_files_write_grant_of(const struct procage_cage *cage, int dir_fd)
{
	struct stat st, parent_st;
	int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
	const char *grant = NULL;
	/* Up through "..": the directories that hold this one, whatever its path. */
	for (int depth = 0; fd >= 0 && !grant && depth < PATH_MAX / 2; depth++) {
		if (fstat(fd, &st) != 0)
			break;
		if ((grant = grant_at(cage, &st)))
			break;
		int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (fd < 0 || fstat(fd, &parent_st) != 0 || same_inode(&parent_st, &st))
			break; /* the root */
	}
	if (fd >= 0)
		close(fd);
	return grant;
}

PROCAGE_API int procage_cage_write_grant_of(const struct procage_cage *cage, int dir_fd,
					    char *grant, size_t size)
{
	if (!cage || dir_fd < 0)
		return -EINVAL;
	const char *found = own_files_write_grant_of(cage, dir_fd);
	if (found && grant && size)
		snprintf(grant, size, "%s", found);
	return found != NULL;
}

/* Open path's directory, no link followed; the last component in *name. */
static int parent_open(const char *path, const char **name, struct procage_error *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	*name = slash ? slash + 1 : path;
	if (!**name || strcmp(*name, ".") == 0 || strcmp(*name, "..") == 0)
		return error_set(err, -EINVAL, "the report file %s names a directory", path);
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else if ((size_t)(slash - path) >= sizeof dir)
		return error_set(err, -ENAMETOOLONG, "the report file's path is too long");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	int fd = sys_openat2(AT_FDCWD, dir, &how);
	if (fd < 0 && errno == ELOOP)
		return error_set(err, -ELOOP,
				 "the report file %s: its directory is reached through a symbolic "
				 "link, and procage follows none for the files it writes (a run "
				 "could have planted it); name the file by a path without links",
				 path);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "opening the directory of the report file %s", path);
	return fd;
}

int own_files_open_report(const struct procage_cage *cage, const char *path,
			  struct procage_error *err)
{
	const char *name;
	int dir = parent_open(path, &name, err);
	if (dir < 0)
		return dir;
	const int resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	/* A file made now is the caller's, wherever it lies. */
	struct open_how fresh = { .flags = O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW |
					   O_CLOEXEC,
				  .mode = 0600,
				  .resolve = resolve };
	int fd = sys_openat2(dir, name, &fresh);
	if (fd >= 0 || errno != EEXIST) {
		int e = errno;
		close(dir);
		if (fd < 0)
			return error_set_sys(err, e, PROCAGE_STEP_NONE, "creating the report file %s",
					     path);
		return fd;
	}
	/*
	 * It exists. A FIFO or device is not opened for good (O_NONBLOCK,
	 * then refused); a link of any kind is refused.
	 */
	struct open_how existing = { .flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY |
					      O_NONBLOCK | O_CLOEXEC,
				     .resolve = resolve };
	fd = sys_openat2(dir, name, &existing);
	int e = errno;
	struct stat st;
	const char *grant = own_files_write_grant_of(cage, dir);
	close(dir);
	if (fd < 0 && e == ELOOP)
		return error_set(err, -ELOOP,
				 "the report file %s is a symbolic link, and procage follows none "
				 "for the files it writes (a run could have planted it)",
				 path);
	if (fd < 0)
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "opening the report file %s", path);
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "reading the report file %s", path);
	else if (!S_ISREG(st.st_mode))
		rc = error_set(err, -EINVAL, "the report file %s is not a regular file", path);
	else if (st.st_nlink != 1)
		rc = error_set(err, -EMLINK,
			       "the report file %s has %lu names (hard links): another name could be "
			       "a file the caller did not mean",
			       path, (unsigned long)st.st_nlink);
	else if (grant)
		rc = error_set(err, -EEXIST,
			       "the report file %s already exists inside the write grant %s, where a "
			       "run could have prepared it: name a new file, or one outside the "
			       "write grants",
			       path, grant);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	/* Blocking again, as any report file. */
	(void)fcntl(fd, F_SETFL, O_APPEND);
	return fd;
}
