/*
 * A crash of the run hands nothing to the host's core dump helper. Where
 * core_pattern pipes to a program (systemd-coredump, apport), the kernel
 * runs it as root outside every namespace, on the crashed process's memory
 * and /proc, whatever RLIMIT_CORE is but 1 (a limit of 0 does not stop a
 * pipe); a core file is written for no limit below a page. So the run's
 * limit is 1, and no way of lowering it works: setrlimit succeeds and
 * changes nothing (sanitizer runtimes and `ulimit -c 0` run on), prlimit64
 * asked for the old value too is refused. Judged by what the probe reads
 * back in the cage; the host's core_pattern is never changed, and nothing
 * crashes.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "escape.h"

static void core_limit_checks(const struct tier *t, struct caged_result *r, const char *how)
{
	check(t, did_it(r) && strstr(r->out, "core limit 1 1 ") != NULL, r,
	      "core dumps: %s the run's core limit is 1 (none, for a pipe helper too) and "
	      "lowering it to 0 leaves it so",
	      how);
	check(t, did_it(r) && strstr(r->out, "prlimit Operation not permitted") != NULL, r,
	      "core dumps: %s prlimit64 setting the core limit and reading the old one is refused",
	      how);
	check(t, did_it(r) && strstr(r->out, "setrlimit returned 0") != NULL, r,
	      "core dumps: control: %s setrlimit of the core limit still returns 0", how);
}

void r47_a_crash_reaches_no_core_dump_helper(const struct tier *t)
{
	struct rlimit caller;
	struct caged_ws *ws = workspace(t, "core-dumps");
	if (!ws || cage_refused_here(t, ws, "core-dumps"))
		goto out;
	if (getrlimit(RLIMIT_CORE, &caller) != 0 || caller.rlim_max < 1) {
		skip(t,
		     "core dumps: the caller's hard core limit is 0, so no run of it can be given "
		     "1 (a pipe helper would run on a crash: THREAT_MODEL.md R-47)");
		goto out;
	}
	struct caged_result r = run_caged(ws, NULL, "core-limit", "0", "0", NULL);
	core_limit_checks(t, &r, "in a run");

	struct procage_error err;
	char why[600] = "";
	if (fixture(t,
		    procage_policy_set_private_tmp(ws->policy, false, &err) == 0 &&
			caged_ws_hold_cage(ws, why, sizeof why) == 0,
		    "core dumps: a cage for exec mode (%s)", why)) {
		/* Its output is not kept: the probe's status says whether the limit moved. */
		const char *argv[] = {"core-limit-lowered", "0", "0", NULL};
		r = run_exec_mode(ws, argv);
		check(t, refused(&r), &r,
		      "core dumps: in exec mode lowering the core limit to 0 leaves it at 1");
		caged_ws_drop_cage(ws);
	}

	r = run_uncaged(ws, NULL, "core-limit", "0", "0", NULL);
	check(t, did_it(&r) && strstr(r.out, "core limit 0 0 ") != NULL, &r,
	      "core dumps: control: without the cage the probe lowers its core limit to 0");
	const char *lowered[] = {"core-limit-lowered", "0", "0", NULL};
	r = run_uncaged_argv(ws, NULL, lowered);
	check(t, did_it(&r), &r,
	      "core dumps: control: without the cage core-limit-lowered says the limit moved");
out:
	caged_ws_free(ws);
}
