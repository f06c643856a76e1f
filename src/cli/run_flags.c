/*
 * The flags of procage run and exec that change the policy, applied one by
 * one in the order given: paths, network, environment, limits, classes.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "run_options.h"

/* "unlimited" or a decimal number. */
static bool limit_value_parse(const char *s, uint64_t *out)
{
	if (strcmp(s, "unlimited") == 0) {
		*out = RLIM_INFINITY;
		return true;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return false;
	*out = v;
	return true;
}

/* memory=SIZE (bytes, or with K, M, G) and pids=N: limits of the whole run. */
static int cgroup_limit_apply(struct procage_policy *p, const char *spec, const char *name,
			      const char *value, struct procage_error *err)
{
	bool memory = name[0] == 'm';
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	unsigned shift = 0;
	if (memory && *end && !end[1])
		shift = *end == 'K' || *end == 'k'   ? 10
			: *end == 'M' || *end == 'm' ? 20
			: *end == 'G' || *end == 'g' ? 30
						     : 0;
	if (errno || end == value || value[0] == '-' || (*end && !shift) ||
	    (shift && v > (~0ULL >> shift))) {
		snprintf(err->message, sizeof err->message, "--limit %s: expected %s", spec,
			 memory ? "memory=BYTES (or with K, M, G)" : "pids=NUMBER");
		return err->code = -EINVAL;
	}
	/*
	 * 0 would reach the library as "no limit" and lift a limit the
	 * policy file set; a limit that lets nothing run is no request either.
	 */
	if (v == 0) {
		snprintf(err->message, sizeof err->message,
			 "--limit %s: a limit of the whole run must be above 0 (leave the option "
			 "out for no %s limit)",
			 spec, memory ? "memory" : "process");
		return err->code = -EINVAL;
	}
	return procage_policy_set_cgroup_limit(
	    p, memory ? PROCAGE_CGROUP_MEMORY : PROCAGE_CGROUP_PIDS, v << shift, err);
}

static int limit_apply(struct procage_policy *p, const char *spec, struct procage_error *err)
{
	char name[32], *colon;
	const char *eq = strchr(spec, '=');
	uint64_t soft, hard;
	if (!eq || (size_t)(eq - spec) >= sizeof name)
		goto bad;
	snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
	if (strcmp(name, "memory") == 0 || strcmp(name, "pids") == 0)
		return cgroup_limit_apply(p, spec, name, eq + 1, err);
	int resource = procage_rlimit_from_name(name);
	if (resource < 0) {
		snprintf(err->message, sizeof err->message, "--limit %s: unknown limit '%s'", spec,
			 name);
		return err->code = -EINVAL;
	}
	char value[64];
	snprintf(value, sizeof value, "%s", eq + 1);
	if ((colon = strchr(value, ':'))) {
		*colon = '\0';
		if (!limit_value_parse(value, &soft) || !limit_value_parse(colon + 1, &hard))
			goto bad;
	} else if (!limit_value_parse(value, &soft)) {
		goto bad;
	} else {
		hard = soft;
	}
	return procage_policy_set_rlimit(p, resource, soft, hard, err);
bad:
	snprintf(err->message, sizeof err->message,
		 "--limit %s: expected NAME=VALUE or NAME=SOFT:HARD (numbers or 'unlimited')",
		 spec);
	return err->code = -EINVAL;
}

static int setenv_apply(struct procage_policy *p, const char *spec, struct procage_error *err)
{
	const char *eq = strchr(spec, '=');
	if (!eq) {
		snprintf(err->message, sizeof err->message, "--setenv %s: expected NAME=VALUE",
			 spec);
		return err->code = -EINVAL;
	}
	char *name = strndup(spec, (size_t)(eq - spec));
	int rc = name ? procage_policy_env_set(p, name, eq + 1, err) : -ENOMEM;
	free(name);
	return rc;
}

int run_flag_apply(struct procage_policy *p, const struct policy_flag *f, struct procage_error *err)
{
	switch (f->option) {
	case OPT_READ:
		return procage_policy_allow(p, f->value, PROCAGE_READ, err);
	case OPT_WRITE:
		return procage_policy_allow(p, f->value, PROCAGE_WRITE, err);
	case OPT_PROTECT:
		return procage_policy_allow(p, f->value, PROCAGE_PROTECT, err);
	case OPT_HIDE:
		return procage_policy_allow(p, f->value, PROCAGE_HIDE, err);
	case OPT_SOCKET:
		return procage_policy_allow(p, f->value, PROCAGE_CONNECT, err);
	case OPT_ENV:
		return procage_policy_env_pass(p, f->value, err);
	case OPT_SETENV:
		return setenv_apply(p, f->value, err);
	case OPT_LIMIT:
		return limit_apply(p, f->value, err);
	case OPT_HARDLINK_EXEMPT:
		return procage_policy_exempt_hardlinks(p, f->value, err);
	case OPT_ON_HANDOFF_CHANGE:
		if (strcmp(f->value, "report") == 0 || strcmp(f->value, "fail") == 0)
			return procage_policy_set_handoff_change(
			    p,
			    f->value[0] == 'f' ? PROCAGE_HANDOFF_CHANGE_FAIL
					       : PROCAGE_HANDOFF_CHANGE_REPORT,
			    err);
		snprintf(err->message, sizeof err->message,
			 "--on-handoff-change %s: expected 'report' or 'fail'", f->value);
		return err->code = -EINVAL;
	case OPT_HARDLINKS:
		if (strcmp(f->value, "refuse") == 0 || strcmp(f->value, "report") == 0)
			return procage_policy_set_hardlinks(p,
							    f->value[2] == 'p'
								? PROCAGE_HARDLINKS_REPORT
								: PROCAGE_HARDLINKS_REFUSE,
							    err);
		snprintf(err->message, sizeof err->message,
			 "--hardlinks %s: expected 'refuse' or 'report'", f->value);
		return err->code = -EINVAL;
	case OPT_ACCEPT:
		return procage_policy_accept(p, f->value, err);
	case OPT_WAIVE:
		return procage_policy_waive(p, f->value, err);
	case OPT_LIFETIME:
		if (strcmp(f->value, "session") == 0 || strcmp(f->value, "tree") == 0)
			return procage_policy_set_lifetime(
			    p,
			    f->value[0] == 't' ? PROCAGE_LIFETIME_TREE : PROCAGE_LIFETIME_SESSION,
			    err);
		snprintf(err->message, sizeof err->message,
			 "--lifetime %s: expected 'session' or 'tree'", f->value);
		return err->code = -EINVAL;
	case OPT_TERMINAL:
		/*
		 * new-pty is not offered while every cage refuses it: the
		 * command shares procage's terminal, the one mode there is.
		 */
		if (strcmp(f->value, "inherit") == 0)
			return procage_policy_set_terminal(p, PROCAGE_TERMINAL_INHERIT, err);
		snprintf(err->message, sizeof err->message,
			 "--terminal %s: the only mode is 'inherit' (the command shares procage's "
			 "terminal and cannot type into it); a pseudo-terminal of the run's own "
			 "is not provided",
			 f->value);
		return err->code = -EINVAL;
	case OPT_NET:
		if (strcmp(f->value, "off") == 0)
			return procage_policy_set_network(p, PROCAGE_NET_OFF, err);
		if (strcmp(f->value, "on") == 0)
			return procage_policy_set_network(p, PROCAGE_NET_ON, err);
		if (strcmp(f->value, "proxy") == 0)
			return procage_policy_set_network(p, PROCAGE_NET_PROXY, err);
		if (strcmp(f->value, "loopback") == 0)
			return procage_policy_set_network(p, PROCAGE_NET_LOOPBACK, err);
		snprintf(err->message, sizeof err->message,
			 "--net %s: expected 'off', 'on', 'proxy' or 'loopback'", f->value);
		return err->code = -EINVAL;
	case OPT_ALLOW_HOST:
		return procage_policy_allow_host(p, f->value, err);
	case OPT_REPORT:
		return procage_policy_set_reports(p, true, err);
	}
	return -EINVAL;
}
