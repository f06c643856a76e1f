/*
 * Unit tests: which directory of each cgroup hierarchy the run's view
 * shows, from a mount table and a /proc/self/cgroup given as text
 * (plan/cgroup_view.c): a cgroup v2 host, a hybrid host with v1
 * controllers, a run with a cgroup of its own, a caller in a cgroup
 * namespace whose cgroup lies outside a mount, and other file systems.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan/namespaces.h"
#include "run/tmpdir.h"

#include "plan/cgroup_view.h"
#include "tap.h"

/* Parse the two texts; the views in out (free them), or false. */
static bool parse(const char *mountinfo, const char *cgroup, const char *run_cgroup,
		  struct cgroup_views *out)
{
	struct procage_error err = {0};
	FILE *m = fmemopen((void *)mountinfo, strlen(mountinfo), "r");
	FILE *c = fmemopen((void *)cgroup, strlen(cgroup), "r");
	int rc = m && c ? cgroup_views_parse(m, c, run_cgroup, out, &err) : -1;
	if (m)
		fclose(m);
	if (c)
		fclose(c);
	if (rc != 0)
		tap_diag("cgroup_views_parse: %d %s", rc, err.message);
	return rc == 0;
}

/* Is there a view of source over target? */
static bool has(const struct cgroup_views *v, const char *source, const char *target)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->views[i].source, source) == 0 &&
		    strcmp(v->views[i].target, target) == 0)
			return true;
	for (size_t i = 0; i < v->n; i++)
		tap_diag("  view %s over %s", v->views[i].source, v->views[i].target);
	return false;
}

static const char v2_mounts[] =
    "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
    "30 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n"
    "31 22 0:28 / /tmp rw - tmpfs tmpfs rw\n";

static void test_v2(void)
{
	struct cgroup_views v;
	bool ok = parse(v2_mounts, "0::/user.slice/user-1000.slice/session-2.scope\n", NULL, &v);
	tap_ok(ok && v.n == 1, "v2: one view, of the one cgroup file system");
	tap_ok(ok && has(&v, "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope",
			 "/sys/fs/cgroup"),
	       "v2: the caller's cgroup over the mount point");
	cgroup_views_free(&v);

	ok = parse(v2_mounts, "0::/user.slice/session-2.scope\n",
		   "/sys/fs/cgroup/user.slice/procage-7-0", &v);
	tap_ok(ok && v.n == 1 && has(&v, "/sys/fs/cgroup/user.slice/procage-7-0", "/sys/fs/cgroup"),
	       "v2: a run with a cgroup of its own sees that one");
	cgroup_views_free(&v);

	ok = parse(v2_mounts, "0::/\n", NULL, &v);
	tap_ok(
	    ok && v.n == 1 && has(&v, "/sys/fs/cgroup", "/sys/fs/cgroup"),
	    "v2: a caller in the root cgroup: the root, itself (its children covered when laid)");
	cgroup_views_free(&v);
}

static void test_hybrid(void)
{
	static const char mounts[] =
	    "30 22 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
	    "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	    "34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	    "39 30 0:36 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	    "40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
	static const char cgroup[] = "9:name=systemd:/a\n"
				     "4:memory:/process_api/42\n"
				     "2:cpu,cpuacct:/\n"
				     "0::/a\n";
	struct cgroup_views v;
	bool ok = parse(mounts, cgroup, NULL, &v);
	tap_ok(ok && v.n == 3,
	       "hybrid: a view per hierarchy a runtime reads its limits from, none of the tmpfs");
	tap_ok(ok && has(&v, "/sys/fs/cgroup/memory/process_api/42", "/sys/fs/cgroup/memory"),
	       "hybrid: the memory controller's cgroup");
	tap_ok(ok && has(&v, "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"),
	       "hybrid: two controllers of one hierarchy matched together");
	tap_ok(ok && !has(&v, "/sys/fs/cgroup/systemd/a", "/sys/fs/cgroup/systemd"),
	       "hybrid: a named hierarchy (name=systemd) gets none: it stays unread");
	tap_ok(ok && has(&v, "/sys/fs/cgroup/unified/a", "/sys/fs/cgroup/unified"),
	       "hybrid: the v2 hierarchy beside them");
	cgroup_views_free(&v);
}

static void test_outside(void)
{
	/* A caller in a cgroup namespace: a mount of a subtree, and a cgroup outside it. */
	static const char mounts[] = "30 22 0:27 /ns/root /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
				     "31 22 0:27 /other /mnt/other rw - cgroup2 cgroup2 rw\n"
				     "32 22 0:27 /.. /mnt/up rw - cgroup2 cgroup2 rw\n";
	struct cgroup_views v;
	bool ok = parse(mounts, "0::/ns/root/job\n", NULL, &v);
	tap_ok(ok && has(&v, "/sys/fs/cgroup/job", "/sys/fs/cgroup"),
	       "a mount of a subtree: the cgroup's path below the mount's root");
	tap_ok(ok && v.n == 1, "a mount the cgroup lies outside of gets no view");
	cgroup_views_free(&v);
	ok = parse("30 22 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "0::/../elsewhere\n",
		   NULL, &v);
	tap_ok(ok && v.n == 0,
	       "a cgroup outside the namespace a mount of its root shows (/..) gets no view");
	cgroup_views_free(&v);
	ok = parse(mounts, "0::/../elsewhere\n", NULL, &v);
	tap_ok(ok && v.n == 1 && has(&v, "/mnt/up/elsewhere", "/mnt/up"),
	       "a mount from above the namespace's root holds it: a view of it there");
	cgroup_views_free(&v);
}

static void test_none(void)
{
	struct cgroup_views v;
	bool ok = parse("22 1 0:21 / /proc rw - proc proc rw\n", "0::/\n", NULL, &v);
	tap_ok(ok && v.n == 0, "no cgroup file system mounted: no view");
	cgroup_views_free(&v);
	ok = parse("30 22 0:27 / /sys/fs/cgroup\\040x rw - cgroup2 cgroup2 rw\n", "0::/\n", NULL,
		   &v);
	tap_ok(ok && v.n == 0, "a mount point with an escaped character gets no view");
	cgroup_views_free(&v);
}

/*
 * What the child finds once the view is laid, one bit each: 1 the view's
 * file reads as the source's, 2 a file cannot be made in it (EROFS),
 * 4 the directory below its root is covered (empty, no permission bits),
 * 8 the covered directory's file is not there.
 */
static int view_probe(const char *dir)
{
	char src[512], tgt[512], path[600], text[16] = "";
	struct cgroup_views v = {0};
	struct cgroup_view one;
	struct id_maps maps;
	int index, found = 0;
	snprintf(src, sizeof src, "%s/src", dir);
	snprintf(tgt, sizeof tgt, "%s/tgt", dir);
	one.source = src;
	one.target = tgt;
	v.views = &one;
	v.n = 1;
	id_maps_own(&maps);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || id_maps_write(&maps, 0) != 0 ||
	    namespaces_mounts_private() != 0)
		return 100;
	int mask_source = namespaces_mask_source_create();
	if (mask_source < 0 || cgroup_views_lay(&v, mask_source, -1, 0, &index) != 0)
		return 101;
	snprintf(path, sizeof path, "%s/memory.max", tgt);
	int fd = open(path, O_RDONLY);
	if (fd >= 0 && read(fd, text, sizeof text - 1) > 0 && strcmp(text, "max\n") == 0)
		found |= 1;
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof path, "%s/new", tgt);
	if (open(path, O_CREAT | O_WRONLY, 0600) < 0 && errno == EROFS)
		found |= 2;
	struct stat st;
	snprintf(path, sizeof path, "%s/sibling", tgt);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0)
		found |= 4;
	snprintf(path, sizeof path, "%s/sibling/cgroup.procs", tgt);
	if (access(path, F_OK) != 0)
		found |= 8;
	return found;
}

/*
 * Laying a view, in a user and mount namespace of a child's own over a
 * tree of the test's: read-only, and each directory below its root
 * covered. Tier T1 hosts only (a user namespace that can mount).
 */
static void test_lay(void)
{
	char dir[256], path[600];
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof dir, "%s/procage-cgview-XXXXXX", base);
	if (!mkdtemp(dir)) {
		tap_ok(false, "lay: the test's directory is made");
		return;
	}
	const char *dirs[] = {"src", "tgt", "src/sibling"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof path, "%s/src/memory.max", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("max\n", f);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/src/sibling/cgroup.procs", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	pid_t pid = fork();
	if (pid == 0)
		_exit(view_probe(dir));
	int status = 0;
	waitpid(pid, &status, 0);
	int found = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (found == 100) {
		tap_skip("lay: no user namespace that can mount here (tier T2)");
	} else {
		tap_ok(found >= 0 && found < 100, "lay: the view is laid (%d)", found);
		tap_ok(found >= 0 && found < 100 && (found & 1), "lay: the view reads its source");
		tap_ok(found >= 0 && found < 100 && (found & 2), "lay: the view is read-only");
		tap_ok(found >= 0 && found < 100 && (found & 4),
		       "lay: a directory below the view's root is covered by an empty one");
		tap_ok(found >= 0 && found < 100 && (found & 8),
		       "lay: nothing of the covered directory is reached");
	}
	tap_ok(tmpdir_remove(dir) == 0, "lay: the test's directory is removed");
}

int main(void)
{
	test_lay();
	test_v2();
	test_hybrid();
	test_outside();
	test_none();
	return tap_done();
}
