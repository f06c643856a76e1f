/*
 * Tier T2's terminals: the supervisor opens /dev/pts/N for a run
 * only when the caller holds the master of N (watch/broker_pty.c). A run
 * holding a master of its own still opens no other terminal of the
 * user's: what is typed there is not read.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

#define R22_TYPED "R22-HELD-TYPED\n"

static bool type_line(const struct tier *t, int master)
{
	char echo[256];
	bool ok = write(master, R22_TYPED, sizeof R22_TYPED - 1) == (ssize_t)(sizeof R22_TYPED - 1);
	struct pollfd pf = {master, POLLIN, 0};
	/* The terminal's echo, read off so that only the line waits for a reader. */
	while (ok && poll(&pf, 1, 200) == 1 && read(master, echo, sizeof echo) > 0)
		;
	return fixture(t, ok, "r22: a line typed at the user's terminal (%s)", strerror(errno));
}

void r22_a_run_holding_a_terminal_opens_no_other(const struct tier *t)
{
	char name[64] = "";
	int master = -1, slave = -1;
	struct caged_ws *ws = workspace(t, "r22");
	if (!ws || cage_refused_here(t, ws, "r22"))
		goto out;
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 && ptsname(master)) {
		snprintf(name, sizeof name, "%s", ptsname(master));
		slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	}
	if (!fixture(t, slave >= 0, "r22: a terminal of the user's (%s)", strerror(errno)) ||
	    !type_line(t, master))
		goto out;
	struct caged_result r = run_caged(ws, NULL, "pty-hold-read", name, NULL);
	check(t, !did_it(&r) && !strstr(r.out, "R22-HELD"), &r,
	      "r22: a run holding a master of its own does not read the user's terminal %s", name);
	if (!type_line(t, master))
		goto out;
	r = run_uncaged(ws, NULL, "pty-hold-read", name, NULL);
	check(t, did_it(&r) && strstr(r.out, "R22-HELD"), &r,
	      "r22: control: without the cage the same reads what was typed there");
out:
	if (slave >= 0)
		close(slave);
	if (master >= 0)
		close(master);
	caged_ws_free(ws);
}
