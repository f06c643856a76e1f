/*
 * What the caller's process does for a run while it goes on, beyond
 * waiting: answer and record its refused system calls (violation reports),
 * perform its entry calls in the broker's zones (tier T2) and serve its
 * proxy (proxy-only networking).
 */
#ifndef PROCAGE_SUPERVISE_H
#define PROCAGE_SUPERVISE_H

#include "cage/denials.h"
#include "handoff_observed.h"
#include "cage/net_admission.h"
#include "notify.h"
#include "report.h"

struct procage_cage;
struct proxy;
struct agent_filter;
struct ssh_setup;
struct capture;

/* Transparent egress: the sockets made in the run's network namespace. */
struct supervision_capture {
	const int *fds;
	size_t n;
};

/*
 * The run's reaper, whose descendants are the run's processes: its pid in
 * the caller's PID namespace and a pidfd of it (duplicated where kept).
 */
struct supervision_reaper {
	pid_t pid;
	int pidfd;
	int unix_diag; /* REAPER_UNIX_DIAG's socket, taken over, or -1 */
};

struct run_supervision {
	struct report_store reports;
	bool reports_on; /* the store is there (until supervision_release) */
	bool stopped;
	/* The thread did not end when stopped: it and what it uses are left. */
	bool abandoned;
	struct notify_supervisor notify;
	struct broker *broker; /* the run's own copy of the cage's zones; or NULL */
	struct proxy *proxy;
	struct allowlist *allowlist; /* the proxy's own copy: the cage may be freed first */
	struct capture *capture;     /* transparent egress, served by the proxy; or NULL */
	procage_host_ask_fn host_ask; /* the policy's, asked from the proxy's threads */
	void *host_ask_ctx;
	int proxy_listener; /* owned while the proxy serves it */
	/* Tier T2 proxy-only: the cage's ports the proxy admits (net_admission.h). */
	struct net_admission admission;
	bool admission_on;
	/* --allow-ssh with an agent: the filter serving the cage's socket. */
	struct agent_filter *agent_filter;
	struct ssh_setup *ssh; /* --allow-ssh: the ssh directory, held while the run goes */
	int json_fd;        /* report lines, or -1 */
	/* Refusals explained (the cage's explain option): its own rules, or NULL. */
	struct denial_rules *denial_rules;
	struct denial_store denials;
	/* What the observation saw written where git runs or reads (handoff_observed.h). */
	struct handoff_observed handoff_observed;
};

/*
 * Start supervising: the seccomp listener (or -1) is answered on a thread,
 * the proxy listener (or -1) served by the cage's allowlist, and with it
 * the capture sockets (capture, or NULL). json_fd (or
 * -1), opened by own_files_open_report before the child existed, receives
 * JSON lines. All are taken over, also on failure. tmpdir (or
 * NULL) is the run's private TMPDIR on the host, writable to it (a write
 * root of the metadata broker). reaper (or NULL) lets a tier T2 run list
 * its own processes (broker_proc_run.c).
 */
int supervision_start(struct run_supervision *s, const struct procage_cage *cage,
		      int seccomp_listener, int proxy_listener,
		      const struct supervision_capture *capture, int json_fd, const char *tmpdir,
		      const struct supervision_reaper *reaper, struct procage_error *err);
/*
 * Once the run has ended: stop, and write the final report lines. Ends
 * within NOTIFY_STOP_WAIT_S whatever the cage did; s->abandoned then says
 * the thread was left running (never expected: every wait of the thread
 * is bounded).
 */
void supervision_stop(struct run_supervision *s);
/* Stop if still going, and free the reports (not when abandoned). */
void supervision_release(struct run_supervision *s);

#endif
