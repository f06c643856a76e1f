/* Explaining the names the broker refuses (see broker_refusal.h). */
#include "broker_refusal.h"

#include <stdio.h>
#include <string.h>

#include "cage/denials.h"
#include "policy/classes.h"

static const char *refusal_reason(const struct broker_zone *z, const char *name)
{
	if (z->worktrees)
		return "only a directory made by git worktree add is made in worktrees/";
	if (z->linked && strcmp(name, "commondir") == 0)
		return "a linked worktree's commondir is written by the supervisor (../..) and "
		       "never rewritten";
	if (strcmp(name, "modules") == 0)
		return "a submodule's git directory, whose config and hooks git runs, is not made "
		       "in a cage: run git submodule add (or clone the submodule) outside it";
	return "not a name git makes at the root of a git directory";
}

void broker_refusal_record(struct denial_store *denials, const struct broker_place *p,
			   enum broker_use use)
{
	struct denial d;
	if (!denials || p->in_created)
		return;
	for (size_t i = 0; i < p->zone->n_protected; i++)
		if (strcmp(p->zone->protected_names[i], p->name) == 0)
			return; /* a location of a class: the observer explains it */
	memset(&d, 0, sizeof d);
	snprintf(d.op, sizeof d.op, "%s",
		 use == BROKER_USE_EXISTING ? "write"
		 : use == BROKER_USE_REMOVE ? "remove"
					    : "create");
	snprintf(d.subject, sizeof d.subject, "%s/%s", p->zone->path, p->name);
	snprintf(d.reason, sizeof d.reason, "%s", refusal_reason(p->zone, p->name));
	/* Without the class no zone holds a git directory: the broker makes nothing there. */
	snprintf(d.rule, sizeof d.rule, "%s", class_name(CLASS_TRUST_HANDOFF));
	snprintf(d.flag, sizeof d.flag, "--waive %s", class_name(CLASS_TRUST_HANDOFF));
	snprintf(d.group, sizeof d.group, "%s", d.subject);
	denial_store_add(denials, &d);
}
