#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "reaper_raw.h"

int tmpdir_choose(const char *base, char **out, const char **name, struct procage_error *err)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char random[16];
	char suffix[sizeof random + 1];
	char *path = NULL;

	/* Unguessable, so that no one makes it first (mkdir would then fail: refused). */
	if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "naming the run's temporary directory");
	for (size_t i = 0; i < sizeof random; i++)
		suffix[i] = alphabet[random[i] % (sizeof alphabet - 1)];
	suffix[sizeof random] = '\0';
	if (asprintf(&path, "%s/procage-run-%s", base, suffix) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	*out = path;
	*name = strrchr(path, '/') + 1;
	return 0;
}

int tmpdir_remove(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	int rc = fstat(fd, &st) == 0 ? tree_empty_raw(fd, (unsigned long long)st.st_dev) : -errno;
	close(fd);
	if (rc == 0 && rmdir(path) != 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}
