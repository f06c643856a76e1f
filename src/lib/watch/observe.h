/*
 * The observer (observe.c): the supervisor's look at the calls that name
 * paths, and at refused sockets, to explain refusals after the run. It
 * only looks; the caller answers the call as it would have otherwise.
 */
#ifndef PROCAGE_OBSERVE_H
#define PROCAGE_OBSERVE_H

#include <linux/seccomp.h>
#include <stdbool.h>

#include "cage/denials.h"
#include "handoff_observed.h"

struct observe_context {
	const struct denial_rules *rules; /* or NULL: nothing observed */
	struct denial_store *store;
	/* The changes the rules let go by, for the trust-handoff report; or NULL. */
	struct handoff_observed *handoff;
	/*
	 * The broker judges git's config.lock renamed over config by its
	 * content and explains its own refusal: the observer leaves it be.
	 */
	bool git_config_brokered;
};

/* Is call one the observe variants hand over for a look? */
bool observe_call_known(const char *call);
/* Judge the paths of call n, recording what the rules refuse. */
void observe_judge(struct observe_context *ctx, const struct seccomp_notif *n, const char *call);
/*
 * A call the filter refused: explained when it is an IP socket with the
 * network off, or setsid (the session lifetime).
 */
void observe_refused(struct observe_context *ctx, const struct seccomp_notif *n, const char *call);

#endif
