/*
 * A run's reaper started in namespaces made ahead (reaper_relay.c), for
 * reaper_launch.
 */
#ifndef PROCAGE_REAPER_RELAY_H
#define PROCAGE_REAPER_RELAY_H

#include <sys/types.h>

#include "reaper.h"

struct reaper_relay {
	struct reaper_start start; /* the spawn's; userns_entered set by the relay */
	unsigned long namespaces;  /* the plan's CLONE_NEW* flags */
	int userns_fd, netns_fd;   /* made ahead, entered by the relay */
	void *reaper_stack;	   /* the top of the reaper's stack */
	pid_t reaper;		   /* the reaper's pid, or -1 */
	int reaper_pidfd;	   /* in the caller's table, or -1 */
};

/*
 * Clone the relay on relay_stack (its top) and wait until it has ended:
 * the reaper then runs (relay->reaper, relay->reaper_pidfd), or it does
 * not, with a failure record on the status pipe. -errno when the relay
 * itself could not be cloned, else 0. Called with every signal blocked.
 */
int reaper_relay_run(struct reaper_relay *relay, void *relay_stack);

#endif
