/*
 * Resolver threads for the proxy. See resolver.h.
 *
 * The answer is whatever the resolver says; checking each address against
 * the allowlist is the loop's job, done once on this one answer (a name is
 * resolved once, so a second lookup cannot answer differently).
 *
 * A lookup cannot be interrupted (getaddrinfo may hang on a dead server
 * for its whole timeout), and the end of a run must not wait for one. So
 * the workers are detached, and the pool is shared: the owner and every
 * worker hold a reference, and the last to let go frees it. A worker that
 * finishes a lookup after the pool stopped drops the answer.
 */
#include "resolver.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/error.h"

#define RESOLVER_MAX_THREADS 8

struct resolver_pool {
	struct proxy_resolver resolver;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct resolver_job *queue, *queue_tail; /* waiting, first in first out */
	struct resolver_job *done;               /* answered, any order */
	bool stopping;
	unsigned refs; /* the owner's, and one per worker still running */
	int event_fd;
	pthread_t threads[RESOLVER_MAX_THREADS];
	unsigned n_threads;
};

int proxy_resolve_system(void *ctx, const char *name, struct dest_addr *out, size_t max)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL;
	size_t n = 0;
	int rc = getaddrinfo(name, NULL, &hints, &res);

	if (rc == EAI_NONAME || rc == EAI_NODATA)
		return -ENOENT;
	if (rc == EAI_MEMORY)
		return -ENOMEM;
	if (rc != 0)
		return -EAGAIN;
	for (struct addrinfo *ai = res; ai && n < max; ai = ai->ai_next) {
		memset(&out[n], 0, sizeof out[n]);
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *sin = (const void *)ai->ai_addr;
			out[n].family = AF_INET;
			memcpy(out[n].bytes, &sin->sin_addr, 4);
			n++;
		} else if (ai->ai_family == AF_INET6) {
			const struct sockaddr_in6 *sin6 = (const void *)ai->ai_addr;
			out[n].family = AF_INET6;
			memcpy(out[n].bytes, &sin6->sin6_addr, 16);
			n++;
		}
	}
	freeaddrinfo(res);
	return n ? (int)n : -ENOENT;
}

static void pool_destroy(struct resolver_pool *pool)
{
	close(pool->event_fd);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->wake);
	free(pool);
}

/* Let go of a reference, the lock held; the last one frees the pool. */
static void pool_release_locked(struct resolver_pool *pool)
{
	bool last = --pool->refs == 0;
	pthread_mutex_unlock(&pool->lock);
	if (last)
		pool_destroy(pool);
}

static void *worker_main(void *arg)
{
	struct resolver_pool *pool = arg;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->queue && !pool->stopping)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->stopping)
			break;
		struct resolver_job *job = pool->queue;
		pool->queue = job->next;
		if (!pool->queue)
			pool->queue_tail = NULL;
		pthread_mutex_unlock(&pool->lock);

		job->result = pool->resolver.resolve(pool->resolver.ctx, job->name, job->addrs,
						     PROXY_MAX_ADDRS);
		if (job->result > PROXY_MAX_ADDRS)
			job->result = PROXY_MAX_ADDRS; /* a resolver that overstates */

		pthread_mutex_lock(&pool->lock);
		if (pool->stopping) {
			/* No one waits for the answer any more. */
			free(job);
			break;
		}
		job->next = pool->done;
		pool->done = job;
		uint64_t one = 1;
		/* An eventfd write only fails when the counter would overflow,
		 * and then the loop has a wake-up pending anyway. */
		if (write(pool->event_fd, &one, sizeof one) < 0)
			(void)0;
	}
	pool_release_locked(pool);
	return NULL;
}

static void free_jobs(struct resolver_job *job)
{
	while (job) {
		struct resolver_job *next = job->next;
		free(job);
		job = next;
	}
}

int resolver_pool_start(const struct proxy_resolver *resolver, unsigned threads,
			struct resolver_pool **out, struct procage_error *err)
{
	struct resolver_pool *pool = calloc(1, sizeof *pool);

	*out = NULL;
	if (!pool)
		return error_set(err, -ENOMEM, "out of memory starting the proxy's resolver");
	pool->resolver = *resolver;
	pool->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pool->event_fd < 0) {
		int e = errno;
		free(pool);
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "proxy resolver: eventfd");
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pool->refs = 1;
	if (threads > RESOLVER_MAX_THREADS)
		threads = RESOLVER_MAX_THREADS;
	for (unsigned i = 0; i < threads; i++) {
		pthread_mutex_lock(&pool->lock);
		pool->refs++;
		pthread_mutex_unlock(&pool->lock);
		int e = pthread_create(&pool->threads[i], NULL, worker_main, pool);
		if (e) {
			pthread_mutex_lock(&pool->lock);
			pool->refs--;
			pthread_mutex_unlock(&pool->lock);
			resolver_pool_stop(pool);
			return error_set_sys(err, e, PROCAGE_STEP_NONE,
					     "proxy resolver: starting a thread");
		}
		pthread_detach(pool->threads[i]);
		pool->n_threads++;
	}
	*out = pool;
	return 0;
}

int resolver_pool_fd(const struct resolver_pool *pool)
{
	return pool->event_fd;
}

void resolver_pool_submit(struct resolver_pool *pool, struct resolver_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&pool->lock);
	if (pool->queue_tail)
		pool->queue_tail->next = job;
	else
		pool->queue = job;
	pool->queue_tail = job;
	pthread_cond_signal(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
}

struct resolver_job *resolver_pool_take_done(struct resolver_pool *pool)
{
	uint64_t count;

	if (read(pool->event_fd, &count, sizeof count) < 0)
		(void)0; /* nothing pending: the list below is empty then */
	pthread_mutex_lock(&pool->lock);
	struct resolver_job *done = pool->done;
	pool->done = NULL;
	pthread_mutex_unlock(&pool->lock);
	return done;
}

void resolver_pool_stop(struct resolver_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stopping = true;
	pthread_cond_broadcast(&pool->wake);
	free_jobs(pool->queue);
	free_jobs(pool->done);
	pool->queue = pool->queue_tail = pool->done = NULL;
	/* Workers still in a lookup let go when it returns; none is waited for. */
	pool_release_locked(pool);
}
