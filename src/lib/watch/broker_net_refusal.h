/*
 * Tier T2 proxy-only: explaining a connection the network broker refused
 * because it went around the run's proxy (a program that ignores
 * HTTP(S)_PROXY, or its own DNS lookup). Tier T1 captures such programs
 * (proxy/capture.h); T2 has no namespace to capture them in.
 */
#ifndef PROCAGE_WATCH_BROKER_NET_REFUSAL_H
#define PROCAGE_WATCH_BROKER_NET_REFUSAL_H

#include <sys/socket.h>

#include "cage/denials.h"

/* Record it in denials (no-op when NULL): one line per address and port. */
void broker_net_refusal_record(struct denial_store *denials, const struct sockaddr_storage *addr,
			       socklen_t len, int type);

#endif
