/*
 * Name lookups off the event loop: getaddrinfo blocks, and one slow lookup
 * must not stall every other connection, so a few worker threads do them
 * and hand results back through an eventfd the loop watches.
 */
#ifndef PROCAGE_PROXY_RESOLVER_H
#define PROCAGE_PROXY_RESOLVER_H

#include <stddef.h>

#include "procage.h"
#include "proxy.h"

struct resolver_job {
	char name[DEST_NAME_MAX_LEN + 1];
	int result; /* number of addresses, or a negative errno */
	struct dest_addr addrs[PROXY_MAX_ADDRS];
	/* The loop's own: who waits for the answer (NULL once it gave up).
	 * Worker threads never touch it. */
	void *owner;
	struct resolver_job *next;
};

struct resolver_pool;

/* threads workers calling resolver; results are announced on an eventfd. */
int resolver_pool_start(const struct proxy_resolver *resolver, unsigned threads,
			struct resolver_pool **out, struct procage_error *err);
/* The eventfd that becomes readable when jobs are done. */
int resolver_pool_fd(const struct resolver_pool *pool);
/* Queue a job; the pool owns it until it comes back from take_done. */
void resolver_pool_submit(struct resolver_pool *pool, struct resolver_job *job);
/* Every finished job, as a list the caller now owns (and frees). */
struct resolver_job *resolver_pool_take_done(struct resolver_pool *pool);
/* Stop the workers without waiting for them (a lookup under way is
 * abandoned: its worker drops the answer and exits when it returns), free
 * every job still queued or done; the last worker frees the pool. The
 * resolver's ctx must stay valid until then. */
void resolver_pool_stop(struct resolver_pool *pool);

#endif
