/*
 * The network broker: see broker_net.h. One call at a time, on the
 * supervisor's thread, with memory bounded by struct broker_net_scratch.
 *
 * For each call: the caller's socket is taken (pidfd_getfd: the same open
 * socket, not a copy), the address and the data the call points at are
 * copied once, and the notification is checked to be still pending (a
 * thread id reused meanwhile is not the caller). Only then is anything
 * judged, on the copies, and the call is performed on the socket with
 * them. What the broker performs cannot be changed by the cage's other
 * threads: they can rewrite their memory, not our copy.
 *
 * The broker must not wait: while it waits no other call of the run is
 * answered. Nothing the cage can change decides how long it would: the
 * socket's open file is shared with the cage, which may flip O_NONBLOCK
 * or SO_SNDTIMEO between any two of the broker's steps. So every send is
 * MSG_DONTWAIT, and a connect of a stream socket is made on a thread of
 * its own; a call that has to wait (a blocking caller's send into a full
 * buffer, a connection under way) is parked with the broker's own
 * deadline and answered when its socket is ready (broker_net_wait.c).
 */
#include "broker_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "broker_io.h"
#include "broker_net_wait.h"
#include "broker_net_refusal.h"
#include "cage/net_admission.h"
#include "base/syscalls.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define X32_SYSCALL_BIT 0x40000000u
/* The most a brokered send carries: a whole UDP datagram. */
#define BROKER_NET_DATA_MAX 65536
#define BROKER_NET_CONTROL_MAX 1024
#define BROKER_NET_IOV_MAX 1024
/* Descriptors one brokered message may pass (the kernel's SCM_MAX_FD). */
#define BROKER_NET_FDS_MAX 253

struct broker_net_scratch {
	char data[BROKER_NET_DATA_MAX];
	char control[BROKER_NET_CONTROL_MAX];
	struct iovec iov[BROKER_NET_IOV_MAX];
};

enum net_call { NET_CONNECT, NET_BIND, NET_LISTEN, NET_SENDTO, NET_SENDMSG, NET_SENDMMSG };

static const struct {
	const char *name;
	enum net_call call;
} net_calls[] = {
	{ "connect", NET_CONNECT }, { "bind", NET_BIND },	  { "listen", NET_LISTEN },
	{ "sendto", NET_SENDTO },   { "sendmsg", NET_SENDMSG }, { "sendmmsg", NET_SENDMMSG },
};

static int net_call_find(const char *name)
{
	for (size_t i = 0; i < sizeof net_calls / sizeof *net_calls; i++)
		if (strcmp(net_calls[i].name, name) == 0)
			return (int)net_calls[i].call;
	return -1;
}

bool broker_net_handles(const char *call)
{
	return net_call_find(call) >= 0;
}

struct broker_net_scratch *broker_net_scratch_new(void)
{
	return calloc(1, sizeof(struct broker_net_scratch));
}

bool broker_net_is_loopback(const struct sockaddr_storage *a, socklen_t len)
{
	if (a->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)a;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (a->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct in6_addr *in6 = &((const struct sockaddr_in6 *)a)->sin6_addr;
		if (IN6_IS_ADDR_LOOPBACK(in6))
			return true;
		return IN6_IS_ADDR_V4MAPPED(in6) && in6->s6_addr[12] == 127;
	}
	return false;
}

/* The caller's descriptor fd, as one of ours (the same open socket). */
static int take_fd(pid_t tid, int fd)
{
	if (fd < 0)
		return -EBADF;
	int pidfd = sys_pidfd_open(tid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL)
		pidfd = sys_pidfd_open(tid, 0); /* before 6.9: a thread group leader only */
	if (pidfd < 0)
		return -errno;
	int got = (int)syscall(__NR_pidfd_getfd, pidfd, fd, 0);
	int e = errno;
	close(pidfd);
	return got < 0 ? (e == EBADF ? -EBADF : -e) : got;
}

static int sock_int(int sock, int option)
{
	int v = -1;
	socklen_t len = sizeof v;
	return getsockopt(sock, SOL_SOCKET, option, &v, &len) == 0 ? v : -1;
}

/* What one call comes to, copied. */
struct net_request {
	enum net_call call;
	const struct seccomp_notif *n;
	pid_t tid;
	int sock;		     /* ours, or -1 */
	int unix_held;		     /* the granted socket file the address now names, or -1 */
	int domain, type;	     /* of the socket */
	struct sockaddr_storage addr; /* the address the call names */
	socklen_t addr_len;	     /* 0: none */
	int flags;
	int backlog;
	size_t data_len;	     /* bytes in scratch->data */
	size_t control_len;	     /* bytes in scratch->control */
	uint64_t msg_len_at;	     /* sendmmsg: where the caller's msg_len is */
	bool vlen_zero;		     /* sendmmsg of no message */
};

static int arg_int(const struct seccomp_notif *n, int i)
{
	return (int)(uint32_t)n->data.args[i];
}

static int read_address(struct net_request *rq, uint64_t at, uint64_t len)
{
	if (!at)
		return 0;
	if (len > sizeof rq->addr)
		return -EINVAL;
	if (len && broker_read_memory(rq->tid, at, &rq->addr, (size_t)len) < 0)
		return -EFAULT;
	rq->addr_len = (socklen_t)len;
	return 0;
}

/* Copy the data iov[0..n) points at, at most BROKER_NET_DATA_MAX bytes. */
static int read_data(struct net_request *rq, struct broker_net_scratch *s, size_t n)
{
	size_t total = 0, used = 0;
	bool cut = false;
	for (; used < n && total < BROKER_NET_DATA_MAX; used++) {
		size_t room = BROKER_NET_DATA_MAX - total;
		if (s->iov[used].iov_len > room) {
			s->iov[used].iov_len = room;
			cut = true;
		}
		total += s->iov[used].iov_len;
	}
	/*
	 * A stream takes what we carry as a short send. A datagram or a
	 * record is never cut short: larger than we carry, it is refused
	 * whole (an IP one the kernel would refuse too; a Unix one it would
	 * take up to the socket's send buffer).
	 */
	for (size_t i = used; !cut && i < n; i++)
		cut = s->iov[i].iov_len != 0;
	if (cut && rq->type != SOCK_STREAM)
		return -EMSGSIZE;
	struct iovec local = { s->data, total };
	ssize_t got = total ? process_vm_readv(rq->tid, &local, 1, s->iov, used, 0) : 0;
	if (got != (ssize_t)total)
		return -EFAULT;
	rq->data_len = total;
	return 0;
}

/* A native struct msghdr at address at: name, data and control copied. */
static int read_msghdr(struct net_request *rq, struct broker_net_scratch *s, uint64_t at)
{
	struct msghdr m;
	if (broker_read_memory(rq->tid, at, &m, sizeof m) < 0)
		return -EFAULT;
	int rc = read_address(rq, (uint64_t)(uintptr_t)m.msg_name, m.msg_namelen);
	if (rc < 0)
		return rc;
	if (m.msg_iovlen > BROKER_NET_IOV_MAX)
		return -EMSGSIZE;
	if (m.msg_iovlen && broker_read_memory(rq->tid, (uint64_t)(uintptr_t)m.msg_iov, s->iov,
					       m.msg_iovlen * sizeof *s->iov) < 0)
		return -EFAULT;
	if ((rc = read_data(rq, s, m.msg_iovlen)) < 0)
		return rc;
	if (m.msg_controllen > BROKER_NET_CONTROL_MAX)
		return -ENOBUFS;
	if (m.msg_controllen &&
	    broker_read_memory(rq->tid, (uint64_t)(uintptr_t)m.msg_control, s->control,
			       m.msg_controllen) < 0)
		return -EFAULT;
	rq->control_len = m.msg_controllen;
	return 0;
}

/* The call's arguments, copied; 0 or a negative errno to answer. */
static int request_read(struct net_request *rq, struct broker_net_scratch *s)
{
	const __u64 *a = rq->n->data.args;
	bool native = rq->n->data.arch == AUDIT_ARCH_X86_64 && !(rq->n->data.nr & X32_SYSCALL_BIT);
	switch (rq->call) {
	case NET_CONNECT:
	case NET_BIND:
		return read_address(rq, a[1], (uint32_t)a[2]);
	case NET_LISTEN:
		rq->backlog = arg_int(rq->n, 1);
		return 0;
	case NET_SENDTO:
		rq->flags = arg_int(rq->n, 3);
		s->iov[0] = (struct iovec){ (void *)(uintptr_t)a[1], (size_t)a[2] };
		if (rq->n->data.arch != AUDIT_ARCH_X86_64)
			s->iov[0].iov_len = (uint32_t)a[2];
		int rc = read_address(rq, a[4], (uint32_t)a[5]);
		return rc < 0 ? rc : read_data(rq, s, 1);
	case NET_SENDMSG:
	case NET_SENDMMSG:
		/* The 32-bit layouts (i386, x32) are not read: refused, documented. */
		if (!native)
			return -EOPNOTSUPP;
		rq->flags = arg_int(rq->n, rq->call == NET_SENDMSG ? 2 : 3);
		if (rq->call == NET_SENDMMSG && (uint32_t)a[2] == 0) {
			rq->vlen_zero = true;
			return 0;
		}
		rq->msg_len_at = a[1] + offsetof(struct mmsghdr, msg_len);
		return read_msghdr(rq, s, a[1]);
	}
	return -ENOSYS;
}

/*
 * Control messages an IP send may carry: its segment size, TTL, TOS,
 * hop limit and traffic class. Anything else (IP options with a source
 * route, an IPv6 routing header, a source address or interface) could
 * send the packet elsewhere than its destination: refused.
 */
static bool control_allowed(const char *control, size_t len)
{
	struct msghdr m = { .msg_control = (void *)control, .msg_controllen = len };
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		bool ok = (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_SEGMENT) ||
			  (c->cmsg_level == IPPROTO_IP &&
			   (c->cmsg_type == IP_TTL || c->cmsg_type == IP_TOS)) ||
			  (c->cmsg_level == IPPROTO_IPV6 &&
			   (c->cmsg_type == IPV6_HOPLIMIT || c->cmsg_type == IPV6_TCLASS));
		if (!ok)
			return false;
	}
	return true;
}

static bool ip_socket(const struct net_request *rq)
{
	return rq->domain == AF_INET || rq->domain == AF_INET6;
}

/*
 * May the call go to this address? IP sockets: loopback only (connect
 * with AF_UNSPEC dissolves an association: allowed). Netlink sockets (the
 * filter lets NETLINK_ROUTE only be made) talk to the kernel. Unix
 * sockets: judge_unix.
 */
/* Is the address the run's proxy: 127.0.0.1 (or ::ffff:127.0.0.1) at its port? */
static bool is_proxy(const struct broker_net_config *net, const struct net_request *rq)
{
	if (rq->addr.ss_family == AF_INET && rq->addr_len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&rq->addr;
		return in->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
		       ntohs(in->sin_port) == net->proxy_port;
	}
	if (rq->addr.ss_family == AF_INET6 && rq->addr_len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&rq->addr;
		static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 };
		return memcmp(in6->sin6_addr.s6_addr, mapped, 16) == 0 &&
		       ntohs(in6->sin6_port) == net->proxy_port;
	}
	return false;
}

/*
 * Proxy-only: a TCP connect to the proxy, sends without an address (to
 * that peer); nothing bound, listened on, or sent to an address (no DNS
 * of the cage's own: the proxy resolves).
 */
static int judge_proxy(const struct broker_net_config *net, const struct net_request *rq)
{
	if (rq->call == NET_BIND || rq->call == NET_LISTEN)
		return -EACCES;
	if (rq->call == NET_CONNECT) {
		if (rq->addr_len && rq->addr.ss_family == AF_UNSPEC)
			return 0;
		return rq->type == SOCK_STREAM && is_proxy(net, rq) ? 0 : -EACCES;
	}
	return rq->addr_len ? -EACCES : 0;
}

/* judge's answer for a call the kernel performs itself: CONTINUE. */
#define JUDGE_KERNEL 1
/* perform's, likewise (beside BROKER_NET_LATER). */
#define BROKER_NET_CONTINUE (-1000001L)

/*
 * A Unix socket (tier T2 with --socket): connects and addressed sends by
 * path go to a granted socket file only, the address rewritten to the one
 * judged (broker_unix.c); bind by path is refused (a socket file planted
 * in a write grant would outlive the run, and nothing bound by the cage
 * is needed to reach the granted services); an unnamed bind (autobind)
 * and listen are allowed. Tier T1 with --socket, the network not on
 * (own_netns): the same, but a bind is the kernel's, and a socket
 * the run bound in its own network namespace, or an abstract name there,
 * is reached too. Without --socket the only Unix sockets are
 * socketpairs: nothing by address.
 */
static int judge_unix(const struct broker_net_config *net, struct net_request *rq)
{
	if (!net->unix_paths)
		return rq->addr_len ? -EACCES : 0;
	switch (rq->call) {
	case NET_BIND:
		/*
		 * Tier T1: a bind reaches no one, and where a socket file may be
		 * made is Landlock's to judge: the kernel's, with the caller's
		 * own address (another thread rewriting it changes nothing).
		 */
		if (net->own_netns)
			return broker_unix_run_socket(net, rq->sock) ? JUDGE_KERNEL : -EACCES;
		return rq->addr_len == sizeof(sa_family_t) && rq->addr.ss_family == AF_UNIX ? 0
											 : -EACCES;
	case NET_LISTEN:
		return 0;
	case NET_CONNECT:
		if (!rq->addr_len)
			return -EINVAL;
		break;
	default:
		if (!rq->addr_len)
			return 0;
	}
	struct sockaddr_un target;
	socklen_t target_len;
	int rc = broker_unix_target(net, rq->tid, rq->sock, &rq->addr, rq->addr_len, &target,
				    &target_len, &rq->unix_held);
	if (rc < 0)
		return rc;
	memset(&rq->addr, 0, sizeof rq->addr);
	memcpy(&rq->addr, &target, target_len);
	rq->addr_len = target_len;
	return 0;
}

/*
 * Tier T1 proxy: TCP in the run's own namespace as Landlock rules it
 * there (cage.c): a connect to the proxy's or a captured port only, no
 * bind (a listen's own port is the kernel's to pick), no address on a
 * send (TCP Fast Open would connect without the connect rule).
 */
static int judge_own_tcp(const struct broker_net_config *net, const struct net_request *rq)
{
	switch (rq->call) {
	case NET_BIND:
		return -EACCES;
	case NET_LISTEN:
		return 0;
	case NET_CONNECT:
		if (rq->addr_len >= sizeof(sa_family_t) && rq->addr.ss_family == AF_UNSPEC)
			return 0;
		break;
	default:
		return rq->addr_len ? -EACCES : 0;
	}
	in_port_t port;
	if (rq->addr.ss_family == AF_INET && rq->addr_len >= sizeof(struct sockaddr_in))
		port = ntohs(((const struct sockaddr_in *)&rq->addr)->sin_port);
	else if (rq->addr.ss_family == AF_INET6 && rq->addr_len >= sizeof(struct sockaddr_in6))
		port = ntohs(((const struct sockaddr_in6 *)&rq->addr)->sin6_port);
	else
		return -EINVAL;
	for (size_t i = 0; i < net->n_own_netns_tcp_ports; i++)
		if (net->own_netns_tcp_ports[i] == port)
			return 0;
	return -EACCES;
}

static int judge(const struct broker_net_config *net, struct net_request *rq)
{
	if (rq->domain == AF_UNIX)
		return judge_unix(net, rq);
	/* Tier T1 loopback and proxy: the run's own namespace, where only its loopback is. */
	if (net->own_netns_ip) {
		if (!broker_unix_run_socket(net, rq->sock))
			return -EACCES;
		return net->n_own_netns_tcp_ports && ip_socket(rq) && rq->type == SOCK_STREAM
			       ? judge_own_tcp(net, rq)
			       : 0;
	}
	/* Unix sockets brokered, IP ones not asked for: none are made. */
	if (net->mode == BROKER_NET_NONE)
		return -EACCES;
	if (net->mode == BROKER_NET_PROXY && ip_socket(rq))
		return judge_proxy(net, rq);
	if (!rq->addr_len)
		return rq->call == NET_CONNECT || rq->call == NET_BIND ? -EINVAL : 0;
	sa_family_t family = rq->addr.ss_family;
	if (ip_socket(rq)) {
		if (family == AF_UNSPEC && rq->call == NET_CONNECT)
			return 0;
		return broker_net_is_loopback(&rq->addr, rq->addr_len) ? 0 : -EACCES;
	}
	if (rq->domain == AF_NETLINK)
		return 0;
	return -EACCES;
}

/*
 * An IP socket about to listen or send without a local address would get
 * every interface's (port 0 bound on the wildcard): bound to loopback
 * first, so that nothing from elsewhere reaches it.
 */
static in_port_t local_port(int sock)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof local;
	if (getsockname(sock, (struct sockaddr *)&local, &len) != 0)
		return 0;
	return ntohs(local.ss_family == AF_INET ? ((struct sockaddr_in *)&local)->sin_port
						 : ((struct sockaddr_in6 *)&local)->sin6_port);
}

static int bind_loopback_if_unbound(const struct net_request *rq)
{
	struct sockaddr_storage local;
	socklen_t len;
	if (!ip_socket(rq) || local_port(rq->sock))
		return 0;
	memset(&local, 0, sizeof local);
	if (rq->domain == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&local;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof *in;
	} else {
		/* ::1, or 127.0.0.1 mapped for a connect to a mapped address. */
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&local;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		if (rq->addr.ss_family == AF_INET6 &&
		    IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)&rq->addr)->sin6_addr)) {
			static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, [12] = 127,
							    [15] = 1 };
			memcpy(in6->sin6_addr.s6_addr, mapped, 16);
		}
		len = sizeof *in6;
	}
	return bind(rq->sock, (struct sockaddr *)&local, len) == 0 ? 0 : -errno;
}

/*
 * A Unix socket's control message (a socketpair's: the only Unix sockets
 * such a cage makes) may pass descriptors: numbers in the caller's table,
 * which the broker takes as its own (the same open files) and puts in its
 * copy of the message. Any other control message (credentials, which the
 * kernel would check against the broker's process) is refused. The count
 * of descriptors taken, or a negative errno.
 */
static int descriptors_take(const struct net_request *rq, struct broker_net_scratch *s,
			    int taken[BROKER_NET_FDS_MAX])
{
	struct msghdr m = { .msg_control = s->control, .msg_controllen = rq->control_len };
	int n = 0, rc = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c && rc == 0; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0)) {
			rc = -EPERM;
			break;
		}
		size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int *fds = (int *)(void *)CMSG_DATA(c);
		for (size_t i = 0; i < count && rc == 0; i++) {
			int fd = n < BROKER_NET_FDS_MAX ? take_fd(rq->tid, fds[i]) : -ETOOMANYREFS;
			if (fd < 0) {
				rc = fd;
				break;
			}
			taken[n++] = fd;
			fds[i] = fd;
		}
	}
	if (rc < 0) {
		for (int i = 0; i < n; i++)
			close(taken[i]);
		return rc;
	}
	return n;
}

/* Is the caller's send one that waits for room (its flags and its file as now)? */
static bool send_blocking(const struct net_request *rq)
{
	int fl = fcntl(rq->sock, F_GETFL);
	return !(rq->flags & MSG_DONTWAIT) && fl >= 0 && !(fl & O_NONBLOCK);
}

/* Send the copies: the byte count, a negative errno, or BROKER_NET_LATER. */
static long perform_send(struct net_request *rq, struct broker_net_scratch *s,
			 struct broker_waits *waits, int listener)
{
	int passed[BROKER_NET_FDS_MAX], n_passed = 0;
	if (rq->control_len && ip_socket(rq) && !control_allowed(s->control, rq->control_len))
		return -EPERM;
	if (rq->control_len && !ip_socket(rq)) {
		n_passed = descriptors_take(rq, s, passed);
		if (n_passed < 0)
			return n_passed;
	}
	if (ip_socket(rq) && rq->type == SOCK_DGRAM) {
		int rc = bind_loopback_if_unbound(rq);
		if (rc < 0) {
			for (int i = 0; i < n_passed; i++)
				close(passed[i]);
			return rc;
		}
	}
	struct broker_send send = {.data = s->data,
				   .data_len = rq->data_len,
				   .control = s->control,
				   .control_len = rq->control_len,
				   .addr = &rq->addr,
				   .addr_len = rq->addr_len,
				   .flags = rq->flags,
				   .msg_len_at = rq->call == NET_SENDMMSG ? rq->msg_len_at : 0};
	long sent = broker_send_or_park(waits, listener, rq->n->id, rq->tid, rq->sock, &send,
					send_blocking(rq), passed, n_passed);
	/* Parked: the descriptors are the parked call's now. */
	for (int i = 0; sent != BROKER_NET_LATER && i < n_passed; i++)
		close(passed[i]);
	return sent;
}

/*
 * Proxy-only: the socket gets a loopback port of its own before it
 * connects, recorded for the proxy, which admits that peer only (the
 * proxy may accept before connect returns here).
 */
static int proxy_admission_record(const struct broker_net_config *net, struct net_request *rq,
				  in_port_t *port)
{
	*port = 0;
	if (net->mode != BROKER_NET_PROXY || !net->admission || rq->addr.ss_family == AF_UNSPEC)
		return 0;
	int rc = bind_loopback_if_unbound(rq);
	if (rc < 0)
		return rc;
	*port = local_port(rq->sock);
	if (!*port)
		return -EADDRNOTAVAIL;
	net_admission_add(net->admission, *port);
	return 0;
}

/*
 * A connect that may wait (a stream socket's: TCP, a Unix stream or
 * seqpacket socket) is made on a thread of its own, and the call parked:
 * the file's O_NONBLOCK, the only thing that keeps connect from waiting,
 * is the cage's to clear between our setting it and the connect. A
 * datagram socket's connect never waits.
 */
static long perform_connect(const struct broker_net_config *net, struct net_request *rq,
			    struct broker_waits *waits)
{
	in_port_t admitted;
	int rc = proxy_admission_record(net, rq, &admitted);
	if (rc < 0)
		return rc;
	bool stream = rq->type == SOCK_STREAM || rq->type == SOCK_SEQPACKET;
	if (stream && rq->addr.ss_family != AF_UNSPEC)
		return broker_connect_park(waits, rq->n->id, rq->sock, &rq->addr, rq->addr_len,
					   &rq->unix_held, net->admission, admitted);
	rc = connect(rq->sock, (struct sockaddr *)&rq->addr, rq->addr_len) == 0 ? 0 : -errno;
	if (admitted && rc < 0 && rc != -EINPROGRESS)
		net_admission_drop(net->admission, admitted);
	return rc;
}

/* The call performed; its result (0 or a count), a negative errno, or BROKER_NET_LATER. */
static long perform(const struct broker_net_config *net, struct net_request *rq,
		    struct broker_net_scratch *s, struct broker_waits *waits, int listener)
{
	int rc = judge(net, rq);
	if (rc == JUDGE_KERNEL)
		return BROKER_NET_CONTINUE;
	if (rc == -EACCES && net->mode == BROKER_NET_PROXY && ip_socket(rq) && rq->addr_len &&
	    rq->addr.ss_family != AF_UNSPEC && rq->call != NET_BIND)
		broker_net_refusal_record(net->denials, &rq->addr, rq->addr_len, rq->type);
	if (rc < 0)
		return rc;
	switch (rq->call) {
	case NET_CONNECT:
		return perform_connect(net, rq, waits);
	case NET_BIND:
		return bind(rq->sock, (struct sockaddr *)&rq->addr, rq->addr_len) == 0 ? 0 : -errno;
	case NET_LISTEN:
		if ((rc = bind_loopback_if_unbound(rq)) < 0)
			return rc;
		return listen(rq->sock, rq->backlog) == 0 ? 0 : -errno;
	case NET_SENDTO:
	case NET_SENDMSG:
		return perform_send(rq, s, waits, listener);
	case NET_SENDMMSG:
		if (rq->vlen_zero)
			return 0;
		/* One message at a time: the caller's loop sends the rest. */
		return perform_send(rq, s, waits, listener);
	}
	return -ENOSYS;
}

void broker_net_answer(const struct broker_net_config *net, struct broker_net_scratch *s,
		       struct broker_waits *waits, int listener, const struct seccomp_notif *n,
		       const char *call)
{
	struct net_request rq = { .n = n, .tid = (pid_t)n->pid, .sock = -1, .unix_held = -1 };
	int found = net_call_find(call);
	bool brokering = net->mode != BROKER_NET_NONE || net->unix_paths;
	int rc = found < 0 || !brokering || !s ? -EPERM : 0;
	if (rc == 0) {
		rq.call = (enum net_call)found;
		rq.sock = take_fd(rq.tid, arg_int(n, 0));
		rc = rq.sock < 0 ? rq.sock : 0;
	}
	if (rc == 0) {
		rq.domain = sock_int(rq.sock, SO_DOMAIN);
		rq.type = sock_int(rq.sock, SO_TYPE);
		rc = rq.domain < 0 ? -ENOTSOCK : 0;
	}
	if (rc == 0)
		rc = request_read(&rq, s);
	/* A thread gone (and its id maybe another's now): nothing read is used. */
	if (broker_id_valid(listener, n->id)) {
		long result = rc < 0 ? rc : perform(net, &rq, s, waits, listener);
		if (result == BROKER_NET_LATER)
			; /* parked: answered by broker_waits_resume */
		else if (result == BROKER_NET_CONTINUE)
			broker_answer_continue(listener, n->id);
		else if (rq.call == NET_SENDMMSG && !rq.vlen_zero)
			broker_send_answer(listener, n->id, rq.tid, rq.msg_len_at, result);
		else if (result < 0)
			broker_answer_result(listener, n->id, (int)-result);
		else
			broker_answer_value(listener, n->id, result);
	}
	if (rq.sock >= 0)
		close(rq.sock);
	if (rq.unix_held >= 0)
		close(rq.unix_held);
}
