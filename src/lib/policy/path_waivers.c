/*
 * A class waived for one location. The waiver must name the location the
 * way the class lists it (canonical): a waiver spelled through a link would
 * lift whatever the link points to, perhaps another secret than the one the
 * caller named, and one that matches no location would be a silent no-op
 * the caller believes in. Both are refused, naming the waiver.
 */
#include "path_waivers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "base/error.h"

static int waiver_expand(const struct procage_policy *p, const struct policy_path_waiver *w,
			 char *out, size_t size, struct procage_error *err)
{
	const char *spelled = w->path;
	const char *home = policy_home(p);
	char home_canonical[PATH_MAX];
	if (strncmp(spelled, "~/", 2) != 0) {
		snprintf(out, size, "%s", spelled);
		return 0;
	}
	if (!home || home[0] != '/' || !realpath(home, home_canonical))
		return error_set(err, -EINVAL,
				 "waiver %s:%s: there is no home to expand \"~/\" in (HOME is %s)",
				 class_name(w->cls), spelled, home ? home : "unset");
	if (snprintf(out, size, "%s%s", strcmp(home_canonical, "/") == 0 ? "" : home_canonical,
		     spelled + 1) >= (int)size)
		return error_set(err, -ENAMETOOLONG, "waiver %s:%s: the path is too long",
				 class_name(w->cls), spelled);
	return 0;
}

int path_waivers_resolve(const struct procage_policy *p, struct path_waivers *out,
			 struct procage_error *err)
{
	char expanded[PATH_MAX];
	out->n = 0;
	out->policy = p;
	out->items = calloc(p->n_path_waivers ? p->n_path_waivers : 1, sizeof *out->items);
	if (!out->items)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n_path_waivers; i++) {
		const struct policy_path_waiver *w = &p->path_waivers[i];
		int rc = waiver_expand(p, w, expanded, sizeof expanded, err);
		if (rc < 0)
			return rc;
		char *canonical = realpath(expanded, NULL);
		if (!canonical)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE,
					     "waiver %s:%s: %s is not there, so it is no location "
					     "of the class to lift",
					     class_name(w->cls), w->path, expanded);
		out->items[out->n++] = (struct resolved_waiver){canonical, w->cls, false};
		if (strcmp(canonical, expanded) != 0)
			return error_set(err, -EINVAL,
					 "waiver %s:%s: %s is spelled through a symbolic link or "
					 "\"..\" (it is %s); name the location itself",
					 class_name(w->cls), w->path, expanded, canonical);
	}
	return 0;
}

bool path_waivers_lift(struct path_waivers *w, const char *location, int cls)
{
	bool lifted = false;
	for (size_t i = 0; w && i < w->n; i++)
		if (w->items[i].cls == cls && strcmp(w->items[i].canonical, location) == 0)
			lifted = w->items[i].used = true;
	return lifted;
}

int path_waivers_check_used(const struct path_waivers *w, unsigned skipped,
			    struct procage_error *err)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct resolved_waiver *r = &w->items[i];
		if (r->used || (skipped & (1u << r->cls)))
			continue;
		return error_set(err, -EINVAL,
				 "waiver %s:%s: %s is not a location of the %s class on this "
				 "host (docs/classes.md lists them); a waiver lifts the class for "
				 "one of its own locations only",
				 class_name(r->cls), w->policy->path_waivers[i].path, r->canonical,
				 class_name(r->cls));
	}
	return 0;
}

void path_waivers_free(struct path_waivers *w)
{
	for (size_t i = 0; w->items && i < w->n; i++)
		free(w->items[i].canonical);
	free(w->items);
	w->items = NULL;
	w->n = 0;
}
