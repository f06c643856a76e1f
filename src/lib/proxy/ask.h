/*
 * Asking the caller before a host the allowlist does not name: a request
 * for such a host is held while a question goes to the caller's callback
 * (proxy_options.ask), on a thread of its own, so a callback that blocks
 * holds back only the requests waiting for its answer. The caged client
 * never sees the question; it sees its request go through or be refused.
 *
 * Questions are keyed by canonical name and port: requests for the same
 * host while a question is open wait for that one answer. An answer for
 * the run is kept (ask_approved) and asked no more. The loop thread owns
 * every question; the asking thread writes only its answer, under the
 * lock, and announces it on an eventfd the loop watches.
 */
#ifndef PROCAGE_PROXY_ASK_H
#define PROCAGE_PROXY_ASK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "procage.h"
#include "dest.h"
#include "proxy.h"

/* At most this many questions open at once; more are refused at once. */
#define ASK_MAX_OPEN 16

struct ask_question {
	struct ask_question *next;
	char host[DEST_NAME_MAX_LEN + 1];
	uint16_t port;
	uint64_t deadline; /* ms, monotonic: an answer after it is a deny */
	bool thread_started;
	pthread_t thread;
	struct asker *asker;
	/* Written by the asking thread under asker->lock. */
	bool answered;
	int answer; /* enum proxy_answer */
};

struct asker;

int asker_new(const struct proxy_options *options, struct asker **out,
	      struct procage_error *err);
/* The eventfd that becomes readable when an answer came. */
int asker_fd(const struct asker *asker);
/* Has the caller allowed host:port for the rest of the run? */
bool ask_approved(const struct asker *asker, const char *host, uint16_t port);
/*
 * The open question for host:port, or a new one (its callback started
 * now). NULL with *why set when none can be asked (too many open, out of
 * memory, or the last question for the host is past its deadline but its
 * callback has not returned yet).
 */
struct ask_question *ask_question_for(struct asker *asker, const char *host, uint16_t port,
				      const char **why);
/*
 * The questions answered since the last call, taken out of the open set,
 * their threads joined: the caller delivers each answer (an answer after
 * the deadline already reads PROXY_ANSWER_DENY) and frees them with
 * ask_question_free. An answer for the run is recorded first.
 */
struct ask_question *ask_take_answered(struct asker *asker);
void ask_question_free(struct ask_question *q);
/* Wait for every callback under way to return, then free. NULL is fine. */
void asker_free(struct asker *asker);

#endif
