/*
 * The run's SSH agent: a socket procage serves inside the run's ssh
 * directory, relaying to the caller's agent only what agent_judge allows
 * (agent_msg.h, R-53). A thread accepts; each connection has a thread of
 * its own and a connection of its own to the caller's agent, opened when
 * the first allowed request comes.
 *
 *   agent_filter_start(listen_fd, &options, &filter, &err);
 *   ... the run ...
 *   agent_filter_stop(filter);   // every connection closed, threads joined
 */
#ifndef PROCAGE_PROXY_AGENT_FILTER_H
#define PROCAGE_PROXY_AGENT_FILTER_H

#include "procage.h"
#include "known_hosts.h"

/* A refused request: its type's name ("sign-request") and why it was refused. */
typedef void (*agent_report_fn)(void *ctx, const char *request, const char *why);

struct agent_filter_options {
	const char *upstream;	       /* the caller's SSH_AUTH_SOCK, copied */
	const struct known_keys *keys; /* must outlive the filter */
	agent_report_fn report;	       /* called on a connection's thread */
	void *report_ctx;
};

struct agent_filter;

/* Serve listen_fd (a listening Unix socket; not closed by the filter). */
int agent_filter_start(int listen_fd, const struct agent_filter_options *options,
		       struct agent_filter **out, struct procage_error *err);
void agent_filter_stop(struct agent_filter *filter);

#endif
