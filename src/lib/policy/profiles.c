/*
 * Profiles: policy fragments for common tools (npm, pip, cargo...), shipped
 * as data files, NAME.profile, one grant a line ("write-new ~/.npm",
 * "allow-host registry.npmjs.org"), '#' starting a comment. Found next to
 * the file that holds this library's code: <dir>/../share/procage/profiles once
 * installed (dir: the procage command, which links the library in, or
 * libprocage.so), <build>/../profiles in the source tree; never in the
 * working directory or anywhere a run could write (a profile widens the
 * cage). Only keys that grant what a tool needs are taken (profile_keys);
 * "device" and "read-present" grant only what exists (profile_present.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "profile_present.h"
#include "procage.h"

static const char *const profile_keys[] = {
	"read", "write", "write-new", "cache", "device", "read-present", "allow-host", "env", "setenv", NULL,
};

static bool directory_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * dir is a build directory of procage's own source tree: only there is
 * "../profiles" the shipped profiles, and not some directory a run could
 * have written next to an installed procage.
 */
static bool source_tree_build(const char *dir)
{
	char marker[PATH_MAX];
	struct stat st;
	return snprintf(marker, sizeof marker, "%s/../src/cli/profiles.c", dir) <
		       (int)sizeof marker &&
	       stat(marker, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The directory of the file holding this code: the procage command (linked
 * with the static library) or libprocage.so. Taken from the kernel's map of
 * this process, whose names are absolute; the name a loader was given
 * (dladdr's) may be relative, and so read against a working directory that
 * has changed since. A file deleted since it was mapped has no directory.
 */
static int code_directory(char *out, size_t size)
{
	unsigned long here = (unsigned long)(uintptr_t)procage_profiles_dir;
	char line[PATH_MAX + 128];
	int rc = -ENOENT;
	FILE *maps = fopen("/proc/self/maps", "re");
	while (maps && rc == -ENOENT && fgets(line, sizeof line, maps)) {
		unsigned long start, end;
		int name_at = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &name_at) < 2 ||
		    here < start || here >= end || name_at == 0)
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		char *slash = strrchr(name, '/');
		if (name[0] != '/' || strstr(name, " (deleted)") || !slash)
			break;
		*slash = '\0';
		rc = snprintf(out, size, "%s", name[0] ? name : "/") < (int)size ? 0 : -ENAMETOOLONG;
	}
	if (maps)
		fclose(maps);
	return rc;
}

PROCAGE_API int procage_profiles_dir(char *out, size_t size, struct procage_error *err)
{
	char dir[PATH_MAX], candidate[PATH_MAX], real[PATH_MAX];
	error_clear(err);
	static const char *const candidates[] = {"../share/procage/profiles", "../profiles"};
	if (code_directory(dir, sizeof dir) == 0)
		for (size_t i = 0; i < 2; i++)
			if ((i == 0 || source_tree_build(dir)) &&
			    snprintf(candidate, sizeof candidate, "%s/%s", dir, candidates[i]) <
				    (int)sizeof candidate &&
			    directory_exists(candidate) && realpath(candidate, real))
				return snprintf(out, size, "%s", real) < (int)size
					       ? 0
					       : error_set(err, -ENAMETOOLONG,
							   "the profile directory's path is too long");
	return error_set(err, -ENOENT, "no profile directory next to this procage");
}

static bool name_valid(const char *name)
{
	if (!name[0] || strlen(name) > 64)
		return false;
	for (const char *c = name; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '-' &&
		    *c != '_')
			return false;
	return true;
}

static bool key_known(const char *key)
{
	for (size_t i = 0; profile_keys[i]; i++)
		if (strcmp(key, profile_keys[i]) == 0)
			return true;
	return false;
}

/* "~/x" in a profile is the caller's home; anything else is kept. */
static int value_expand(const char *value, char *out, size_t size)
{
	const char *home = getenv("HOME");
	if (strncmp(value, "~/", 2) != 0)
		return snprintf(out, size, "%s", value) < (int)size ? 0 : -ENAMETOOLONG;
	if (!home || home[0] != '/')
		return -ENOENT;
	return snprintf(out, size, "%s%s", strcmp(home, "/") == 0 ? "" : home, value + 1) <
		       (int)size
		   ? 0
		   : -ENAMETOOLONG;
}

static FILE *profile_open(const char *name, char *path, size_t size, struct procage_error *err)
{
	char dir[PATH_MAX];
	if (!name_valid(name)) {
		error_set(err, -EINVAL,
			  "a profile's name is lower-case letters, digits, '-' and "
			  "'_' ('procage profiles' lists them)");
		return NULL;
	}
	if (procage_profiles_dir(dir, sizeof dir, err) != 0)
		return NULL;
	if (snprintf(path, size, "%s/%s.profile", dir, name) >= (int)size) {
		error_set(err, -ENAMETOOLONG, "the profile directory's path is too long");
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		error_set(err, -ENOENT, "no such profile (%s: %s); 'procage profiles' lists them",
			  path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

/* One line of a profile, its key and value already cut apart. */
static int line_give(const char *path, unsigned n, const char *key, const char *val,
		     procage_profile_line_fn add, void *ctx, struct procage_error *err)
{
	char value[PATH_MAX];
	int rc;
	if (!key_known(key) || !val[0])
		return error_set(err, -EINVAL,
				 "%s:%u: expected a line 'KEY VALUE' with KEY one of read, write, "
				 "write-new, cache, allow-host, env, setenv, device, read-present",
				 path, n);
	if ((rc = value_expand(val, value, sizeof value)) != 0)
		return error_set(err, rc, "%s:%u: %s: %s", path, n, val,
				 rc == -ENOENT ? "HOME is not set to an absolute path" : "too long");
	struct procage_error inner = {0};
	if (profile_present_key(key)) {
		rc = profile_present_add(key, value, add, ctx, &inner);
		if (rc == -EINVAL && !inner.message[0])
			return error_set(err, rc, "%s:%u: %s: expected an absolute pattern (and "
						  "PROCAGE_DEVICE_ROOT an absolute directory)",
					 path, n, val);
	} else {
		rc = add(ctx, key, value, &inner);
	}
	if (rc != 0)
		return error_set(err, rc, "%s:%u: %s", path, n,
				 inner.message[0] ? inner.message : strerror(-rc));
	return 0;
}

PROCAGE_API int procage_profile_read(const char *name, procage_profile_line_fn add, void *ctx,
				     struct procage_error *err)
{
	char path[PATH_MAX], line[1024];
	error_clear(err);
	FILE *f = profile_open(name, path, sizeof path, err);
	int rc = f ? 0 : err && err->code ? err->code : -ENOENT;
	for (unsigned n = 1; rc == 0 && fgets(line, sizeof line, f); n++) {
		line[strcspn(line, "\n")] = '\0';
		char *key = line + strspn(line, " \t");
		if (!key[0] || key[0] == '#')
			continue;
		char *sep = key + strcspn(key, " \t");
		char *val = sep + strspn(sep, " \t");
		*sep = '\0';
		rc = line_give(path, n, key, val, add, ctx, err);
	}
	if (f)
		fclose(f);
	return rc;
}

/* A profile's line as the policy call its key names. */
static int line_apply(void *ctx, const char *key, const char *value, struct procage_error *err)
{
	struct procage_policy *policy = ctx;
	if (strcmp(key, "read") == 0)
		return procage_policy_allow(policy, value, PROCAGE_READ, err);
	if (strcmp(key, "write") == 0)
		return procage_policy_allow(policy, value, PROCAGE_WRITE, err);
	if (strcmp(key, "write-new") == 0)
		return procage_policy_allow_new_directory(policy, value, 0, err);
	if (strcmp(key, "cache") == 0)
		return procage_policy_allow_cache_directory(policy, value, 0, err);
	if (strcmp(key, "allow-host") == 0)
		return procage_policy_allow_host(policy, value, err);
	if (strcmp(key, "env") == 0)
		return procage_policy_env_pass(policy, value, err);
	/* setenv NAME=VALUE */
	const char *eq = strchr(value, '=');
	char name[256];
	if (!eq || eq == value || (size_t)(eq - value) >= sizeof name)
		return error_set(err, -EINVAL, "setenv %s: expected NAME=VALUE", value);
	snprintf(name, sizeof name, "%.*s", (int)(eq - value), value);
	return procage_policy_env_set(policy, name, eq + 1, err);
}

PROCAGE_API int procage_policy_apply_profile(struct procage_policy *policy, const char *name,
					     struct procage_error *err)
{
	int rc = procage_profile_read(name, line_apply, policy, err);
	return rc < 0 ? error_prefix(err, rc, "--profile %s: ", name) : 0;
}
