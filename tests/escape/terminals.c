/*
 * The terminal.
 *
 * Input injection: the test makes a pseudo-terminal pair and gives the
 * probe the terminal side as its standard input; the probe tries to make
 * it its controlling terminal and push input into it (TIOCSTI, with and
 * without bits above the command's 32, and TIOCLINUX). What reaches the
 * test's side (the echo of pushed input) is read there.
 *
 * The user's other terminals: the test's pair stands for a terminal the
 * user types at; the probe, given only its name in /dev/pts, tries to
 * read what was typed and to write to it. On tier T1 the run has a devpts
 * of its own, where it makes terminals of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"

static const enum procage_lifetime r22_lifetimes[] = {PROCAGE_LIFETIME_SESSION,
						      PROCAGE_LIFETIME_TREE};

static const char *r22_lifetime_name(enum procage_lifetime l)
{
	return l == PROCAGE_LIFETIME_TREE ? "tree" : "session";
}

static bool r22_policy_lifetime(const struct tier *t, struct caged_ws *ws, enum procage_lifetime l)
{
	struct procage_error err = {0};
	int rc = procage_policy_set_lifetime(ws->policy, l, &err);
	return fixture(t, rc == 0, "r22: the policy takes the lifetime %s (%s)",
		       r22_lifetime_name(l), err.message);
}

struct pty {
	int master, slave;
};

static bool pty_open(const struct tier *t, struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	p->slave = -1;
	if (p->master >= 0 && grantpt(p->master) == 0 && unlockpt(p->master) == 0) {
		const char *name = ptsname(p->master);
		if (name)
			p->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	}
	return fixture(t, p->slave >= 0, "r22: a pseudo-terminal pair (%s)", strerror(errno));
}

static void pty_close(struct pty *p)
{
	if (p->master >= 0)
		close(p->master);
	if (p->slave >= 0)
		close(p->slave);
	p->master = p->slave = -1;
}

/* What reaches the test's side within a short time (the terminal's echo). */
static void pty_drain(const struct pty *p, char *buf, size_t size)
{
	size_t len = 0;
	struct pollfd pf = {p->master, POLLIN, 0};
	while (len + 1 < size && poll(&pf, 1, 200) == 1) {
		ssize_t n = read(p->master, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
}

/* The probe with the terminal as its standard input (and output, with out). */
static struct caged_result pty_run(struct caged_ws *ws, const struct pty *p, bool caged, bool out,
				   const char *action, const char *a1, const char *a2,
				   const char *a3)
{
	struct procage_fd_map maps[2] = {{p->slave, 0}, {p->slave, 1}};
	struct caged_opts o = {.fds = maps, .n_fds = out ? 2 : 1};
	const char *args[] = {action, a1, a2, a3, NULL};
	return caged ? run_caged_argv(ws, &o, args) : run_uncaged_argv(ws, &o, args);
}

void r22_terminal_input_injection_is_refused(const struct tier *t)
{
	char seen[4096];
	struct pty p = {-1, -1};
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r22");
	if (!ws || cage_refused_here(t, ws, "r22"))
		goto out;
	for (size_t i = 0; i < 2; i++) {
		enum procage_lifetime l = r22_lifetimes[i];
		if (!r22_policy_lifetime(t, ws, l))
			break;
		for (int wide = 0; wide < 2; wide++) {
			if (!pty_open(t, &p))
				goto out;
			r = pty_run(ws, &p, true, false, "tty-inject", "0", "R22INJECTED\n",
				    wide ? "wide" : NULL);
			pty_drain(&p, seen, sizeof seen);
			check(t, refused(&r) && !strstr(seen, "R22INJECTED"), &r,
			      "r22 (%s lifetime): the cage cannot push input into a terminal it "
			      "shares%s, nothing reaches the terminal's other side",
			      r22_lifetime_name(l),
			      wide ? " (TIOCSTI with bits above 32 set)" : "");
			r = pty_run(ws, &p, true, false, "tioclinux", "0", wide ? "wide" : NULL,
				    NULL);
			check(t, refused(&r), &r, "r22 (%s lifetime): TIOCLINUX is refused%s",
			      r22_lifetime_name(l), wide ? " (with bits above 32 set)" : "");
			pty_close(&p);
		}
	}
	/* The shared terminal itself works: the cage writes to it. */
	if (pty_open(t, &p)) {
		r = pty_run(ws, &p, true, true, "print", "R22-SHARED-TERMINAL-OK", NULL, NULL);
		pty_drain(&p, seen, sizeof seen);
		check(t, did_it(&r) && strstr(seen, "R22-SHARED-TERMINAL-OK"), &r,
		      "r22: control: in the cage the command writes to the shared terminal");
		pty_close(&p);
	}
	/* Without the cage the same process makes it its terminal and types into it. */
	if (pty_open(t, &p)) {
		r = pty_run(ws, &p, false, false, "tty-inject", "0", "R22INJECTED\n", NULL);
		pty_drain(&p, seen, sizeof seen);
		if (did_it(&r) && !strstr(seen, "R22INJECTED"))
			check(t, false, &r,
			      "r22: control: the pushed input reaches the other side");
		else
			control_or_skip(
			    t, "r22", HOST_TIOCSTI, &r,
			    "pushing input into its terminal (it reaches the other side)");
		pty_close(&p);
	}
	if (pty_open(t, &p)) {
		r = pty_run(ws, &p, false, false, "tioclinux", "0", NULL, NULL);
		check(t, r.how == CAGED_EXITED && r.code == PROBE_ERROR && strstr(r.err, "ENOTTY"),
		      &r,
		      "r22: control: without the cage TIOCLINUX reaches the terminal driver (which "
		      "has none on a pseudo-terminal: ENOTTY)");
		pty_close(&p);
	}
out:
	pty_close(&p);
	caged_ws_free(ws);
}

/*
 * Until marker has reached the test's side, or the deadline (which only
 * bounds a failure) has passed; what came is in buf.
 */
static bool pty_seen(const struct pty *p, const char *marker, char *buf, size_t size)
{
	size_t len = 0;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	buf[0] = '\0';
	while (!strstr(buf, marker) && len + 1 < size) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = 30000 - ((now.tv_sec - start.tv_sec) * 1000 +
				     (now.tv_nsec - start.tv_nsec) / 1000000);
		struct pollfd pf = {p->master, POLLIN, 0};
		if (left <= 0 || poll(&pf, 1, (int)left) != 1)
			break;
		ssize_t n = read(p->master, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return strstr(buf, marker) != NULL;
}

/*
 * Another terminal of the user's is a file of /dev/pts, the user's own:
 * a run that opened it by name would read what is typed there (a password
 * at a prompt) and write to it. No grant reaches /dev/pts; on tier T1 the
 * run has a devpts of its own, where it makes terminals (openpty) that
 * only it sees, and where the host's names are not. On tier T2 the
 * supervisor opens for the run only the terminal end of a pair whose
 * master it holds (watch/broker_pty.c): the user's stay refused.
 */
void r22_the_users_terminals_are_out_of_reach(const struct tier *t)
{
	static const char typed[] = "R22-TYPED-AT-THE-PROMPT\n";
	char seen[4096], name[64] = "";
	struct pty p = {-1, -1};
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r22");
	if (!ws || cage_refused_here(t, ws, "r22") || !pty_open(t, &p))
		goto out;
	snprintf(name, sizeof name, "%s", ptsname(p.master) ? ptsname(p.master) : "");
	/* Typed at that terminal: its input queue holds a line. */
	if (!fixture(t, write(p.master, typed, sizeof typed - 1) == (ssize_t)(sizeof typed - 1),
		     "r22: a line typed at %s (%s)", name, strerror(errno)))
		goto out;
	pty_drain(&p, seen, sizeof seen); /* its echo */

	r = run_caged(ws, NULL, "tty-read", name, NULL);
	check(t, !did_it(&r) && !strstr(r.out, "R22-TYPED"), &r,
	      "r22: what is typed at another terminal of the user (%s) cannot be read", name);
	r = run_caged(ws, NULL, "tty-write", name, "R22-WRITTEN\n", NULL);
	pty_drain(&p, seen, sizeof seen);
	check(t, !did_it(&r) && !strstr(seen, "R22-WRITTEN"), &r,
	      "r22: nothing is written to another terminal of the user");
	/* Tier T2: made through /dev/ptmx, the terminal end opened by the broker. */
	if (tier_is_t1(t) || t->facts.seccomp_user_notif) {
		r = run_caged(ws, NULL, "pty-own", NULL);
		check(t, did_it(&r) && strstr(r.out, "pty-line"), &r,
		      "r22: control: the run makes terminals of its own (openpty)");
	}

	/* Typed again: a run that read it (the sandbox off) took the line. */
	if (!fixture(t, write(p.master, typed, sizeof typed - 1) == (ssize_t)(sizeof typed - 1),
		     "r22: a line typed again at %s (%s)", name, strerror(errno)))
		goto out;
	pty_drain(&p, seen, sizeof seen);
	r = run_uncaged(ws, NULL, "tty-read", name, "then", "tty-write", name, "R22-WRITTEN\n",
			NULL);
	check(t,
	      did_it(&r) && strstr(r.out, "R22-TYPED") &&
		  pty_seen(&p, "R22-WRITTEN", seen, sizeof seen),
	      &r,
	      "r22: control: without the cage the same user reads what was typed there and "
	      "writes to it");
out:
	pty_close(&p);
	caged_ws_free(ws);
}
