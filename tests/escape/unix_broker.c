/*
 * Unix sockets by path with a connect rule. Tier T2 (Landlock
 * below ABI 9 has no rule for sockets): the broker judges each connect
 * by the socket file it resolves to, and connects to that very file.
 * Tier T1: every other socket bound at spawn is masked. Both must let
 * the cage reach the granted socket and nothing else bound in the same
 * read grant, however it is named: by its path, through a symbolic link,
 * through /proc/self/fd/N of an O_PATH descriptor, by a path another
 * thread rewrites while the connect is pending, by a datagram sent to it,
 * by an abstract name, once bound after the run started, or through a
 * link planted at the named path after the cage was made. Each is judged
 * by the listener outside the cage, which counts what arrived. Tier T2
 * also binds no socket file by path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "escape.h"
#include "listeners.h"

#define CONTROL_WAIT_MS 10000

/*
 * The connections waiting at a listener, accepted and closed. A control
 * waits up to wait_ms for the first (a bound on failure only).
 */
static int accepted_within(int fd, int wait_ms)
{
	int n = 0;
	struct pollfd first = {fd, POLLIN, 0};
	if (wait_ms > 0)
		(void)poll(&first, 1, wait_ms);
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 0) != 1)
			break;
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0)
			break;
		close(c);
		n++;
	}
	return n;
}

struct unix_fixture {
	char granted[PATH_MAX], service[PATH_MAX], link[PATH_MAX], later[PATH_MAX],
	    later_rw[PATH_MAX], planted[PATH_MAX], granted_dgram[PATH_MAX],
	    service_dgram[PATH_MAX];
	int granted_fd, service_fd, later_fd, later_rw_fd, granted_dgram_fd, service_dgram_fd;
};

/* A Unix datagram socket bound at path (non-blocking); fd or -errno. */
static int dgram_at(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof a.sun_path)
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	(void)unlink(path);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Datagrams waiting, drained; a control waits up to wait_ms for the first. */
static int datagrams_within(int fd, int wait_ms)
{
	int n = 0;
	char buf[64];
	struct pollfd first = {fd, POLLIN, 0};
	if (wait_ms > 0)
		(void)poll(&first, 1, wait_ms);
	while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

static bool fixture_start(const struct tier *t, struct caged_ws *ws, struct unix_fixture *f)
{
	f->granted_fd = f->service_fd = f->later_fd = f->later_rw_fd = -1;
	f->granted_dgram_fd = f->service_dgram_fd = -1;
	if (!path_join(t, f->granted, ws->ro, "granted.sock") ||
	    !path_join(t, f->service, ws->ro, "service.sock") ||
	    !path_join(t, f->link, ws->ro, "link.sock") ||
	    !path_join(t, f->later, ws->ro, "later.sock") ||
	    !path_join(t, f->later_rw, ws->rw, "later-rw.sock") ||
	    !path_join(t, f->planted, ws->rw, "planted.sock") ||
	    !path_join(t, f->granted_dgram, ws->ro, "granted.dgram") ||
	    !path_join(t, f->service_dgram, ws->ro, "service.dgram"))
		return false;
	f->granted_fd = listen_unix(f->granted);
	f->service_fd = listen_unix(f->service);
	f->granted_dgram_fd = dgram_at(f->granted_dgram);
	f->service_dgram_fd = dgram_at(f->service_dgram);
	return fixture(t, f->granted_fd >= 0 && f->service_fd >= 0,
		       "r34u: listeners at %s and %s", f->granted, f->service) &&
	       fixture(t, f->granted_dgram_fd >= 0 && f->service_dgram_fd >= 0,
		       "r34u: datagram sockets at %s and %s", f->granted_dgram,
		       f->service_dgram) &&
	       policy_rule(t, ws, "r34u", f->granted_dgram, PROCAGE_CONNECT) &&
	       fixture(t, symlink(f->service, f->link) == 0, "r34u: %s -> %s", f->link,
		       f->service) &&
	       policy_rule(t, ws, "r34u", f->granted, PROCAGE_CONNECT) &&
	       (tier_is_t1(t) ? policy_accept(t, ws, "r34u", "spawn-snapshot") : true);
}

static void fixture_stop(struct unix_fixture *f)
{
	listen_close(f->granted_fd, f->granted);
	listen_close(f->service_fd, f->service);
	listen_close(f->later_fd, f->later);
	listen_close(f->later_rw_fd, f->later_rw);
	listen_close(f->granted_dgram_fd, f->granted_dgram);
	listen_close(f->service_dgram_fd, f->service_dgram);
	(void)unlink(f->link);
	(void)unlink(f->planted);
}

/* A caged probe that waits; a socket bound at path (*fd); then the probe connects. */
static struct caged_result connect_after_bind(struct caged_ws *ws, const char *path, int *fd)
{
	int hold[2];
	struct caged_result r = {.how = CAGED_NOT_STARTED};
	if (pipe2(hold, O_CLOEXEC) != 0) {
		snprintf(r.summary, sizeof r.summary, "pipe: %s", strerror(errno));
		return r;
	}
	struct procage_fd_map map = {hold[0], 3};
	struct caged_opts o = {.fds = &map, .n_fds = 1};
	struct caged_proc *p = start_caged(ws, &o, "print", "ready", "then", "wait-on-fd", "3",
					   "then", "connect-unix", path, NULL);
	close(hold[0]);
	if (caged_proc_wait_for(p, "ready", 10000))
		*fd = listen_unix(path);
	close(hold[1]);
	return caged_proc_finish(p);
}

/*
 * The granted service's side: one connection accepted, an unbound socket
 * of ours (of family, in this network namespace) handed over.
 */
static void hand_over_one(int listener, int family)
{
	struct pollfd p = {listener, POLLIN, 0};
	if (poll(&p, 1, CONTROL_WAIT_MS) != 1)
		return;
	int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c >= 0 && s >= 0) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} control = {0};
		struct iovec iov = {"s", 1};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = control.buf,
				    .msg_controllen = sizeof control.buf};
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &s, sizeof s);
		(void)sendmsg(c, &mh, MSG_NOSIGNAL);
	}
	if (s >= 0)
		close(s);
	if (c >= 0)
		close(c);
}

/* The probe handed-abstract, caged or not, against the granted service. */
static struct caged_result handed_run(struct caged_ws *ws, struct unix_fixture *f,
				      const char *name, const char *use, bool caged)
{
	(void)accepted_within(f->granted_fd, 0);
	struct caged_proc *p =
	    caged ? start_caged(ws, NULL, "handed-abstract", f->granted, name, use, NULL)
		  : start_uncaged(ws, NULL, "handed-abstract", f->granted, name, use, NULL);
	if (caged_proc_started(p))
		hand_over_one(f->granted_fd, strcmp(use, "tcp") == 0 ? AF_INET : AF_UNIX);
	return caged_proc_finish(p);
}

/*
 * A granted service may pass descriptors: a socket it hands over was made
 * in its own network namespace, the host's, where an abstract name is the
 * host's too. Used on one, it reaches no abstract socket of the host and
 * takes no name there (where a host program looking for a bus or a
 * display would find the cage's listener).
 */
static void handed_socket(const struct tier *t, struct caged_ws *ws, struct unix_fixture *f)
{
	char name[64], taken[64];
	snprintf(name, sizeof name, "procage-r34h-%d", (int)getpid());
	snprintf(taken, sizeof taken, "procage-r34b-%d", (int)getpid());
	int bus = listen_abstract(name);
	if (!fixture(t, bus >= 0, "r34u: an abstract listener @%s", name)) {
		listen_close(bus, NULL);
		return;
	}
	struct caged_result r = handed_run(ws, f, name, "connect", true);
	int reached = accepted_within(bus, 0);
	check(t, refused(&r) && reached == 0, &r,
	      "r34u: a socket the granted service hands over reaches no abstract name of the "
	      "host (%d arrived)",
	      reached);
	r = handed_run(ws, f, taken, "bind", true);
	check(t, refused(&r), &r,
	      "r34u: a socket the granted service hands over takes no abstract name of the host");
	r = handed_run(ws, f, name, "connect", false);
	check(t, did_it(&r) && accepted_within(bus, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage the handed-over socket reaches the abstract name");
	r = handed_run(ws, f, taken, "bind", false);
	check(t, did_it(&r), &r,
	      "r34u: control: without the cage the handed-over socket takes an abstract name");
	listen_close(bus, NULL);
}

static void canaries(const struct tier *t, struct caged_ws *ws, struct unix_fixture *f)
{
	struct caged_result r;
	r = run_caged(ws, NULL, "connect-unix", f->service, NULL);
	check(t, refused(&r) && accepted_within(f->service_fd, 0) == 0, &r,
	      "r34u: a service socket in a read grant, not granted, is unreachable");
	r = run_caged(ws, NULL, "connect-unix", f->link, NULL);
	check(t, refused(&r) && accepted_within(f->service_fd, 0) == 0, &r,
	      "r34u: a symbolic link to the service socket reaches nothing");
	r = run_caged(ws, NULL, "connect-unix-opath", f->service, NULL);
	check(t, refused(&r) && accepted_within(f->service_fd, 0) == 0, &r,
	      "r34u: /proc/self/fd/N of an O_PATH descriptor of the service socket reaches "
	      "nothing");
	r = run_caged(ws, NULL, "connect-unix-race", f->granted, f->service, "3000", NULL);
	int got = accepted_within(f->service_fd, 0);
	check(t, got == 0, &r,
	      "r34u: 3000 connects to a path another thread flips between the granted and the "
	      "service socket (then one to the service) reach the service %d times",
	      got);
	(void)accepted_within(f->granted_fd, 0);
	r = run_caged(ws, NULL, "unix-dgram-send", f->service_dgram, NULL);
	int arrived = datagrams_within(f->service_dgram_fd, 0);
	check(t, refused(&r) && arrived == 0, &r,
	      "r34u: a datagram sent (sendto) to a service's datagram socket arrives nowhere "
	      "(%d arrived)",
	      arrived);
	/* The flags the broker variants let through unbrokered, once, for the hand-over. */
	r = run_caged(ws, NULL, "unix-dgram-handover", f->service_dgram, NULL);
	arrived = datagrams_within(f->service_dgram_fd, 0);
	check(t, refused(&r) && arrived == 0, &r,
	      "r34u: a datagram sent by sendmsg with the listener hand-over's flags to a "
	      "service's datagram socket arrives nowhere (%d arrived)",
	      arrived);
	char abstract[64];
	snprintf(abstract, sizeof abstract, "procage-r34u-%d", (int)getpid());
	int bus = listen_abstract(abstract);
	if (fixture(t, bus >= 0, "r34u: an abstract listener @%s", abstract)) {
		r = run_caged(ws, NULL, "connect-abstract", abstract, NULL);
		int reached = accepted_within(bus, 0);
		check(t, refused(&r) && reached == 0, &r,
		      "r34u: with a connect rule, an abstract name outside the cage is not reached "
		      "(%d arrived)",
		      reached);
		r = run_uncaged(ws, NULL, "connect-abstract", abstract, NULL);
		check(t, did_it(&r) && accepted_within(bus, CONTROL_WAIT_MS) >= 1, &r,
		      "r34u: control: without the cage the abstract name is reached");
	}
	listen_close(bus, NULL);
	handed_socket(t, ws, f);
	/* Tier T1's masks are a snapshot: the broker judges these as they happen. */
	r = connect_after_bind(ws, f->later, &f->later_fd);
	check(t, f->later_fd >= 0 && refused(&r) && accepted_within(f->later_fd, 0) == 0, &r,
	      "r34u: a socket bound in the read grant after the run started is unreachable");
	r = connect_after_bind(ws, f->later_rw, &f->later_rw_fd);
	check(t, f->later_rw_fd >= 0 && refused(&r) && accepted_within(f->later_rw_fd, 0) == 0,
	      &r,
	      "r34u: a socket bound outside the cage in the write grant after the run started "
	      "is unreachable");
	if (tier_is_t1(t)) {
		/*
		 * Its own network namespace's sockets are the run's own business
		 * there: one bound below the workspace's root (a zone of the
		 * broker, where nothing is bound) is reached.
		 */
		char own_dir[PATH_MAX], own[PATH_MAX];
		if (path_join(t, own_dir, ws->rw, "own") && path_join(t, own, own_dir, "own.sock") &&
		    fixture(t, make_dirs(own_dir), "r34u: %s made", own_dir)) {
			r = run_caged(ws, NULL, "unix-self", own, NULL);
			check(t, did_it(&r), &r,
			      "r34u: control: on tier T1 a socket the run binds in its write grant "
			      "is reached from the run");
		}
		return;
	}
	r = run_caged(ws, NULL, "unix-self", f->planted, NULL);
	check(t, refused(&r) && access(f->planted, F_OK) != 0, &r,
	      "r34u: on tier T2 no socket file is bound by path, even in the write grant");
}

static void controls(const struct tier *t, struct caged_ws *ws, struct unix_fixture *f)
{
	struct caged_result r;
	/* The broker carries 64 KiB of a send: a larger record is refused, never cut short. */
	r = run_caged(ws, NULL, "record-big", "100000", NULL);
	check(t, did_it(&r), &r,
	      "r34u: control: in the cage a 100 000-byte record through a socket pair arrives "
	      "whole, or is refused whole");
	r = run_caged(ws, NULL, "connect-unix", f->granted, NULL);
	check(t, did_it(&r) && accepted_within(f->granted_fd, CONTROL_WAIT_MS) == 1, &r,
	      "r34u: control: in the cage the granted socket is reached, once");
	r = run_caged(ws, NULL, "unix-dgram-send", f->granted_dgram, NULL);
	check(t, did_it(&r) && datagrams_within(f->granted_dgram_fd, CONTROL_WAIT_MS) == 1, &r,
	      "r34u: control: in the cage a datagram to the granted datagram socket arrives");
	r = run_uncaged(ws, NULL, "unix-dgram-send", f->service_dgram, NULL);
	check(t, did_it(&r) && datagrams_within(f->service_dgram_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage a datagram to the service's socket arrives");
	r = run_uncaged(ws, NULL, "connect-unix", f->service, NULL);
	check(t, did_it(&r) && accepted_within(f->service_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage the service socket is reached");
	r = run_uncaged(ws, NULL, "connect-unix", f->link, NULL);
	check(t, did_it(&r) && accepted_within(f->service_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage the link reaches the service socket");
	r = run_uncaged(ws, NULL, "connect-unix-opath", f->service, NULL);
	check(t, did_it(&r) && accepted_within(f->service_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage /proc/self/fd/N of an O_PATH descriptor "
	      "reaches the service socket");
	r = run_uncaged(ws, NULL, "connect-unix-race", f->granted, f->service, "3000", NULL);
	check(t, accepted_within(f->service_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage the raced connects reach the service socket");
	(void)accepted_within(f->granted_fd, 0);
	r = run_uncaged(ws, NULL, "connect-unix", f->later, NULL);
	check(t, did_it(&r) && accepted_within(f->later_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage the socket bound later is reached");
	r = run_uncaged(ws, NULL, "connect-unix", f->later_rw, NULL);
	check(t, did_it(&r) && accepted_within(f->later_rw_fd, CONTROL_WAIT_MS) >= 1, &r,
	      "r34u: control: without the cage the socket bound later in the write grant is "
	      "reached");
}

/*
 * The cage made, then the named socket's path replaced by a link to the
 * service socket before the run starts (an earlier run with a write grant
 * there could plant it): the run must not follow it.
 */
static void link_planted_before_the_run(const struct tier *t, struct caged_ws *ws,
					struct unix_fixture *f)
{
	char moved[PATH_MAX + 8], why[512] = "";
	snprintf(moved, sizeof moved, "%s.moved", f->granted);
	if (!fixture(t, caged_ws_hold_cage(ws, why, sizeof why) == 0, "r34u: the cage is made (%s)",
		     why))
		return;
	bool planted =
		fixture(t, rename(f->granted, moved) == 0 && symlink(f->service, f->granted) == 0,
			"r34u: %s replaced by a link to %s", f->granted, f->service);
	if (planted) {
		struct caged_result r = run_caged(ws, NULL, "connect-unix", f->granted, NULL);
		int got = accepted_within(f->service_fd, 0);
		check(t, refused(&r) && got == 0, &r,
		      "r34u: the named path replaced by a link to the service socket after the cage "
		      "was made reaches nothing (%d arrived)",
		      got);
		r = run_uncaged(ws, NULL, "connect-unix", f->granted, NULL);
		check(t, did_it(&r) && accepted_within(f->service_fd, CONTROL_WAIT_MS) >= 1, &r,
		      "r34u: control: without the cage the link reaches the service socket");
	}
	caged_ws_drop_cage(ws);
	(void)unlink(f->granted);
	(void)rename(moved, f->granted);
}

/*
 * Tier T1 with the network loopback or proxy: the broker takes the run's
 * IP calls too (its own network namespace holds only its loopback, and
 * with proxy procage's listeners, reached by TCP at their ports only), and
 * judges the Unix ones as with the network off.
 */
static void t1_own_network(const struct tier *t, struct caged_ws *ws, struct unix_fixture *f,
			   enum procage_network mode)
{
	const char *how = mode == PROCAGE_NET_PROXY ? "proxy" : "loopback";
	struct procage_error err = {0};
	if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r34u: a fresh policy") ||
	    !policy_network(t, ws, "r34u", mode) ||
	    !policy_rule(t, ws, "r34u", f->granted, PROCAGE_CONNECT) ||
	    !policy_accept(t, ws, "r34u", "spawn-snapshot") ||
	    (mode == PROCAGE_NET_PROXY &&
	     !fixture(t, procage_policy_allow_host(ws->policy, "127.0.0.1/32", &err) == 0,
		      "r34u: the proxy allows 127.0.0.1 (%s)", err.message)))
		return;
	listen_close(f->later_fd, f->later);
	f->later_fd = -1;
	struct caged_result r = connect_after_bind(ws, f->later, &f->later_fd);
	check(t, f->later_fd >= 0 && refused(&r) && accepted_within(f->later_fd, 0) == 0, &r,
	      "r34u: with the network %s, a socket bound in the read grant after the run "
	      "started is unreachable",
	      how);
	int port = 0, tcp = listen_tcp_loopback(&port);
	char port_text[16];
	snprintf(port_text, sizeof port_text, "%d", port);
	if (fixture(t, tcp >= 0, "r34u: a TCP listener of the host on 127.0.0.1")) {
		r = handed_run(ws, f, port_text, "tcp", true);
		int reached = accepted_within(tcp, 0);
		check(t, refused(&r) && reached == 0, &r,
		      "r34u: with the network %s, a TCP socket the granted service hands over "
		      "reaches no port of the host's loopback (%d arrived)",
		      how, reached);
		r = handed_run(ws, f, port_text, "tcp", false);
		check(t, did_it(&r) && accepted_within(tcp, CONTROL_WAIT_MS) >= 1, &r,
		      "r34u: control: without the cage the handed-over TCP socket reaches the "
		      "host's port");
	}
	listen_close(tcp, NULL);
	r = run_caged(ws, NULL, "loopback-self", "127.0.0.1", NULL);
	if (mode == PROCAGE_NET_PROXY) {
		/* Landlock's TCP rules, kept by the broker: the proxy's port only. */
		check(t, refused(&r), &r,
		      "r34u: with the network proxy, a TCP server and its client in the run do "
		      "not talk over 127.0.0.1 (no port but the proxy's)");
		/* Only the cage has that proxy: not judged with the sandbox off. */
		r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", "3128", NULL);
		check_role(t, ROLE_NEEDS_CAGE, did_it(&r), &r,
			   "r34u: with the network proxy, the run's proxy is reached");
	} else {
		check(t, did_it(&r), &r,
		      "r34u: control: with the network loopback, a TCP server and its client in "
		      "the run talk over 127.0.0.1");
	}
	r = run_uncaged(ws, NULL, "loopback-self", "127.0.0.1", NULL);
	check(t, did_it(&r), &r,
	      "r34u: control: without the cage a TCP server and its client talk over 127.0.0.1");
	r = run_caged(ws, NULL, "connect-unix", f->granted, NULL);
	check(t, did_it(&r) && accepted_within(f->granted_fd, CONTROL_WAIT_MS) == 1, &r,
	      "r34u: control: with the network %s, the granted socket is reached", how);
}

void r34_unix_sockets_are_judged_by_the_file_they_reach(const struct tier *t)
{
	struct unix_fixture f = {.granted_fd = -1,
				 .service_fd = -1,
				 .later_fd = -1,
				 .later_rw_fd = -1,
				 .granted_dgram_fd = -1,
				 .service_dgram_fd = -1};
	struct caged_ws *ws = workspace(t, "r34u");
	if (!ws || cage_refused_here(t, ws, "r34u"))
		goto out;
	if (!fixture_start(t, ws, &f))
		goto out;
	/* The canaries first: the socket bound later is bound by one of them. */
	canaries(t, ws, &f);
	controls(t, ws, &f);
	link_planted_before_the_run(t, ws, &f);
	if (tier_is_t1(t)) {
		t1_own_network(t, ws, &f, PROCAGE_NET_LOOPBACK);
		t1_own_network(t, ws, &f, PROCAGE_NET_PROXY);
	}
out:
	fixture_stop(&f);
	caged_ws_free(ws);
}
