/*
 * The network broker's calls that cannot be answered at once: a send to
 * a socket whose buffer is full, a connect still under way. The broker
 * never waits for them on the supervisor's thread: a call is parked here
 * with the broker's own deadline, the supervisor polls its socket beside
 * the seccomp listener, and it is answered when the socket is ready or
 * the deadline has come, while every other call of the run is answered
 * meanwhile.
 *
 * Nothing the cage can change bounds a wait: the socket is the cage's
 * (pidfd_getfd shares its open file, so O_NONBLOCK and SO_SNDTIMEO are
 * the cage's to flip at any moment), so every send is MSG_DONTWAIT, and a
 * connect, whose waiting only the file's O_NONBLOCK decides, is made on a
 * thread of its own that may block without holding anything of the
 * supervisor's.
 */
#ifndef PROCAGE_BROKER_NET_WAIT_H
#define PROCAGE_BROKER_NET_WAIT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct net_admission;

/* Calls parked at once, and the descriptors parked sends may hold in all. */
#define BROKER_WAITS_MAX 32
#define BROKER_WAITS_FDS_MAX 256
/* The longest a brokered send or connect waits (the caller's SO_SNDTIMEO may shorten it). */
#define BROKER_NET_WAIT_MS 30000

struct broker_wait;

struct broker_waits {
	struct broker_wait *slot[BROKER_WAITS_MAX];
	int held_fds; /* descriptors the parked sends pass */
};

/* The answer is given later, by broker_waits_resume. */
#define BROKER_NET_LATER (-1000000L)

/* A send, as the broker performs it: its own copies. */
struct broker_send {
	const void *data;
	size_t data_len;
	const void *control;
	size_t control_len;
	const struct sockaddr_storage *addr;
	socklen_t addr_len;
	int flags;	     /* the caller's, MSG_DONTWAIT and MSG_NOSIGNAL added */
	uint64_t msg_len_at; /* sendmmsg: where the caller's msg_len is; else 0 */
};

/* The caller's wait for socket sock: now plus the broker's bound or its SO_SNDTIMEO. */
long long broker_wait_deadline(int sock);
long long broker_wait_now_ms(void);

/*
 * Send without waiting: the byte count or a negative errno. A blocking
 * caller's send that finds the socket full (-EAGAIN) is parked: its
 * copies and the descriptors passed[0..n_passed) (taken over) are kept,
 * and BROKER_NET_LATER returned; or -EAGAIN when no room is left.
 */
long broker_send_or_park(struct broker_waits *w, int listener, uint64_t id, pid_t tid, int sock,
			 const struct broker_send *send, bool blocking, int *passed, int n_passed);
/* The answer of a send that sent `sent` bytes or failed (negative). */
void broker_send_answer(int listener, uint64_t id, pid_t tid, uint64_t msg_len_at, long sent);

/*
 * Connect sock (a stream socket, ours) to addr on a thread of its own,
 * O_NONBLOCK set meanwhile; held (an O_PATH descriptor the address names
 * as /proc/self/fd/N, or -1) is taken over. The call is parked: the
 * answer comes when the thread reports, the connection is made, or the
 * deadline comes. admitted (a port the proxy admits, or 0) is dropped from
 * admission if the connect fails. BROKER_NET_LATER or a negative errno.
 */
long broker_connect_park(struct broker_waits *w, uint64_t id, int sock,
			 const struct sockaddr_storage *addr, socklen_t addr_len, int *held,
			 struct net_admission *admission, uint16_t admitted);

/*
 * The descriptors to poll beside the listener (at most BROKER_WAITS_MAX)
 * in fds, their count returned, and the nearest deadline (or -1).
 */
int broker_waits_fds(const struct broker_waits *w, struct pollfd *fds, long long *deadline);
/* After the poll: answer what is ready or due, with fds as filled. */
void broker_waits_resume(struct broker_waits *w, int listener, const struct pollfd *fds, int n);
/* Drop every parked call (the run has ended): nothing is answered. */
void broker_waits_clear(struct broker_waits *w);

#endif
