/* A run: one spawn of a cage, its reaper and the caller's side of it. */
#ifndef PROCAGE_RUN_H
#define PROCAGE_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "reaper.h"
#include "watch/supervise.h"

struct procage_run {
	struct reaper_handle reaper;
	bool ended;   /* the status is known and the reaper reaped */
	int status;   /* the target's, in waitpid() form */
	char *tmpdir; /* tier T2: the host directory, removed when the run ends */
	char *tmpdir_inside; /* tier T1: the run's tmpfs, as the run sees it (nothing on the host) */
	char *cgroup_dir; /* likewise */
	char changes_id[32]; /* changes as an overlay: the run's change set, or "" */
	int changes_lock;    /* its claim (changes_set_claim) until the run has ended, or -1 */
	struct publish_relay *publish; /* published ports relayed while the run lives, or NULL */
	struct run_supervision supervision; /* reports and the proxy, while it goes on */
	/*
	 * The policy asked for reports: a supervisor started for the broker or
	 * for explaining sees refused calls too, which are not the caller's then.
	 */
	bool reports_wanted;
};

#endif
