/*
 * Profiles: policy fragments for common tools (npm, pip, cargo...), shipped
 * as data files, NAME.profile, one flag a line ("write-new ~/.npm",
 * "allow-host registry.npmjs.org"), '#' starting a comment; the first
 * comment line describes the profile. They are found next to the procage
 * binary: <bin>/../share/procage/profiles once installed, <build>/../profiles
 * in the source tree, never in the working directory or anywhere a run
 * could write (a profile widens the cage). Only flags that grant what a tool
 * needs are taken: read, write, write-new, allow-host, env, setenv, and
 * "cache DIR", a profile's own: a write-new whose missing parents inside the
 * caller's home are made too (~/.cache/pip on a home without ~/.cache).
 * Two keys grant only what exists on this machine (profile_present.c):
 * "device GLOB", each character device matched, to read, write and ioctl,
 * and "read-present GLOB", each path matched, to read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *const profile_keys[] = {"read", "write",  "write-new", "cache",
					   "allow-host", "env", "setenv", "device",
					   "read-present", NULL};

static bool directory_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The binary in a build directory of procage's own source tree (beside its
 * src/cli): only there is "../profiles" the shipped profiles, and not some
 * directory a run could have written next to an installed procage.
 */
static bool source_tree_build(const char *bin_dir)
{
	char marker[PATH_MAX];
	struct stat st;
	return snprintf(marker, sizeof marker, "%s/../src/cli/profiles.c", bin_dir) <
		   (int)sizeof marker &&
	       stat(marker, &st) == 0 && S_ISREG(st.st_mode);
}

int cli_profiles_dir(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	*slash = '\0';
	static const char *const candidates[] = {"../share/procage/profiles", "../profiles"};
	for (size_t i = 0; i < 2; i++)
		if ((i == 0 || source_tree_build(exe)) &&
		    snprintf(out, size, "%s/%s", exe, candidates[i]) < (int)size &&
		    directory_exists(out) && size >= PATH_MAX && realpath(out, exe))
			return snprintf(out, size, "%s", exe) < (int)size ? 0 : -ENAMETOOLONG;
	return -ENOENT;
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

static FILE *profile_open(const char *name, char *path, size_t size, char *why, size_t why_size)
{
	char dir[PATH_MAX];
	if (!name_valid(name)) {
		snprintf(why, why_size,
			 "a profile's name is lower-case letters, digits, '-' and "
			 "'_' ('procage profiles' lists them)");
		return NULL;
	}
	if (cli_profiles_dir(dir, sizeof dir) != 0) {
		snprintf(why, why_size, "no profile directory next to this procage");
		return NULL;
	}
	if (snprintf(path, size, "%s/%s.profile", dir, name) >= (int)size) {
		snprintf(why, why_size, "the profile directory's path is too long");
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		snprintf(why, why_size, "no such profile (%s: %s); 'procage profiles' lists them",
			 path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

int cli_profile_read(const char *name, int (*add)(void *ctx, const char *option, const char *value),
		     void *ctx, char *why, size_t why_size)
{
	char path[PATH_MAX], line[1024], value[PATH_MAX];
	FILE *f = profile_open(name, path, sizeof path, why, why_size);
	int rc = f ? 0 : -ENOENT;
	for (unsigned n = 1; rc == 0 && fgets(line, sizeof line, f); n++) {
		line[strcspn(line, "\n")] = '\0';
		char *key = line + strspn(line, " \t");
		if (!key[0] || key[0] == '#')
			continue;
		char *sep = key + strcspn(key, " \t");
		char *val = sep + strspn(sep, " \t");
		*sep = '\0';
		if (!key_known(key) || !val[0]) {
			snprintf(why, why_size,
				 "%s:%u: expected a line 'KEY VALUE' with KEY one of read, write, "
				 "write-new, cache, allow-host, env, setenv, device, read-present",
				 path, n);
			rc = -EINVAL;
		} else if ((rc = value_expand(val, value, sizeof value)) != 0) {
			snprintf(why, why_size, "%s:%u: %s: %s", path, n, val,
				 rc == -ENOENT ? "HOME is not set to an absolute path"
					       : "too long");
		} else if (profile_present_key(key)) {
			if ((rc = profile_present_add(key, value, add, ctx)) != 0)
				snprintf(why, why_size, "%s:%u: %s: %s", path, n, val,
					 rc == -EINVAL ? "expected an absolute pattern (and "
							 "PROCAGE_DEVICE_ROOT an absolute directory)"
						       : strerror(-rc));
		} else if ((rc = add(ctx, key, value)) != 0) {
			snprintf(why, why_size, "%s:%u: %s", path, n, strerror(-rc));
		}
	}
	if (f)
		fclose(f);
	return rc;
}

/* The first comment line, without its '#': what the profile is for. */
static void profile_describe(const char *path, char *out, size_t size)
{
	char line[512];
	FILE *f = fopen(path, "re");
	out[0] = '\0';
	while (f && fgets(line, sizeof line, f))
		if (line[0] == '#') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, size, "%s", line + 1 + (line[1] == ' '));
			break;
		}
	if (f)
		fclose(f);
}

int cli_profiles_list(bool json)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], about[512];
	char *names[256];
	size_t n = 0;
	if (cli_profiles_dir(dir, sizeof dir) != 0) {
		fprintf(stderr, "procage: no profile directory next to this procage\n");
		return EXIT_PROCAGE_FAILED;
	}
	struct dirent **entries = NULL;
	int found = scandir(dir, &entries, NULL, alphasort);
	for (int i = 0; i < found; i++) {
		size_t len = strlen(entries[i]->d_name);
		if (n < 256 && len > 8 && strcmp(entries[i]->d_name + len - 8, ".profile") == 0 &&
		    (names[n] = strndup(entries[i]->d_name, len - 8)))
			n++; /* scandir's alphasort: listed by name */
		free(entries[i]);
	}
	free(entries);
	if (json)
		fputs("{\"profiles\":[", stdout);
	else
		printf("profiles (%s; use with --profile NAME):\n", dir);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s.profile", dir, names[i]);
		profile_describe(path, about, sizeof about);
		if (json) {
			fputs(i ? ",{\"name\":" : "{\"name\":", stdout);
			json_write_string(stdout, names[i]);
			fputs(",\"description\":", stdout);
			json_write_string(stdout, about);
			fputc('}', stdout);
		} else {
			printf("  %-8s %s\n", names[i], about);
		}
		free(names[i]);
	}
	if (json)
		fputs("]}\n", stdout);
	return 0;
}

int cli_profiles_help(void)
{
	int rc = cli_help("profiles");
	return rc != 0 ? rc : cli_profiles_list(false);
}

/* procage profiles [--json]: the profiles shipped with procage. */
int cmd_profiles(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (cli_help_wanted(argv[i]))
			return cli_profiles_help();
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else
			return cli_usage_error("profiles: unknown option '%s'", argv[i]);
	}
	return cli_profiles_list(json);
}
