/*
 * The hard-link check of a spawn, run beside the run's setup.
 *
 * The check stats every location the cage examined, a millisecond or
 * more, and the spawn used to wait for it before anything else. It now
 * runs on a thread of its own while the reaper makes the namespaces and
 * mounts, and the target waits for its verdict just before it restricts
 * itself and runs the command: one byte on the gate pipe, GATE_PASS when
 * the check found nothing, anything else (or end of file) and the target
 * fails without running anything. The caller then reports the check's
 * own words.
 */
#ifndef PROCAGE_RUN_HARDLINKS_GATE_H
#define PROCAGE_RUN_HARDLINKS_GATE_H

#include <pthread.h>
#include <stdbool.h>

#include "procage.h"

#define GATE_PASS 'y'
#define GATE_REFUSE 'n'

struct hardlinks_gate {
	const struct procage_cage *cage;
	pthread_t thread;
	bool running;		  /* the thread was started and not yet joined */
	int write_fd;		  /* the verdict's end, closed once joined */
	int rc;			  /* the check's result, once joined */
	struct procage_error err; /* and its words */
	void (*beside)(void);	  /* done on the thread once the verdict is out, or NULL */
};

/*
 * Begin the check of cage. *read_fd is the end the target waits on, or -1
 * when no target needs to wait: the policy only reports, or no thread
 * could be started and the check ran here (its refusal returned then).
 * beside (or NULL): work of the spawn's that waits for nothing, done on
 * the thread once the verdict is out, beside the run's setup; without a
 * thread (g->running false) it is the caller's to do.
 */
int hardlinks_gate_begin(const struct procage_cage *cage, void (*beside)(void),
			 struct hardlinks_gate *g, int *read_fd, struct procage_error *err);
/*
 * Wait for the check; its result, with its words in *err (if not NULL).
 * Idempotent; a gate never begun (zeroed) passes.
 */
int hardlinks_gate_end(struct hardlinks_gate *g, struct procage_error *err);

#endif
