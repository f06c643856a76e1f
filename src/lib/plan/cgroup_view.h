/*
 * Tier T1: the run's read-only view of its own cgroup (cgroup_view.c).
 * Over every cgroup file system mounted in the caller's namespace (the
 * cgroup v2 hierarchy, and each v1 hierarchy of a hybrid host) lies a
 * read-only bind of the run's own directory in that hierarchy, with the
 * directories below it covered; the target enters a cgroup namespace of
 * its own once it has joined its cgroup, so /proc/self/cgroup names the
 * root of the view. docs/proc.md says why.
 */
#ifndef PROCAGE_CGROUP_VIEW_H
#define PROCAGE_CGROUP_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "procage.h"

/* The most hierarchies a view covers (v1 has about a dozen controllers). */
#define CGROUP_VIEW_MAX 32

struct cgroup_view {
	char *source; /* the run's own cgroup directory in one hierarchy (owned) */
	char *target; /* where that hierarchy is mounted: the view goes over it (owned) */
};

struct cgroup_views {
	struct cgroup_view *views; /* owned */
	size_t n;
};

/*
 * The parent's side: read the mount table and /proc/self/cgroup, and name
 * the run's directory in each hierarchy (run_cgroup, when the run has a
 * cgroup v2 directory of its own, else the caller's). A hierarchy whose
 * cgroup lies outside its mount, or a mount point with an escaped
 * character, gets no view (it stays as Landlock and the read-only mounts
 * leave it: unread). No mount at all: an empty list.
 */
int cgroup_views_build(const char *run_cgroup, struct cgroup_views *out, struct procage_error *err);
/* The same from the two files' text (the tests give their own). */
int cgroup_views_parse(FILE *mountinfo, FILE *cgroup, const char *run_cgroup,
		       struct cgroup_views *out, struct procage_error *err);
void cgroup_views_free(struct cgroup_views *v);

/*
 * The reaper's side, in the run's mount namespace after the masks: lay
 * each view, cover each directory below its root with an empty unreadable
 * one cloned from mask_source (namespaces_mask_source_create), and grant
 * its root for reading on ruleset (-1: none). System calls
 * only. A view whose source or target this namespace no longer reaches (a
 * mask of the policy over it) is passed over; any other failure is
 * returned with *index naming the view.
 */
int cgroup_views_lay(const struct cgroup_views *v, int mask_source, int ruleset,
		     uint64_t read_rights, int *index);

#endif
