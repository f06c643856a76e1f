/*
 * Tier T2: the host's /proc stays hidden (class process-access), but a few
 * of its files describe only the machine, the same for every process and
 * every user, and everyday programs size themselves from them: free and
 * top read meminfo and loadavg, node counts its CPUs in stat and cpuinfo,
 * allocators read the overcommit setting. Each is granted for reading by
 * its own inode; nothing under /proc/PID, /proc/self or /proc/thread-self
 * is, so no other process's entries come with them. Why each file is
 * here: docs/proc.md.
 */
#include "cage.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "base/error.h"
#include "denials.h"
#include "paths.h"
#include "policy/policy.h"
#include "policy/classes.h"

static const char *const proc_system_files[] = {
	"cpuinfo",  "meminfo",	  "stat",
	"loadavg",  "uptime",	  "version",
	"vmstat",   "filesystems", "sys/vm/overcommit_memory",
	"sys/kernel/osrelease",	  "sys/kernel/pid_max",
};

int cage_proc_system_grants(struct procage_cage *c, const struct cage_paths *paths,
			    struct procage_error *err)
{
	/*
	 * own_proc (on in every policy) is the switch: on tier T1 it grants
	 * the run's own /proc, here these files of the host's.
	 */
	if (c->tier != PROCAGE_TIER_T2 || !c->policy->own_proc)
		return 0;
	for (size_t i = 0; i < sizeof proc_system_files / sizeof *proc_system_files; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%s", proc_system_files[i]);
		/* A file this kernel does not have (a configuration option) is not granted. */
		if (access(path, F_OK) != 0 && errno == ENOENT)
			continue;
		struct cage_path grant = { .path = path, .access = PROCAGE_READ,
					   .cls = CLASS_PROCESS_ACCESS };
		int rc = cage_add_grant(c, &grant, err);
		/* What the run reads there is not explained as a refusal afterwards. */
		if (rc == 0 && c->denial_rules &&
		    denial_rules_add_grant(c->denial_rules, path, PROCAGE_READ) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
		if (rc < 0)
			return error_prefix(err, rc, "granting the system file %s of /proc: ", path);
	}
	return 0;
}
