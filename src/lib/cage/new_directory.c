/*
 * A write grant's missing directory, made before the cage (a cache: ~/.npm,
 * ~/.cache/pip). A grant that makes what it grants must not become a way to
 * make a location the classes would hold: the classes deny what exists
 * when the cage is made, and a directory made writable where a class
 * location would be (a missing ~/.config/autostart, ~/.ssh) is a plant
 * waiting for the next login. So the new path is compared with the class
 * lists as spelled (patterns included), not with what exists now, and it
 * is refused inside or above any of them. Only one level is made, under an
 * existing parent opened without following links, so the new directory is
 * where its canonical parent says.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/classes.h"
#include "base/error.h"
#include "base/home.h"
#include "new_directory.h"
#include "paths.h"
#include "policy/policy.h"

/*
 * Does the path lie inside or above the location pattern? Component by
 * component over the shorter of the two, each pattern component matched
 * with fnmatch (a '*' never crosses a '/').
 */
static bool overlaps_pattern(const char *path, const char *pattern)
{
	const char *p = path, *q = pattern;
	char pc[NAME_MAX + 1], qc[NAME_MAX + 1];
	for (;;) {
		while (*p == '/')
			p++;
		while (*q == '/')
			q++;
		if (!*p || !*q)
			return true;
		size_t pn = strcspn(p, "/"), qn = strcspn(q, "/");
		if (pn > NAME_MAX || qn > NAME_MAX)
			return false;
		snprintf(pc, sizeof pc, "%.*s", (int)pn, p);
		snprintf(qc, sizeof qc, "%.*s", (int)qn, q);
		if (fnmatch(qc, pc, FNM_PERIOD) != 0)
			return false;
		p += pn;
		q += qn;
	}
}

static size_t components_count(const char *path)
{
	size_t n = 0;
	for (const char *p = path; *p; p++)
		n += *p != '/' && (p == path || p[-1] == '/');
	return n;
}

/* Overlap, or with !above_too only at or inside the location. */
static bool location_hit(const char *path, const char *location, bool above_too)
{
	return overlaps_pattern(path, location) &&
	       (above_too || components_count(path) >= components_count(location));
}

/* How path overlaps the location it was found to overlap, for the message. */
const char *new_directory_overlap_word(const char *path, const char *location)
{
	size_t a = components_count(path), b = components_count(location);
	return a == b ? "at" : a < b ? "above" : "inside";
}

/*
 * A <workspace>/ row below each write grant the policy holds so far (the
 * working directory of the default policy): in *location when the path
 * overlaps it.
 */
static bool workspace_overlap(const struct procage_policy *p, const char *path, const char *rel,
			      char *location, size_t size, bool above_too)
{
	for (size_t i = 0; i < p->n_paths; i++) {
		char *root = p->paths[i].access == PROCAGE_WRITE ? realpath(p->paths[i].path, NULL)
								  : NULL;
		bool hit = root &&
			   snprintf(location, size, "%s/%s", strcmp(root, "/") == 0 ? "" : root,
				    rel) < (int)size &&
			   location_hit(path, location, above_too);
		free(root);
		if (hit)
			return true;
	}
	return false;
}

/*
 * The class location the path overlaps (with !above_too: lies at or
 * inside), in *location, or false.
 */
bool new_directory_class_overlap(const struct procage_policy *p, const char *path, char *location,
				 size_t size, enum class_id *cls, bool above_too)
{
	struct homes homes;
	char row[PATH_MAX], runtime[64];
	enum procage_access deny;
	homes_find(&homes, p->home);
	for (size_t i = 0; i < classes_row_count(); i++) {
		classes_row_describe(i, row, sizeof row, cls, &deny);
		if (p->waived_classes & (1u << *cls))
			continue;
		if (strncmp(row, "<repository>/", 13) == 0)
			continue; /* every ".git" component is refused on its own */
		if (strncmp(row, "<workspace>/", 12) == 0) {
			if (workspace_overlap(p, path, row + 12, location, size, above_too))
				return true;
			continue;
		}
		if (strncmp(row, "$XDG_RUNTIME_DIR/", 17) == 0) {
			if (snprintf(location, size, "%s/%s",
				     paths_runtime_directory(runtime, sizeof runtime),
				     row + 17) < (int)size &&
			    location_hit(path, location, above_too))
				return true;
			continue;
		}
		if (strncmp(row, "~/", 2) != 0) {
			if (snprintf(location, size, "%s", row) < (int)size &&
			    location_hit(path, location, above_too))
				return true;
			continue;
		}
		for (size_t h = 0; h < homes.n; h++) {
			if (snprintf(location, size, "%s/%s", homes.path[h], row + 2) < (int)size &&
			    location_hit(path, location, above_too))
				return true;
		}
	}
	return false;
}

/* The parent (canonical, in parent) and the last component (name) of path. */
static int path_split(const char *path, char *parent, char *name, struct procage_error *err)
{
	char copy[PATH_MAX];
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof copy)
		return error_set(err, -ENAMETOOLONG, "new directory %.64s...: too long", path);
	memcpy(copy, path, n);
	copy[n] = '\0';
	char *slash = strrchr(copy, '/');
	snprintf(name, NAME_MAX + 1, "%s", slash + 1);
	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strcmp(name, ".git") == 0 || strlen(slash + 1) > NAME_MAX)
		return error_set(err, -EINVAL,
				 "new directory %s: its last component must be a plain name (not "
				 "\".\", \"..\" or \".git\")",
				 path);
	*slash = '\0';
	if (!realpath(copy[0] ? copy : "/", parent))
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "new directory %s: its parent %s must exist (only the last "
				     "directory is made)",
				     path, copy[0] ? copy : "/");
	return 0;
}

/* Make name in parent, opened with no link followed: 0700, the caller's. */
static int directory_make(const char *parent, const char *name, const char *path,
			  struct procage_error *err)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, parent, &how, sizeof how);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "new directory %s: parent %s",
				     path, parent);
	int rc = mkdirat(fd, name, 0700);
	int e = errno;
	close(fd);
	if (rc != 0)
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "new directory %s", path);
	return 0;
}

PROCAGE_API int procage_policy_allow_new_directory(struct procage_policy *p, const char *path,
						   int check_only, struct procage_error *err)
{
	char parent[PATH_MAX], name[NAME_MAX + 1], full[PATH_MAX + NAME_MAX + 2];
	char location[PATH_MAX];
	enum class_id cls;
	struct stat st;
	int rc = policy_path_argument_check(p, path, err);
	if (rc < 0)
		return rc;
	/*
	 * A link where the directory should be could have been planted by an
	 * earlier run to turn "make my cache" into a grant of its target.
	 */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return error_set(err, -ELOOP,
				 "new directory %s: it is a symbolic link; name the directory "
				 "itself (or grant it with a write rule)",
				 path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return check_only ? 0 : procage_policy_allow(p, path, PROCAGE_WRITE, err);
	if (lstat(path, &st) == 0)
		return error_set(err, -EEXIST,
				 "new directory %s: something that is not a directory is there "
				 "already",
				 path);
	rc = path_split(path, parent, name, err);
	if (rc < 0)
		return rc;
	snprintf(full, sizeof full, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, name);
	if (new_directory_class_overlap(p, full, location, sizeof location, &cls, true))
		return error_set(
		    err, -EPERM,
		    "new directory %s: it would lie %s %s, a location of the %s class; "
		    "make it yourself if it must exist, and waive the class to grant it",
		    path, new_directory_overlap_word(full, location), location, class_name(cls));
	if (check_only)
		return 1;
	if ((rc = directory_make(parent, name, path, err)) < 0)
		return rc;
	/* As spelled: the cage judges the links on the way (rule_links.h). */
	return procage_policy_allow(p, path, PROCAGE_WRITE, err);
}
