/*
 * Tier T1: a read-only view of the run's own cgroup at the places the
 * caller's namespace mounts cgroup file systems. Language runtimes size
 * their heaps and thread pools from the cgroup they are in (node and Go
 * read memory.max, or memory.limit_in_bytes on cgroup v1, at the path
 * /proc/self/cgroup names); the host's hierarchy, in turn, shows every
 * other service's cgroup, and root could write the files it owns there.
 * So the run sees its own directory only, read-only, and the directories
 * below it (another process's cgroups when the run's is the caller's)
 * covered. Why each choice: docs/proc.md.
 */
#include "cgroup_view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/error.h"
#include "base/syscalls.h"
#include "kernel/landlock.h"
#include "namespaces.h"

/* One line of /proc/self/cgroup: "N:controllers:path". */
struct cgroup_line {
	char controllers[256];
	char path[4096];
};

/* Does the comma-separated list have word as one of its items? */
static bool list_has(const char *list, const char *word, size_t len)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && strncmp(p, word, len) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Every controller of a v1 line ("cpu,cpuacct", "name=systemd") in the mount's options. */
static bool line_matches(const struct cgroup_line *l, bool v2, const char *super_options)
{
	if (v2 || !l->controllers[0])
		return v2 && !l->controllers[0];
	for (const char *p = l->controllers; *p;) {
		size_t n = strcspn(p, ",");
		if (!list_has(super_options, p, n))
			return false;
		p += n + (p[n] == ',');
	}
	return true;
}

static void lines_read(FILE *f, struct cgroup_line *lines, size_t max, size_t *n)
{
	char text[4096 + 300];
	*n = 0;
	while (*n < max && fgets(text, sizeof text, f)) {
		text[strcspn(text, "\n")] = '\0';
		char *c = strchr(text, ':'), *p = c ? strchr(c + 1, ':') : NULL;
		if (!p || (size_t)(p - c - 1) >= sizeof lines->controllers ||
		    strlen(p + 1) >= sizeof lines->path)
			continue;
		snprintf(lines[*n].controllers, sizeof lines->controllers, "%.*s", (int)(p - c - 1),
			 c + 1);
		snprintf(lines[*n].path, sizeof lines->path, "%s", p + 1);
		(*n)++;
	}
}

/*
 * The directory of cgroup path in a hierarchy mounted at point from its
 * directory root, or NULL when the path lies outside the mount (a
 * cgroup namespace shows it as "/.."). Allocated.
 */
static char *directory_of(const char *point, const char *root, const char *path)
{
	size_t rl = strlen(root);
	const char *rest;
	char *out;
	if (strcmp(root, "/") == 0)
		rest = path;
	else if (strncmp(path, root, rl) == 0 && (path[rl] == '\0' || path[rl] == '/'))
		rest = path + rl;
	else
		return NULL;
	if (strncmp(rest, "/..", 3) == 0 && (rest[3] == '/' || !rest[3]))
		return NULL;
	if (strcmp(rest, "/") == 0)
		rest = "";
	return asprintf(&out, "%s%s", point, rest) < 0 ? NULL : out;
}

static int view_add(struct cgroup_views *out, char *source, const char *target)
{
	struct cgroup_view *v = &out->views[out->n];
	v->source = source;
	v->target = strdup(target);
	if (!v->target) {
		free(source);
		return -ENOMEM;
	}
	out->n++;
	return 0;
}

/*
 * The v1 hierarchies whose files a runtime reads to size itself: memory,
 * CPU quota and shares, CPU sets, the process limit. The others (blkio,
 * devices, freezer, the named systemd one, ...) get no view and stay
 * unread, as everything outside a view does: each view is a few mounts
 * at every spawn, and a hybrid host has a dozen hierarchies.
 */
static bool limits_hierarchy(const char *super_options)
{
	static const char *const wanted[] = { "memory", "cpu", "cpuacct", "cpuset", "pids" };
	for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++)
		if (list_has(super_options, wanted[i], strlen(wanted[i])))
			return true;
	return false;
}

/*
 * One mountinfo line: "id parent dev root point options [tags] - type
 * source super". A cgroup mount whose hierarchy holds one of lines gets a
 * view; the v2 one shows run_cgroup when the run has one there.
 */
static int mount_line(char *text, const struct cgroup_line *lines, size_t n_lines,
		      const char *run_cgroup, struct cgroup_views *out)
{
	char root[4096], point[4096], type[32], super[1024];
	const char *dash = strstr(text, " - ");
	if (!dash || sscanf(dash + 3, "%31s %*s %1023s", type, super) != 2)
		return 0;
	bool v2 = strcmp(type, "cgroup2") == 0;
	if (!v2 && strcmp(type, "cgroup") != 0)
		return 0;
	if (sscanf(text, "%*s %*s %*s %4095s %4095s", root, point) != 2 || strchr(point, '\\') ||
	    strchr(root, '\\'))
		return 0;
	if (!v2 && !limits_hierarchy(super))
		return 0;
	for (size_t i = 0; i < n_lines; i++) {
		if (!line_matches(&lines[i], v2, super))
			continue;
		size_t pl = strlen(point);
		char *source;
		if (v2 && run_cgroup && strncmp(run_cgroup, point, pl) == 0 &&
		    run_cgroup[pl] == '/')
			source = strdup(run_cgroup);
		else
			source = directory_of(point, root, lines[i].path);
		if (!source)
			return 0; /* outside the mount: no view, the hierarchy stays unread */
		if (out->n == CGROUP_VIEW_MAX) {
			free(source);
			return -E2BIG;
		}
		return view_add(out, source, point);
	}
	return 0;
}

int cgroup_views_parse(FILE *mountinfo, FILE *cgroup, const char *run_cgroup,
		       struct cgroup_views *out, struct procage_error *err)
{
	struct cgroup_line *lines = calloc(CGROUP_VIEW_MAX, sizeof *lines);
	size_t n_lines = 0, cap = 0;
	char *text = NULL;
	int rc = 0;

	out->views = calloc(CGROUP_VIEW_MAX, sizeof *out->views);
	out->n = 0;
	if (!lines || !out->views) {
		free(lines);
		cgroup_views_free(out);
		return error_set(err, -ENOMEM, "out of memory");
	}
	lines_read(cgroup, lines, CGROUP_VIEW_MAX, &n_lines);
	while (rc == 0 && getline(&text, &cap, mountinfo) > 0)
		rc = mount_line(text, lines, n_lines, run_cgroup, out);
	free(text);
	free(lines);
	if (rc < 0) {
		cgroup_views_free(out);
		return rc == -E2BIG ? error_set(err, rc,
						"more than %d cgroup file systems are mounted: "
						"the run's view of its cgroup cannot cover them",
						CGROUP_VIEW_MAX)
				    : error_set(err, rc, "out of memory");
	}
	return 0;
}

int cgroup_views_build(const char *run_cgroup, struct cgroup_views *out, struct procage_error *err)
{
	out->views = NULL;
	out->n = 0;
	FILE *cgroup = fopen("/proc/self/cgroup", "re");
	/* No /proc/self/cgroup: a kernel without cgroups; nothing to show. */
	if (!cgroup)
		return errno == ENOENT ? 0
				       : error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
						       "reading /proc/self/cgroup");
	FILE *mountinfo = fopen("/proc/self/mountinfo", "re");
	if (!mountinfo) {
		int rc =
		    error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "reading /proc/self/mountinfo");
		fclose(cgroup);
		return rc;
	}
	int rc = cgroup_views_parse(mountinfo, cgroup, run_cgroup, out, err);
	fclose(mountinfo);
	fclose(cgroup);
	return rc;
}

void cgroup_views_free(struct cgroup_views *v)
{
	for (size_t i = 0; v->views && i < v->n; i++) {
		free(v->views[i].source);
		free(v->views[i].target);
	}
	free(v->views);
	v->views = NULL;
	v->n = 0;
}

/* ---- the reaper's side: system calls only ---- */

/* The kernel's record of getdents64 (glibc's struct dirent has another layout). */
struct dirent64_record {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static int path_open(int dir, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | resolve};
	int fd = sys_openat2(dir, path, &how);
	return fd < 0 ? -errno : fd;
}

static int mask_over(int mask_source, int dir, const char *name)
{
	int target = path_open(dir, name, O_PATH | O_NOFOLLOW, RESOLVE_BENEATH);
	if (target == -ENOENT)
		return 0; /* removed since it was listed: nothing left to cover */
	if (target < 0)
		return target;
	return namespaces_attach_read_only_copy(mask_source, "d", target);
}

/* Cover every directory below the view's root (another cgroup) with an empty one. */
static int children_cover(int mask_source, const char *target)
{
	char buf[4096] __attribute__((aligned(8)));
	int dir = path_open(AT_FDCWD, target, O_RDONLY | O_DIRECTORY, 0), rc = 0;
	if (dir < 0)
		return dir;
	for (;;) {
		long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		for (long off = 0; rc == 0 && off < n;) {
			struct dirent64_record *d = (struct dirent64_record *)(void *)(buf + off);
			off += d->reclen;
			if (d->type == DT_DIR && strcmp(d->name, ".") != 0 &&
			    strcmp(d->name, "..") != 0)
				rc = mask_over(mask_source, dir, d->name);
		}
		if (rc < 0)
			break;
	}
	close(dir);
	return rc;
}

static int view_lay(int mask_source, const struct cgroup_view *v, int ruleset, uint64_t rights)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					      MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC};
	int source = path_open(AT_FDCWD, v->source, O_PATH | O_DIRECTORY, 0);
	int target = path_open(AT_FDCWD, v->target, O_PATH | O_DIRECTORY, 0), tree = -1, rc = 0;
	/* Out of this namespace's reach (a mask of the policy): nothing shows there. */
	if (source == -ENOENT || source == -EACCES || target == -ENOENT || target == -EACCES) {
		if (source >= 0)
			close(source);
		if (target >= 0)
			close(target);
		return 0;
	}
	if (source < 0 || target < 0)
		rc = source < 0 ? source : target;
	else if ((tree = sys_open_tree(source, "",
				       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH)) < 0 ||
		 sys_mount_setattr(tree, "", AT_EMPTY_PATH, &attr) != 0 ||
		 sys_move_mount(tree, "", target, "",
				MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
		rc = -errno;
	if (rc == 0)
		rc = children_cover(mask_source, v->target);
	if (rc == 0 && ruleset >= 0)
		rc = landlock_ruleset_add_fd(ruleset, tree, rights);
	if (tree >= 0)
		close(tree);
	if (source >= 0)
		close(source);
	if (target >= 0)
		close(target);
	return rc;
}

int cgroup_views_lay(const struct cgroup_views *v, int mask_source, int ruleset,
		     uint64_t read_rights, int *index)
{
	*index = -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < v->n; i++) {
		*index = (int)i;
		rc = view_lay(mask_source, &v->views[i], ruleset, read_rights);
	}
	if (rc == 0)
		*index = -1;
	return rc;
}
