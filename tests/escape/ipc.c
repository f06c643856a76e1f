/*
 * System V IPC of host processes, and POSIX message queues. Their objects
 * are found by key, id or name and guarded only by their mode bits, which
 * the same user passes. On tier T1 the run has an IPC namespace of its
 * own, where the host's objects do not exist; on tier T2 (and wherever
 * the run shares the host's IPC namespace) the filter refuses every SysV
 * and message queue call. POSIX shared memory is files in /dev/shm: on
 * tier T1 the run has a /dev/shm of its own. The test makes 0600 segments
 * holding a secret and queues holding a message; judged from outside: the
 * segments' text, the queues' message counts, what exists on the host, what
 * the probe printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <unistd.h>

#include "escape.h"

#define IPC_SECRET "ipc-secret-of-a-host-process"

struct host_ipc {
	int shm_id, msg_id;
	key_t shm_key, msg_key;
	char *segment;
};

/* A key of our own: the first free one from a value this process picks. */
static int make_object(bool shm, key_t *key)
{
	for (unsigned i = 0; i < 64; i++) {
		*key = (key_t)(0x70c40000u ^ ((unsigned)getpid() << 6) ^ (shm ? 0 : 0x8000u) ^ i);
		int id = shm ? shmget(*key, 4096, IPC_CREAT | IPC_EXCL | 0600)
			     : msgget(*key, IPC_CREAT | IPC_EXCL | 0600);
		if (id >= 0 || errno != EEXIST)
			return id;
	}
	return -1;
}

static bool host_ipc_make(const struct tier *t, struct host_ipc *h)
{
	struct {
		long type;
		char text[64];
	} m = {1, IPC_SECRET};
	h->shm_id = make_object(true, &h->shm_key);
	h->msg_id = make_object(false, &h->msg_key);
	h->segment = h->shm_id >= 0 ? shmat(h->shm_id, NULL, 0) : (void *)-1;
	if (h->segment == (void *)-1)
		h->segment = NULL;
	if (h->segment)
		snprintf(h->segment, 4096, "%s", IPC_SECRET);
	return fixture(t,
		       h->segment && h->msg_id >= 0 &&
			   msgsnd(h->msg_id, &m, sizeof IPC_SECRET, IPC_NOWAIT) == 0,
		       "ipc: a 0600 segment and a queue with a message (%s)", strerror(errno));
}

static void host_ipc_remove(struct host_ipc *h)
{
	if (h->segment)
		shmdt(h->segment);
	if (h->shm_id >= 0)
		shmctl(h->shm_id, IPC_RMID, NULL);
	if (h->msg_id >= 0)
		msgctl(h->msg_id, IPC_RMID, NULL);
}

/* The secret back in the segment, and exactly one message on the queue. */
static bool host_ipc_reset(struct host_ipc *h)
{
	struct {
		long type;
		char text[256];
	} m;
	while (msgrcv(h->msg_id, &m, sizeof m.text, 0, IPC_NOWAIT) >= 0)
		;
	snprintf(h->segment, 4096, "%s", IPC_SECRET);
	m.type = 1;
	snprintf(m.text, sizeof m.text, "%s", IPC_SECRET);
	return msgsnd(h->msg_id, &m, sizeof IPC_SECRET, IPC_NOWAIT) == 0;
}

static unsigned long queued(const struct host_ipc *h)
{
	struct msqid_ds ds;
	return msgctl(h->msg_id, IPC_STAT, &ds) == 0 ? (unsigned long)ds.msg_qnum : 0;
}

/*
 * Refused by the filter, or on T1 (an IPC namespace of the run's own) not
 * there at all: ENOENT for a key, EINVAL for an id.
 */
static bool out_of_reach(const struct tier *t, const struct caged_result *r)
{
	if (refused(r))
		return true;
	return tier_is_t1(t) && r->how == CAGED_EXITED && r->code == PROBE_ERROR &&
	       (strstr(r->err, "ENOENT") || strstr(r->err, "EINVAL"));
}

void r43_host_sysv_objects_are_out_of_reach(const struct tier *t)
{
	struct host_ipc h = {-1, -1, 0, 0, NULL};
	char shm_key[32], shm_id[32], msg_key[32], msg_id[32];
	struct caged_ws *ws = workspace(t, "ipc");
	if (!ws || cage_refused_here(t, ws, "ipc") || !host_ipc_make(t, &h))
		goto out;
	snprintf(shm_key, sizeof shm_key, "key:%d", (int)h.shm_key);
	snprintf(shm_id, sizeof shm_id, "id:%d", h.shm_id);
	snprintf(msg_key, sizeof msg_key, "key:%d", (int)h.msg_key);
	snprintf(msg_id, sizeof msg_id, "id:%d", h.msg_id);

	struct caged_result r = run_caged(ws, NULL, "shm-read", shm_key, NULL);
	check(t, out_of_reach(t, &r) && !strstr(r.out, IPC_SECRET), &r,
	      "ipc: a host segment found by its key cannot be read");
	r = run_caged(ws, NULL, "shm-read", shm_id, NULL);
	check(t, out_of_reach(t, &r) && !strstr(r.out, IPC_SECRET), &r,
	      "ipc: a host segment attached by its id cannot be read");
	r = run_caged(ws, NULL, "shm-write", shm_id, "overwritten-from-the-cage", NULL);
	check(t, out_of_reach(t, &r) && strcmp(h.segment, IPC_SECRET) == 0, &r,
	      "ipc: a host segment cannot be written");
	r = run_caged(ws, NULL, "msg-recv", msg_key, NULL);
	check(t, out_of_reach(t, &r) && queued(&h) == 1 && !strstr(r.out, IPC_SECRET), &r,
	      "ipc: a host queue's message cannot be taken (%lu queued)", queued(&h));
	r = run_caged(ws, NULL, "msg-send", msg_id, "planted", NULL);
	check(t, out_of_reach(t, &r) && queued(&h) == 1, &r,
	      "ipc: nothing can be put on a host queue (%lu queued)", queued(&h));

	/* exec mode: no reaper, no PID namespace; on T1 an IPC namespace all the same. */
	struct procage_error err;
	char why[600] = "";
	if (fixture(t,
		    procage_policy_set_private_tmp(ws->policy, false, &err) == 0 &&
			caged_ws_hold_cage(ws, why, sizeof why) == 0,
		    "ipc: a cage for exec mode (%s)", why)) {
		const char *write_argv[] = {"shm-write", shm_id, "overwritten-in-exec-mode", NULL};
		const char *recv_argv[] = {"msg-recv", msg_key, NULL};
		r = run_exec_mode(ws, write_argv);
		struct caged_result r2 = run_exec_mode(ws, recv_argv);
		check(t,
		      out_of_reach(t, &r) && out_of_reach(t, &r2) &&
			  strcmp(h.segment, IPC_SECRET) == 0 && queued(&h) == 1,
		      &r,
		      "ipc: in exec mode the host segment cannot be written nor its queue read");
		caged_ws_drop_cage(ws);
	}
	/* The controls start from the fixture's state whatever the attempts did. */
	if (!fixture(t, host_ipc_reset(&h), "ipc: the segment and the queue reset"))
		goto out;
	r = run_uncaged(ws, NULL, "shm-read", shm_key, "then", "shm-read", shm_id, "then",
			"msg-send", msg_id, "from-outside", NULL);
	check(t, did_it(&r) && strstr(r.out, IPC_SECRET) && queued(&h) == 2, &r,
	      "ipc: control: without the cage the same user reads the segment and sends to the "
	      "queue");
	r = run_uncaged(ws, NULL, "msg-recv", msg_key, NULL);
	check(t, did_it(&r) && strstr(r.out, IPC_SECRET) && queued(&h) == 1, &r,
	      "ipc: control: without the cage the same user takes the queue's message");
out:
	host_ipc_remove(&h);
	caged_ws_free(ws);
}

/*
 * The run's own SysV objects: on T1 they work (its IPC namespace is its
 * own, so programs that use SysV shared memory run); on T2 the calls are
 * refused like the rest.
 */
void r43_the_runs_own_sysv_objects(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "ipc");
	if (!ws || cage_refused_here(t, ws, "ipc"))
		goto out;
	struct caged_result r = run_caged(ws, NULL, "shm-private", "own-segment", NULL);
	if (tier_is_t1(t))
		check(t, did_it(&r) && strstr(r.out, "own-segment"), &r,
		      "ipc: control: on T1 a segment of the run's own works");
	else
		check(t, refused(&r) && !strstr(r.out, "own-segment"), &r,
		      "ipc: on T2 even a private segment is refused (EPERM)");
	r = run_uncaged(ws, NULL, "shm-private", "own-segment", NULL);
	check(t, did_it(&r) && strstr(r.out, "own-segment"), &r,
	      "ipc: control: without the cage a private segment works");
out:
	caged_ws_free(ws);
}

/* The host's POSIX queue NAME: how many messages it holds, or -1 when it is not there. */
static long mq_held(const char *name)
{
	struct mq_attr attr;
	mqd_t q = mq_open(name, O_RDONLY | O_NONBLOCK);
	if (q == (mqd_t)-1)
		return -1;
	long n = mq_getattr(q, &attr) == 0 ? attr.mq_curmsgs : -1;
	mq_close(q);
	return n;
}

/* A 0600 queue of this test's own, holding one message. */
static bool mq_make(const struct tier *t, const char *name)
{
	struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
	mq_unlink(name); /* a queue left by an earlier test of this pid */
	mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_WRONLY, 0600, &attr);
	bool ok = q != (mqd_t)-1 && mq_send(q, IPC_SECRET, sizeof IPC_SECRET, 0) == 0;
	if (q != (mqd_t)-1)
		mq_close(q);
	return fixture(t, ok, "ipc: a 0600 POSIX queue %s with a message (%s)", name,
		       strerror(errno));
}

/*
 * POSIX message queues live in the IPC namespace too, and Landlock judges
 * only the open of one: the queue's removal, and its making, which comes
 * before the open, were left to the mode bits on tier T2.
 */
void r43_host_posix_queues_are_out_of_reach(const struct tier *t)
{
	char held[64], made[64];
	snprintf(held, sizeof held, "/procage-r43-%d", (int)getpid());
	snprintf(made, sizeof made, "/procage-r43-%d-made", (int)getpid());
	mq_unlink(made);
	struct caged_ws *ws = workspace(t, "ipc");
	if (!ws || cage_refused_here(t, ws, "ipc") || !mq_make(t, held))
		goto out;

	struct caged_result r = run_caged(ws, NULL, "mq-recv", held, NULL);
	check(t, out_of_reach(t, &r) && mq_held(held) == 1 && !strstr(r.out, IPC_SECRET), &r,
	      "ipc: a host POSIX queue's message cannot be taken (%ld queued)", mq_held(held));
	r = run_caged(ws, NULL, "mq-unlink", held, NULL);
	check(t, out_of_reach(t, &r) && mq_held(held) == 1, &r,
	      "ipc: a host POSIX queue cannot be removed (%s)",
	      mq_held(held) < 0 ? "it is gone" : "it is there");
	r = run_caged(ws, NULL, "mq-create", made, NULL);
	check(t, out_of_reach(t, &r) && mq_held(made) < 0, &r,
	      "ipc: no POSIX queue is made in the host's namespace (%s)",
	      mq_held(made) < 0 ? "none is there" : "one is there");
	mq_unlink(made);

	struct procage_error err;
	char why[600] = "";
	if (fixture(t,
		    procage_policy_set_private_tmp(ws->policy, false, &err) == 0 &&
			caged_ws_hold_cage(ws, why, sizeof why) == 0,
		    "ipc: a cage for exec mode (%s)", why)) {
		const char *unlink_argv[] = {"mq-unlink", held, NULL};
		const char *create_argv[] = {"mq-create", made, NULL};
		r = run_exec_mode(ws, unlink_argv);
		struct caged_result r2 = run_exec_mode(ws, create_argv);
		check(t,
		      out_of_reach(t, &r) && out_of_reach(t, &r2) && mq_held(held) == 1 &&
			  mq_held(made) < 0,
		      &r, "ipc: in exec mode a host POSIX queue is neither removed nor made");
		mq_unlink(made);
		caged_ws_drop_cage(ws);
	}

	if (!fixture(t, mq_held(held) == 1 || mq_make(t, held), "ipc: the POSIX queue reset"))
		goto out;
	r = run_uncaged(ws, NULL, "mq-recv", held, "then", "mq-create", made, NULL);
	check(t, did_it(&r) && strstr(r.out, IPC_SECRET) && mq_held(held) == 0 && mq_held(made) == 0,
	      &r, "ipc: control: without the cage the same user takes the message and makes a queue");
	r = run_uncaged(ws, NULL, "mq-unlink", held, NULL);
	check(t, did_it(&r) && mq_held(held) < 0, &r,
	      "ipc: control: without the cage the same user removes the queue");
out:
	mq_unlink(held);
	mq_unlink(made);
	caged_ws_free(ws);
}

/* A 0600 POSIX shared memory segment of this test's own, holding the secret. */
static bool pshm_make(const struct tier *t, const char *name)
{
	shm_unlink(name); /* one left by an earlier test of this pid */
	int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	bool ok = fd >= 0 && write(fd, IPC_SECRET, sizeof IPC_SECRET - 1) ==
				     (ssize_t)(sizeof IPC_SECRET - 1);
	int e = errno;
	if (fd >= 0)
		close(fd);
	return fixture(t, ok, "ipc: a 0600 POSIX shared memory segment %s (%s)", name, strerror(e));
}

/* Is there a segment of that name in the host's /dev/shm? */
static bool pshm_there(const char *name)
{
	int fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * POSIX shared memory and semaphores are files in /dev/shm, one directory
 * for every program of the user: the run must reach none of the host's
 * segments and leave none there. On tier T1 it has a /dev/shm of its own,
 * where its segments work (Python's multiprocessing needs them); on tier
 * T2 nothing grants the host's.
 */
void r43_host_posix_shared_memory_is_out_of_reach(const struct tier *t)
{
	char held[64], made[64];
	bool t1 = tier_is_t1(t);
	snprintf(held, sizeof held, "/procage-r43-%d-shm", (int)getpid());
	snprintf(made, sizeof made, "/procage-r43-%d-shm-made", (int)getpid());
	shm_unlink(made);
	struct caged_ws *ws = workspace(t, "ipc");
	if (!ws || cage_refused_here(t, ws, "ipc") || !pshm_make(t, held))
		goto out;

	struct caged_result r = run_caged(ws, NULL, "pshm-read", held, NULL);
	check(t, out_of_reach(t, &r) && !strstr(r.out, IPC_SECRET), &r,
	      "ipc: a host POSIX shared memory segment cannot be read");
	r = run_caged(ws, NULL, "pshm-create", made, "then", "pshm-read", made, NULL);
	bool own = t1 ? did_it(&r) && strstr(r.out, "made") : out_of_reach(t, &r);
	check(t, own && !pshm_there(made), &r, "ipc: %s, and none is left in the host's /dev/shm (%s)",
	      t1 ? "the run's own segments work" : "no segment can be made",
	      pshm_there(made) ? "one is there" : "none is there");
	shm_unlink(made);

	/* Exec mode: T2 has no private temporary directory there. */
	struct procage_error err;
	char why[600] = "";
	if (fixture(t,
		    procage_policy_set_private_tmp(ws->policy, t1, &err) == 0 &&
			caged_ws_hold_cage(ws, why, sizeof why) == 0,
		    "ipc: a cage for exec mode (%s)", why)) {
		const char *read_argv[] = {"pshm-read", held, NULL};
		const char *create_argv[] = {"pshm-create", made, NULL};
		r = run_exec_mode(ws, read_argv);
		struct caged_result r2 = run_exec_mode(ws, create_argv);
		check(t,
		      out_of_reach(t, &r) && !strstr(r.out, IPC_SECRET) &&
			  (t1 ? did_it(&r2) : out_of_reach(t, &r2)) && !pshm_there(made),
		      &r, "ipc: in exec mode a host segment is not read and none is left");
		shm_unlink(made);
		caged_ws_drop_cage(ws);
	}

	r = run_uncaged(ws, NULL, "pshm-read", held, "then", "pshm-create", made, NULL);
	check(t, did_it(&r) && strstr(r.out, IPC_SECRET) && pshm_there(made), &r,
	      "ipc: control: without the cage the same user reads the segment and leaves one");
out:
	shm_unlink(held);
	shm_unlink(made);
	caged_ws_free(ws);
}
