#include "tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

int tmpdir_create(const char *base, char **out, struct procage_error *err)
{
	char *path = NULL;

	if (asprintf(&path, "%s/procage-run-XXXXXX", base) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	if (!mkdtemp(path)) {
		int e = errno;
		free(path);
		return error_set_sys(err, e, PROCAGE_STEP_PREPARE,
				     "creating the run's temporary directory under %s", base);
	}
	*out = path;
	return 0;
}

/* Empty the directory open at dir_fd; depth-first, by descriptor. */
static int directory_empty(int dir_fd, dev_t dev, int depth)
{
	int rc = 0;
	DIR *d = fdopendir(dir_fd);
	if (!d) {
		close(dir_fd);
		return -errno;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR || depth > 256) {
			rc = -errno;
			continue;
		}
		int sub = openat(dirfd(d), e->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0 || fstat(sub, &st) != 0 || st.st_dev != dev) {
			/* Another file system mounted here: leave it alone. */
			if (sub >= 0)
				close(sub);
			rc = -EXDEV;
			continue;
		}
		/* The run may have taken its own rights away; the owner restores them. */
		(void)fchmod(sub, 0700);
		int sub_rc = directory_empty(sub, dev, depth + 1);
		if (sub_rc < 0)
			rc = sub_rc;
		else if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
			rc = -errno;
	}
	closedir(d);
	return rc;
}

int tmpdir_remove(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -errno;
	}
	int rc = directory_empty(fd, st.st_dev, 0);
	if (rc == 0 && rmdir(path) != 0)
		rc = -errno;
	return rc;
}
