/*
 * One spawn's overlays (overlays.h): the change set made in the store,
 * every descriptor the reaper needs opened here, in the caller, before
 * any process of the run exists. The store must lie outside every grant:
 * the run's mount namespace masks it too, but a grant reaching it would
 * let a run read or plant what another run's change set holds.
 */
#include "overlays.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "cage/cage.h"

static int store_reach_refusal(const struct procage_cage *cage, const char *store,
			       struct procage_error *err)
{
	for (size_t i = 0; i < cage->n_grants; i++) {
		const char *g = cage->grants[i].path;
		if (path_within(store, g) && (cage->grants[i].access & LANDLOCK_ACCESS_FS_WRITE_FILE))
			return error_set(err, -EPERM,
					 "the store of change sets %s lies inside the write grant "
					 "%s: set XDG_STATE_HOME to a directory outside it",
					 store, g);
		if (path_within(g, store))
			return error_set(err, -EPERM,
					 "the grant %s lies inside the store of change sets %s: "
					 "drop that rule",
					 g, store);
	}
	return 0;
}

/* The rights of the grant on exactly path (the grant as written, where kept). */
static uint64_t grant_rights(const struct procage_cage *cage, const char *path)
{
	for (size_t i = 0; i < cage->n_write_roots; i++)
		if (strcmp(cage->write_roots[i].path, path) == 0)
			return cage->write_roots[i].access;
	for (size_t i = 0; i < cage->n_grants; i++)
		if (strcmp(cage->grants[i].path, path) == 0)
			return cage->grants[i].access;
	return 0;
}

static int dir_make_open(int at, const char *name, int *fd, struct procage_error *err)
{
	/* A spare's (spare.h) are there already. */
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	if ((*fd = openat(at, name, flags)) < 0 &&
	    (errno != ENOENT || mkdirat(at, name, 0700) != 0 || (*fd = openat(at, name, flags)) < 0))
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "making a change set's directory %s", name);
	return 0;
}

/*
 * A file of the change set opened for writing from its start: made, or a
 * spare's written over (not truncated first, which would free its block:
 * file_written cuts it to what was written).
 */
static int file_open(int set_fd, const char *name)
{
	struct stat st;
	int fd = openat(set_fd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
		close(fd);
		errno = EEXIST;
		return -1;
	}
	return fd;
}

static int file_written(int fd)
{
	off_t end = lseek(fd, 0, SEEK_CUR);
	return end >= 0 && ftruncate(fd, end) == 0 ? 0 : -1;
}

/*
 * Does the tree's file system give file handles? A rename is applied only
 * over the directory whose handle overlayfs recorded (rename_apply.c):
 * without handles a renamed directory could never be applied, so such a
 * tree gets the overlay without redirects, where mv copies.
 */
static bool handles_kept(int dir)
{
	struct {
		struct file_handle h;
		unsigned char bytes[MAX_HANDLE_SZ];
	} handle = { .h.handle_bytes = MAX_HANDLE_SZ };
	int mount_id;
	return name_to_handle_at(dir, "", &handle.h, &mount_id, AT_EMPTY_PATH) == 0;
}

/*
 * Does every change the host makes to the tree from now on get a change
 * time at or after the start mark? made is a directory of the change set,
 * on the mark's file system, stamped here after the mark. Where the tree lies on that same
 * file system and made's stamp is at or after the mark, yes: either the
 * file system keeps every stamp at or above the fine ones it gave (the
 * mark was one), or its coarse clock has already passed the mark; both
 * hold from then on. Otherwise the target waits for the coarse clock
 * (run/child.c).
 */
static bool stamps_reach_mark(int lower_fd, int made_fd, const struct timespec *mark)
{
	struct stat lower, made;
	/* Stamped now: a spare's directory was made long before. */
	if (fstat(lower_fd, &lower) != 0 || fchmod(made_fd, 0700) != 0 ||
	    fstat(made_fd, &made) != 0 || lower.st_dev != made.st_dev)
		return false;
	return made.st_ctim.tv_sec > mark->tv_sec ||
	       (made.st_ctim.tv_sec == mark->tv_sec && made.st_ctim.tv_nsec >= mark->tv_nsec);
}

/*
 * The overlay's root shows the upper directory's mode and owner, not the
 * tree's: the upper directory is given the tree root's (the owner where
 * the caller may give it), so that the run sees its tree as it is, and
 * whatever a run made of its root in a spare's (spare.h) is gone.
 */
static int upper_root_as_tree(const struct plan_overlay *o, struct procage_error *err)
{
	struct stat st;
	if (fstat(o->lower_fd, &st) != 0 ||
	    (geteuid() == 0 && fchown(o->upper_fd, st.st_uid, st.st_gid) != 0) ||
	    fchmod(o->upper_fd, st.st_mode & 07777) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "giving the overlay over %s the tree root's mode", o->path);
	return 0;
}

/* Tree index's directories in the set, and the descriptors of its overlay. */
static int overlay_prepare(const struct procage_cage *cage, const char *set, int set_fd,
			   size_t index, const char *path, struct plan *plan,
			   struct plan_overlay *o, struct procage_error *err)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	char name[24];
	int tree = -1, rc;
	*o = (struct plan_overlay){ .path = path, .lower_fd = -1, .upper_fd = -1, .work_fd = -1,
				    .mnt_fd = -1, .rights = grant_rights(cage, path) };
	if (asprintf(&o->upper_path, "%s/%zu/upper", set, index) < 0 ||
	    asprintf(&o->work_path, "%s/%zu/work", set, index) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	if (strchr(path, '\n'))
		return error_set(err, -EINVAL, "an overlay over %s: a line break in its path", path);
	o->lower_fd = sys_openat2(AT_FDCWD, path, &how);
	if (o->lower_fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "the write grant %s must be a "
				     "directory (no file, no link)",
				     path);
	snprintf(name, sizeof name, "%zu", index);
	if ((rc = dir_make_open(set_fd, name, &tree, err)) < 0)
		return rc;
	if ((rc = dir_make_open(tree, "upper", &o->upper_fd, err)) == 0)
		rc = dir_make_open(tree, "work", &o->work_fd, err);
	if (rc == 0)
		rc = upper_root_as_tree(o, err);
	if (rc == 0 && !stamps_reach_mark(o->lower_fd, tree, &plan->changes_started))
		plan->changes_mark_wait = true;
	/*
	 * Redirects need the initial namespace's administrator: tried for
	 * root only; anyone else (and root where it is refused, or where the
	 * change set is bounded: its tmpfs is the reaper's) gets the overlay
	 * the reaper makes in the run's user namespace, without.
	 */
	if (rc == 0 && geteuid() == 0 && !plan->changes_limit && handles_kept(o->lower_fd))
		(void)plan_overlay_premount(o);
	close(tree);
	return rc;
}

/*
 * The start mark: a change time the file systems stamped themselves, on
 * a file of the change set made for it. Stamps come from the coarse
 * clock (a tick, 4 ms here) or, on file systems with fine-grained times,
 * from the finer clock through a floor that keeps every later stamp at or
 * above every earlier one. So the mark is taken as a fine stamp (the
 * file's times read, then changed: its next stamp is fine), and the rule
 * is "a change time at or after the mark is a change since": a file
 * changed before has an earlier time. A file system without fine stamps
 * may still give a change made just after the mark the coarse time of the
 * tick before it. Each tree's directory in the set, made after the mark,
 * shows whether that can still happen (stamps_reach_mark); where it can,
 * the target waits, just before it runs the command, until the coarse
 * clock has passed the mark (run/child.c), which makes every change from
 * then on later. Changes made during that wait come before the run can
 * read anything, and so are in what it copies up.
 */
static int start_mark(int set_fd, struct timespec *mark, struct procage_error *err)
{
	struct stat st;
	char boot[CHANGES_BOOT_ID_MAX];
	if (changes_boot_id(boot) < 0)
		return error_set(err, -EIO, "this boot's identity is unreadable "
					    "(/proc/sys/kernel/random/boot_id)");
	int fd = file_open(set_fd, "started");
	if (fd < 0 || fstat(fd, &st) != 0 || fchmod(fd, 0600) != 0 || fstat(fd, &st) != 0 ||
	    dprintf(fd, "%lld %ld %s\n", (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
		    boot) < 0 ||
	    file_written(fd) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_set_sys(err, e, PROCAGE_STEP_PREPARE, "a change set's start mark");
	}
	close(fd);
	*mark = st.st_ctim;
	return 0;
}

/*
 * "trees": a line per overlay, the identity of the directory its lower
 * layer is (one fstat, whatever the tree's size: applying refuses a tree
 * whose path names another directory by then), whose marks it has, and
 * its path.
 */
static int trees_write(int set_fd, const struct plan *plan, struct procage_error *err)
{
	int fd = file_open(set_fd, "trees");
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "a change set's trees file");
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return error_set(err, -ENOMEM, "out of memory");
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < plan->n_overlays; i++) {
		const struct plan_overlay *o = &plan->overlays[i];
		struct stat st;
		if (fstat(o->lower_fd, &st) != 0)
			rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "the write grant %s",
					   o->path);
		else
			fprintf(f, "%llu %llu %s %s\n", (unsigned long long)st.st_dev,
				(unsigned long long)st.st_ino, o->mnt_fd >= 0 ? "trusted" : "user",
				o->path);
	}
	if ((fflush(f) != 0 || file_written(fileno(f)) != 0) && rc == 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "writing a trees file");
	if (fclose(f) != 0 && rc == 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "writing a trees file");
	return rc;
}

int changes_overlays_prepare(const struct procage_cage *cage, struct plan *plan,
			     char id[CHANGES_ID_MAX], struct procage_error *err)
{
	char store[PATH_MAX];
	int store_fd = -1, set_fd = -1, lock_fd = -1;
	int rc = changes_store_open(store, sizeof store, &store_fd, err);
	if (rc == 0)
		rc = store_reach_refusal(cage, store, err);
	if (rc == 0 && cage->masks.n_writable > CHANGES_MAX_TREES)
		rc = error_set(err, -E2BIG, "more than %d write grants",
			       CHANGES_MAX_TREES);
	if (rc == 0 && !(plan->overlays = calloc(cage->masks.n_writable + 1,
						 sizeof *plan->overlays)))
		rc = error_set(err, -ENOMEM, "out of memory");
	plan->changes_limit = cage->policy->changes_limit;
	if (rc == 0)
		rc = changes_set_create(store_fd, id, &set_fd, err);
	if (rc == 0)
		rc = start_mark(set_fd, &plan->changes_started, err);
	/* Claimed by the run until it has ended: no apply meanwhile. */
	if (rc == 0)
		rc = changes_set_claim(set_fd, id, &lock_fd, err);
	char set[PATH_MAX + CHANGES_ID_MAX + 2];
	snprintf(set, sizeof set, "%s/%s", store, id);
	for (size_t i = 0; rc == 0 && i < cage->masks.n_writable; i++) {
		rc = overlay_prepare(cage, set, set_fd, i, cage->masks.writable[i], plan,
				     &plan->overlays[i], err);
		plan->n_overlays = i + 1;
	}
	if (rc == 0)
		rc = trees_write(set_fd, plan, err);
	if (set_fd >= 0)
		close(set_fd);
	if (rc == 0 && !(plan->changes_store = strdup(store)))
		rc = error_set(err, -ENOMEM, "out of memory");
	if (rc < 0 && store_fd >= 0)
		close(store_fd);
	else
		plan->changes_store_fd = store_fd;
	if (rc < 0 && lock_fd >= 0)
		close(lock_fd);
	plan->changes_lock_fd = rc < 0 ? -1 : lock_fd;
	if (rc < 0)
		error_prefix(err, rc, "changes as an overlay: ");
	return rc;
}
