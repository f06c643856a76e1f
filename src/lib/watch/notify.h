/*
 * The supervisor of a reporting or brokered run: a thread of the calling
 * process that receives the seccomp notifications of the run, hands the
 * broker's calls to the broker, and answers every refused call with its
 * errno and records it.
 */
#ifndef PROCAGE_NOTIFY_H
#define PROCAGE_NOTIFY_H

#include <pthread.h>
#include <stdbool.h>

#include "observe.h"
#include "report.h"

struct broker;

struct notify_supervisor {
	pthread_t thread;
	struct broker *broker; /* answers the entry calls; or NULL. Not owned */
	bool started;
	int listener;  /* the seccomp listener; owned */
	int stop_pipe[2]; /* written to ask the thread to finish */
	struct report_store *store;
	struct observe_context observe; /* rules NULL: the run is not observed */
};

/*
 * Take listener over and answer its notifications until stopped: the
 * broker's calls by broker (or NULL), the others as reported refusals.
 */
int notify_start(struct notify_supervisor *s, int listener, struct report_store *store,
		 struct broker *broker, const struct observe_context *observe,
		 struct procage_error *err);
/* How long a stop waits for the thread before leaving it behind. */
#define NOTIFY_STOP_WAIT_S 5
/*
 * Stop the thread and close the listener. False when the thread did not
 * end within NOTIFY_STOP_WAIT_S: it is left running, and what it uses
 * (the listener, the broker, the report store) must be left too.
 */
bool notify_stop(struct notify_supervisor *s);

/* The name of a refused system call, by audit arch and number. */
const char *notify_call_name(uint32_t arch, int nr);
/* Is it a call the broker variants send to the broker? */
bool notify_call_brokered(uint32_t arch, int nr);
/* The errno a reported refusal is answered with (EPERM unless the rule says). */
int notify_call_errno(uint32_t arch, int nr);

#endif
