/*
 * Local daemons over sockets and service handoff. The test
 * stands up fake daemons outside the cage, listening on Unix paths (in the
 * workspace, in a fake $XDG_RUNTIME_DIR and a fake $HOME), on abstract
 * names and on a loopback TCP port; the caged probe tries to connect. The
 * controls connect to the same listeners without the cage.
 *
 * The design these assert: with the network off, no AF_UNIX socket can be
 * made in the cage on either tier (socketpair still works), and the cage
 * has no loopback; with the network on, tier T1 masks every pathname socket
 * bound at spawn outside the policy's connect rules and the classes'
 * directories, and Landlock (ABI 6) scopes abstract sockets; tier T2 makes
 * no AF_UNIX socket without connect rules, and refuses them with the
 * network on (with it off, loopback or proxy the broker judges each
 * connect: tests/escape/unix_broker.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "escape.h"
#include "listeners.h"

struct daemon {
	const char *rel; /* below base */
	const char *what;
	int base; /* 0: the runtime directory, 1: home, 2: rw, 3: root */
	char path[PATH_MAX];
	int fd;
};

static const char *daemon_base(const struct caged_ws *ws, int base)
{
	switch (base) {
	case 0:
		return ws->runtime;
	case 1:
		return ws->home;
	case 2:
		return ws->rw;
	default:
		return ws->root;
	}
}

/* Listen at every daemon's path; false (with a fixture failure) if one cannot. */
static bool daemons_start(const struct tier *t, struct caged_ws *ws, struct daemon *d, size_t n)
{
	bool ok = true;
	for (size_t i = 0; i < n; i++)
		d[i].fd = -1;
	for (size_t i = 0; ok && i < n; i++) {
		char dir[PATH_MAX];
		ok = path_join(t, d[i].path, daemon_base(ws, d[i].base), d[i].rel);
		snprintf(dir, sizeof dir, "%s", d[i].path);
		*strrchr(dir, '/') = '\0';
		ok = ok && make_dirs(dir) && (d[i].fd = listen_unix(d[i].path)) >= 0;
		fixture(t, ok, "a fake daemon listens at %s (%s)", d[i].path,
			d[i].fd < 0 ? strerror(-d[i].fd) : "");
	}
	return ok;
}

static void daemons_stop(struct daemon *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		listen_close(d[i].fd, d[i].path);
		d[i].fd = -1;
	}
}

static const char *net_name(enum procage_network mode)
{
	return mode == PROCAGE_NET_ON ? "with the network on" : "with the network off";
}

/* A name no other run of the suite shares. */
static void abstract_name(char *out, size_t size, const char *id)
{
	snprintf(out, size, "procage-%s-%d-%ld", id, (int)getpid(), random());
}

/* ---- R-09 ------------------------------------------------------------- */

void r09_daemons_are_unreachable_without_network_access(const struct tier *t)
{
	struct daemon d[] = {
	    {"daemon.sock", "a daemon socket inside the writable workspace", 2, "", -1},
	    {"outside.sock", "a daemon socket outside every grant", 3, "", -1},
	};
	const size_t n = sizeof d / sizeof *d;
	char name[96], port_text[16], own[PATH_MAX], family[3][8];
	int abstract_fd = -1, tcp_fd = -1, port = 0;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r09");
	if (!ws || cage_refused_here(t, ws, "r09"))
		goto out;
	abstract_name(name, sizeof name, "r09");
	if (!daemons_start(t, ws, d, n) || !path_join(t, own, ws->rw, "own.sock") ||
	    !fixture(t, (abstract_fd = listen_abstract(name)) >= 0, "r09: listening on @%s",
		     name) ||
	    !fixture(t, (tcp_fd = listen_tcp_loopback(&port)) >= 0, "r09: listening on loopback"))
		goto out;
	snprintf(port_text, sizeof port_text, "%d", port);
	snprintf(family[0], sizeof family[0], "%d", AF_UNIX);
	snprintf(family[1], sizeof family[1], "%d", SOCK_STREAM);
	snprintf(family[2], sizeof family[2], "%d", 0);

	for (size_t i = 0; i < n; i++) {
		r = run_caged(ws, NULL, "connect-unix", d[i].path, NULL);
		check(t, refused(&r), &r, "r09: %s cannot be reached with the network off",
		      d[i].what);
	}
	r = run_caged(ws, NULL, "connect-abstract", name, NULL);
	check(t, refused(&r), &r, "r09: an abstract socket cannot be reached with the network off");
	r = run_caged(ws, NULL, "connect-tcp", "127.0.0.1", port_text, NULL);
	check(t, refused(&r), &r,
	      "r09: a loopback TCP port cannot be reached with the network off");
	r = run_caged(ws, NULL, "socket", family[0], family[1], family[2], NULL);
	check(t, refused(&r), &r, "r09: no AF_UNIX socket can be made with the network off");
	r = run_caged(ws, NULL, "unix-self", own, NULL);
	check(t, refused(&r), &r,
	      "r09: not even a socket of the cage's own in the workspace, with the network off");

	r = run_caged(ws, NULL, "socketpair", NULL);
	check(t, did_it(&r), &r, "r09: control: socketpair works in the cage");
	for (size_t i = 0; i < n; i++) {
		r = run_uncaged(ws, NULL, "connect-unix", d[i].path, NULL);
		check(t, did_it(&r), &r, "r09: control: without the cage %s is reached", d[i].what);
	}
	(void)unlink(own); /* a caged run may have made it */
	r = run_uncaged(ws, NULL, "connect-abstract", name, "then", "connect-tcp", "127.0.0.1",
			port_text, "then", "unix-self", own, NULL);
	check(t, did_it(&r), &r,
	      "r09: control: without the cage the abstract socket, the loopback port and a "
	      "socket of one's own are reached");
out:
	daemons_stop(d, n);
	listen_close(abstract_fd, NULL);
	listen_close(tcp_fd, NULL);
	caged_ws_free(ws);
}

/* A socket bound in a network namespace of its own, by a helper outside the cage. */
static struct caged_proc *listener_in_other_netns(const struct tier *t, struct caged_ws *ws,
						  const char *path, int hold[2])
{
	if (pipe2(hold, O_CLOEXEC) != 0)
		return NULL;
	struct procage_fd_map map = {hold[0], 3};
	struct caged_opts o = {.fds = &map, .n_fds = 1};
	struct caged_proc *p =
	    start_uncaged(ws, &o, "private-net", "then", "listen-unix", path, "then", "print",
			  "listening", "then", "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	if (caged_proc_wait_for(p, "listening", 10000))
		return p;
	close(hold[1]);
	hold[1] = -1;
	struct caged_result r = caged_proc_finish(p);
	diag("  r09: no listener in another network namespace: %s", r.summary);
	return NULL;
}

void r09_unix_sockets_reach_only_their_paths(const struct tier *t)
{
	struct daemon d[] = {
	    {"allowed.sock", "the socket the connect rule names", 3, "", -1},
	    {"other.sock", "another socket outside every grant", 3, "", -1},
	    {"inside.sock", "a socket inside the writable workspace", 2, "", -1},
	};
	const size_t n = sizeof d / sizeof *d;
	char own_dir[PATH_MAX], real[PATH_MAX], link[PATH_MAX], via_link[PATH_MAX],
	    netns_sock[PATH_MAX], own[PATH_MAX];
	int via_fd = -1, hold[2] = {-1, -1};
	struct caged_proc *other_ns = NULL;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r09");
	if (!ws || cage_refused_here(t, ws, "r09"))
		goto out;
	if (!daemons_start(t, ws, d, n) || !path_join(t, real, ws->root, "real") ||
	    !path_join(t, link, ws->root, "link") ||
	    !path_join(t, via_link, link, "via-link.sock") ||
	    !path_join(t, netns_sock, ws->root, "other-netns.sock") ||
	    /* Below the workspace's root, which is a zone of the broker (no socket bound there). */
	    !path_join(t, own, ws->rw, "sockets/own.sock") ||
	    !path_join(t, own_dir, ws->rw, "sockets") ||
	    !fixture(t, make_dirs(real) && make_dirs(own_dir) && symlink(real, link) == 0,
		     "r09: %s -> %s", link, real) ||
	    !policy_network(t, ws, "r09", PROCAGE_NET_ON) ||
	    !policy_rule(t, ws, "r09", d[0].path, PROCAGE_CONNECT))
		goto out;

	if (!tier_is_t1(t)) {
		/* With the network on, tier T2 brokers no connect: the rule is refused. */
		r = run_caged(ws, NULL, "connect-unix", d[0].path, NULL);
		check(t, refused_before_any_child(&r) && strstr(r.error, d[0].path), &r,
		      "r09: on tier T2 a connect rule is refused before any child runs, naming "
		      "the socket");
		if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r09: a fresh policy") ||
		    !policy_network(t, ws, "r09", PROCAGE_NET_ON))
			goto out;
		for (size_t i = 0; i < n; i++) {
			r = run_caged(ws, NULL, "connect-unix", d[i].path, NULL);
			check(t, refused(&r), &r,
			      "r09: on tier T2 without the rule, %s cannot be reached (network on)",
			      d[i].what);
		}
	} else {
		r = run_caged(ws, NULL, "connect-unix", d[0].path, "then", "unix-self", own, NULL);
		check(t, did_it(&r), &r,
		      "r09: control: in the cage the socket the rule names is reached, and one of "
		      "the cage's own in the workspace works");
		for (size_t i = 1; i < n; i++) {
			r = run_caged(ws, NULL, "connect-unix", d[i].path, NULL);
			check(t, refused(&r), &r, "r09: %s cannot be reached (network on)",
			      d[i].what);
		}
		/* Bound through a symbolic link: listed under the link's spelling. */
		via_fd = listen_unix(via_link);
		if (fixture(t, via_fd >= 0, "r09: listening at %s", via_link)) {
			r = run_caged(ws, NULL, "connect-unix", via_link, NULL);
			check(t, refused(&r), &r,
			      "r09: a socket bound through a symbolic link cannot be reached");
			r = run_caged(ws, NULL, "connect-unix", d[0].path, NULL);
			check(t, did_it(&r), &r,
			      "r09: control: with a socket bound through a link on the host, the "
			      "named socket is still reached from the cage");
		}
		listen_close(via_fd, via_link);
		via_fd = -1;
		/* Bound in another network namespace: not in this one's socket list. */
		other_ns = listener_in_other_netns(t, ws, netns_sock, hold);
		if (other_ns) {
			r = run_caged(ws, NULL, "connect-unix", netns_sock, NULL);
			check(t, refused(&r), &r,
			      "r09: a socket bound in another network namespace cannot be reached");
			r = run_uncaged(ws, NULL, "connect-unix", netns_sock, NULL);
			check(t, did_it(&r), &r,
			      "r09: control: without the cage the socket bound in another network "
			      "namespace is reached");
		}
	}
	for (size_t i = 0; i < n; i++) {
		r = run_uncaged(ws, NULL, "connect-unix", d[i].path, NULL);
		check(t, did_it(&r), &r, "r09: control: without the cage %s is reached", d[i].what);
	}
out:
	if (hold[1] >= 0)
		close(hold[1]);
	if (other_ns) {
		struct caged_result end = caged_proc_finish(other_ns);
		if (!did_it(&end))
			result_diag(&end);
	}
	daemons_stop(d, n);
	listen_close(via_fd, via_link);
	caged_ws_free(ws);
}

/*
 * A helper outside the cage that listens on sockets whose names in the
 * kernel's lists prove nothing (first FROM by the relative name REL, then
 * FROM renamed to TO), says "listening", and holds them until hold[1]
 * closes. rel may be NULL.
 */
static struct caged_proc *named_listeners(struct caged_ws *ws, const char *rel, const char *from,
					  const char *to, int hold[2])
{
	if (pipe2(hold, O_CLOEXEC) != 0)
		return NULL;
	struct procage_fd_map map = {hold[0], 3};
	struct caged_opts o = {.fds = &map, .n_fds = 1};
	struct caged_proc *p =
	    rel ? start_uncaged(ws, &o, "listen-unix", rel, "then", "listen-unix", from, "then",
				"rename", from, to, "then", "print", "listening", "then",
				"wait-on-fd", "3", NULL)
		: start_uncaged(ws, &o, "listen-unix", from, "then", "rename", from, to, "then",
				"print", "listening", "then", "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	if (caged_proc_wait_for(p, "listening", 10000))
		return p;
	close(hold[1]);
	hold[1] = -1;
	struct caged_result r = caged_proc_finish(p);
	diag("  r09: the helper did not listen: %s", r.summary);
	return NULL;
}

static void named_listeners_end(struct caged_proc *p, int hold[2])
{
	if (hold[1] >= 0)
		close(hold[1]);
	hold[1] = -1;
	if (p) {
		struct caged_result end = caged_proc_finish(p);
		if (!did_it(&end))
			result_diag(&end);
	}
}

/*
 * Sockets are masked by the inode of their file, not by the name they were
 * bound with: one bound by a relative name, one renamed after bind are
 * masked; one moved where procage cannot find it refuses the cage, naming
 * it, before any child runs.
 */
void r09_sockets_are_found_by_inode_not_by_name(const struct tier *t)
{
	char allowed[PATH_MAX], relative[PATH_MAX], first[PATH_MAX], renamed[PATH_MAX],
	    away_dir[PATH_MAX], moved_first[PATH_MAX], moved[PATH_MAX];
	int hold[2] = {-1, -1}, allowed_fd = -1;
	struct caged_proc *helper = NULL;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r09");
	if (!ws || cage_refused_here(t, ws, "r09"))
		goto out;
	if (!tier_is_t1(t)) {
		diag("r09: socket masks are tier T1's; on T2 no Unix socket is made (see above)");
		goto out;
	}
	if (!path_join(t, allowed, ws->root, "allowed.sock") ||
	    !path_join(t, relative, ws->rw, "r09-relative.sock") ||
	    !path_join(t, first, ws->root, "r09-first.sock") ||
	    !path_join(t, renamed, ws->root, "r09-renamed.sock") ||
	    !path_join(t, away_dir, ws->root, "away") ||
	    !path_join(t, moved_first, ws->root, "r09-moving.sock") ||
	    !path_join(t, moved, away_dir, "r09-moved.sock") ||
	    !fixture(t, (allowed_fd = listen_unix(allowed)) >= 0, "r09: listening at %s", allowed) ||
	    !fixture(t, make_dirs(away_dir), "r09: %s made", away_dir) ||
	    !policy_network(t, ws, "r09", PROCAGE_NET_ON) ||
	    !policy_rule(t, ws, "r09", allowed, PROCAGE_CONNECT))
		goto out;

	/* The helper's working directory is the workspace: the relative name lands there. */
	helper = named_listeners(ws, "r09-relative.sock", first, renamed, hold);
	if (fixture(t, helper != NULL, "r09: a helper listens by a relative name and renamed")) {
		r = run_caged(ws, NULL, "connect-unix", relative, NULL);
		check(t, refused(&r), &r, "r09: a socket bound by a relative name is masked");
		r = run_caged(ws, NULL, "connect-unix", renamed, NULL);
		check(t, refused(&r), &r, "r09: a socket renamed after bind is masked");
		r = run_caged(ws, NULL, "connect-unix", allowed, NULL);
		check(t, did_it(&r), &r, "r09: control: the socket the rule names is reached");
		r = run_uncaged(ws, NULL, "connect-unix", relative, "then", "connect-unix", renamed,
				NULL);
		check(t, did_it(&r), &r,
		      "r09: control: without the cage both are reached at their files");
	}
	named_listeners_end(helper, hold);
	helper = NULL;

	helper = named_listeners(ws, NULL, moved_first, moved, hold);
	if (fixture(t, helper != NULL, "r09: a helper listens on a socket moved away")) {
		r = run_caged(ws, NULL, "connect-unix", moved, NULL);
		/* The spawn is refused while it plans the mounts, before any fork. */
		check(t, r.how == CAGED_NOT_STARTED && strstr(r.error, "r09-moving.sock"), &r,
		      "r09: a socket moved to another directory after bind, which procage cannot "
		      "find, refuses the spawn before any child runs, naming it");
		r = run_uncaged(ws, NULL, "connect-unix", moved, NULL);
		check(t, did_it(&r), &r, "r09: control: without the cage it is reached");
	}
out:
	named_listeners_end(helper, hold);
	listen_close(allowed_fd, allowed);
	caged_ws_free(ws);
}

/* ---- R-34 ------------------------------------------------------------- */

/* The user's bus and service manager, and container engines' sockets. */
#define R34_DAEMONS                                                                                \
	{                                                                                          \
		{"bus", "the D-Bus session bus ($XDG_RUNTIME_DIR/bus)", 0, "", -1},                \
		    {"systemd/private", "the systemd user manager", 0, "", -1},                    \
		    {"docker.sock", "rootless Docker ($XDG_RUNTIME_DIR/docker.sock)", 0, "", -1},  \
		    {"podman/podman.sock", "Podman's API socket", 0, "", -1},                      \
		    {".docker/run/docker.sock", "Docker Desktop (~/.docker/run)", 1, "", -1},      \
		    {".colima/default/docker.sock", "Colima (~/.colima)", 1, "", -1},              \
	}

void r34_service_and_engine_sockets_are_unreachable(const struct tier *t)
{
	struct daemon d[] = R34_DAEMONS;
	const size_t n = sizeof d / sizeof *d;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r34");
	if (!ws || cage_refused_here(t, ws, "r34") || !daemons_start(t, ws, d, n))
		goto out;
	static const enum procage_network modes[] = {PROCAGE_NET_ON, PROCAGE_NET_OFF};
	for (size_t m = 0; m < 2; m++) {
		if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r34: a fresh policy") ||
		    !policy_network(t, ws, "r34", modes[m]))
			goto out;
		for (size_t i = 0; i < n; i++) {
			r = run_caged(ws, NULL, "connect-unix", d[i].path, NULL);
			check(t, refused(&r), &r, "r34: %s cannot be reached %s", d[i].what,
			      net_name(modes[m]));
		}
		r = run_caged(ws, NULL, "socketpair", NULL);
		check(t, did_it(&r), &r, "r34: control: socketpair works in the cage %s",
		      net_name(modes[m]));
	}
	for (size_t i = 0; i < n; i++) {
		r = run_uncaged(ws, NULL, "connect-unix", d[i].path, NULL);
		check(t, did_it(&r), &r, "r34: control: without the cage %s is reached", d[i].what);
	}
out:
	daemons_stop(d, n);
	caged_ws_free(ws);
}

void r34_an_abstract_bus_is_scoped(const struct tier *t)
{
	char name[96];
	int fd = -1;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r34");
	if (!ws || cage_refused_here(t, ws, "r34"))
		goto out;
	abstract_name(name, sizeof name, "r34-bus");
	if (!fixture(t, (fd = listen_abstract(name)) >= 0, "r34: listening on @%s", name))
		goto out;
	static const enum procage_network modes[] = {PROCAGE_NET_ON, PROCAGE_NET_OFF};
	for (size_t m = 0; m < 2; m++) {
		if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r34: a fresh policy") ||
		    !policy_network(t, ws, "r34", modes[m]))
			goto out;
		r = run_caged(ws, NULL, "connect-abstract", name, NULL);
		/* A host whose Landlock cannot scope them must refuse the cage instead. */
		bool ok =
		    refused(&r) || (refused_before_any_child(&r) && t->facts.landlock_abi < 6);
		check(t, ok, &r, "r34: an abstract bus (@%s) bound outside cannot be reached %s",
		      name, net_name(modes[m]));
		r = run_caged(ws, NULL, "socketpair", NULL);
		check(t, did_it(&r), &r, "r34: control: socketpair works in the cage %s",
		      net_name(modes[m]));
	}
	r = run_uncaged(ws, NULL, "connect-abstract", name, NULL);
	check(t, did_it(&r), &r, "r34: control: without the cage the abstract bus is reached");
out:
	listen_close(fd, NULL);
	caged_ws_free(ws);
}

/*
 * Start a caged probe that waits, then bind the socket, then let the probe
 * connect: the socket did not exist when the cage's run began.
 */
static struct caged_result connect_after_bind(struct caged_ws *ws, struct daemon *d)
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
					   "then", "connect-unix", d->path, NULL);
	close(hold[0]);
	if (caged_proc_wait_for(p, "ready", 10000))
		d->fd = listen_unix(d->path);
	close(hold[1]);
	r = caged_proc_finish(p);
	if (d->fd < 0)
		snprintf(r.summary + strlen(r.summary), sizeof r.summary - strlen(r.summary),
			 " [the socket was not bound: %s]", strerror(-d->fd));
	return r;
}

void r34_a_socket_bound_later_is_refused(const struct tier *t)
{
	struct daemon d[] = {
	    {"podman/podman.sock", "Podman's socket, in its class directory", 0, "", -1},
	    {"systemd/private", "the systemd manager's socket, in its class directory", 0, "", -1},
	    {"docker/docker.sock", "a socket in $XDG_RUNTIME_DIR/docker", 0, "", -1},
	    {".docker/run/docker.sock", "Docker Desktop's socket, in ~/.docker/run", 1, "", -1},
	    {".colima/default/docker.sock", "Colima's socket, in ~/.colima", 1, "", -1},
	};
	const size_t n = sizeof d / sizeof *d;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r34");
	if (!ws || cage_refused_here(t, ws, "r34"))
		goto out;
	/* The class directories exist at spawn; the sockets in them do not. */
	for (size_t i = 0; i < n; i++) {
		char dir[PATH_MAX];
		if (!path_join(t, d[i].path, daemon_base(ws, d[i].base), d[i].rel))
			goto out;
		snprintf(dir, sizeof dir, "%s", d[i].path);
		*strrchr(dir, '/') = '\0';
		if (!fixture(t, make_dirs(dir), "r34: %s made", dir))
			goto out;
	}
	static const enum procage_network modes[] = {PROCAGE_NET_ON, PROCAGE_NET_OFF};
	for (size_t m = 0; m < 2; m++) {
		if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r34: a fresh policy") ||
		    !policy_network(t, ws, "r34", modes[m]))
			goto out;
		for (size_t i = 0; i < n; i++) {
			r = connect_after_bind(ws, &d[i]);
			bool bound = d[i].fd >= 0;
			check(t, bound && refused(&r), &r,
			      "r34: %s, bound after the run started, cannot be reached %s",
			      d[i].what, net_name(modes[m]));
			if (bound) {
				r = run_uncaged(ws, NULL, "connect-unix", d[i].path, NULL);
				check(t, did_it(&r), &r,
				      "r34: control: without the cage it is reached (%s)",
				      d[i].what);
			}
			listen_close(d[i].fd, d[i].path);
			d[i].fd = -1;
		}
	}
out:
	daemons_stop(d, n);
	caged_ws_free(ws);
}
