/*
 * The cage's seccomp programs, built once for all its runs, and whether
 * its runs are supervised: both follow from what the cage decided about
 * the broker, reports, explaining and the network.
 */
#include "cage.h"

#include "host/host.h"
#include "kernel/seccomp.h"

int cage_filters_build(struct procage_cage *c, struct procage_error *err)
{
	const struct procage_policy *policy = c->policy;
	struct seccomp_options so = {
		/* A proxy-only run needs IP sockets, to reach its proxy. */
		.network_on = policy->network != PROCAGE_NET_OFF,
		.unix_sockets = c->tier == PROCAGE_TIER_T1 && c->n_sockets > 0,
		.report = policy->reports,
		/* In the session lifetime no process leaves the run's session (exec mode). */
		.lock_sessions = policy->lifetime == PROCAGE_LIFETIME_SESSION,
		/* Tier T1 runs (and exec mode) get an IPC namespace of their own. */
		.own_ipc_namespace = c->tier == PROCAGE_TIER_T1,
	};
	/*
	 * Exec mode has no supervisor: it takes the program without the
	 * broker (and without IP sockets where the broker would judge
	 * them; exec mode refuses such a cage anyway).
	 */
	so.network_on = so.network_on && c->net_broker == BROKER_NET_NONE;
	int rc = seccomp_program_build(&so, &c->seccomp_unbrokered, err);
	so.network_on = policy->network != PROCAGE_NET_OFF;
	/*
	 * A run in a PID namespace of its own cannot outlive its reaper,
	 * whatever session its processes are in: the reaper is the
	 * namespace's first process, and its exit kills every other.
	 * There setsid is free, for the programs that give a terminal to a
	 * child (pty.fork, script, expect). Exec mode has no such namespace.
	 */
	so.lock_sessions = so.lock_sessions && !cage_pid_namespace(c);
	so.broker = c->zones.n > 0;
	/*
	 * Tier T2 has no read-only mounts, and Landlock judges no
	 * metadata call: the broker does, where the host lets
	 * a supervisor answer them.
	 */
	c->broker_metadata = c->tier != PROCAGE_TIER_T1 && host_facts_get()->seccomp_user_notif;
	so.broker_metadata = c->broker_metadata;
	/*
	 * Landlock names inodes, and every process's /proc/self is another
	 * one: on tier T2 the broker opens a process's own entries for it
	 * (docs/proc.md), which takes every open to the supervisor.
	 */
	c->broker_proc_self = c->broker_metadata && policy->own_proc;
	/* The run's own semaphores (tier T2 has no /dev/shm of its own): docs/proc.md. */
	c->broker_shm = c->broker_metadata && cage_shm_brokerable(c);
	c->broker_pty = c->broker_pty && c->broker_metadata;
	so.broker_reads = c->broker_proc_self || c->broker_shm || c->broker_pty;
	so.broker_listing = c->zones.n_listing > 0;
	so.observe = c->denial_rules != NULL;
	so.net_broker = c->net_broker != BROKER_NET_NONE || c->unix_brokered;
	/* Tier T2: Unix sockets made, their connects judged by the broker. */
	so.unix_sockets = so.unix_sockets || c->unix_brokered;
	c->seccomp_handover_open = so.net_broker;
	if (rc == 0)
		rc = seccomp_program_build(&so, &c->seccomp, err);
	return rc;
}

bool cage_pid_namespace(const struct procage_cage *c)
{
	return c->tier == PROCAGE_TIER_T1 && host_facts_get()->pidns_private_proc;
}

void cage_supervision_decide(struct procage_cage *c)
{
	/* The broker's calls reach the supervisor on the filter's listener. */
	c->supervisor_notified = c->policy->reports || cage_brokered(c) || c->denial_rules;
	/* A proxy-only run's proxy is served by the supervisor too. */
	c->supervised = c->supervisor_notified || c->policy->network == PROCAGE_NET_PROXY;
}
