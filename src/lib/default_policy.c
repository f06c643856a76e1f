/*
 * The embedded default policy: what `procage run` uses when given no policy
 * file. The system is readable so ordinary tools run; the home directory is
 * readable so toolchains find their configuration and caches (git its
 * ~/.gitconfig), with every hard-deny class holding inside it (secrets
 * hidden, startup files and tool configuration read-only); the working
 * directory is writable. Not granted: the shared /tmp, /proc, devices
 * beyond the harmless ones every program expects. It accepts the
 * approximations each tier needs to hold the classes inside those grants:
 * masks laid at spawn (T1), grants entry by entry (T2).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "policy.h"

static const char *const system_read_paths[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
};

/* Opened for writing by ordinary programs; none gives access to data. */
static const char *const harmless_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
};

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/*
 * A writable working directory that contains the home would let the
 * command create the startup files, units and tool configuration that do
 * not exist yet (masks only cover what exists at spawn), so the default
 * refuses it.
 */
static int workdir_refusal(const char *workdir, struct procage_error *err)
{
	char dir[PATH_MAX], home[PATH_MAX];
	const char *home_env = getenv("HOME");

	if (!realpath(workdir, dir))
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "working directory %s",
				     workdir);
	if (strcmp(dir, "/") == 0)
		return error_set(err, -EINVAL,
				 "the default policy makes the working directory writable, and "
				 "it is /; run from a project directory or give a policy");
	if (!home_env || !realpath(home_env, home))
		return 0;
	size_t n = strlen(dir);
	if (strncmp(home, dir, n) == 0 && (home[n] == '\0' || home[n] == '/'))
		return error_set(err, -EINVAL,
				 "the default policy makes the working directory writable, and "
				 "%s contains the home directory %s with its secrets; run from "
				 "a project directory or give a policy",
				 dir, home);
	return 0;
}

PROCAGE_API int procage_policy_new_default(const char *workdir, struct procage_policy **out,
					   struct procage_error *err)
{
	error_clear(err);
	if (!out || !workdir)
		return error_set(err, -EINVAL, "no working directory or no place for the policy");
	*out = NULL;
	int rc = workdir_refusal(workdir, err);
	if (rc < 0)
		return rc;
	struct procage_policy *p = procage_policy_new();
	if (!p)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < sizeof system_read_paths / sizeof *system_read_paths; i++)
		if (exists(system_read_paths[i]))
			rc = procage_policy_allow(p, system_read_paths[i], PROCAGE_READ, err);
	for (size_t i = 0; rc == 0 && i < sizeof harmless_devices / sizeof *harmless_devices; i++)
		if (exists(harmless_devices[i]))
			rc = procage_policy_allow(p, harmless_devices[i], PROCAGE_WRITE, err);
	const char *home = getenv("HOME");
	if (rc == 0 && home && home[0] == '/' && exists(home))
		rc = procage_policy_allow(p, home, PROCAGE_READ, err);
	if (rc == 0)
		rc = procage_policy_allow(p, workdir, PROCAGE_WRITE, err);
	if (rc == 0)
		rc = procage_policy_accept(p, "spawn-snapshot", err);
	if (rc == 0)
		rc = procage_policy_accept(p, "entry-grants", err);
	if (rc < 0) {
		procage_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
