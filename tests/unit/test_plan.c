/* Unit tests: making a cage from a policy, and a spawn's plan from a cage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage/cage.h"
#include "kernel/landlock.h"
#include "plan/plan.h"
#include "base/syscalls.h"
#include "tap.h"
#include "run/spawn.h"
#include "run/tmpdir.h"

static char workspace[256];

static void workspace_make(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(workspace, sizeof workspace, "%s/procage-unit-XXXXXX", base);
	if (!mkdtemp(workspace))
		exit(99);
	char path[512];
	snprintf(path, sizeof path, "%s/tree", workspace);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/tree/inner", workspace);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/tree/file", workspace);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	char target[512];
	snprintf(target, sizeof target, "%s/tree", workspace);
	snprintf(path, sizeof path, "%s/link", workspace);
	if (symlink(target, path) != 0)
		exit(99); /* the fixture cannot be made */
}

static const char *ws(const char *rel)
{
	static char buf[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", workspace, rel);
	return buf[i];
}

static const struct landlock_grant *grant_for(const struct procage_cage *c, const char *path)
{
	for (size_t i = 0; i < c->n_grants; i++)
		if (strcmp(c->grants[i].path, path) == 0)
			return &c->grants[i];
	return NULL;
}

static void test_cage_grants(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;

	procage_policy_allow(p, ws("link"), PROCAGE_READ, &err);
	procage_policy_allow(p, ws("tree/file"), PROCAGE_WRITE, &err);
	int rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0, "a cage is made: %s", rc ? err.message : "ok");
	if (rc)
		goto out;
	char canonical[PATH_MAX];
	tap_ok(realpath(ws("tree"), canonical) && grant_for(c, canonical),
	       "a rule spelled through a symlink binds its canonical target");
	const struct landlock_grant *g = grant_for(c, canonical);
	tap_ok(g && g->access == landlock_fs_rights_read(), "a read grant has the read rights");
	if (!realpath(ws("tree/file"), canonical))
		exit(99);
	g = grant_for(c, canonical);
	tap_ok(g && !(g->access & LANDLOCK_ACCESS_FS_MAKE_REG) &&
		       (g->access & LANDLOCK_ACCESS_FS_WRITE_FILE) &&
		       (g->access & LANDLOCK_ACCESS_FS_TRUNCATE),
	       "a write grant on a file keeps only the rights a file takes");
	struct procage_host_facts f;
	procage_host_facts(&f, NULL);
	tap_ok(procage_cage_tier(c) == f.tier, "the cage is enforced at the host's tier (%s)",
	       procage_tier_name(f.tier));
	tap_ok(c->landlock.handled_net != 0 || c->landlock.abi < 4,
	       "with the network off, TCP is handled by Landlock");
	tap_ok(c->seccomp.len > 0 && c->seccomp.filter, "the seccomp program is built once, in the cage");
out:
	procage_cage_free(c);
	procage_policy_free(p);
}

static void test_deny_inside_grant(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	struct procage_host_facts f;
	procage_host_facts(&f, NULL);
	bool t1 = f.tier == PROCAGE_TIER_T1;
	const char *approximation = t1 ? "spawn-snapshot" : "entry-grants";

	procage_policy_allow(p, ws("tree"), PROCAGE_WRITE, &err);
	procage_policy_allow(p, ws("tree/inner"), PROCAGE_PROTECT, &err);
	/* The policy's own denial alone: no workspace-config names missing in the tree. */
	procage_policy_waive(p, "workspace-config", &err);
	int rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == -EOPNOTSUPP && c == NULL && strstr(err.message, "inner") &&
		       strstr(err.message, approximation),
	       "protect inside a writable tree needs %s accepted: %s", approximation, err.message);
	procage_policy_accept(p, approximation, &err);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0, "accepted, the cage is made: %s", rc ? err.message : "ok");
	char inner[PATH_MAX], tree[PATH_MAX], file[PATH_MAX]; /* realpath writes up to PATH_MAX */
	if (!realpath(ws("tree/inner"), inner))
		exit(99);
	if (!realpath(ws("tree"), tree))
		exit(99);
	if (!realpath(ws("tree/file"), file))
		exit(99);
	if (rc == 0 && t1)
		tap_ok(c->n_denials == 1 && strcmp(c->denials[0].path, inner) == 0 &&
			       c->denials[0].access == PROCAGE_PROTECT,
		       "on T1 the protected path becomes a mask at spawn");
	else if (rc == 0)
		tap_ok(grant_for(c, inner) && grant_for(c, inner)->access == landlock_fs_rights_read() &&
			       grant_for(c, tree) &&
			       !(grant_for(c, tree)->access & LANDLOCK_ACCESS_FS_MAKE_REG) &&
			       grant_for(c, file) &&
			       (grant_for(c, file)->access & LANDLOCK_ACCESS_FS_WRITE_FILE),
		       "on T2 the tree is granted entry by entry, the protected path read-only");
	procage_cage_free(c);
	c = NULL;
	procage_policy_free(p);

	p = procage_policy_new();
	procage_policy_allow(p, ws("tree"), PROCAGE_READ, &err);
	procage_policy_allow(p, ws("tree/inner"), PROCAGE_HIDE, &err);
	procage_policy_accept(p, "spawn-snapshot", &err);
	procage_policy_accept(p, "entry-grants", &err);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0 && (t1 ? c->n_denials == 1 : !grant_for(c, inner) && !grant_for(c, tree)),
	       "hide inside a readable tree: %s", t1 ? "a mask on T1" : "no grant on T2 reaches it");
	procage_cage_free(c);
	c = NULL;
	procage_policy_free(p);

	p = procage_policy_new();
	procage_policy_allow(p, ws("tree"), PROCAGE_HIDE, &err);
	procage_policy_allow(p, ws("tree/inner"), PROCAGE_READ, &err);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == -EINVAL && strstr(err.message, "conflicting rules"),
	       "a grant inside a hidden path is refused: %s", err.message);
	procage_policy_free(p);

	p = procage_policy_new();
	procage_policy_allow(p, ws("tree"), PROCAGE_READ, &err);
	procage_policy_allow(p, ws("tree/inner"), PROCAGE_PROTECT, &err);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0 && c->n_denials == 0, "protect inside a read-only tree holds by itself");
	procage_cage_free(c);
	procage_policy_free(p);

	p = procage_policy_new();
	procage_policy_allow(p, ws("tree/inner"), PROCAGE_HIDE, &err);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0 && c->n_grants == 0, "hide outside every grant needs no rule");
	procage_cage_free(c);
	procage_policy_free(p);
}

static void test_private_tmp_base(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;

	procage_policy_allow(p, ws("tree"), PROCAGE_WRITE, &err);
	setenv("TMPDIR", ws("tree/inner"), 1);
	int rc = procage_cage_new(p, &c, &err);
	bool t1 = rc == 0 && c->tier == PROCAGE_TIER_T1;
	/* On T1 a /tmp that holds the workspace (and so the grant) is passed over too. */
	char *real_ws = realpath(workspace, NULL);
	const char *fallback =
	    t1 && real_ws && strncmp(real_ws, "/tmp/", 5) == 0 ? "/var/tmp" : "/tmp";
	free(real_ws);
	tap_ok(rc == 0 && c->tmp_base && strcmp(c->tmp_base, fallback) == 0,
	       "a TMPDIR inside a grant is not used for private directories (%s)",
	       rc ? err.message : c->tmp_base ? c->tmp_base : "none");
	tap_ok(rc == 0 && c->tmp_mounted == t1,
	       "on tier T1 (and only there) the base is covered by a tmpfs per run, not made in");
	procage_cage_free(c);
	c = NULL;
	/* A tmpfs over a TMPDIR that holds a grant would hide the grant. */
	setenv("TMPDIR", ws(""), 1);
	rc = procage_cage_new(p, &c, &err);
	const char *expected = t1 ? fallback : ws("");
	char *canonical = realpath(expected, NULL);
	tap_ok(rc == 0 && c->tmp_base && canonical && strcmp(c->tmp_base, canonical) == 0,
	       "a TMPDIR holding a grant is %s (%s)", t1 ? "not covered on T1" : "used on T2",
	       rc ? err.message : c->tmp_base ? c->tmp_base : "none");
	free(canonical);
	procage_cage_free(c);
	c = NULL;
	setenv("TMPDIR", ws("tree/inner"), 1);
	procage_policy_allow(p, "/tmp", PROCAGE_READ, &err);
	rc = procage_cage_new(p, &c, &err);
	if (t1) {
		/* Nothing is made on the host: /var/tmp serves when /tmp is granted. */
		tap_ok(rc == 0 && c->tmp_base && strcmp(c->tmp_base, "/var/tmp") == 0,
		       "T1: with TMPDIR and /tmp granted, the run's tmpfs covers /var/tmp (%s)",
		       rc ? err.message : c->tmp_base ? c->tmp_base : "none");
		procage_cage_free(c);
		c = NULL;
		procage_policy_allow(p, "/var/tmp", PROCAGE_READ, &err);
		rc = procage_cage_new(p, &c, &err);
		tap_ok(rc == -EINVAL && strstr(err.message, "granted /tmp") &&
			       strstr(err.message, "granted /var/tmp"),
		       "T1: with TMPDIR, /tmp and /var/tmp granted, private tmp is refused: %s",
		       err.message);
	} else {
		tap_ok(rc == -EINVAL && strstr(err.message, "granted /tmp"),
		       "with both TMPDIR and /tmp granted, private tmp is refused: %s", err.message);
		tap_skip("tier T2 does not fall back on /var/tmp");
	}
	procage_policy_set_private_tmp(p, false, &err);
	rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0 && c->tmp_base == NULL, "without private tmp the cage is made");
	procage_cage_free(c);
	procage_policy_free(p);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

/*
 * Tier T1 gives a run a /dev/shm of its own with its private temporary
 * directory, and terminals of its own, unless a grant lies at, in or
 * above them; T2 never.
 */
static void test_private_shm(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	char *shm = realpath(CAGE_SHM_DIR, NULL);
	procage_policy_allow(p, ws("tree"), PROCAGE_WRITE, &err);
	int rc = procage_cage_new(p, &c, &err);
	bool t1 = rc == 0 && c->tier == PROCAGE_TIER_T1;
	if (!shm) {
		for (int i = 0; i < 4; i++)
			tap_skip("this host has no %s", CAGE_SHM_DIR);
	} else {
		tap_ok(rc == 0 && (t1 ? c->shm_mount && strcmp(c->shm_mount, shm) == 0
				      : c->shm_mount == NULL),
		       "%s: a run's shared memory is %s (%s)", t1 ? "T1" : "T2",
		       t1 ? "its own" : "the host's, not granted",
		       rc ? err.message : c->shm_mount ? c->shm_mount : "none");
		struct stat ptmx;
		enum cage_pts own = lstat(CAGE_PTMX, &ptmx) == 0 && S_ISLNK(ptmx.st_mode)
					    ? CAGE_PTS_ONLY
					    : CAGE_PTS_WITH_PTMX;
		tap_ok(rc == 0 && c->pts_private == (t1 ? own : CAGE_PTS_HOST),
		       "%s: a run's terminals are %s", t1 ? "T1" : "T2",
		       t1 ? "its own" : "the host's, not granted");
		procage_cage_free(c);
		c = NULL;
		procage_policy_allow(p, "/dev", PROCAGE_READ, &err);
		rc = procage_cage_new(p, &c, &err);
		tap_ok(rc == 0 && c->shm_mount == NULL && c->pts_private == CAGE_PTS_HOST,
		       "a grant above %s and /dev/pts keeps the host's there (%s)", shm,
		       rc ? err.message : c->shm_mount ? c->shm_mount : "none");
		procage_cage_free(c);
		c = NULL;
		procage_policy_free(p);
		p = procage_policy_new();
		procage_policy_allow(p, ws("tree"), PROCAGE_WRITE, &err);
		procage_policy_set_private_tmp(p, false, &err);
		rc = procage_cage_new(p, &c, &err);
		tap_ok(rc == 0 && c->shm_mount == NULL,
		       "without private tmp the host's is kept (%s)",
		       rc ? err.message : c->shm_mount ? c->shm_mount : "none");
	}
	procage_cage_free(c);
	procage_policy_free(p);
	free(shm);
}

static void test_plan(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	char *argv[] = { "true", NULL };
	struct plan plan;
	int pipe_fds[2];

	procage_policy_allow(p, ws("tree"), PROCAGE_WRITE, &err);
	procage_policy_set_rlimit(p, RLIMIT_NOFILE, 32, 64, &err);
	if (procage_cage_new(p, &c, &err) != 0) {
		tap_ok(false, "cage for the plan tests: %s", err.message);
		procage_policy_free(p);
		return;
	}
	int src = open("/dev/null", O_RDONLY);
	struct procage_fd_map maps[] = { { src, 40 }, { src, 7 } };
	struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .fds = maps, .n_fds = 2 };

	if (pipe2(pipe_fds, O_CLOEXEC) != 0)
		exit(99);
	int rc = plan_build(c, &o, NULL, pipe_fds[1], &plan, &err);
	tap_ok(rc == 0, "a plan is built: %s", rc ? err.message : "ok");
	tap_ok(plan.landlock_fd > 40 && plan.status_fd > 40,
	       "the plan's descriptors lie above every mapped target");
	tap_ok(plan.fd_scratch_base > plan.landlock_fd && plan.fd_scratch_base > plan.status_fd,
	       "scratch copies go above the plan's descriptors");
	tap_ok(plan.n_rlimits == 1 && plan.rlimits[0].resource == RLIMIT_NOFILE &&
		       plan.rlimits[0].limit.rlim_cur == 32 && plan.rlimits[0].limit.rlim_max == 64,
	       "limits are converted for the child");
	tap_ok(fcntl(plan.landlock_fd, F_GETFD) == FD_CLOEXEC, "the ruleset is close-on-exec");
	plan_release(&plan);

	struct procage_fd_map dup_maps[] = { { src, 5 }, { src, 5 } };
	o.fds = dup_maps;
	if (pipe2(pipe_fds, O_CLOEXEC) != 0)
		exit(99);
	rc = plan_build(c, &o, NULL, pipe_fds[1], &plan, &err);
	tap_ok(rc == -EINVAL && strstr(err.message, "both give child descriptor 5"),
	       "two maps to one child descriptor are refused: %s", err.message);
	tap_ok(fcntl(pipe_fds[1], F_GETFD) < 0, "a failed plan closes the status pipe it was given");
	close(pipe_fds[0]);

	struct procage_fd_map bad_maps[] = { { 987, 5 } };
	o.fds = bad_maps;
	o.n_fds = 1;
	if (pipe2(pipe_fds, O_CLOEXEC) != 0)
		exit(99);
	rc = plan_build(c, &o, NULL, pipe_fds[1], &plan, &err);
	tap_ok(rc == -EBADF && strstr(err.message, "987"),
	       "a parent descriptor that is not open is refused: %s", err.message);
	close(pipe_fds[0]);
	close(src);
	procage_cage_free(c);
	procage_policy_free(p);
}

/* A policy that grants no path ("{}"): the plan has no grant to copy (UBSan saw a NULL copy). */
static void test_plan_no_grants(void)
{
	struct procage_error err;
	struct procage_policy *p = NULL;
	struct procage_cage *c = NULL;
	char *argv[] = { "true", NULL };
	struct procage_spawn_opts o = { .size = sizeof o, .argv = argv };
	struct plan plan;
	int pipe_fds[2];

	int rc = procage_policy_from_json_text("{}", "empty", &p, &err);
	if (rc == 0)
		rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0 && c->n_grants == 0, "a policy granting no path makes a cage with no grant: %s",
	       rc ? err.message : "ok");
	if (rc == 0 && pipe2(pipe_fds, O_CLOEXEC) != 0)
		rc = -errno;
	if (rc == 0) {
		rc = plan_build(c, &o, NULL, pipe_fds[1], &plan, &err);
		tap_ok(rc == 0 && plan.landlock_fd >= 0,
		       "its plan is built, with a ruleset that grants nothing: %s",
		       rc ? err.message : "ok");
		if (rc == 0)
			plan_release(&plan);
		close(pipe_fds[0]);
	}
	procage_cage_free(c);
	procage_policy_free(p);
}

/*
 * A hard limit above the caller's own: on T1 no process of the run may
 * raise it, so the cage is refused and names the limit; a limit within
 * the caller's is accepted (control).
 */
static void test_rlimit_refusal(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	struct rlimit now;
	getrlimit(RLIMIT_NOFILE, &now);
	procage_policy_set_private_tmp(p, false, &err);
	procage_policy_set_rlimit(p, RLIMIT_NOFILE, now.rlim_cur, now.rlim_max, &err);
	int rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0, "a nofile limit within the caller's own is accepted: %s",
	       rc ? err.message : "ok");
	procage_cage_free(c);
	c = NULL;
	if (now.rlim_max == RLIM_INFINITY) {
		tap_skip("the caller's nofile hard limit is unlimited: nothing lies above it");
		procage_policy_free(p);
		return;
	}
	procage_policy_set_rlimit(p, RLIMIT_NOFILE, now.rlim_cur, now.rlim_max + 1, &err);
	rc = procage_cage_new(p, &c, &err);
	struct procage_host_facts f;
	procage_host_facts(&f, NULL);
	if (f.tier == PROCAGE_TIER_T1)
		tap_ok(rc == -EPERM && strstr(err.message, "resource limit nofile") &&
			       strstr(err.message, "user namespace"),
		       "on T1 a hard limit above the caller's is refused, by name: %s", err.message);
	else
		tap_ok(rc == 0 || (rc == -EPERM && strstr(err.message, "resource limit nofile")),
		       "on T2 a hard limit above the caller's is refused by name unless the "
		       "caller may raise it: %s",
		       rc ? err.message : "accepted");
	procage_cage_free(c);
	procage_policy_free(p);
}

static const struct plan_mount *mount_for(const struct plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_mounts; i++)
		if (strcmp(plan->mounts[i].path, path) == 0)
			return &plan->mounts[i];
	return NULL;
}

/*
 * Tier T1: the masks' and pins' paths are worked out once in the cage,
 * each once and sorted; a spawn judges what exists then.
 */
static void test_masks(void)
{
	struct procage_error err;
	struct procage_host_facts f;
	procage_host_facts(&f, NULL);
	if (f.tier != PROCAGE_TIER_T1)
		return;
	char real[PATH_MAX], path[PATH_MAX + 32];
	if (!realpath(ws("tree"), real))
		exit(99);
	const char *dirs[] = { "a", "a/b", "a/b/h", "a/h2", "a/h2/deep" };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(path, sizeof path, "%s/%s", real, dirs[i]);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof path, "%s/a/b/p", real);
	close(open(path, O_CREAT | O_WRONLY, 0600));

	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	procage_policy_allow(p, ws("tree"), PROCAGE_WRITE, &err);
	procage_policy_allow(p, ws("tree/a"), PROCAGE_WRITE, &err);
	procage_policy_allow(p, ws("tree/a/b/h"), PROCAGE_HIDE, &err);
	procage_policy_allow(p, ws("tree/a/b/p"), PROCAGE_PROTECT, &err);
	procage_policy_allow(p, ws("tree/a/h2"), PROCAGE_HIDE, &err);
	procage_policy_allow(p, ws("tree/a/h2/deep"), PROCAGE_HIDE, &err);
	/* Only the masks: no workspace-config names missing in the write grants. */
	procage_policy_waive(p, "workspace-config", &err);
	procage_policy_accept(p, "spawn-snapshot", &err);
	int rc = procage_cage_new(p, &c, &err);
	tap_ok(rc == 0, "a cage with nested denials is made: %s", rc ? err.message : "ok");
	if (rc) {
		procage_policy_free(p);
		return;
	}
	const struct cage_masks *m = &c->masks;
	bool sorted = true;
	for (size_t i = 1; i < m->n_paths; i++)
		sorted = sorted && strcmp(m->paths[i - 1], m->paths[i]) < 0;
	/* Pins: a, a/b (for a/b/h and a/b/p) and a (for a/h2...): each once. */
	tap_ok(sorted && m->n_paths == c->n_denials + 2,
	       "the cage holds every mask and pin path once, sorted (%zu for %zu denials)",
	       m->n_paths, c->n_denials);
	tap_ok(m->n_writable == 1 && strcmp(m->writable[0], real) == 0,
	       "the cage's writable trees: the outermost of nested write grants, once");

	struct plan plan = { 0 };
	char a[PATH_MAX + 32], b[PATH_MAX + 32], h[PATH_MAX + 32], pf[PATH_MAX + 32],
	    h2[PATH_MAX + 32], deep[PATH_MAX + 32];
	snprintf(a, sizeof a, "%s/a", real);
	snprintf(b, sizeof b, "%s/a/b", real);
	snprintf(h, sizeof h, "%s/a/b/h", real);
	snprintf(pf, sizeof pf, "%s/a/b/p", real);
	snprintf(h2, sizeof h2, "%s/a/h2", real);
	snprintf(deep, sizeof deep, "%s/a/h2/deep", real);
	rc = plan_mounts_build(c, NULL, &plan, &err);
	bool ordered = rc == 0;
	for (size_t i = 1; ordered && i < plan.n_mounts; i++)
		ordered = strcmp(plan.mounts[i - 1].path, plan.mounts[i].path) < 0;
	tap_ok(ordered && mount_for(&plan, a) && mount_for(&plan, a)->kind == PLAN_MOUNT_PIN &&
		       mount_for(&plan, b) && mount_for(&plan, b)->kind == PLAN_MOUNT_PIN &&
		       mount_for(&plan, h) && mount_for(&plan, h)->kind == PLAN_MOUNT_HIDE_DIR &&
		       mount_for(&plan, pf) && mount_for(&plan, pf)->kind == PLAN_MOUNT_READ_ONLY &&
		       mount_for(&plan, h2) && mount_for(&plan, h2)->kind == PLAN_MOUNT_HIDE_DIR &&
		       !mount_for(&plan, deep),
	       "a spawn pins the directories between the grant and each denial, masks each "
	       "denial, in path order, and nothing below a hidden one: %s",
	       rc ? err.message : "ok");
	tap_ok(rc == 0 && plan.read_only_mounts && plan.n_writable == 1 + !!c->shm_mount &&
		       strcmp(plan.writable[0].path, real) == 0 &&
		       (!c->shm_mount || strcmp(plan.writable[1].path, c->shm_mount) == 0),
	       "the spawn's writable trees are the cage's, then the run's shared memory");
	plan_release(&plan);

	/* Changed since the cage was made: judged at spawn, as it is then. */
	rmdir(h);
	close(open(h, O_CREAT | O_WRONLY, 0600));
	memset(&plan, 0, sizeof plan);
	rc = plan_mounts_build(c, NULL, &plan, &err);
	tap_ok(rc == 0 && mount_for(&plan, h) && mount_for(&plan, h)->kind == PLAN_MOUNT_HIDE_FILE,
	       "a hidden directory replaced by a file gets a file's mask at spawn");
	plan_release(&plan);
	unlink(pf);
	memset(&plan, 0, sizeof plan);
	rc = plan_mounts_build(c, NULL, &plan, &err);
	tap_ok(rc == -ESTALE && strstr(err.message, "is gone now"),
	       "a protected file removed since the cage was made refuses the spawn: %s",
	       err.message);
	plan_release(&plan);
	if (symlink(real, pf) != 0)
		exit(99);
	memset(&plan, 0, sizeof plan);
	rc = plan_mounts_build(c, NULL, &plan, &err);
	tap_ok(rc == -ESTALE && strstr(err.message, "symbolic link"),
	       "a protected file turned into a symbolic link refuses the spawn: %s", err.message);
	plan_release(&plan);
	unlink(pf);
	unlink(h);
	procage_cage_free(c);
	procage_policy_free(p);
}

/*
 * A mask's path gone between the plan and the mount (the child's ENOENT)
 * is the host changing under the cage: -ESTALE, naming it, in the mounts
 * step, which procage run answers by making its cage again. Control: any
 * other error of the same mount keeps its own errno.
 */
static void test_mount_gone_is_stale(void)
{
	static const struct plan_mount gone = { .kind = PLAN_MOUNT_READ_ONLY,
						.path = "/w/.git/hooks" };
	struct plan plan;
	struct procage_error err;
	memset(&plan, 0, sizeof plan);
	plan.mounts = &gone;
	plan.n_mounts = 1;
	struct child_failure f = { PROCAGE_STEP_MOUNTS, ENOENT, 0 };
	int rc = failure_to_error(&f, &plan, &err);
	tap_ok(rc == -ESTALE && err.code == -ESTALE && err.step == PROCAGE_STEP_MOUNTS &&
		       strstr(err.message, "/w/.git/hooks was there") &&
		       strstr(err.message, "make the cage again"),
	       "a mask's path gone by the mount is -ESTALE: %s", err.message);
	f.err = EPERM;
	rc = failure_to_error(&f, &plan, &err);
	tap_ok(rc == -EPERM && strstr(err.message, "making read-only /w/.git/hooks"),
	       "control: another error of that mount keeps its errno: %s", err.message);
}

int main(void)
{
	workspace_make();
	test_mount_gone_is_stale();
	test_cage_grants();
	test_deny_inside_grant();
	test_plan();
	test_plan_no_grants();
	test_rlimit_refusal();
	test_private_tmp_base();
	test_private_shm();
	test_masks();
	tap_ok(tmpdir_remove(workspace) == 0, "the workspace is removed");
	return tap_done();
}
