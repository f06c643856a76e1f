/*
 * Parked network calls: see broker_net_wait.h. Everything here runs on
 * the supervisor's thread but the connect threads, which own what they
 * use (their own descriptors and copy of the address) and touch nothing
 * of the supervisor's: one that never returns (the cage cleared
 * O_NONBLOCK between our setting and the connect, and the listener it
 * reaches never accepts) is left behind, holding its descriptors only.
 */
#include "broker_net_wait.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "broker_io.h"
#include "cage/net_admission.h"

/* Connect threads alive at once in this process, stuck ones included. */
#define BROKER_CONNECT_THREADS_MAX 16

static int connect_threads;

enum wait_kind { WAIT_SEND, WAIT_CONNECT_THREAD, WAIT_CONNECTING };

struct broker_wait {
	enum wait_kind kind;
	uint64_t id;
	pid_t tid;
	int sock; /* ours */
	int done; /* WAIT_CONNECT_THREAD: the thread's report comes here */
	long long deadline;
	struct net_admission *admission;
	uint16_t admitted;
	/* WAIT_SEND: the copies, in one allocation after the structure. */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	int flags;
	uint64_t msg_len_at;
	char *data, *control;
	size_t data_len, control_len;
	int n_passed;
	int passed[];
};

/* What a connect thread owns. */
struct connect_job {
	int sock, held, done;
	struct sockaddr_storage addr;
	socklen_t addr_len;
};

struct connect_report {
	int rc;	       /* 0 or a negative errno */
	bool blocking; /* the caller's socket was blocking when the thread looked */
};

long long broker_wait_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* The caller's own SO_SNDTIMEO may only shorten the broker's bound, read once. */
long long broker_wait_deadline(int sock)
{
	struct timeval tv;
	socklen_t len = sizeof tv;
	long long wait = BROKER_NET_WAIT_MS;
	if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, &len) == 0 && tv.tv_sec >= 0 &&
	    (tv.tv_sec || tv.tv_usec)) {
		long long own = tv.tv_sec * 1000LL + (tv.tv_usec + 999) / 1000;
		if (own < wait)
			wait = own;
	}
	return broker_wait_now_ms() + wait;
}

static ssize_t send_now(int sock, const struct broker_send *s)
{
	struct iovec iov = {(void *)s->data, s->data_len};
	struct msghdr m = {.msg_name = s->addr_len ? (void *)s->addr : NULL,
			   .msg_namelen = s->addr_len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = s->control_len ? (void *)s->control : NULL,
			   .msg_controllen = s->control_len};
	/* Never waiting, whatever the file's flags say; no SIGPIPE for our process. */
	return sendmsg(sock, &m, s->flags | MSG_DONTWAIT | MSG_NOSIGNAL);
}

void broker_send_answer(int listener, uint64_t id, pid_t tid, uint64_t msg_len_at, long sent)
{
	if (sent < 0) {
		broker_answer_result(listener, id, (int)-sent);
		return;
	}
	if (!msg_len_at) {
		broker_answer_value(listener, id, sent);
		return;
	}
	/* sendmmsg: one message at a time, its length where the caller reads it. */
	unsigned int len = (unsigned int)sent;
	struct iovec local = {&len, sizeof len},
		     remote = {(void *)(uintptr_t)msg_len_at, sizeof len};
	(void)process_vm_writev(tid, &local, 1, &remote, 1, 0);
	broker_answer_value(listener, id, 1);
}

static void wait_free(struct broker_waits *w, int i)
{
	struct broker_wait *p = w->slot[i];
	if (!p)
		return;
	if (p->sock >= 0)
		close(p->sock);
	if (p->done >= 0)
		close(p->done);
	for (int k = 0; k < p->n_passed; k++)
		close(p->passed[k]);
	w->held_fds -= p->n_passed;
	free(p);
	w->slot[i] = NULL;
}

/* A free slot, after dropping the calls whose callers no longer wait; or -1. */
static int slot_free(struct broker_waits *w, int listener)
{
	for (int i = 0; i < BROKER_WAITS_MAX; i++)
		if (!w->slot[i])
			return i;
	for (int i = 0; i < BROKER_WAITS_MAX; i++)
		if (!broker_id_valid(listener, w->slot[i]->id))
			wait_free(w, i);
	for (int i = 0; i < BROKER_WAITS_MAX; i++)
		if (!w->slot[i])
			return i;
	return -1;
}

long broker_send_or_park(struct broker_waits *w, int listener, uint64_t id, pid_t tid, int sock,
			 const struct broker_send *send, bool blocking, int *passed, int n_passed)
{
	ssize_t sent = send_now(sock, send);
	if (sent >= 0)
		return (long)sent;
	if ((errno != EAGAIN && errno != EWOULDBLOCK) || !blocking)
		return -errno;
	int i = slot_free(w, listener);
	if (i < 0 || w->held_fds + n_passed > BROKER_WAITS_FDS_MAX)
		return -EAGAIN;
	struct broker_wait *p = calloc(1, sizeof *p + (size_t)n_passed * sizeof(int) +
					      send->data_len + send->control_len);
	int dup_sock = p ? fcntl(sock, F_DUPFD_CLOEXEC, 0) : -1;
	if (dup_sock < 0) {
		free(p);
		return -EAGAIN;
	}
	*p = (struct broker_wait){.kind = WAIT_SEND,
				  .id = id,
				  .tid = tid,
				  .sock = dup_sock,
				  .done = -1,
				  .deadline = broker_wait_deadline(sock),
				  .addr_len = send->addr_len,
				  .flags = send->flags,
				  .msg_len_at = send->msg_len_at,
				  .data_len = send->data_len,
				  .control_len = send->control_len,
				  .n_passed = n_passed};
	if (send->addr_len)
		memcpy(&p->addr, send->addr, send->addr_len);
	memcpy(p->passed, passed, (size_t)n_passed * sizeof(int));
	p->data = (char *)(p->passed + n_passed);
	p->control = p->data + send->data_len;
	memcpy(p->data, send->data, send->data_len);
	memcpy(p->control, send->control, send->control_len);
	w->held_fds += n_passed;
	w->slot[i] = p;
	return BROKER_NET_LATER;
}

static void *connect_thread(void *arg)
{
	struct connect_job *job = arg;
	struct connect_report r = {0, false};
	int fl = fcntl(job->sock, F_GETFL);
	r.blocking = fl >= 0 && !(fl & O_NONBLOCK);
	if (r.blocking)
		(void)fcntl(job->sock, F_SETFL, fl | O_NONBLOCK);
	r.rc = connect(job->sock, (struct sockaddr *)&job->addr, job->addr_len) == 0 ? 0 : -errno;
	if (r.blocking) {
		/* The caller's blocking socket back as it was, whatever it did meanwhile. */
		int now = fcntl(job->sock, F_GETFL);
		if (now >= 0)
			(void)fcntl(job->sock, F_SETFL, now & ~O_NONBLOCK);
	}
	/* The supervisor may have given up on us: then nobody reads, and nothing is signalled. */
	(void)send(job->done, &r, sizeof r, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(job->done);
	close(job->sock);
	if (job->held >= 0)
		close(job->held);
	free(job);
	__atomic_sub_fetch(&connect_threads, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Start the thread of job; false (job untouched) when it cannot be. */
static bool connect_thread_start(struct connect_job *job)
{
	pthread_attr_t attr;
	pthread_t thread;
	if (__atomic_add_fetch(&connect_threads, 1, __ATOMIC_RELAXED) >
	    BROKER_CONNECT_THREADS_MAX) {
		__atomic_sub_fetch(&connect_threads, 1, __ATOMIC_RELAXED);
		return false;
	}
	/* Signals stay blocked: the supervisor's mask is inherited. */
	bool ok = pthread_attr_init(&attr) == 0;
	if (ok) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		ok = pthread_create(&thread, &attr, connect_thread, job) == 0;
		pthread_attr_destroy(&attr);
	}
	if (!ok)
		__atomic_sub_fetch(&connect_threads, 1, __ATOMIC_RELAXED);
	return ok;
}

long broker_connect_park(struct broker_waits *w, uint64_t id, int sock,
			 const struct sockaddr_storage *addr, socklen_t addr_len, int *held,
			 struct net_admission *admission, uint16_t admitted)
{
	int pair[2] = {-1, -1};
	int i = -1;
	for (int k = 0; k < BROKER_WAITS_MAX && i < 0; k++)
		if (!w->slot[k])
			i = k;
	struct broker_wait *p = i >= 0 ? calloc(1, sizeof *p) : NULL;
	struct connect_job *job = p ? calloc(1, sizeof *job) : NULL;
	if (!job || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
		goto busy;
	*p = (struct broker_wait){.kind = WAIT_CONNECT_THREAD,
				  .id = id,
				  .sock = fcntl(sock, F_DUPFD_CLOEXEC, 0),
				  .done = pair[0],
				  .deadline = broker_wait_deadline(sock),
				  .admission = admission,
				  .admitted = admitted};
	*job = (struct connect_job){.sock = fcntl(sock, F_DUPFD_CLOEXEC, 0),
				    .held = *held,
				    .done = pair[1],
				    .addr_len = addr_len};
	memcpy(&job->addr, addr, addr_len);
	if (p->sock < 0 || job->sock < 0 || !connect_thread_start(job)) {
		if (job->sock >= 0)
			close(job->sock);
		if (p->sock >= 0)
			close(p->sock);
		goto busy;
	}
	*held = -1; /* the thread's now: the address names it */
	w->slot[i] = p;
	return BROKER_NET_LATER;
busy:
	if (pair[0] >= 0) {
		close(pair[0]);
		close(pair[1]);
	}
	free(job);
	free(p);
	return -EAGAIN;
}

int broker_waits_fds(const struct broker_waits *w, struct pollfd *fds, long long *deadline)
{
	int n = 0;
	*deadline = -1;
	for (int i = 0; i < BROKER_WAITS_MAX; i++) {
		const struct broker_wait *p = w->slot[i];
		if (!p)
			continue;
		if (p->kind == WAIT_CONNECT_THREAD)
			fds[n++] = (struct pollfd){p->done, POLLIN, 0};
		else
			fds[n++] = (struct pollfd){p->sock, POLLOUT, 0};
		if (*deadline < 0 || p->deadline < *deadline)
			*deadline = p->deadline;
	}
	return n;
}

static void connect_answer(struct broker_waits *w, int i, int listener, int rc)
{
	struct broker_wait *p = w->slot[i];
	if (rc < 0 && rc != -EINPROGRESS && p->admitted)
		net_admission_drop(p->admission, p->admitted);
	broker_answer_result(listener, p->id, -rc);
	wait_free(w, i);
}

/* The thread's report: answered, or the connection waited for. */
static void connect_reported(struct broker_waits *w, int i, int listener)
{
	struct broker_wait *p = w->slot[i];
	struct connect_report r;
	if (recv(p->done, &r, sizeof r, MSG_DONTWAIT) != (ssize_t)sizeof r)
		r = (struct connect_report){-EIO, false};
	if (r.rc == -EINPROGRESS && r.blocking) {
		close(p->done);
		p->done = -1;
		p->kind = WAIT_CONNECTING;
		return;
	}
	connect_answer(w, i, listener, r.rc);
}

static void resume_one(struct broker_waits *w, int i, int listener, short revents, long long now)
{
	struct broker_wait *p = w->slot[i];
	if (revents && p->kind == WAIT_CONNECT_THREAD) {
		connect_reported(w, i, listener);
	} else if (revents && p->kind == WAIT_CONNECTING) {
		int e = 0;
		socklen_t len = sizeof e;
		if (getsockopt(p->sock, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
			e = errno;
		connect_answer(w, i, listener, -e);
	} else if (revents) {
		if (!broker_id_valid(listener, p->id)) {
			wait_free(w, i); /* nothing sent for a caller gone */
			return;
		}
		struct broker_send s = {p->data,  p->data_len, p->control, p->control_len,
					&p->addr, p->addr_len, p->flags,   p->msg_len_at};
		ssize_t sent = send_now(p->sock, &s);
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && now < p->deadline)
			return;
		broker_send_answer(listener, p->id, p->tid, p->msg_len_at,
				   sent < 0 ? -errno : sent);
		wait_free(w, i);
	}
	p = w->slot[i];
	if (!p || now < p->deadline)
		return;
	/*
	 * Due: a send answers as a send timeout would; a connect is
	 * abandoned (shut down, which wakes a thread waiting in it on a TCP
	 * socket) and answered as a connect timeout would be.
	 */
	if (p->kind == WAIT_SEND) {
		broker_send_answer(listener, p->id, p->tid, p->msg_len_at, -EAGAIN);
		wait_free(w, i);
		return;
	}
	(void)shutdown(p->sock, SHUT_RDWR);
	connect_answer(w, i, listener, -ETIMEDOUT);
}

void broker_waits_resume(struct broker_waits *w, int listener, const struct pollfd *fds, int n)
{
	long long now = broker_wait_now_ms();
	int k = 0;
	for (int i = 0; i < BROKER_WAITS_MAX; i++) {
		if (!w->slot[i])
			continue;
		short revents = k < n ? fds[k].revents : 0;
		k++;
		resume_one(w, i, listener, revents, now);
	}
}

void broker_waits_clear(struct broker_waits *w)
{
	for (int i = 0; i < BROKER_WAITS_MAX; i++)
		wait_free(w, i);
}
