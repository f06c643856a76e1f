/*
 * The embedded default policy: what `procage run` uses when given no policy
 * file. The system is readable so ordinary tools run; the home directory is
 * readable so toolchains find their configuration and caches (git its
 * ~/.gitconfig), with every hard-deny class holding inside it (secrets
 * hidden, startup files and tool configuration read-only); the working
 * directory is writable; the CPU and memory facts of /sys are readable,
 * and on tier T1 the run's own /proc (own_proc, on in every policy). Not
 * granted: the shared /tmp, the host's /proc, the rest of /sys, devices
 * beyond the harmless ones every program expects. It accepts the
 * approximations each tier needs to hold the classes inside those grants:
 * masks laid at spawn (T1), grants entry by entry (T2), and the listing
 * of the directories those grants leave unlistable (T2).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/home.h"
#include "policy.h"

static const char *const system_read_paths[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
};

/*
 * The hardware facts programs size themselves by: CPUs online, their
 * topology, caches and frequencies, memory per NUMA node (glibc's
 * sysconf, libuv, the JVM and Go runtimes read them). World-readable on
 * the host, the same for every user, and about the machine only: not
 * /sys whole, whose class/net, firmware, kernel/debug and devices name
 * and configure the host's hardware and its other users' devices.
 */
static const char *const hardware_facts[] = {
	"/sys/devices/system/cpu",
	"/sys/devices/system/node",
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
 * Is the directory dir (by identity, not spelling) the home or one of its
 * ancestors? A bind mount or another alias of the home's parent spells it
 * differently but is the same inode.
 */
static bool contains_home(const struct stat *dir, const char *home)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof path, "%s", home);
	for (;;) {
		if (stat(path[0] ? path : "/", &st) == 0 && st.st_dev == dir->st_dev &&
		    st.st_ino == dir->st_ino)
			return true;
		char *slash = strrchr(path, '/');
		if (!slash || !path[0])
			return false;
		*slash = '\0';
	}
}

/*
 * A writable working directory that contains the home would let the
 * command create the startup files, units and tool configuration that do
 * not exist yet (masks only cover what exists at spawn), so the default
 * refuses it; and a default whose home cannot be found could protect
 * nothing in it.
 */
static int workdir_refusal(const char *workdir, const struct homes *h,
			   struct procage_error *err)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!realpath(workdir, dir) || stat(dir, &st) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "working directory %s",
				     workdir);
	if (strcmp(dir, "/") == 0)
		return error_set(err, -EINVAL,
				 "the default policy makes the working directory writable, and "
				 "it is /; run from a project directory or give a policy");
	if (h->n == 0)
		return error_set(err, -EINVAL,
				 "the default policy protects the secrets and configuration in the "
				 "home directory, and none could be established: %s; set HOME to the "
				 "home directory or give a policy",
				 h->why);
	for (size_t i = 0; i < h->n; i++)
		if (contains_home(&st, h->path[i]))
			return error_set(err, -EINVAL,
					 "the default policy makes the working directory writable, "
					 "and %s contains the home directory %s with its secrets; run "
					 "from a project directory or give a policy",
					 dir, h->path[i]);
	return 0;
}

PROCAGE_API int procage_policy_new_default(const char *workdir, struct procage_policy **out,
					   struct procage_error *err)
{
	error_clear(err);
	if (!out || !workdir)
		return error_set(err, -EINVAL, "no working directory or no place for the policy");
	*out = NULL;
	struct homes homes;
	homes_find(&homes, NULL);
	int rc = workdir_refusal(workdir, &homes, err);
	if (rc < 0)
		return rc;
	struct procage_policy *p = procage_policy_new();
	if (!p)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < sizeof system_read_paths / sizeof *system_read_paths; i++)
		if (exists(system_read_paths[i]))
			rc = procage_policy_allow(p, system_read_paths[i], PROCAGE_READ, err);
	for (size_t i = 0; rc == 0 && i < sizeof hardware_facts / sizeof *hardware_facts; i++)
		if (exists(hardware_facts[i]))
			rc = procage_policy_allow(p, hardware_facts[i], PROCAGE_READ, err);
	for (size_t i = 0; rc == 0 && i < sizeof harmless_devices / sizeof *harmless_devices; i++)
		if (exists(harmless_devices[i]))
			rc = procage_policy_allow(p, harmless_devices[i], PROCAGE_WRITE, err);
	/* $HOME when it names one, else the account's; the classes hold under both. */
	if (rc == 0)
		rc = procage_policy_allow(p, homes.path[0], PROCAGE_READ, err);
	if (rc == 0)
		rc = procage_policy_allow(p, workdir, PROCAGE_WRITE, err);
	if (rc == 0)
		rc = procage_policy_accept(p, "spawn-snapshot", err);
	if (rc == 0)
		rc = procage_policy_accept(p, "entry-grants", err);
	/*
	 * On tier T2 a directory entry grants leave without a rule (the home
	 * holding ~/.ssh, /etc holding /etc/shadow) could not be listed at
	 * all: ls ~ and ls /etc would fail. Listed by the broker it shows
	 * the hidden entries' names and never what they hold, as the empty
	 * mount over each shows its name on tier T1.
	 */
	if (rc == 0)
		rc = procage_policy_accept(p, "listing-shows-hidden-names", err);
	if (rc < 0) {
		procage_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
