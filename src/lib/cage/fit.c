/*
 * Fitting a policy to this host: where a construct cannot be enforced
 * exactly, take the nearest thing that can (accept the approximation the
 * tier needs, or drop a rule the tier cannot hold) and say so, change by
 * change. A policy that is wrong rather than beyond the host (a missing
 * path, a grant inside a hard-deny class) is an error, as for a cage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cage.h"
#include "base/error.h"
#include "host/host.h"
#include "policy/policy.h"
#include "base/string_list.h"

/* Each change removes one refusal; a policy has only so many. */
#define FIT_MAX_CHANGES 64

static int policy_drop_rule(struct procage_policy *p, const char *canonical)
{
	for (size_t i = 0; i < p->n_paths; i++) {
		char *resolved = realpath(p->paths[i].path, NULL);
		bool same = resolved && strcmp(resolved, canonical) == 0;
		free(resolved);
		if (!same)
			continue;
		free(p->paths[i].path);
		memmove(&p->paths[i], &p->paths[i + 1], (p->n_paths - i - 1) * sizeof *p->paths);
		p->n_paths--;
		return 0;
	}
	return -ENOENT;
}

static int change_record(char ***changes, size_t *n, const struct cage_fix *fix,
			 const char *reason)
{
	char *text = NULL;
	int len = fix->kind == CAGE_FIX_ACCEPT
			  ? asprintf(&text, "accepted the approximation %s, because %s",
				     policy_approximation_name(fix->approximation), reason)
		  : fix->kind == CAGE_FIX_NETWORK_OFF
			  ? asprintf(&text, "turned the network off, because %s", reason)
			  : asprintf(&text, "dropped the rule for %s, because %s", fix->path, reason);
	return string_list_take(changes, n, len < 0 ? NULL : text);
}

static int fix_apply(struct procage_policy *p, const struct cage_fix *fix)
{
	if (fix->kind == CAGE_FIX_ACCEPT) {
		p->accepted |= 1u << fix->approximation;
		return 0;
	}
	if (fix->kind == CAGE_FIX_NETWORK_OFF) {
		p->network = PROCAGE_NET_OFF;
		return 0;
	}
	return policy_drop_rule(p, fix->path);
}

/*
 * What no cage on this host can have, changed before any cage is tried: a
 * new pseudo-terminal (no host), limits of a cgroup the host cannot give.
 */
static int fit_up_front(struct procage_policy *p, char ***list, size_t *n)
{
	const struct procage_host_facts *f = host_facts_with_cgroup();
	char text[600];
	int rc = 0;
	if (p->terminal == PROCAGE_TERMINAL_NEW_PTY) {
		rc = string_list_append(list, n,
					"kept the caller's terminal (terminal \"inherit\"), because a "
					"new pseudo-terminal for the command is not supported");
		p->terminal = PROCAGE_TERMINAL_INHERIT;
	}
	if (rc == 0 && p->cgroup_memory && !f->cgroup_memory) {
		snprintf(text, sizeof text,
			 "dropped the memory limit of the whole run, because it needs a delegated "
			 "cgroup v2 subtree with the memory controller: %s",
			 f->cgroup_why);
		rc = string_list_append(list, n, text);
		p->cgroup_memory = 0;
	}
	if (rc == 0 && p->cgroup_pids && !f->cgroup_pids) {
		snprintf(text, sizeof text,
			 "dropped the process limit of the whole run, because it needs a delegated "
			 "cgroup v2 subtree with the pids controller: %s",
			 f->cgroup_why);
		rc = string_list_append(list, n, text);
		p->cgroup_pids = 0;
	}
	return rc;
}

/*
 * On tier T2 the directories around a protected path are not enforced as
 * written but through the supervisor's broker: say so, one line for each
 * (at most a few, then how many more), so that "as it is" never hides it;
 * and so are metadata calls, wherever the write grants are.
 */
static int broker_notes(const struct procage_cage *c, char ***list, size_t *n)
{
	enum { SHOWN = 6 };
	char text[1200];
	int rc = 0;
	if (c->broker_metadata)
		rc = string_list_append(list, n,
				 "chmod, chown and utimes are performed by the supervisor (the T2 "
				 "metadata broker) on files inside the write grants only, and refused "
				 "(EPERM) elsewhere, because Landlock does not judge them; procage exec, "
				 "which has no supervisor, does not limit them");
	if (rc == 0 && c->unix_brokered)
		rc = string_list_append(
		    list, n,
		    c->tier == PROCAGE_TIER_T1
			? "Unix sockets are connected by the supervisor (the network broker): a "
			  "connect or send by path reaches a socket file the connect rules named, "
			  "as it was when the run started, or one the run bound itself in its own "
			  "network namespace, and nothing else (ECONNREFUSED), because Landlock "
			  "below ABI 9 does not judge Unix sockets (with the network loopback or "
			  "proxy the run's IP connects and sends go through the supervisor too); "
			  "procage exec, which has no supervisor, masks the other sockets bound at "
			  "spawn instead"
			: "Unix sockets are connected by the supervisor (the T2 network "
			  "broker): a connect or send by path reaches a socket file the connect "
			  "rules named, as it was when the run started, and nothing else "
			  "(ECONNREFUSED); no socket is bound by path and no abstract name is "
			  "reached, because Landlock below ABI 9 does not judge Unix sockets; "
			  "procage exec, which has no supervisor, refuses them");
	if (rc == 0 && c->n_unlistable && c->unlistable_first) {
		snprintf(text, sizeof text,
			 "%s%s cannot be listed (Landlock cannot let it be read without the hidden "
			 "paths below it); accept listing-shows-hidden-names (--accept "
			 "listing-shows-hidden-names, as the default policy does) to have the "
			 "supervisor list it, showing the hidden entries' names but not what they "
			 "hold",
			 c->unlistable_first,
			 c->n_unlistable > 1 ? " and directories like it" : "");
		rc = string_list_append(list, n, text);
	}
	for (size_t i = 0; rc == 0 && i < c->zones.n_listing && i < SHOWN; i++) {
		snprintf(text, sizeof text,
			 "%s is listed by the supervisor (listing-shows-hidden-names): the names "
			 "of the hidden entries in it show, not what they hold",
			 c->zones.listing[i].path);
		rc = string_list_append(list, n, text);
	}
	for (size_t i = 0; rc == 0 && i < c->zones.n && i < SHOWN; i++) {
		const struct broker_zone *z = &c->zones.zones[i];
		size_t o = (size_t)snprintf(text, sizeof text,
					    "new entries in %s are made by the supervisor (the "
					    "broker), because Landlock cannot grant that directory "
					    "without what lies below it, present or still missing; "
					    "never under the name%s ",
					    z->path, z->n_protected == 1 ? "" : "s");
		for (size_t j = 0; j < z->n_protected && o < sizeof text; j++)
			o += (size_t)snprintf(text + o, sizeof text - o, "%s%s", j ? ", " : "",
					      z->protected_names[j]);
		if (z->git_dir && o < sizeof text)
			snprintf(text + o, sizeof text - o, ", and only under git's own names");
		rc = string_list_append(list, n, text);
	}
	if (rc == 0 && c->zones.n > SHOWN) {
		snprintf(text, sizeof text,
			 "and in %zu more directories, the same way (the broker)",
			 c->zones.n - SHOWN);
		rc = string_list_append(list, n, text);
	}
	return rc;
}

PROCAGE_API int procage_policy_fit(const struct procage_policy *policy,
				   struct procage_policy **fitted, char ***changes,
				   struct procage_error *err)
{
	struct procage_policy *p;
	struct procage_error local;
	char **list = NULL;
	size_t n = 0;
	int rc = 0;

	/* Each refusal's message becomes a change's reason, so one is always kept. */
	if (!err)
		err = &local;
	error_clear(err);
	if (!policy || !fitted || !changes)
		return error_set(err, -EINVAL, "no policy or no place for the result given");
	if (!(p = policy_copy(policy)) || !(list = calloc(1, sizeof *list))) {
		procage_policy_free(p);
		return error_set(err, -ENOMEM, "out of memory");
	}
	/* No host gives a run a pseudo-terminal of its own: the caller's is the nearest. */
	if ((rc = fit_up_front(p, &list, &n)) < 0) {
		procage_strings_free(list);
		procage_policy_free(p);
		return error_set(err, rc, "out of memory");
	}
	for (;;) {
		struct procage_cage *cage = NULL;
		struct cage_fix fix;
		rc = cage_make(p, &cage, &fix, err);
		if (rc == 0 && (rc = broker_notes(cage, &list, &n)) < 0)
			error_set(err, rc, "out of memory");
		procage_cage_free(cage);
		if (rc == 0 || fix.kind == CAGE_FIX_NONE || n >= FIT_MAX_CHANGES)
			break;
		if ((rc = change_record(&list, &n, &fix, err->message)) < 0 ||
		    (rc = fix_apply(p, &fix)) < 0) {
			error_set(err, rc, "fitting the policy: %s", strerror(-rc));
			break;
		}
	}
	if (rc < 0) {
		procage_strings_free(list);
		procage_policy_free(p);
		return rc;
	}
	error_clear(err);
	*fitted = p;
	*changes = list;
	return 0;
}
