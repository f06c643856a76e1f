/*
 * Other processes: the cage grants no host /proc, so the user's
 * other processes (their arguments, environment, descriptors) are out of
 * sight and out of reach of signals; on tier T1 with a PID namespace the
 * run's own /proc is readable (own_proc) and holds only the run. A rule that reaches /proc, spelled directly
 * or through a link, is the approximation proc-other-processes, which
 * exposes arguments but never the environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

#define R25_ARG "r25-argument-of-another-process"
#define R25_ENV "R25_TOKEN_OF_ANOTHER_PROCESS=r25-environment-of-another-process"

/*
 * On tier T1, where the host allows it, a run has a PID namespace and a
 * /proc of its own: another process is not refused there, it is not there
 * at all (ENOENT, ESRCH). Either way it is out of the cage's reach.
 */
static bool out_of_reach(const struct tier *t, const struct caged_result *r)
{
	if (refused(r))
		return true;
	return tier_is_t1(t) && t->facts.pidns_private_proc && r->how == CAGED_EXITED &&
	       r->code == PROBE_ERROR && (strstr(r->err, "ENOENT") || strstr(r->err, "ESRCH"));
}

/* Is pid one of the lines of a directory listing? */
static bool listed(const char *listing, const char *pid)
{
	size_t n = strlen(pid);
	for (const char *line = listing; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (strncmp(line, pid, n) == 0 && (line[n] == '\n' || line[n] == '\0'))
			return true;
	}
	return false;
}

/*
 * Listing /proc: refused, or on tier T1 with a PID namespace the run's
 * own /proc (own_proc), or on tier T2 the supervisor's listing of the
 * run's processes, listed without the process outside.
 */
static bool proc_listing_holds_no(const struct tier *t, const struct caged_result *r,
				  const char *pid)
{
	if (refused(r))
		return !listed(r->out, pid);
	if (!tier_is_t1(t))
		return did_it(r) && !listed(r->out, pid);
	return t->facts.pidns_private_proc && did_it(r) && listed(r->out, "1") &&
	       !listed(r->out, pid);
}

/* A process outside the cage, alive until *hold is closed. */
static struct caged_proc *r25_target(const struct tier *t, struct caged_ws *ws, int hold[2])
{
	static char *env[] = {R25_ENV, "PATH=/usr/bin:/bin", NULL};
	if (!fixture(t, pipe2(hold, O_CLOEXEC) == 0, "r25: pipe: %s", strerror(errno)))
		return NULL;
	struct procage_fd_map map = {hold[0], 3};
	struct caged_opts o = {.env = env, .fds = &map, .n_fds = 1};
	struct caged_proc *p =
	    start_uncaged(ws, &o, "print", R25_ARG, "then", "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	if (!fixture(t, caged_proc_wait_for(p, R25_ARG, 10000),
		     "r25: a target process is running outside the cage")) {
		close(hold[1]);
		hold[1] = -1;
		struct caged_result r = caged_proc_finish(p);
		result_diag(&r);
		return NULL;
	}
	return p;
}

static void r25_target_end(struct caged_proc *p, int hold[2])
{
	if (hold[1] >= 0)
		close(hold[1]);
	hold[1] = -1;
	if (p) {
		struct caged_result r = caged_proc_finish(p);
		if (!did_it(&r))
			result_diag(&r);
	}
}

void r25_other_processes_are_opaque(const struct tier *t)
{
	char pid[16], cmdline[64], environ_path[64], status[64], fd_dir[64], root_dir[64];
	int hold[2] = {-1, -1};
	struct caged_proc *target = NULL;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r25");
	if (!ws || cage_refused_here(t, ws, "r25") || !(target = r25_target(t, ws, hold)))
		goto out;
	snprintf(pid, sizeof pid, "%d", (int)caged_proc_pid(target));
	snprintf(cmdline, sizeof cmdline, "/proc/%s/cmdline", pid);
	snprintf(environ_path, sizeof environ_path, "/proc/%s/environ", pid);
	snprintf(status, sizeof status, "/proc/%s/status", pid);
	snprintf(fd_dir, sizeof fd_dir, "/proc/%s/fd", pid);
	snprintf(root_dir, sizeof root_dir, "/proc/%s/root", pid);

	r = run_caged(ws, NULL, "read-file", cmdline, NULL);
	check(t, out_of_reach(t, &r) && !strstr(r.out, "r25-"), &r,
	      "r25: another process's arguments (%s) cannot be read", cmdline);
	r = run_caged(ws, NULL, "read-file", environ_path, NULL);
	check(t, out_of_reach(t, &r) && !strstr(r.out, "r25-"), &r,
	      "r25: another process's environment cannot be read");
	r = run_caged(ws, NULL, "read-file", status, NULL);
	check(t, out_of_reach(t, &r), &r, "r25: another process's status cannot be read");
	r = run_caged(ws, NULL, "list-dir", fd_dir, NULL);
	check(t, out_of_reach(t, &r), &r, "r25: another process's descriptors cannot be listed");
	r = run_caged(ws, NULL, "list-dir", root_dir, NULL);
	check(t, out_of_reach(t, &r), &r, "r25: another process's root cannot be listed");
	r = run_caged(ws, NULL, "list-dir", "/proc", "1", pid, NULL);
	check(t, proc_listing_holds_no(t, &r, pid), &r,
	      "r25: /proc lists only the run's processes, without the process outside");
	r = run_caged(ws, NULL, "kill", pid, "0", NULL);
	check(t, out_of_reach(t, &r), &r, "r25: another process cannot be signalled (not even signal 0)");

	r = run_caged(ws, NULL, "kill", "self", "0", NULL);
	check(t, did_it(&r), &r, "r25: control: in the cage the probe signals itself");
	r = run_uncaged(ws, NULL, "read-file", cmdline, "then", "read-file", environ_path, "then",
			"list-dir", fd_dir, "then", "kill", pid, "0", NULL);
	check(t, did_it(&r) && strstr(r.out, R25_ARG) && strstr(r.out, "r25-environment"), &r,
	      "r25: control: without the cage the same user reads the process's arguments, "
	      "environment and descriptors, and signals it");
out:
	r25_target_end(target, hold);
	caged_ws_free(ws);
}

/* The cage of this policy is refused before any child, naming the approximation. */
static void r25_refused(const struct tier *t, struct caged_ws *ws, const char *what,
			const char *target)
{
	struct caged_result r = run_caged(ws, NULL, "read-file", target, NULL);
	check(t, refused_before_any_child(&r) && strstr(r.error, "proc-other-processes"), &r,
	      "r25: %s is refused before any child runs, naming proc-other-processes", what);
}

void r25_proc_through_a_link_or_a_grant_is_an_approximation(const struct tier *t)
{
	char pid[16], cmdline[64], environ_path[64], link[PATH_MAX], link_cmdline[PATH_MAX],
	    ro_link[PATH_MAX];
	int hold[2] = {-1, -1};
	struct caged_proc *target = NULL;
	struct caged_result r;
	struct procage_policy *base = NULL;
	struct caged_ws *ws = workspace(t, "r25");
	if (!ws || cage_refused_here(t, ws, "r25") || !(target = r25_target(t, ws, hold)))
		goto out;
	snprintf(pid, sizeof pid, "%d", (int)caged_proc_pid(target));
	snprintf(cmdline, sizeof cmdline, "/proc/%s/cmdline", pid);
	snprintf(environ_path, sizeof environ_path, "/proc/%s/environ", pid);
	if (!path_join(t, link, ws->rw, "proc-link") ||
	    !path_join(t, link_cmdline, link, cmdline + strlen("/proc/")) ||
	    !fixture(t, symlink("/proc", link) == 0, "r25: the link %s -> /proc", link) ||
	    !path_join(t, ro_link, ws->ro, "proc-link") ||
	    !fixture(t, symlink("/proc", ro_link) == 0, "r25: the link %s -> /proc", ro_link))
		goto out;

	/* A link to /proc inside the writable workspace leads nowhere. */
	r = run_caged(ws, NULL, "read-file", link_cmdline, NULL);
	check(t, out_of_reach(t, &r) && !strstr(r.out, "r25-"), &r,
	      "r25: a link to /proc in the workspace does not reach other processes");

	/* Rules that reach /proc, each on a fresh copy of the workspace's policy. */
	struct {
		const char *what, *path;
	} reaching[] = {
	    {"a read rule for /proc", "/proc"},
	    /*
	     * Outside the write grants: one inside them is refused before this,
	     * as a link a run could have planted.
	     */
	    {"a read rule spelled through a link to /proc", ro_link},
	    {"a read rule for /dev/fd (a link into /proc)", "/dev/fd"},
	};
	for (size_t i = 0; i < sizeof reaching / sizeof *reaching; i++) {
		if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r25: a fresh policy"))
			goto out;
		if (policy_rule(t, ws, "r25", reaching[i].path, PROCAGE_READ))
			r25_refused(t, ws, reaching[i].what, cmdline);
	}
	if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r25: a fresh policy"))
		goto out;
	base = ws->policy;

	/*
	 * A grant above /proc (here: the whole file system) reaches it through
	 * the process-access class, which hides it.
	 */
	struct procage_policy *whole = procage_policy_new();
	struct procage_error err;
	ws->policy = whole;
	if (fixture(t,
		    whole && procage_policy_allow(whole, "/", PROCAGE_READ, &err) == 0 &&
			procage_policy_set_private_tmp(whole, false, &err) == 0 &&
			procage_policy_accept(whole, "spawn-snapshot", &err) == 0 &&
			procage_policy_accept(whole, "entry-grants", &err) == 0,
		    "r25: a policy reading / (%s)", whole ? err.message : "out of memory")) {
		r = run_caged(ws, NULL, "read-file", cmdline, NULL);
		check(t, refused(&r) && !strstr(r.out, "r25-"), &r,
		      "r25: reading / leaves /proc hidden: other processes' arguments stay unread");
		r = run_caged(ws, NULL, "list-dir", "/proc", NULL);
		check(t, refused(&r) && !strstr(r.out, pid), &r,
		      "r25: reading / leaves /proc unlistable");
		r = run_caged(ws, NULL, "read-file", "/etc/hostname", NULL);
		check(t, did_it(&r), &r,
		      "r25: control: reading / does read the rest (/etc/hostname)");
	}
	ws->policy = base;
	procage_policy_free(whole);

	/* Accepted by name: the arguments become readable, never the environment. */
	if (policy_rule(t, ws, "r25", "/proc", PROCAGE_READ) &&
	    policy_accept(t, ws, "r25", "proc-other-processes")) {
		r = run_caged(ws, NULL, "read-file", environ_path, NULL);
		check(t, out_of_reach(t, &r) && !strstr(r.out, "r25-"), &r,
		      "r25: with proc-other-processes accepted, another process's environment "
		      "still cannot be read");
		r = run_caged(ws, NULL, "kill", pid, "0", NULL);
		check(t, out_of_reach(t, &r), &r,
		      "r25: with proc-other-processes accepted, other processes still cannot be "
		      "signalled");
		r = run_caged(ws, NULL, "read-file", cmdline, NULL);
		if (tier_is_t1(t) && t->facts.pidns_private_proc) {
			/* The granted /proc is the run's own: nothing of other processes is in it. */
			check(t, out_of_reach(t, &r) && !strstr(r.out, R25_ARG), &r,
			      "r25: with proc-other-processes accepted on tier T1 with a PID "
			      "namespace, another process is not in the run's own /proc");
			r = run_caged(ws, NULL, "read-file", "/proc/self/cmdline", NULL);
			check(t, did_it(&r) && strstr(r.out, "read-file"), &r,
			      "r25: control: with proc-other-processes accepted, the run's own /proc "
			      "is readable (the probe's own arguments)");
		} else {
			check(t, did_it(&r) && strstr(r.out, R25_ARG), &r,
			      "r25: control: with proc-other-processes accepted, another process's "
			      "arguments are readable, as the approximation says");
		}
	}
	r = run_uncaged(ws, NULL, "read-file", link_cmdline, NULL);
	check(t, did_it(&r) && strstr(r.out, R25_ARG), &r,
	      "r25: control: without the cage the link in the workspace reaches the process");
out:
	if (ws && base)
		ws->policy = base;
	r25_target_end(target, hold);
	caged_ws_free(ws);
}

/*
 * A root caller's run is uid 0, the owner of the /proc files only root
 * may read and of the ones root may write with no capability: on tier T1
 * its own /proc (own_proc) masks them (docs/proc.md), on tier T2 the
 * host's /proc is hidden. Each masked entry present on this host is
 * refused to the run, for every caller (the masks are the same); the
 * control is a system file left readable (/proc/meminfo) and, for a root
 * caller, each entry read outside the cage. The writes keep what they
 * would write: the host's own host name, back into itself, and no key
 * into sysrq-trigger (opening it is the attempt).
 */
void r25_root_only_proc_files_stay_unread(const struct tier *t)
{
	static const char *const hidden[] = {
		"/proc/kcore",	      "/proc/kallsyms",	   "/proc/vmallocinfo",
		"/proc/slabinfo",     "/proc/pagetypeinfo", "/proc/kpagecount",
		"/proc/kpageflags",   "/proc/kpagecgroup",  "/proc/kmsg",
		"/proc/timer_list",   "/proc/timer_stats",  "/proc/sched_debug",
		"/proc/latency_stats", "/proc/keys",	   "/proc/key-users",
		"/proc/acpi/wakeup",  "/proc/scsi/scsi",    "/proc/asound/cards",
	};
	char host_name[256] = "";
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r25");
	if (!ws || cage_refused_here(t, ws, "r25"))
		goto out;
	for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
		if (access(hidden[i], F_OK) != 0)
			continue;
		r = run_uncaged(ws, NULL, "read-head", hidden[i], NULL);
		if (!did_it(&r) && geteuid() != 0) {
			/* Only root reads it: the host refuses it already, no evidence here. */
			skip(t, "r25: %s: uid %u cannot read it without the cage either", hidden[i],
			     (unsigned)geteuid());
			continue;
		}
		check(t, did_it(&r), &r, "r25: control: without the cage %s is read", hidden[i]);
		r = run_caged(ws, NULL, "read-head", hidden[i], NULL);
		check(t, refused(&r), &r, "r25: the run cannot read %s", hidden[i]);
	}
	/* Written by root only: another caller's attempt is refused by the host anyway. */
	if (geteuid() == 0 && gethostname(host_name, sizeof host_name - 1) == 0 && host_name[0]) {
		r = run_caged(ws, NULL, "write-file", "/proc/sys/kernel/hostname", host_name, NULL);
		check(t, refused(&r), &r, "r25: the run cannot write /proc/sys (kernel/hostname)");
	}
	if (geteuid() == 0 && access("/proc/sysrq-trigger", F_OK) == 0) {
		r = run_uncaged(ws, NULL, "open-write", "/proc/sysrq-trigger", NULL);
		check(t, did_it(&r), &r, "r25: control: without the cage root opens /proc/sysrq-trigger");
		r = run_caged(ws, NULL, "open-write", "/proc/sysrq-trigger", NULL);
		check(t, refused(&r), &r, "r25: the run cannot open /proc/sysrq-trigger for writing");
	}
	/* Tier T1's own /proc, or tier T2's system files of the host's (docs/proc.md). */
	if (!tier_is_t1(t) || t->facts.pidns_private_proc) {
		r = run_caged(ws, NULL, "read-head", "/proc/meminfo", NULL);
		check(t, did_it(&r), &r, "r25: control: the run reads /proc/meminfo");
	}
	if (tier_is_t1(t) && t->facts.pidns_private_proc) {
		r = run_caged(ws, NULL, "read-head", "/proc/sys/kernel/hostname", NULL);
		check(t, did_it(&r), &r, "r25: control: the run reads /proc/sys/kernel/hostname");
	}
out:
	caged_ws_free(ws);
}
