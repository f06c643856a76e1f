/*
 * Unit tests of a run's lifetime and terminal as policy and cage: the
 * setters and their checks, the filter the lifetime picks (setsid refused
 * in the session lifetime where the run has no PID namespace), a new
 * pseudo-terminal refused as not supported and fitted to the caller's
 * terminal; and the run API around the reaper: a wait with a timeout, the
 * run's descriptor, a signal to the run, killing it, and the status of a
 * target that a signal ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cage/cage.h"
#include "kernel/seccomp_programs.h"
#include "tap.h"

static char workspace[256];

static struct procage_policy *policy_default(void)
{
	struct procage_policy *p = NULL;
	struct procage_error err;
	if (procage_policy_new_default(workspace, &p, &err) != 0) {
		tap_diag("default policy: %s", err.message);
		exit(99);
	}
	return p;
}

static void test_setters(void)
{
	struct procage_policy *p = procage_policy_new();
	struct procage_error err;
	tap_ok(p->lifetime == PROCAGE_LIFETIME_SESSION, "the lifetime is session by default");
	tap_ok(p->terminal == PROCAGE_TERMINAL_INHERIT, "the terminal is inherited by default");
	tap_ok(procage_policy_set_lifetime(p, PROCAGE_LIFETIME_TREE, &err) == 0 &&
		       p->lifetime == PROCAGE_LIFETIME_TREE,
	       "the lifetime can be tree");
	tap_ok(procage_policy_set_lifetime(p, (enum procage_lifetime)7, &err) == -EINVAL &&
		       strstr(err.message, "unknown lifetime 7") && p->lifetime == PROCAGE_LIFETIME_TREE,
	       "an unknown lifetime is refused and changes nothing");
	tap_ok(procage_policy_set_terminal(p, PROCAGE_TERMINAL_NEW_PTY, &err) == 0,
	       "a new pseudo-terminal can be asked for (the cage refuses it)");
	tap_ok(procage_policy_set_terminal(p, (enum procage_terminal)9, &err) == -EINVAL,
	       "an unknown terminal handling is refused");
	char *json = NULL;
	tap_ok(procage_policy_to_json(p, &json, &err) == 0 && strstr(json, "\"lifetime\": \"tree\"") &&
		       strstr(json, "\"terminal\": \"new-pty\""),
	       "both are written to JSON");
	struct procage_policy *back = NULL;
	tap_ok(json && procage_policy_from_json_text(json, "written", &back, &err) == 0 &&
		       back->lifetime == PROCAGE_LIFETIME_TREE &&
		       back->terminal == PROCAGE_TERMINAL_NEW_PTY,
	       "and read back");
	procage_policy_free(back);
	procage_free(json);
	procage_policy_free(p);
}

/* Is the cage's filter the generated program for these options? */
static bool filter_is(const struct procage_cage *c, bool lock_sessions)
{
	struct seccomp_options o = {
		.network_on = c->policy->network != PROCAGE_NET_OFF,
		.unix_sockets = c->tier == PROCAGE_TIER_T1 && c->n_sockets > 0,
		.lock_sessions = lock_sessions,
		.own_ipc_namespace = c->tier == PROCAGE_TIER_T1,
		/* The broker's parts follow from the directories and the network, not the lifetime. */
		.broker = c->zones.n > 0,
		.broker_metadata = c->broker_metadata,
		.broker_listing = c->zones.n_listing > 0,
		.observe = c->denial_rules != NULL,
		.net_broker = c->net_broker != BROKER_NET_NONE || c->unix_brokered,
		.broker_reads = c->broker_proc_self,
	};
	return c->seccomp.filter == seccomp_generated_programs[seccomp_program_index(&o)].filter;
}

/* Is the cage's filter for exec mode (no broker) the generated program for these options? */
static bool exec_filter_is(const struct procage_cage *c, bool lock_sessions)
{
	struct seccomp_options o = {
		.network_on = c->policy->network != PROCAGE_NET_OFF &&
			      c->net_broker == BROKER_NET_NONE,
		.unix_sockets = c->tier == PROCAGE_TIER_T1 && c->n_sockets > 0,
		.lock_sessions = lock_sessions,
		.own_ipc_namespace = c->tier == PROCAGE_TIER_T1,
	};
	return c->seccomp_unbrokered.filter ==
	       seccomp_generated_programs[seccomp_program_index(&o)].filter;
}

static void test_cage(void)
{
	struct procage_policy *p = policy_default();
	struct procage_cage *c = NULL;
	struct procage_error err;

	int rc = procage_cage_new(p, &c, &err);
	/* A run in a PID namespace of its own cannot outlive its reaper: setsid is free there. */
	bool pidns = rc == 0 && cage_pid_namespace(c);
	tap_ok(rc == 0 && filter_is(c, !pidns),
	       "the session lifetime picks the filter %s setsid (%s PID namespace of the run's own)",
	       pidns ? "allowing" : "refusing", pidns ? "a" : "no");
	tap_ok(rc == 0 && exec_filter_is(c, true),
	       "exec mode's filter refuses setsid in the session lifetime (it has no PID namespace)");
	procage_cage_free(c);
	c = NULL;
	procage_policy_set_lifetime(p, PROCAGE_LIFETIME_TREE, NULL);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0 && filter_is(c, false) && exec_filter_is(c, false),
	       "the tree lifetime picks the filters allowing setsid");
	procage_cage_free(c);
	c = NULL;

	procage_policy_set_terminal(p, PROCAGE_TERMINAL_NEW_PTY, NULL);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == -EOPNOTSUPP && !c && strstr(err.message, "new pseudo-terminal") &&
		       strstr(err.message, "not supported"),
	       "a new pseudo-terminal is refused as not supported: %s", err.message);

	struct procage_policy *fitted = NULL;
	char **changes = NULL;
	rc = procage_policy_fit(p, &fitted, &changes, &err);
	/* The other items say how the host holds the rest (the broker's directories). */
	const char *terminal = NULL;
	size_t n_terminal = 0;
	for (size_t i = 0; rc == 0 && changes[i]; i++)
		if (strstr(changes[i], "terminal")) {
			terminal = changes[i];
			n_terminal++;
		}
	tap_ok(rc == 0 && fitted->terminal == PROCAGE_TERMINAL_INHERIT && n_terminal == 1 &&
		       strstr(terminal, "kept the caller's terminal"),
	       "fit keeps the caller's terminal instead, and says why: %s",
	       terminal ? terminal : err.message);
	procage_strings_free(changes);
	procage_policy_free(fitted);
	procage_policy_free(p);
}

/* Start sh -c script; with ready, wait until it prints a line on stdout. */
static struct procage_run *spawn_ready(const struct procage_cage *c, const char *script,
				       bool ready)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	int out[2] = { -1, -1 };
	if (ready && pipe2(out, O_CLOEXEC) != 0)
		return NULL;
	struct procage_fd_map map = { out[1], 1 };
	struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .cwd = workspace,
					.fds = ready ? &map : NULL, .n_fds = ready ? 1 : 0 };
	struct procage_run *r = NULL;
	struct procage_error err;
	if (procage_spawn(c, &o, &r, &err) != 0)
		tap_diag("spawn: %s", err.message);
	if (ready) {
		char line[64];
		close(out[1]);
		if (r && read(out[0], line, sizeof line) <= 0)
			tap_diag("the run printed nothing");
		close(out[0]);
	}
	return r;
}

static struct procage_run *spawn(const struct procage_cage *c, const char *script)
{
	return spawn_ready(c, script, false);
}

static bool alive(pid_t pid)
{
	char path[64], state[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(state, 1, sizeof state - 1, f);
	fclose(f);
	state[n] = '\0';
	const char *paren = strrchr(state, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z';
}

static void test_run_api(void)
{
	struct procage_policy *p = policy_default();
	struct procage_cage *c = NULL;
	struct procage_error err;
	int status = -1;

	if (!tap_ok(procage_cage_new(p, &c, &err) == 0, "a cage (%s)", err.message)) {
		procage_policy_free(p);
		return;
	}
	struct procage_run *r = spawn(c, "exec sleep 30");
	if (tap_ok(r != NULL, "a run of sleep starts")) {
		pid_t pid = procage_run_pid(r);
		tap_ok(pid > 0 && alive(pid), "procage_run_pid names the running target (%d)",
		       (int)pid);
		struct pollfd pf = { procage_run_fd(r), POLLIN, 0 };
		tap_ok(pf.fd >= 0 && poll(&pf, 1, 0) == 0, "the run's descriptor is not readable yet");
		tap_ok(procage_run_wait_for(r, 50, &status, &err) == -ETIMEDOUT,
		       "a wait of 50 ms times out: %s", err.message);
		tap_ok(procage_run_signal(r, SIGTERM, &err) == 0, "the run is sent SIGTERM");
		tap_ok(poll(&pf, 1, 10000) == 1 && (pf.revents & POLLIN),
		       "the run's descriptor becomes readable when it ends");
		tap_ok(procage_run_wait_for(r, 0, &status, &err) == 0 && WIFSIGNALED(status) &&
			       WTERMSIG(status) == SIGTERM,
		       "the target's status says SIGTERM");
		tap_ok(!alive(pid), "the target is gone");
		tap_ok(procage_run_signal(r, SIGTERM, &err) == -ESRCH,
		       "signalling an ended run: -ESRCH (%s)", err.message);
		tap_ok(procage_run_wait(r, &status, &err) == 0 && WTERMSIG(status) == SIGTERM,
		       "waiting again gives the same status");
		procage_run_free(r);
	}

	r = spawn_ready(c, "trap '' TERM INT; echo ready; while :; do sleep 1; done", true);
	if (tap_ok(r != NULL, "a run that ignores SIGTERM starts")) {
		tap_ok(procage_run_signal(r, SIGTERM, &err) == 0 &&
			       procage_run_wait_for(r, 300, &status, &err) == -ETIMEDOUT,
		       "SIGTERM does not end it");
		tap_ok(procage_run_kill(r, &err) == 0 && procage_run_wait_for(r, 10000, &status, &err) == 0 &&
			       WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		       "procage_run_kill ends it with SIGKILL");
		procage_run_free(r);
	}

	r = spawn(c, "sleep 30 & sleep 30 & exec sleep 31");
	if (tap_ok(r != NULL, "a run with children starts")) {
		pid_t pid = procage_run_pid(r);
		procage_run_free(r); /* never waited for */
		tap_ok(!alive(pid), "procage_run_free ends a run that was not waited for");
	}
	procage_cage_free(c);
	procage_policy_free(p);
}

/*
 * Limits of the whole run. This host may have no delegated cgroup v2
 * subtree: then a policy with a limit is refused (naming it), and fit drops
 * it; never run without it. Where it has one, a run's target is in the
 * run's cgroup, with the limits, and the cgroup is gone after the run.
 */
static void test_cgroup_limits(void)
{
	struct procage_host_facts f;
	struct procage_error err;
	struct procage_policy *p = policy_default();
	struct procage_cage *c = NULL;

	procage_host_facts(&f, NULL);
	tap_ok(procage_policy_set_cgroup_limit(p, PROCAGE_CGROUP_MEMORY, 4096, &err) == -EINVAL,
	       "a memory limit below 1 MiB is refused: %s", err.message);
	tap_ok(procage_policy_set_cgroup_limit(p, (enum procage_cgroup_limit)9, 1, &err) == -EINVAL,
	       "an unknown cgroup limit is refused");
	procage_policy_set_cgroup_limit(p, PROCAGE_CGROUP_MEMORY, 64 << 20, NULL);
	procage_policy_set_cgroup_limit(p, PROCAGE_CGROUP_PIDS, 16, NULL);
	char *json = NULL;
	tap_ok(procage_policy_to_json(p, &json, &err) == 0 &&
		       strstr(json, "\"memory\": 67108864, \"pids\": 16"),
	       "the limits are written to JSON");
	procage_free(json);
	int rc = procage_cage_new(p, &c, &err);
	if (!f.cgroup_memory || !f.cgroup_pids) {
		tap_diag("this host has no cgroup limits: %s", f.cgroup_why);
		tap_ok(rc == -EOPNOTSUPP && !c && strstr(err.message, "cgroup v2") &&
			       strstr(err.message, f.cgroup_why),
		       "here a policy with limits of the whole run is refused, naming why: %s",
		       err.message);
		struct procage_policy *fitted = NULL;
		char **changes = NULL;
		rc = procage_policy_fit(p, &fitted, &changes, &err);
		tap_ok(rc == 0 && !fitted->cgroup_memory && !fitted->cgroup_pids && changes[0] &&
			       strstr(changes[0], "dropped the memory limit") && changes[1] &&
			       strstr(changes[1], "dropped the process limit"),
		       "fit drops them, saying why");
		procage_strings_free(changes);
		procage_policy_free(fitted);
	} else {
		struct procage_run *r = rc == 0 ? spawn(c, "cat /proc/self/cgroup; exit 0") : NULL;
		int status = -1;
		tap_ok(r && procage_run_wait(r, &status, &err) == 0 && status == 0,
		       "a run with limits of the whole run starts and ends");
		procage_run_free(r);
	}
	procage_cage_free(c);
	procage_policy_free(p);
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(workspace, sizeof workspace, "%s/procage-unit-XXXXXX", base);
	if (!mkdtemp(workspace))
		return 99;
	test_setters();
	test_cage();
	test_run_api();
	test_cgroup_limits();
	rmdir(workspace);
	return tap_done();
}
