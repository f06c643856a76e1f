/*
 * Tier T2: which processes are the run's. A run has no PID namespace
 * there, so the supervisor decides it from the process tree of the host:
 * a process is the run's when it descends from the run's reaper, the
 * child subreaper every orphan of the run is re-parented to.
 */
#ifndef PROCAGE_PROC_MEMBER_H
#define PROCAGE_PROC_MEMBER_H

#include <stdbool.h>
#include <sys/types.h>

/* How many parents the walk climbs before it gives up (and answers no). */
#define PROC_MEMBER_DEPTH 128

/* The run's reaper: its pid in the supervisor's PID namespace, and a pidfd of it. */
struct proc_run_root {
	pid_t reaper;
	int pidfd;
};

/*
 * Is the process whose /proc/PID directory is open at dir (any thread's
 * directory of it will do) a strict descendant of the reaper? False on
 * any doubt: an unreadable status, a parent that changed under the walk,
 * pid 0 or 1 reached, the depth bound, a reaper that has exited.
 */
bool proc_member(int dir, const struct proc_run_root *root);

#endif
