/* Shared by broker.c and broker_ops.c: a call being answered. */
#ifndef PROCAGE_BROKER_INTERNAL_H
#define PROCAGE_BROKER_INTERNAL_H

#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "broker_net.h"
#include "broker_net_wait.h"
#include "broker_place.h"

enum broker_op {
	OP_OPEN,
	OP_OPENAT2,
	OP_MKDIR,
	OP_MKNOD,
	OP_UNLINK,
	OP_RENAME,
	OP_LINK,
	OP_SYMLINK,
	OP_TRUNCATE
};

/*
 * Each call's arguments by index (-1: absent; a missing dirfd is
 * AT_FDCWD, missing flags are fixed_flags). For OP_OPENAT2 flags is the
 * open_how pointer and mode its size; for OP_TRUNCATE mode is the length.
 */
struct broker_call {
	const char *name;
	enum broker_op op;
	int dirfd, path, dirfd2, path2, flags, mode, target;
	int fixed_flags;
};

struct broker_meta;
struct broker_proc_run;
struct denial_store;

struct broker {
	struct broker_state state;
	struct broker_meta *meta; /* the metadata broker (broker_meta.h), or NULL */
	struct denial_store *denials; /* refusals explained after the run, or NULL. Not owned */
	struct broker_net_config net;
	struct broker_net_scratch *net_scratch; /* with net only */
	struct broker_waits net_waits;		/* network calls answered later */
	bool proc_self; /* the caller's own /proc entries are opened for it (broker_proc.c) */
	struct broker_proc_run *proc_run; /* the run's processes listed (broker_proc_run.c), or NULL */
	struct broker_shm *shm; /* the run's own semaphores in /dev/shm (broker_shm.c), or NULL */
	bool pty; /* a held master's terminal end is opened for the caller (broker_pty.c) */
	/* The call being answered: its copied strings. */
	char path[PATH_MAX], path2[PATH_MAX], target[PATH_MAX];
	/*
	 * The directory part of the last first path found in a zone or a
	 * made tree, with its thread and dirfd (len 0: none): a call spelled
	 * the same goes to the full resolution without the early look, which
	 * would only say "maybe" again (a build writing its directory's
	 * files one after another). Only a look is skipped, never a check.
	 */
	struct {
		pid_t tid;
		int dirfd;
		size_t len;
		char dir[PATH_MAX];
	} last_place;
};

/* What answering a call needs of the directories its paths start from. */
enum request_need {
	NEED_NOTHING, /* answered CONTINUE without a look (a read, flags left to the kernel) */
	NEED_BASE,    /* the base descriptors (a listing) */
	NEED_PLACE,   /* where its names land (broker_place_resolve) */
};

/* What one call comes to. */
struct request {
	const struct broker_call *call;
	const struct seccomp_notif *n;
	pid_t tid;
	int listener;
	int dirfd; /* the first path's, as the call gave it (AT_FDCWD: none) */
	int base, base2; /* owned, or -1 */
	/* The early look found the path's directory outside the zones (broker_place_maybe). */
	bool elsewhere, elsewhere2;
	enum request_need need;
	int flags;
	mode_t mode;
	int64_t length;
	struct open_how how;
};

enum outcome_kind { OUT_CONTINUE, OUT_RESULT, OUT_FD };

struct outcome {
	enum outcome_kind kind;
	int err; /* OUT_RESULT: 0 or the errno */
	int fd;	 /* OUT_FD */
	bool cloexec;
};

/* broker_ops.c: perform the call, or say it is not the broker's. */
struct outcome broker_perform(struct broker *b, struct request *rq);

/* broker_ops.c, from the call and its flags as read (request_read). */
enum request_need broker_request_need(const struct broker *b, const struct request *rq);

/* A process or thread number as /proc names it: 1 to 10 decimal digits, nothing else. */
bool broker_all_digits(const char *s);

#endif
