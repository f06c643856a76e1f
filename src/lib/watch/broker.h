/*
 * The broker (tier T2): the supervisor's answer to the entry calls of a
 * cage with zones (broker_zones.h). For a call aimed at a zone, or at a
 * tree the broker made in one during the run, it checks the name and
 * performs the call itself, on its own copy of the arguments and relative
 * to its own descriptor of the directory, and answers with the result. It
 * answers CONTINUE only for calls it does not perform: the kernel then
 * runs them under Landlock exactly as if there were no broker.
 */
#ifndef PROCAGE_BROKER_H
#define PROCAGE_BROKER_H

#include <linux/seccomp.h>

#include "broker_net.h"
#include "cage/broker_zones.h"

struct broker;

/*
 * A broker with its own copy of zones (entry calls), answering the
 * network calls under net (watch/broker_net.c). 0 or -ENOMEM.
 */
int broker_new(const struct broker_zones *zones, const struct broker_net_config *net,
	       struct broker **out);
void broker_free(struct broker *b);
/*
 * Record the refusals the broker judges by content (a git config change)
 * in denials, for the after-run explanation.
 */
struct denial_store;
void broker_explain_to(struct broker *b, struct denial_store *denials);

/* Is call (by name) one the broker answers? */
bool broker_handles(const char *call);
/* Answer the pending notification n, a call broker_handles, on listener. */
void broker_answer(struct broker *b, int listener, const struct seccomp_notif *n, const char *call);

/*
 * Tier T2: open a reading caller's own /proc/self entries for it
 * (broker_proc.c); every open reaches the broker in such a run.
 */
void broker_proc_self_on(struct broker *b);
/*
 * Answer n if it is an open that reads one of the caller's own /proc
 * entries (true); false for every other call, left to the others.
 */
bool broker_proc_answer(struct broker *b, int listener, const struct seccomp_notif *n,
			const char *call);
/*
 * Tier T2 with own_proc: show the run's processes to ps and top
 * (broker_proc_run.c). The run's reaper is reaper (a pidfd of it is
 * duplicated); the listings are made in a private directory in base,
 * which must lie outside every one of the cage's grants and the broker's
 * zones. 0, or a negative errno: then there is no listing, and /proc
 * stays Landlock's to refuse.
 */
struct landlock_grant;
int broker_proc_run_on(struct broker *b, pid_t reaper, int reaper_pidfd, const char *base,
		       const struct landlock_grant *grants, size_t n_grants);
/* Answer an open of /proc with a listing of the run's processes (true). */
bool broker_proc_run_listing(struct broker *b, int listener, uint64_t id, const char *path,
			     int flags);
/* Answer an open of /proc/N/FILE of a process N of the run, FILE a listed one (true). */
bool broker_proc_run_entry(struct broker *b, int listener, uint64_t id, const char *path,
			   int flags);
/*
 * Is path /proc/N/FILE, /proc/N/task or /proc/N/task/T/FILE (N above 1
 * and T numbers, FILE stat, status, statm or cmdline)? N in *pid, and
 * the part below /proc/N, rebuilt from the names checked, in rest (size
 * bytes). No other form: no "." or "..", no link. Whether N is the run's
 * is for the caller to decide.
 */
bool broker_proc_member_entry(const char *path, pid_t *pid, char *rest, size_t size);
/* Remove the listings and forget them (broker_free does). */
void broker_proc_run_end(struct broker *b);
/*
 * Tier T2: make the run's own POSIX semaphores in /dev/shm for it
 * (broker_shm.c). 0, or -ENOMEM; a host without a tmpfs there gets none.
 */
int broker_shm_on(struct broker *b);
/* Answer n if it makes, links, opens or removes one of the run's own (true). */
bool broker_shm_answer(struct broker *b, int listener, const struct seccomp_notif *n,
		       const char *call);
/* Remove what the run left of its own there, and forget it (broker_free does). */
void broker_shm_end(struct broker *b);

/*
 * Tier T2: open for the caller the terminal end (/dev/pts/N) of a
 * pseudo-terminal whose master it holds (broker_pty.c).
 */
void broker_pty_on(struct broker *b);
/* Answer n if it opens such a terminal end (true). */
bool broker_pty_answer(struct broker *b, int listener, const struct seccomp_notif *n,
		       const char *call);

/*
 * The part of path (absolute) below the directory of the caller's own
 * process, numbered own_tgid (own_tid its thread's, both as the caller
 * numbers them), rebuilt from checked names only, in rest (size bytes);
 * *thread says it is below the thread's directory (task/TID). False: not
 * one of the caller's own entries the broker opens for it.
 */
bool broker_proc_own_entry(const char *path, long own_tgid, long own_tid, char *rest,
			   size_t size, bool *thread);
/*
 * Is call one the broker_reads variants send to b only for the caller's
 * own /proc entries and semaphores (any open, the entry calls)?
 */
bool broker_proc_sent(const struct broker *b, const char *call);

/*
 * The calls parked until their socket is ready (broker_net_wait.h): the
 * descriptors the supervisor polls beside its listener (at most
 * BROKER_WAITS_MAX), with the nearest deadline (or -1); after the poll,
 * what is ready or due is answered.
 */
struct pollfd;
int broker_poll_fds(const struct broker *b, struct pollfd *fds, long long *deadline);
void broker_poll_resume(struct broker *b, int listener, const struct pollfd *fds, int n);

#endif
