/*
 * Memory and process limits of a whole run, through cgroup v2: where a
 * delegated subtree is writable, each run gets a cgroup of its own there,
 * with memory.max (and no swap beyond it) and pids.max. The run's target
 * joins it as its first step (before exec), so it and every descendant
 * count; the reaper stays out of it. The host probe (host.c) finds the
 * subtree once; a policy asking for a limit the host cannot give is
 * refused by the cage, never run without it.
 *
 * The subtree is the one $PROCAGE_CGROUP_PARENT names (a directory of the
 * cgroup v2 mount, for callers whose own cgroup is delegated, Delegate=yes,
 * and who keep themselves in a leaf of it), else the parent of the
 * caller's cgroup (the root when the caller is in the root). It must have
 * the memory and pids controllers enabled for its children, be writable,
 * and the common ancestor of it and the caller's cgroup must let us move a
 * process (its cgroup.procs writable).
 */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/small_file.h"

/* The mount point of the cgroup v2 hierarchy, from /proc/self/mountinfo. */
static bool cgroup2_mount(char *out, size_t size)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof line, f)) {
		/* id parent major:minor root mountpoint options ... - fstype source super */
		char root[PATH_MAX], point[PATH_MAX];
		const char *dash = strstr(line, " - ");
		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 || strcmp(root, "/") != 0)
			continue;
		snprintf(out, size, "%s", point);
		found = true;
	}
	fclose(f);
	return found;
}

/* The caller's cgroup v2 path ("/a/b"), from /proc/self/cgroup. */
static bool own_cgroup(char *out, size_t size)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof line, f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, size, "%s", line + 3);
			found = true;
		}
	fclose(f);
	return found;
}

static bool file_has_word(const char *path, const char *word)
{
	char text[512];
	if (small_file_read(path, text, sizeof text) <= 0)
		return false;
	size_t len = strlen(word);
	for (char *p = text; (p = strstr(p, word)); p += len)
		if ((p == text || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/* The longest common directory prefix of two absolute paths. */
static void common_ancestor(const char *a, const char *b, char *out, size_t size)
{
	size_t last = 0, i = 0;
	while (a[i] && a[i] == b[i]) {
		if (a[i] == '/')
			last = i;
		i++;
	}
	if ((!a[i] || a[i] == '/') && (!b[i] || b[i] == '/'))
		last = i;
	snprintf(out, size, "%.*s", last ? (int)last : 1, a);
}

void cgroup_measure(struct procage_host_facts *f)
{
	char mount[PATH_MAX], own[PATH_MAX], base[PATH_MAX], ancestor[PATH_MAX], path[PATH_MAX + 32];
	const char *env = getenv("PROCAGE_CGROUP_PARENT");

	f->cgroup_memory = f->cgroup_pids = false;
	f->cgroup_base[0] = '\0';
	snprintf(f->cgroup_why, sizeof f->cgroup_why, "no cgroup v2 hierarchy is mounted");
	if (!cgroup2_mount(mount, sizeof mount))
		return;
	snprintf(f->cgroup_why, sizeof f->cgroup_why, "this process's cgroup v2 path is unknown");
	if (!own_cgroup(own, sizeof own))
		return;
	if (snprintf(path, sizeof path, "%s%s", mount, strcmp(own, "/") == 0 ? "" : own) >=
	    (int)sizeof path)
		return;
	if (env && env[0]) {
		if (snprintf(base, sizeof base, "%s", env) >= (int)sizeof base)
			return;
	} else if (strcmp(own, "/") == 0) {
		snprintf(base, sizeof base, "%s", mount);
	} else {
		memcpy(base, path, sizeof base);
		base[sizeof base - 1] = '\0';
		*strrchr(base, '/') = '\0';
	}
	if (strlen(base) >= sizeof f->cgroup_base) {
		snprintf(f->cgroup_why, sizeof f->cgroup_why, "the cgroup path is too long");
		return;
	}
	common_ancestor(path, base, ancestor, sizeof ancestor);
	if (strncmp(ancestor, mount, strlen(mount)) != 0) {
		snprintf(f->cgroup_why, sizeof f->cgroup_why, "%.100s is not in the cgroup v2 mount %.100s",
			 base, mount);
		return;
	}
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", base);
	f->cgroup_memory = file_has_word(path, "memory");
	f->cgroup_pids = file_has_word(path, "pids");
	snprintf(path, sizeof path, "%s/cgroup.procs", ancestor);
	if (access(base, W_OK | X_OK) != 0 || access(path, W_OK) != 0) {
		snprintf(f->cgroup_why, sizeof f->cgroup_why,
			 "the cgroup %.150s is not delegated to this user (not writable)", base);
		f->cgroup_memory = f->cgroup_pids = false;
		return;
	}
	snprintf(f->cgroup_why, sizeof f->cgroup_why,
		 "the cgroup %.150s does not enable the %s for its children", base,
		 !f->cgroup_memory && !f->cgroup_pids ? "memory and pids controllers"
		 : !f->cgroup_memory                  ? "memory controller"
						      : "pids controller");
	if (f->cgroup_memory || f->cgroup_pids)
		memcpy(f->cgroup_base, base, strlen(base) + 1);
	if (f->cgroup_memory && f->cgroup_pids)
		f->cgroup_why[0] = '\0';
}

static int value_write(int dir, const char *file, const char *text, const char *where,
		       struct procage_error *err)
{
	int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (n == (ssize_t)strlen(text))
		return 0;
	return error_set_sys(err, e, PROCAGE_STEP_PREPARE, "setting %s to %s in the run's cgroup %s",
			     file, text, where);
}

int cgroup_create(const struct procage_host_facts *f, uint64_t memory, uint64_t pids,
		  char **dir_out, int *procs_fd, struct procage_error *err)
{
	static atomic_uint counter;
	char dir[PATH_MAX], text[32];
	int rc = 0;

	*dir_out = NULL;
	*procs_fd = -1;
	for (int attempt = 0;; attempt++) {
		snprintf(dir, sizeof dir, "%s/procage-%d-%u", f->cgroup_base, (int)getpid(),
			 atomic_fetch_add(&counter, 1));
		if (mkdir(dir, 0755) == 0)
			break;
		if (errno != EEXIST || attempt > 100)
			return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
					     "making the run's cgroup %s", dir);
	}
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0) {
		rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "opening the run's cgroup %s", dir);
		goto fail;
	}
	if (memory) {
		snprintf(text, sizeof text, "%llu", (unsigned long long)memory);
		if ((rc = value_write(d, "memory.max", text, dir, err)) < 0)
			goto fail;
		/* The limit is on memory, not on memory that can be swapped out. */
		if (faccessat(d, "memory.swap.max", F_OK, 0) == 0 &&
		    (rc = value_write(d, "memory.swap.max", "0", dir, err)) < 0)
			goto fail;
		/* Out of memory, the whole run is ended, not one process of it. */
		if (faccessat(d, "memory.oom.group", F_OK, 0) == 0 &&
		    (rc = value_write(d, "memory.oom.group", "1", dir, err)) < 0)
			goto fail;
	}
	if (pids) {
		snprintf(text, sizeof text, "%llu", (unsigned long long)pids);
		if ((rc = value_write(d, "pids.max", text, dir, err)) < 0)
			goto fail;
	}
	*procs_fd = openat(d, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (*procs_fd < 0) {
		rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "opening %s/cgroup.procs", dir);
		goto fail;
	}
	close(d);
	if (!(*dir_out = strdup(dir))) {
		close(*procs_fd);
		*procs_fd = -1;
		rmdir(dir);
		return error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
fail:
	if (d >= 0)
		close(d);
	rmdir(dir);
	return rc;
}

void cgroup_remove(const char *dir)
{
	if (dir)
		(void)rmdir(dir);
}
