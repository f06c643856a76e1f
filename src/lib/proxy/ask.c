/*
 * Questions about hosts the allowlist does not name. See ask.h.
 *
 * Each question runs its callback on a joinable thread of its own: a
 * callback may block (a person at a terminal, a harness asking another
 * program), and the end of the run waits for it rather than leaving a
 * thread inside the caller's code after the run's memory is gone. The
 * callback is told how long it has; an answer that comes later is a deny.
 */
#include "ask.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/error.h"
#include "conn.h"

struct approved_host {
	char host[DEST_NAME_MAX_LEN + 1];
	uint16_t port;
};

struct asker {
	proxy_ask_fn ask;
	void *ctx;
	unsigned timeout_ms;
	int event_fd;
	pthread_mutex_t lock; /* the questions' answered and answer */
	struct ask_question *open; /* the loop's own list */
	unsigned n_open;
	struct approved_host *approved; /* the loop's own */
	size_t n_approved;
};

int asker_new(const struct proxy_options *options, struct asker **out,
	      struct procage_error *err)
{
	struct asker *a = calloc(1, sizeof *a);

	*out = NULL;
	if (!a)
		return error_set(err, -ENOMEM, "proxy: out of memory");
	a->ask = options->ask;
	a->ctx = options->ask_ctx;
	a->timeout_ms = options->ask_timeout_ms;
	a->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->event_fd < 0) {
		int e = errno;
		free(a);
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "proxy: eventfd for questions");
	}
	pthread_mutex_init(&a->lock, NULL);
	*out = a;
	return 0;
}

int asker_fd(const struct asker *asker)
{
	return asker->event_fd;
}

bool ask_approved(const struct asker *asker, const char *host, uint16_t port)
{
	for (size_t i = 0; i < asker->n_approved; i++)
		if (asker->approved[i].port == port && strcmp(asker->approved[i].host, host) == 0)
			return true;
	return false;
}

static void approve_for_run(struct asker *a, const char *host, uint16_t port)
{
	if (ask_approved(a, host, port))
		return;
	struct approved_host *grown = realloc(a->approved, (a->n_approved + 1) * sizeof *grown);
	if (!grown)
		return; /* asked again next time: never allowed by mistake */
	a->approved = grown;
	snprintf(grown[a->n_approved].host, sizeof grown->host, "%s", host);
	grown[a->n_approved].port = port;
	a->n_approved++;
}

static void *question_main(void *arg)
{
	struct ask_question *q = arg;
	struct asker *a = q->asker;
	uint64_t now = proxy_now_ms();
	unsigned left = q->deadline > now ? (unsigned)(q->deadline - now) : 0;
	int answer = left ? a->ask(a->ctx, q->host, q->port, left) : PROXY_ANSWER_DENY;
	uint64_t one = 1;

	/* Late, or not one of the answers: a deny. */
	if (proxy_now_ms() > q->deadline ||
	    (answer != PROXY_ANSWER_ONCE && answer != PROXY_ANSWER_RUN))
		answer = PROXY_ANSWER_DENY;
	pthread_mutex_lock(&a->lock);
	q->answer = answer;
	q->answered = true;
	pthread_mutex_unlock(&a->lock);
	if (write(a->event_fd, &one, sizeof one) < 0)
		(void)0; /* only when the counter is full: the loop is reading it already */
	return NULL;
}

/* The question's thread takes no signals: they belong to the caller's threads. */
static int question_start(struct ask_question *q)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&q->thread, NULL, question_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	q->thread_started = e == 0;
	return -e;
}

struct ask_question *ask_question_for(struct asker *a, const char *host, uint16_t port,
				      const char **why)
{
	uint64_t now = proxy_now_ms();

	for (struct ask_question *q = a->open; q; q = q->next) {
		if (q->port != port || strcmp(q->host, host) != 0)
			continue;
		if (now >= q->deadline) {
			*why = "not on the allowlist; the question about it had no answer in time";
			return NULL;
		}
		return q;
	}
	if (a->n_open >= ASK_MAX_OPEN) {
		*why = "not on the allowlist; too many hosts are waiting for an answer";
		return NULL;
	}
	struct ask_question *q = calloc(1, sizeof *q);
	if (!q) {
		*why = "not on the allowlist; out of memory to ask about it";
		return NULL;
	}
	snprintf(q->host, sizeof q->host, "%s", host);
	q->port = port;
	q->asker = a;
	q->deadline = now + a->timeout_ms;
	if (question_start(q) < 0) {
		free(q);
		*why = "not on the allowlist; cannot ask about it (no thread)";
		return NULL;
	}
	q->next = a->open;
	a->open = q;
	a->n_open++;
	return q;
}

struct ask_question *ask_take_answered(struct asker *a)
{
	struct ask_question *taken = NULL, **link = &a->open;
	uint64_t count;

	if (read(a->event_fd, &count, sizeof count) < 0)
		(void)0; /* EAGAIN: the answers were taken with an earlier wake-up */
	pthread_mutex_lock(&a->lock);
	while (*link) {
		struct ask_question *q = *link;
		if (!q->answered) {
			link = &q->next;
			continue;
		}
		*link = q->next;
		q->next = taken;
		taken = q;
		a->n_open--;
	}
	pthread_mutex_unlock(&a->lock);
	for (struct ask_question *q = taken; q; q = q->next) {
		pthread_join(q->thread, NULL); /* it has answered: it is returning */
		q->thread_started = false;
		if (q->answer == PROXY_ANSWER_RUN)
			approve_for_run(a, q->host, q->port);
	}
	return taken;
}

void ask_question_free(struct ask_question *q)
{
	if (q && q->thread_started)
		pthread_join(q->thread, NULL);
	free(q);
}

void asker_free(struct asker *a)
{
	if (!a)
		return;
	while (a->open) {
		struct ask_question *q = a->open;
		a->open = q->next;
		ask_question_free(q); /* waits for its callback */
	}
	free(a->approved);
	close(a->event_fd);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
