/*
 * Profile keys that grant only what exists on this machine (profiles.c):
 * a GPU profile names the devices of every vendor, and a machine has those
 * of one or none. "device GLOB" grants each character device the pattern
 * matches to read, write and ioctl (a write grant: Landlock's ioctl right on
 * devices comes with it), never a link, a directory or a block device;
 * "read-present GLOB" grants each path it matches to read. A pattern that
 * matches nothing grants nothing: the run then fails to open the device as
 * it would outside the cage on this machine.
 *
 * PROCAGE_DEVICE_ROOT, when set to an absolute directory, is put before
 * every pattern: tests point the profile at stand-in devices they make in a
 * directory of their own instead of the machine's /dev and /sys. It only
 * moves where grants are looked for; it cannot widen them beyond what the
 * caller could grant with --write and --read.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile_present.h"

bool profile_present_key(const char *key)
{
	return strcmp(key, "device") == 0 || strcmp(key, "read-present") == 0;
}

/*
 * The pattern under PROCAGE_DEVICE_ROOT when that is set (0 or -errno):
 * -EINVAL for a pattern not absolute, or a root that is not absolute or
 * holds a pattern's own characters (it would match more than one root).
 */
static int pattern_rooted(const char *pattern, char *out, size_t size)
{
	const char *root = getenv("PROCAGE_DEVICE_ROOT");
	if (pattern[0] != '/' || strstr(pattern, "/../") || strstr(pattern, "/./"))
		return -EINVAL;
	if (!root || !root[0])
		root = "";
	else if (root[0] != '/' || strpbrk(root, "*?[\\"))
		return -EINVAL; /* a root is a directory, not a pattern of its own */
	return snprintf(out, size, "%s%s", root, pattern) < (int)size ? 0 : -ENAMETOOLONG;
}

static bool match_wanted(const char *key, const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return false;
	if (strcmp(key, "device") == 0)
		return S_ISCHR(st.st_mode);
	return true;
}

int profile_present_add(const char *key, const char *pattern, procage_profile_line_fn add,
			void *ctx, struct procage_error *err)
{
	char rooted[PATH_MAX];
	int rc = pattern_rooted(pattern, rooted, sizeof rooted);
	if (rc != 0)
		return rc;
	glob_t g;
	int found = glob(rooted, GLOB_NOSORT, NULL, &g);
	if (found == GLOB_NOMATCH)
		return 0;
	if (found != 0)
		return found == GLOB_NOSPACE ? -ENOMEM : -EIO;
	const char *option = strcmp(key, "device") == 0 ? "write" : "read";
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
		if (match_wanted(key, g.gl_pathv[i]))
			rc = add(ctx, option, g.gl_pathv[i], err);
	globfree(&g);
	return rc;
}
