/*
 * The flags of procage run and exec that change the policy, applied one by
 * one in the order given: paths, network, environment, limits, classes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

/*
 * memory=SIZE (bytes, or with K, M, G) and pids=N: limits of the whole
 * run; changes=SIZE: the bytes its change set may hold.
 */
static int cgroup_limit_apply(struct procage_policy *p, const char *spec, const char *name,
			      const char *value, struct procage_error *err)
{
	bool changes = name[0] == 'c', memory = name[0] == 'm' || changes;
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
			 changes  ? "changes=BYTES (or with K, M, G)"
			 : memory ? "memory=BYTES (or with K, M, G)"
				  : "pids=NUMBER");
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
			 spec, changes ? "change set" : memory ? "memory" : "process");
		return err->code = -EINVAL;
	}
	if (changes)
		return procage_policy_set_changes_limit(p, v << shift, err);
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
	if (strcmp(name, "memory") == 0 || strcmp(name, "pids") == 0 || strcmp(name, "changes") == 0)
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

/* A flag that takes one of a few words: each word and the value it sets. */
struct flag_word {
	const char *word;
	int value;
};

/*
 * The value of the word given to flag, or -EINVAL with err naming the flag,
 * the word and what was expected.
 */
static int flag_word_value(const char *flag, const char *given, const struct flag_word *words,
			   size_t n, const char *expected, struct procage_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(given, words[i].word) == 0)
			return words[i].value;
	snprintf(err->message, sizeof err->message, "%s %s: %s", flag, given, expected);
	return err->code = -EINVAL;
}

#define FLAG_WORD_VALUE(flag, given, words, expected, err)                                       \
	flag_word_value((flag), (given), (words), sizeof(words) / sizeof *(words), (expected), (err))

/* The flags that take one word of a few; -ENOENT for another option. */
static int word_flag_apply(struct procage_policy *p, const struct policy_flag *f,
			   struct procage_error *err)
{
	static const struct flag_word handoff[] = { { "report", PROCAGE_HANDOFF_CHANGE_REPORT },
						    { "fail", PROCAGE_HANDOFF_CHANGE_FAIL } };
	static const struct flag_word hardlinks[] = { { "refuse", PROCAGE_HARDLINKS_REFUSE },
						      { "report", PROCAGE_HARDLINKS_REPORT } };
	static const struct flag_word lifetime[] = { { "session", PROCAGE_LIFETIME_SESSION },
						     { "tree", PROCAGE_LIFETIME_TREE } };
	/*
	 * new-pty is not offered while every cage refuses it: the command
	 * shares procage's terminal, the one mode there is.
	 */
	static const struct flag_word terminal[] = { { "inherit", PROCAGE_TERMINAL_INHERIT } };
	static const struct flag_word net[] = { { "off", PROCAGE_NET_OFF },
						{ "on", PROCAGE_NET_ON },
						{ "proxy", PROCAGE_NET_PROXY },
						{ "loopback", PROCAGE_NET_LOOPBACK } };
	int v;
	switch (f->option) {
	case OPT_ON_HANDOFF_CHANGE:
		v = FLAG_WORD_VALUE("--on-handoff-change", f->value, handoff,
				    "expected 'report' or 'fail'", err);
		return v < 0 ? v : procage_policy_set_handoff_change(p, v, err);
	case OPT_HARDLINKS:
		v = FLAG_WORD_VALUE("--hardlinks", f->value, hardlinks,
				    "expected 'refuse' or 'report'", err);
		return v < 0 ? v : procage_policy_set_hardlinks(p, v, err);
	case OPT_LIFETIME:
		v = FLAG_WORD_VALUE("--lifetime", f->value, lifetime,
				    "expected 'session' or 'tree'", err);
		return v < 0 ? v : procage_policy_set_lifetime(p, v, err);
	case OPT_TERMINAL:
		v = FLAG_WORD_VALUE("--terminal", f->value, terminal,
				    "the only mode is 'inherit' (the command shares procage's "
				    "terminal and cannot type into it); a pseudo-terminal of the run's "
				    "own is not provided",
				    err);
		return v < 0 ? v : procage_policy_set_terminal(p, v, err);
	case OPT_NET:
		v = FLAG_WORD_VALUE("--net", f->value, net,
				    "expected 'off', 'on', 'proxy' or 'loopback'", err);
		return v < 0 ? v : procage_policy_set_network(p, v, err);
	default:
		return -ENOENT;
	}
}

/* --publish PORT: a decimal port; the library judges its range and repeats. */
static int publish_apply(struct procage_policy *p, const char *text, struct procage_error *err)
{
	char *end = NULL;
	errno = 0;
	long port = strtol(text, &end, 10);
	if (!text[0] || *end || errno || text[0] == '-' || text[0] == '+' || text[0] == ' ') {
		err->code = -EINVAL;
		snprintf(err->message, sizeof err->message,
			 "--publish %s: not a port number (1 to 65535)", text);
		return -EINVAL;
	}
	return procage_policy_publish(p, port, err);
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
	case OPT_ACCEPT:
		return procage_policy_accept(p, f->value, err);
	case OPT_WAIVE:
		return procage_policy_waive(p, f->value, err);
	case OPT_ALLOW_HOST:
		return procage_policy_allow_host(p, f->value, err);
	case OPT_ALLOW_SSH:
		return procage_policy_allow_ssh(p, f->value, err);
	case OPT_PUBLISH:
		return publish_apply(p, f->value, err);
	case OPT_REPORT:
		return procage_policy_set_reports(p, true, err);
	case OPT_ON_HANDOFF_CHANGE:
	case OPT_HARDLINKS:
	case OPT_LIFETIME:
	case OPT_TERMINAL:
	case OPT_NET:
		return word_flag_apply(p, f, err);
	}
	return -EINVAL;
}
