/*
 * A run's reaper: a small process of the library's own between the caller
 * and the target, one per run. It leads a new session as a child
 * subreaper, starts the target (which applies the cage and execs), and
 * when the target ends, or the caller asks, or the caller is gone, kills
 * every process left of the run, reports the target's wait status and
 * exits. On tier T1 with a PID namespace it is the namespace's first
 * process, whose exit ends every other.
 */
#ifndef PROCAGE_REAPER_H
#define PROCAGE_REAPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "plan/plan.h"

/* Fixed-size messages on the run's socket (SOCK_SEQPACKET). */
enum reaper_message_kind {
	REAPER_STARTED = 1, /* reaper -> caller: value is the target's pid in the
			     * reaper's PID namespace; the target's pidfd rides
			     * along (SCM_RIGHTS) */
	REAPER_STATUS = 2,  /* reaper -> caller: value is the target's wait status;
			     * every other process of the run is gone */
	REAPER_SIGNAL = 3,  /* caller -> reaper: forward signal value to the target */
	REAPER_KILL = 4,    /* caller -> reaper: end the run now */
	REAPER_PROXY_LISTENER = 5,   /* reaper -> caller: a proxy-only run's listener
				      * (SCM_RIGHTS), made in the run's network namespace */
	REAPER_SECCOMP_LISTENER = 6, /* target -> caller, before exec: the listener of
				      * a reporting filter (SCM_RIGHTS) */
	REAPER_LOST = 7,	     /* reaper -> caller, before the status: processes of
				      * the run could not be seen or ended */
	REAPER_TMPDIR_LEFT = 8,	     /* reaper -> caller, before the status: value is the
				      * negative errno of a temporary directory left */
	REAPER_PUBLISH_FACTORY = 9,  /* reaper -> caller, before the start: the caller's
				      * end of the socket factory (SCM_RIGHTS), see below */
	REAPER_PUBLISH_SOCKET = 10,  /* on the factory, both ways: the caller asks; the
				      * reaper answers with a TCP socket made in the
				      * run's network namespace (SCM_RIGHTS), or value
				      * a negative errno */
	REAPER_CAPTURE_SOCKET = 11,  /* reaper -> caller, before the start: one of the
				      * sockets of transparent egress (SCM_RIGHTS) */
	REAPER_CHANGES_LAYERS = 12,  /* reaper -> caller, before the start: the tmpfs of
				      * a bounded change set's upper layers, detached
				      * (SCM_RIGHTS); the reaper keeps no copy */
	REAPER_UNIX_DIAG = 13,	     /* reaper -> caller, before the start: a sock_diag
				      * socket of the run's network namespace
				      * (SCM_RIGHTS), for the broker (plan.h) */
};

struct reaper_message {
	int32_t kind;
	int32_t value;
};

/*
 * One message ready for sendmsg, with a descriptor riding along
 * (SCM_RIGHTS) when one is given. Filled in place (iov points into it),
 * by the reaper in its raw phase and by the target before exec alike.
 */
struct reaper_outgoing {
	struct reaper_message m;
	struct iovec iov;
	struct msghdr mh;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
};
/* Fill o with kind and value, and fd (when >= 0) as its descriptor. */
void reaper_outgoing_fill(struct reaper_outgoing *o, int kind, int value, int fd);

/* What the caller keeps of a started reaper. */
struct reaper_handle {
	pid_t pid;
	int pidfd;       /* readable once the reaper, and so the run, is gone */
	int socket;      /* the caller's end of the run's socket */
	pid_t target;    /* the target's pid in the caller's PID namespace */
	int proxy_listener;   /* received before the start, or -1 */
	int seccomp_listener; /* likewise */
	/*
	 * Published ports: a socket to the reaper, which answers each
	 * REAPER_PUBLISH_SOCKET with an unconnected TCP socket of the run's
	 * network namespace (publish.c connects it to the run's listener); -1.
	 */
	int publish_factory;
	int capture_fds[PLAN_CAPTURE_PORTS + 1]; /* likewise: transparent egress */
	int changes_layers; /* likewise: a bounded change set's tmpfs (plan.h), or -1 */
	int unix_diag;      /* likewise: REAPER_UNIX_DIAG's socket, or -1 */
	size_t n_capture_fds;
	void *stacks;    /* the reaper's and the target's stacks */
	size_t stacks_size;
	bool lost;        /* REAPER_LOST came */
	int tmpdir_left;  /* REAPER_TMPDIR_LEFT's value, or 0 */
};

/*
 * What the reaper is started with: the plan, and the run's private
 * temporary directory, granted tmp_rights. Tier T2: the reaper makes it
 * (tmp_name in tmp_base) and removes it; tmp_name NULL for none. Tier
 * T1: tmp_mount, when not NULL, is the directory it covers with a tmpfs
 * of the run's own in the run's mount namespace (nothing on the host), and
 * shm_mount, when not NULL, the shared memory directory it covers so.
 */
struct reaper_start {
	struct plan *plan;
	const char *tmp_base;
	const char *tmp_name;
	const char *tmp_mount;
	const char *shm_mount;
	uint64_t tmp_rights;
	/* T1: a devpts of the run's own over pts_dir (and its ptmx over pts_ptmx), or NULL. */
	const char *pts_dir;
	const char *pts_ptmx;
	/* The user namespace was entered, made ahead with its maps (ns_ahead.h): none to write. */
	bool userns_entered;
};

/*
 * Start a run's reaper for start->plan and learn whether the target
 * started: 0 when it execs, 1 when a step failed (the record in *failure;
 * the reaper is waited for and nothing is left), or a negative errno with
 * err filled. status_read is the read end of the status pipe whose write
 * end plan->status_fd holds; the plan's descriptors are closed on return.
 */
int reaper_launch(const struct reaper_start *start, int status_read, struct reaper_handle *out,
		  struct child_failure *failure, struct procage_error *err);

/*
 * The reaper process's entry point (reaper.c), for reaper_launch's clone:
 * arg is the struct reaper_start.
 */
int reaper_main(void *arg);

/* Wait until the reaper has exited; release its stacks and descriptors. */
void reaper_handle_release(struct reaper_handle *h);

/*
 * Read the reaper's final report: 0 with *status (h->lost and
 * h->tmpdir_left say what it could not do), -EAGAIN when it has not come
 * yet (only when nonblocking), -ECHILD when the reaper ended without one.
 */
int reaper_status_read(struct reaper_handle *h, bool nonblocking, int *status);

/* Send a command; -ESRCH when the reaper no longer reads. */
int reaper_command(struct reaper_handle *h, enum reaper_message_kind kind, int value);

#endif
