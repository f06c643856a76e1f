/*
 * The run's view of its cgroup. On tier T1 each cgroup file system
 * the caller sees is covered by a read-only view of the run's own cgroup
 * (plan/cgroup_view.c); on tier T2 the host's hierarchy stays as Landlock
 * leaves it, unread. Either way the run writes no cgroup file and reaches
 * no other cgroup than its own.
 *
 * The writes are of "0" to cgroup.procs, which moves the writer into that
 * cgroup: into the caller's own cgroup it is a move to where the process
 * already is, so the control (run uncaged, as root) changes nothing.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

/* One cgroup hierarchy as the caller sees it. */
struct hierarchy {
	char point[PATH_MAX]; /* its mount point */
	char own[PATH_MAX];   /* the caller's cgroup directory in it */
	bool at_root;	      /* the caller's cgroup is the hierarchy's root */
	bool viewed;	      /* T1 lays a view here: v2, or a v1 hierarchy of limits */
};

/* v2, or a v1 hierarchy whose controllers runtimes read limits from (plan/cgroup_view.c). */
static bool limits_hierarchy(const char *options, bool v2)
{
	static const char *const wanted[] = { "memory", "cpu", "cpuacct", "cpuset", "pids" };
	char opts[1100], word[32];
	if (v2)
		return true;
	snprintf(opts, sizeof opts, ",%s,", options);
	for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++) {
		snprintf(word, sizeof word, ",%s,", wanted[i]);
		if (strstr(opts, word))
			return true;
	}
	return false;
}

/* Does every item of the line's list ("cpu,cpuacct") appear in the mount's options? */
static bool controllers_match(const char *controllers, const char *options, bool v2)
{
	if (!controllers[0] || v2)
		return !controllers[0] && v2;
	char list[256], opts[1100];
	snprintf(list, sizeof list, "%s", controllers);
	snprintf(opts, sizeof opts, ",%s,", options);
	for (char *save = NULL, *c = strtok_r(list, ",", &save); c;
	     c = strtok_r(NULL, ",", &save)) {
		char word[300];
		snprintf(word, sizeof word, ",%s,", c);
		if (!strstr(opts, word))
			return false;
	}
	return true;
}

/* The caller's cgroup in the hierarchy mounted at point, from /proc/self/cgroup. */
static bool own_cgroup(const char *options, bool v2, char *path, size_t size)
{
	char line[PATH_MAX + 300];
	bool found = false;
	FILE *f = fopen("/proc/self/cgroup", "re");
	while (f && !found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;
		if (!p)
			continue;
		*p = '\0';
		if (controllers_match(c + 1, options, v2)) {
			snprintf(path, size, "%s", p + 1);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The cgroup hierarchies mounted with their root at "/", up to max. */
static size_t hierarchies_find(struct hierarchy *h, size_t max)
{
	char line[8192], root[PATH_MAX], point[PATH_MAX], type[32], options[1024], own[PATH_MAX];
	size_t n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	while (f && n < max && fgets(line, sizeof line, f)) {
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%31s %*s %1023s", type, options) != 2 ||
		    (strcmp(type, "cgroup") != 0 && strcmp(type, "cgroup2") != 0) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    strcmp(root, "/") != 0 || strchr(point, '\\') ||
		    !own_cgroup(options, strcmp(type, "cgroup2") == 0, own, sizeof own))
			continue;
		snprintf(h[n].point, sizeof h[n].point, "%s", point);
		h[n].at_root = strcmp(own, "/") == 0;
		h[n].viewed = limits_hierarchy(options, strcmp(type, "cgroup2") == 0);
		if (snprintf(h[n].own, sizeof h[n].own, "%s%s", point, h[n].at_root ? "" : own) <
		    (int)sizeof h[n].own)
			n++;
	}
	if (f)
		fclose(f);
	return n;
}

static void hierarchy_check(const struct tier *t, struct caged_ws *ws, const struct hierarchy *h)
{
	char procs[PATH_MAX + 16], parent[PATH_MAX];
	struct caged_result r;

	snprintf(procs, sizeof procs, "%s/cgroup.procs", h->own);
	/*
	 * Only a caller who could write it uncaged tests the cage here: for
	 * another user the file's mode refuses the write, cage or not, and
	 * a check of it would pass with the sandbox off.
	 */
	r = run_uncaged(ws, NULL, "write-file", procs, "0", NULL);
	if (did_it(&r)) {
		check(t, true, &r, "r51: control: without the cage the caller writes %s", procs);
		r = run_caged(ws, NULL, "write-file", procs, "0", NULL);
		check(t, !did_it(&r), &r, "r51: the run cannot write %s (its caller's cgroup)",
		      procs);
	} else {
		skip(t, "r51: %s is not the caller's to write even uncaged (uid %d): its write is "
			"tried where it is",
		     procs, (int)geteuid());
	}
	/*
	 * The run's view shows its own cgroup at the mount point; that is
	 * the hierarchy's root outside the cage, which no test writes (the
	 * control would move a process there), so this is read only.
	 */
	snprintf(procs, sizeof procs, "%s/cgroup.procs", h->point);
	if (tier_is_t1(t) && h->viewed) {
		r = run_caged(ws, NULL, "read-head", procs, NULL);
		check(t, did_it(&r), &r, "r51: control: the run reads its own %s", procs);
	} else if (tier_is_t1(t)) {
		/* No runtime reads its limits here: no view, and nothing of it is read. */
		r = run_uncaged(ws, NULL, "read-head", procs, NULL);
		check(t, did_it(&r), &r, "r51: control: without the cage %s is read", procs);
		r = run_caged(ws, NULL, "read-head", procs, NULL);
		check(t, !did_it(&r), &r, "r51: the run reads nothing of %s, a hierarchy of no limits",
		      procs);
	}
	/* The directory holding the caller's cgroup lists its siblings. */
	if (h->at_root)
		return;
	snprintf(parent, sizeof parent, "%s", h->own);
	*strrchr(parent, '/') = '\0';
	r = run_uncaged(ws, NULL, "list-dir", parent, NULL);
	check(t, did_it(&r), &r, "r51: control: without the cage %s lists sibling cgroups", parent);
	r = run_caged(ws, NULL, "list-dir", parent, NULL);
	check(t, !did_it(&r) || !strstr(r.out, strrchr(h->own, '/') + 1), &r,
	      "r51: the run does not see the cgroups beside its own in %s", parent);
}

void r51_a_run_writes_no_cgroup_and_sees_only_its_own(const struct tier *t)
{
	struct hierarchy h[32];
	struct caged_ws *ws = workspace(t, "r51");
	if (!ws || cage_refused_here(t, ws, "r51"))
		goto out;
	size_t n = hierarchies_find(h, sizeof h / sizeof *h);
	if (n == 0)
		skip(t, "r51: no cgroup file system is mounted here");
	for (size_t i = 0; i < n; i++)
		hierarchy_check(t, ws, &h[i]);
out:
	caged_ws_free(ws);
}
