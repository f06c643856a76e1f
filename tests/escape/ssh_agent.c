/*
 * The --allow-ssh agent filter: a caged child whose SSH_AUTH_SOCK is
 * procage's filter gets from the caller's agent only a key listing on a
 * connection bound to an allowed host's known key; adding a key, a listing
 * on an unbound connection and a signature after a bind to an unknown key
 * are refused. Without the sandbox the child speaks to the caller's agent
 * itself, and every request is answered.
 *
 * The caller's agent is a stand-in this test serves on a socket outside
 * every grant (a thread of the suite): it answers SSH_AGENT_SUCCESS to
 * every request, so each refusal seen is the filter's.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "escape.h"

/* ---- the stand-in agent ------------------------------------------------ */

#define STAND_IN_CONNS 8

struct stand_in {
	int fd;
	char path[PATH_MAX + 16];
	atomic_bool stop;
	pthread_t thread;
	bool running;
};

/* One request read from c and answered SSH_AGENT_SUCCESS; false at its end. */
static bool stand_in_answer(int c)
{
	uint8_t header[4], body[4096];
	if (read(c, header, 4) != 4)
		return false;
	uint32_t len = (uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 |
		       (uint32_t)header[2] << 8 | header[3];
	for (uint32_t got = 0; got < len;) {
		uint32_t want = len - got < sizeof body ? len - got : (uint32_t)sizeof body;
		ssize_t r = read(c, body, want);
		if (r <= 0)
			return false;
		got += (uint32_t)r;
	}
	static const uint8_t success[5] = {0, 0, 0, 1, 6};
	return write(c, success, sizeof success) == (ssize_t)sizeof success;
}

static void *stand_in_serve(void *arg)
{
	struct stand_in *s = arg;
	struct pollfd p[1 + STAND_IN_CONNS];
	size_t n = 1;
	p[0] = (struct pollfd){s->fd, POLLIN, 0};
	while (!atomic_load(&s->stop)) {
		if (poll(p, n, 100) <= 0)
			continue;
		for (size_t i = n; i-- > 1;)
			if (p[i].revents && !stand_in_answer(p[i].fd)) {
				close(p[i].fd);
				p[i] = p[--n];
			}
		int c = (p[0].revents & POLLIN) ? accept4(s->fd, NULL, NULL, SOCK_CLOEXEC) : -1;
		if (c >= 0 && n < 1 + STAND_IN_CONNS)
			p[n++] = (struct pollfd){c, POLLIN, 0};
		else if (c >= 0)
			close(c);
	}
	for (size_t i = 1; i < n; i++)
		close(p[i].fd);
	return NULL;
}

static bool stand_in_start(const struct tier *t, struct caged_ws *ws, struct stand_in *s)
{
	memset(s, 0, sizeof *s);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(s->path, sizeof s->path, "%s/agent.sock", ws->root);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = s->fd >= 0 && strlen(s->path) < sizeof a.sun_path;
	if (ok) {
		memcpy(a.sun_path, s->path, strlen(s->path) + 1);
		ok = bind(s->fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(s->fd, 8) == 0;
	}
	if (!fixture(t, ok, "r51: the stand-in agent listens at %s", s->path))
		return false;
	s->running = pthread_create(&s->thread, NULL, stand_in_serve, s) == 0;
	return fixture(t, s->running, "r51: the stand-in agent's thread runs");
}

static void stand_in_stop(struct stand_in *s)
{
	atomic_store(&s->stop, true);
	if (s->running)
		pthread_join(s->thread, NULL);
	if (s->fd >= 0)
		close(s->fd);
}

/* ---- the canary --------------------------------------------------------- */

/* A session-bind to the host key blob KEY (8 bytes), session "SIDx". */
#define BIND(key)                                                                                  \
	"\\x1b\\x00\\x00\\x00\\x18session-bind@openssh.com\\x00\\x00\\x00\\x08" key                \
	"\\x00\\x00\\x00\\x04SIDx\\x00\\x00\\x00\\x03sig\\x00"
#define LIST "\\x0b"
#define ADD "\\x11\\x00\\x00\\x00\\x0bssh-ed25519"
#define SIGN                                                                                       \
	"\\x0d\\x00\\x00\\x00\\x03key\\x00\\x00\\x00\\x09\\x00\\x00\\x00\\x05SIDx2\\x00\\x00\\x00" \
	"\\x00"

/* The caller's known_hosts: "Khostkey" is the allowed host's key. */
static bool known_hosts_write(const struct tier *t, const struct caged_ws *ws)
{
	char dir[PATH_MAX + 8], file[PATH_MAX + 24];
	snprintf(dir, sizeof dir, "%s/.ssh", ws->home);
	snprintf(file, sizeof file, "%s/known_hosts", dir);
	FILE *f = (mkdir(dir, 0700) == 0 || errno == EEXIST) ? fopen(file, "w") : NULL;
	bool ok = f && fputs("[127.0.0.1]:2201 ssh-ed25519 S2hvc3RrZXk=\n", f) >= 0;
	if (f)
		ok = fclose(f) == 0 && ok;
	return fixture(t, ok, "r51: the caller's known_hosts is written");
}

void r53_the_agent_filter_relays_only_a_bound_session(const struct tier *t)
{
	struct procage_error err = {0};
	struct caged_ws *ws = caged_ws_new();
	struct stand_in s = {.fd = -1};
	const char *saved = getenv("SSH_AUTH_SOCK");
	char *saved_copy = saved ? strdup(saved) : NULL;
	if (!fixture(t, ws != NULL, "r51: a workspace") || !stand_in_start(t, ws, &s) ||
	    !known_hosts_write(t, ws) || !policy_network(t, ws, "r51", PROCAGE_NET_PROXY) ||
	    !fixture(t, procage_policy_allow_ssh(ws->policy, "127.0.0.1:2201", &err) == 0,
		     "r51: the policy allows ssh to 127.0.0.1:2201 (%s)", err.message))
		goto out;
	/* The caller's agent, as the cage is made and as an uncaged run sees it. */
	setenv("SSH_AUTH_SOCK", s.path, 1);
	struct caged_result r = run_caged(ws, NULL, "agent-request", BIND("Khostkey"), LIST, NULL);
	if (!tier_is_t1(t) && !t->facts.seccomp_user_notif) {
		check(t, refused_before_any_child(&r), &r,
		      "r51: a proxy-only cage is refused before any child runs on this T2 host");
		goto out;
	}
	check(t,
	      r.how == CAGED_EXITED && r.code == PROBE_DID_IT &&
		  strstr(r.out, "answer 6\nanswer 6"),
	      &r, "r51 control: a bind to the allowed host's key, then a key listing, are relayed");
	r = run_caged(ws, NULL, "agent-request", ADD, NULL);
	check(t, r.how == CAGED_EXITED && r.code == PROBE_REFUSED, &r,
	      "r51: adding a key to the caller's agent is refused");
	r = run_caged(ws, NULL, "agent-request", LIST, NULL);
	check(t, r.how == CAGED_EXITED && r.code == PROBE_REFUSED, &r,
	      "r51: a key listing on a connection bound to no allowed host is refused");
	r = run_caged(ws, NULL, "agent-request", BIND("Kother12"), SIGN, NULL);
	check(t,
	      r.how == CAGED_EXITED && r.code == PROBE_REFUSED &&
		  strstr(r.out, "answer 5\nanswer 5"),
	      &r, "r51: a bind to another host's key, then a signature, are refused");
	r = run_caged(ws, NULL, "agent-request", BIND("Khostkey"), SIGN, NULL);
	check(t, r.how == CAGED_EXITED && r.code == PROBE_REFUSED, &r,
	      "r51: bound to the allowed host, a signature over another session's data is refused");
out:
	if (saved_copy)
		setenv("SSH_AUTH_SOCK", saved_copy, 1);
	else
		unsetenv("SSH_AUTH_SOCK");
	free(saved_copy);
	stand_in_stop(&s);
	caged_ws_free(ws);
}
