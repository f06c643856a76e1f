/*
 * A user namespace and a network namespace of their own, made on a thread
 * of the library's while a command resolves its cage, for the first tier
 * T1 spawn after it to enter instead of making its own (procage_prepare_
 * ahead). Making a network namespace is the dearest step of a spawn (the
 * kernel registers a loopback device and every protocol's tables); made
 * beside the cage's resolution it no longer delays the run.
 *
 * The pair is exactly what the spawn's reaper would have made: a user
 * namespace whose maps say the caller's uid and gid are themselves, and an
 * empty network namespace it owns. Nothing else ever enters them: they are
 * held by two descriptors of this process (close-on-exec), taken once, by
 * the spawn whose maps are the same, in the process that made them.
 */
#ifndef PROCAGE_NS_AHEAD_H
#define PROCAGE_NS_AHEAD_H

#include <stdbool.h>

#include "id_maps.h"

struct ns_ahead_pair {
	int userns_fd;
	int netns_fd;
};

/*
 * Begin making the pair on a thread of its own; nothing is made where
 * user namespaces are refused. Safe to call more than once: one pair at
 * most waits.
 */
void ns_ahead_begin(void);

/*
 * Take the pair whose maps are these: true with both descriptors in
 * *pair, now the caller's to close; false when none was made, it was made
 * by another process (before a fork) or with other maps (then it is let
 * go), or it was taken already. Waits for the thread making it, if it
 * still runs. With maps NULL any pair is taken (ns_ahead_drop).
 */
bool ns_ahead_take(const struct id_maps *maps, struct ns_ahead_pair *pair);

/* Wait for the thread making the pair, if it runs: whether a pair waits to be taken. */
bool ns_ahead_ready(void);

/* Wait for the thread making the pair, if it runs, and close what it made. */
void ns_ahead_drop(void);

#endif
