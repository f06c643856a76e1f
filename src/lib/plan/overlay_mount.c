/*
 * Tier T1, changes as an overlay: the mounts the reaper makes in the
 * run's mount namespace (plan.h). Each overlay is made from descriptors
 * the parent opened (the grant's tree and the store's upper and work
 * directories), so no path is looked up again here. Made by the reaper
 * it uses userxattr, which lets an overlay be mounted in a user
 * namespace (Linux 5.11) and keeps its own marks in the user.overlay.*
 * names; without redirects (which userxattr cannot have), renaming a
 * directory the host tree holds fails with EXDEV and mv copies it
 * instead: the change set then says plainly what was removed and what
 * added. Where the caller is root, the parent makes the overlay itself
 * before any namespace of the run exists (plan_overlay_premount), with
 * redirects and trusted.overlay.* marks, and the reaper only attaches it.
 */
#include "plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "namespaces.h"

/*
 * path in this mount namespace, opened without following a link, and
 * checked to be the inode the parent pinned in its own (pinned): a
 * descriptor of the caller's namespace cannot be a mount target here.
 */
static int target_open(const char *path, int pinned)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct stat a, b;
	int fd = sys_openat2(AT_FDCWD, path, &how);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &a) != 0 || fstat(pinned, &b) != 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static int move_onto(int mnt, const char *path, int pinned)
{
	int target = target_open(path, pinned);
	return target < 0 ? target : namespaces_attach(mnt, target);
}

/*
 * Overlay o's upper and work directories in a bounded change set's tmpfs
 * (INDEX/upper, INDEX/work), made here. The upper one takes the tree
 * root's mode, and its owner where this namespace may give it (only how
 * the root looks in the run: root's runs may write it either way).
 */
static int layers_open(int layers, size_t index, int lower, int *upper, int *work)
{
	const int flags = O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char name[32];
	struct stat st;
	int dir = -1, rc = 0;
	*upper = *work = -1;
	snprintf(name, sizeof name, "%zu", index);
	if (mkdirat(layers, name, 0700) != 0 || (dir = openat(layers, name, O_PATH | flags)) < 0 ||
	    mkdirat(dir, "upper", 0700) != 0 || mkdirat(dir, "work", 0700) != 0 ||
	    (*upper = openat(dir, "upper", O_RDONLY | flags)) < 0 ||
	    (*work = openat(dir, "work", O_PATH | flags)) < 0 || fstat(lower, &st) != 0 ||
	    fchmod(*upper, st.st_mode & 07777) != 0)
		rc = -errno;
	if (rc == 0)
		(void)!fchown(*upper, st.st_uid, st.st_gid);
	if (dir >= 0)
		close(dir);
	return rc;
}

static int overlay_configure(int fs, const struct plan_overlay *o, int layers, size_t index)
{
	int lower = target_open(o->path, o->lower_fd), upper = -1, work = -1, rc;
	if (lower >= 0 && layers >= 0) {
		rc = layers_open(layers, index, lower, &upper, &work);
	} else if (lower >= 0) {
		upper = target_open(o->upper_path, o->upper_fd);
		work = target_open(o->work_path, o->work_fd);
		rc = upper < 0 ? upper : work < 0 ? work : 0;
	} else {
		rc = lower;
	}
	/*
	 * volatile: the overlay never syncs its upper layer, above all not
	 * when it is unmounted at the run's end, where a sync of the store's
	 * whole file system cost a journal commit on every run (milliseconds
	 * to tens of them). Applying reads the change set through the page
	 * cache, so only a crash of the machine can lose what the run wrote;
	 * the change set records the boot it was made in, and one from an
	 * earlier boot is refused (store.c).
	 */
	if (rc == 0 && (sys_fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) != 0 ||
			sys_fsconfig(fs, FSCONFIG_SET_FLAG, "volatile", NULL, 0) != 0 ||
			sys_fsconfig(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, lower) != 0 ||
			sys_fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, upper) != 0 ||
			sys_fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, work) != 0 ||
			sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0))
		rc = -errno;
	int fds[] = { lower, upper, work };
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}

int plan_overlay_premount(struct plan_overlay *o)
{
	int fs = sys_fsopen("overlay", FSOPEN_CLOEXEC), rc = 0;
	o->mnt_fd = -1;
	if (fs < 0)
		return -errno;
	/*
	 * trusted.overlay.* marks, which only the initial namespace's
	 * administrator may write: the run cannot forge one through the
	 * overlay. metacopy and index off whatever the module's defaults,
	 * so that every changed file is whole in the upper layer.
	 */
	if (sys_fsconfig(fs, FSCONFIG_SET_STRING, "redirect_dir", "on", 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_STRING, "metacopy", "off", 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_STRING, "index", "off", 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_FLAG, "volatile", NULL, 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, o->lower_fd) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, o->upper_fd) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, o->work_fd) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0 ||
	    (o->mnt_fd = sys_fsmount(fs, FSMOUNT_CLOEXEC,
				     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0)
		rc = -errno;
	close(fs);
	return rc;
}

int plan_overlay_mount(const struct plan_overlay *o, int layers, size_t index)
{
	int fs = -1, mnt = -1, rc = 0;
	if (o->mnt_fd >= 0) {
		/* Made by the caller: attached here, onto the grant's own inode. */
		if ((mnt = dup(o->mnt_fd)) < 0)
			return -errno;
		if ((rc = move_onto(mnt, o->path, o->lower_fd)) < 0) {
			close(mnt);
			return rc;
		}
		return mnt;
	}
	fs = sys_fsopen("overlay", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	rc = overlay_configure(fs, o, layers, index);
	if (rc == 0 &&
	    (mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0)
		rc = -errno;
	close(fs);
	if (rc < 0)
		return rc;
	/* Onto the grant's own inode, which the parent pinned. */
	if ((rc = move_onto(mnt, o->path, o->lower_fd)) < 0) {
		close(mnt);
		return rc;
	}
	return mnt;
}

int plan_changes_layers_make(uint64_t bytes)
{
	char size[24], inodes[24];
	uint64_t n_inodes = bytes / 4096 < 1024 ? 1024 : bytes / 4096;
	snprintf(size, sizeof size, "%llu", (unsigned long long)bytes);
	snprintf(inodes, sizeof inodes, "%llu", (unsigned long long)n_inodes);
	return namespaces_tmpfs_make(size, inodes, "0700",
				     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
}

/*
 * The store holds every kept change set, this run's upper layers among
 * them (the overlays hold their own references): an empty read-only
 * tmpfs over it leaves nothing of it in the run's view.
 */
int plan_changes_store_mask(const char *store, int store_fd)
{
	int rc, mnt = namespaces_tmpfs_make("4k", NULL, "0000",
					    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
						    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return mnt;
	rc = move_onto(mnt, store, store_fd);
	close(mnt);
	return rc;
}
