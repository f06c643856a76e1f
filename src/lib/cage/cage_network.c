/*
 * The network part of making a cage: the proxy-only and loopback modes on
 * each tier, and published ports (cage.h).
 */
#include "cage.h"

#include <errno.h>

#include "base/error.h"
#include "host/host.h"
#include "proxy/allowlist.h"

/*
 * A proxy-only run has a network namespace whose only endpoints are its
 * proxy's listener (R-36, tier T1) and procage's resolver and capture
 * listeners for programs that ignore the proxy settings. Tier T2 has none: there the proxy
 * listens on the host's loopback, at a port of the run's own, and the
 * broker performs every connect of the cage, to that address only (and
 * tells the proxy which connections are the cage's); without seccomp user
 * notification the cage is refused.
 */
static int cage_proxy_prepare(struct procage_cage *c, struct policy_position *where,
			      struct procage_error *err)
{
	const struct procage_policy *p = c->policy;
	*where = policy_key_position(p, "network");
	cage_fix_set(c, CAGE_FIX_NETWORK_OFF, 0, NULL);
	if (c->tier != PROCAGE_TIER_T1 && !host_facts_get()->seccomp_user_notif)
		return error_set(err, -EOPNOTSUPP,
				 "proxy-only networking needs network namespaces (tier T1) or, on "
				 "tier T2, seccomp user notification (a supervisor judging each "
				 "connection), which this host refuses");
	if (c->tier != PROCAGE_TIER_T1)
		c->net_broker = BROKER_NET_PROXY;
	if (c->tier == PROCAGE_TIER_T1 && c->landlock.abi < 4)
		return error_set(err, -EOPNOTSUPP,
				 "proxy-only networking needs Landlock TCP rules (ABI 4) as its "
				 "second layer; this kernel has ABI %d",
				 c->landlock.abi);
	cage_fix_set(c, CAGE_FIX_NONE, 0, NULL);
	if (p->n_allow_hosts == 0 && p->host_ask)
		return allowlist_new_empty(&c->allowlist, err); /* each host is asked about */
	if (p->n_allow_hosts == 0)
		return error_set(err, -EINVAL,
				 "proxy-only networking with no allowed host; name the hosts the "
				 "run may reach");
	int rc = allowlist_new((const char *const *)p->allow_hosts, p->n_allow_hosts, &c->allowlist,
			       err);
	/* The entry refused: each was read when it was set, so this is rare. */
	for (size_t i = 0; rc < 0 && i < p->n_allow_hosts; i++) {
		struct allowlist *one = NULL;
		if (allowlist_new((const char *const *)&p->allow_hosts[i], 1, &one, NULL) < 0) {
			*where = policy_host_position(p, i);
			break;
		}
		allowlist_free(one);
	}
	return rc;
}

/*
 * The loopback mode. Tier T1: the run's own network namespace, lo up,
 * nothing else in it: the host's loopback services are out of reach.
 * Tier T2: no namespace, so the host's loopback, with every service
 * listening there (a database, a debug port, a local DNS resolver that
 * forwards names outside): the caller accepts that by name
 * (host-loopback), and the broker, answering seccomp notifications,
 * keeps every connect, bind and addressed send to loopback addresses.
 */
static int cage_loopback_prepare(struct procage_cage *c, struct policy_position *where,
				 struct procage_error *err)
{
	*where = policy_key_position(c->policy, "network");
	if (c->tier == PROCAGE_TIER_T1)
		return 0;
	if (!host_facts_get()->seccomp_user_notif) {
		cage_fix_set(c, CAGE_FIX_NETWORK_OFF, 0, NULL);
		return error_set(err, -EOPNOTSUPP,
				 "loopback-only networking on tier T2 needs seccomp user "
				 "notification (a supervisor judging each connection), which this "
				 "host refuses");
	}
	if (!cage_accepted(c, APPROX_HOST_LOOPBACK)) {
		cage_fix_set(c, CAGE_FIX_ACCEPT, APPROX_HOST_LOOPBACK, NULL);
		return error_set(
		    err, -EOPNOTSUPP,
		    "loopback-only networking on tier T2 is the host's loopback, where "
		    "the host's own services listen (no network namespace of the run's "
		    "own); accept the approximation host-loopback");
	}
	c->net_broker = BROKER_NET_LOOPBACK;
	return 0;
}

/*
 * Published ports (procage_policy_publish): the host reaches the run's
 * listeners on its own loopback, relayed by the caller's process into the
 * run's network namespace. That namespace is the loopback mode's on tier
 * T1; any other mode has no such listener to relay to (off and proxy) or
 * shares the host's network already (on), and tier T2 has no namespace:
 * there the run listens on the host's loopback itself.
 */
static int cage_publish_check(struct procage_cage *c, struct policy_position *where,
			      struct procage_error *err)
{
	const struct procage_policy *p = c->policy;
	if (p->n_publish == 0)
		return 0;
	*where = policy_key_position(p, "publish");
	if (p->network != PROCAGE_NET_LOOPBACK)
		return error_set(err, -EINVAL,
				 "publishing port %u needs --net loopback (the run's own loopback, "
				 "whose listeners the host then reaches); with --net on the run's "
				 "listeners are the host's already",
				 (unsigned)p->publish[0]);
	if (c->tier != PROCAGE_TIER_T1)
		return error_set(err, -EOPNOTSUPP,
				 "publishing port %u needs a network namespace of the run's own "
				 "(tier T1), which this host does not give; on tier T2 use --net "
				 "loopback --accept host-loopback without --publish: the run then "
				 "listens on the host's own loopback, which the host reaches",
				 (unsigned)p->publish[0]);
	return 0;
}

int cage_network_prepare(struct procage_cage *c, struct policy_position *where,
			 struct procage_error *err)
{
	int rc = 0;
	if (c->policy->network == PROCAGE_NET_PROXY)
		rc = cage_proxy_prepare(c, where, err);
	if (c->policy->network == PROCAGE_NET_LOOPBACK)
		rc = cage_loopback_prepare(c, where, err);
	return rc < 0 ? rc : cage_publish_check(c, where, err);
}
