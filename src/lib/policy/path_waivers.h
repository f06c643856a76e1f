/*
 * Waivers of a class for one location ("secrets:~/.npmrc"), resolved when
 * the cage is made: each names, without a symbolic link or "..", a location
 * the class denies on this host, and lifts that location only.
 */
#ifndef PROCAGE_PATH_WAIVERS_H
#define PROCAGE_PATH_WAIVERS_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

struct path_waivers {
	struct resolved_waiver {
		char *canonical;
		int cls;
		bool used; /* a location of its class was found there */
	} * items;
	size_t n;
	const struct procage_policy *policy;
};

/* Expand "~/" with the policy's home, refuse a spelling through a link. */
int path_waivers_resolve(const struct procage_policy *policy, struct path_waivers *out,
			 struct procage_error *err);
/* Does a waiver lift this location (canonical) of class cls? */
bool path_waivers_lift(struct path_waivers *waivers, const char *location, int cls);
/*
 * A waiver that lifted nothing names no location of its class: refused,
 * unless its whole class is waived (skipped: 1 << class_id).
 */
int path_waivers_check_used(const struct path_waivers *waivers, unsigned skipped,
			    struct procage_error *err);
void path_waivers_free(struct path_waivers *waivers);

#endif
