/*
 * Published ports (procage_policy_publish, tier T1 with --net loopback):
 * the caller's process listens on the host's 127.0.0.1 at each port and
 * relays every connection it accepts into the run's network namespace,
 * to the run's listener on 127.0.0.1 at the same port, with a socket the
 * run's reaper made there (REAPER_PUBLISH_SOCKET). Nothing else of the
 * run is reachable: the relay only ever connects to those ports.
 */
#ifndef PROCAGE_RUN_PUBLISH_H
#define PROCAGE_RUN_PUBLISH_H

#include <stddef.h>
#include <stdint.h>

#include "procage.h"

struct publish_relay;

/*
 * Listen on 127.0.0.1 at each of ports[0..n) before the run starts: a port
 * the host already uses is refused here, naming it. *out is owned.
 */
int publish_listen(const uint16_t *ports, size_t n, struct publish_relay **out,
		   struct procage_error *err);
/* Relay from now on, into the namespace factory's reaper serves (owned from here). */
int publish_start(struct publish_relay *relay, int factory, struct procage_error *err);
/* Stop relaying, end every connection, close the listeners, free relay (NULL: nothing). */
void publish_stop(struct publish_relay *relay);

#endif
