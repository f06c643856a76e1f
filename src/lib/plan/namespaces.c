/*
 * Tier T1. The child is cloned into new user and mount namespaces (and a
 * network namespace when the network is off); here it maps its own ids and
 * lays masks over what the policy denies inside granted trees. Everything
 * on the child's side is system calls only: it shares the parent's memory
 * until exec.
 */
#include "namespaces.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/landlock.h"
#include "discover/root_private.h"
#include "base/syscalls.h"

/* Every tmpfs a run mounts is made here (namespaces.h). */
int namespaces_tmpfs_make(const char *size, const char *nr_inodes, const char *mode,
			  unsigned attrs)
{
	int fs = sys_fsopen("tmpfs", FSOPEN_CLOEXEC), mnt = -1, rc = 0;
	if (fs < 0)
		return -errno;
	if (sys_fsconfig(fs, FSCONFIG_SET_STRING, "size", size, 0) != 0 ||
	    (nr_inodes && sys_fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", nr_inodes, 0) != 0) ||
	    sys_fsconfig(fs, FSCONFIG_SET_STRING, "mode", mode, 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0 ||
	    (mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC, attrs)) < 0)
		rc = -errno;
	close(fs);
	return rc < 0 ? rc : mnt;
}

/*
 * The source of every hiding mask: a small tmpfs of our own, detached,
 * holding one directory and one file with no permission bits, then made
 * read-only. A mask cloned from it is empty, cannot be read even by its
 * owner (the child has no capability left by then) and cannot be changed.
 */
int namespaces_mask_source_create(void)
{
	int rc, mnt = namespaces_tmpfs_make("16k", NULL, "0755",
					    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return mnt;
	int file = openat(mnt, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	if (file < 0 || close(file) != 0 || mkdirat(mnt, "d", 0) != 0 ||
	    sys_mount_setattr(mnt, "", AT_EMPTY_PATH, &ro) != 0) {
		rc = -errno;
		close(mnt);
		return rc;
	}
	return mnt;
}

/*
 * Open the target without following any symbolic link: the path was
 * canonical when the plan was made, so a link now means something changed
 * it, and the mask must not land elsewhere.
 */
static int mount_target_open(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = sys_openat2(AT_FDCWD, path, &how);
	return fd < 0 ? -errno : fd;
}

int namespaces_attach(int tree, int target)
{
	int rc = sys_move_mount(tree, "", target, "",
				MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0
		     ? -errno
		     : 0;
	close(target);
	return rc;
}

int namespaces_attach_read_only_copy(int from, const char *name, int target)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					     MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC };
	int tree = sys_open_tree(from, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0 || sys_mount_setattr(tree, "", AT_EMPTY_PATH, &ro) != 0) {
		int rc = -errno;
		if (tree >= 0)
			close(tree);
		close(target);
		return rc;
	}
	int rc = namespaces_attach(tree, target);
	close(tree);
	return rc;
}

/* Attach the detached mount mnt over path (opened without following a link). */
static int move_onto(int mnt, const char *path)
{
	int target = mount_target_open(path);
	return target < 0 ? target : namespaces_attach(mnt, target);
}

static int mount_apply(int mask_source, const struct plan_mount *m)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};
	int target = mount_target_open(m->path), tree, rc = 0;
	/*
	 * A path this setup cannot reach (a socket in another user's private
	 * directory: only the caller's own ids are mapped here) is passed
	 * over: the command, with fewer rights than this setup, cannot reach
	 * it either; so is a socket gone since the plan listed it. Anything
	 * else gone, or a link found on the way, still fails the run.
	 */
	if (target == -EACCES || (target == -ENOENT && m->bound_socket))
		return 0;
	if (target < 0)
		return target;
	if (m->kind == PLAN_MOUNT_READ_ONLY || m->kind == PLAN_MOUNT_PIN)
		tree = sys_open_tree(target, "",
				     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	else
		tree = sys_open_tree(mask_source, m->kind == PLAN_MOUNT_HIDE_DIR ? "d" : "f",
				     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0) {
		rc = -errno;
		close(target);
		return rc;
	}
	/*
	 * A pin changes nothing but makes the path a mount point. A mask is a
	 * clone of the mask source, which is read-only, nosuid, nodev and
	 * noexec already: a clone keeps its source's flags, so only a
	 * read-only copy of the target needs them set.
	 */
	if ((m->kind == PLAN_MOUNT_READ_ONLY &&
	     sys_mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) != 0) ||
	    sys_move_mount(tree, "", target, "",
			   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
		rc = -errno;
	close(tree);
	close(target);
	return rc;
}

int namespaces_mounts_private(void)
{
	/* Nothing we mount may propagate back to the caller's namespace. */
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 ? 0 : -errno;
}

int namespaces_root_private_attach(const struct plan *plan)
{
	if (plan->root_private_tree_fd < 0)
		return 0;
	int target = mount_target_open(ROOT_PRIVATE_TREE), rc = 0;
	if (target < 0)
		return target;
	/* The descriptor stays open (close-on-exec): the parent owns it. */
	if (sys_move_mount(plan->root_private_tree_fd, "", target, "",
			   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
		rc = -errno;
	close(target);
	return rc;
}

int namespaces_masks_apply(const struct plan *plan, int mask_source, int *index)
{
	*index = -1;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		*index = (int)i;
		int rc = mount_apply(mask_source, &plan->mounts[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int namespaces_private_tmp_mount(const char *path)
{
	int rc, mnt = namespaces_tmpfs_make(NAMESPACES_TMP_SIZE, NAMESPACES_TMP_INODES, "0700",
					    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mnt < 0)
		return mnt;
	/* Canonical when the cage was made: a link now would carry the mount elsewhere. */
	rc = move_onto(mnt, path);
	if (rc < 0) {
		close(mnt);
		return rc;
	}
	return mnt;
}

/*
 * Terminals made in this instance are the run's alone: ptmx open to all
 * of the run (0666, as the host's /dev/ptmx), each terminal its maker's
 * (0620). A new instance is what the kernel makes for every devpts mount
 * since Linux 4.7.
 */
static int private_pts_mount(const char *pts_dir, const char *ptmx, int *root_fd, int *ptmx_fd)
{
	int fs = sys_fsopen("devpts", FSOPEN_CLOEXEC), mnt = -1, tree = -1, rc = 0;
	*root_fd = *ptmx_fd = -1;
	if (fs < 0)
		return -errno;
	if (sys_fsconfig(fs, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0620", 0) != 0 ||
	    sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0 ||
	    (mnt = sys_fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)) < 0)
		rc = -errno;
	close(fs);
	if (rc == 0 && ptmx &&
	    (tree = sys_open_tree(mnt, "ptmx", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0)
		rc = -errno;
	if (rc == 0)
		rc = move_onto(mnt, pts_dir);
	if (rc == 0 && ptmx)
		rc = move_onto(tree, ptmx);
	if (rc < 0) {
		if (mnt >= 0)
			close(mnt);
		if (tree >= 0)
			close(tree);
		return rc;
	}
	*root_fd = mnt;
	*ptmx_fd = tree;
	return 0;
}

int namespaces_private_pts_lay(const char *pts_dir, const char *ptmx, int ruleset_fd,
			       uint64_t handled)
{
	const uint64_t terminal_rights = LANDLOCK_ACCESS_FS_READ_FILE |
					 LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
	int root, tree;
	if (ruleset_fd < 0)
		return -EPERM;
	if (private_pts_mount(pts_dir, ptmx, &root, &tree) < 0)
		return 0;
	int rc = landlock_ruleset_add_fd(ruleset_fd, root,
					 (terminal_rights | LANDLOCK_ACCESS_FS_READ_DIR) & handled);
	if (rc == 0 && tree >= 0)
		rc = landlock_ruleset_add_fd(ruleset_fd, tree, terminal_rights & handled);
	close(root);
	if (tree >= 0)
		close(tree);
	return rc;
}

static void writable_close(const struct plan *plan)
{
	for (size_t i = 0; i < plan->n_writable; i++) {
		struct plan_writable *w = &plan->writable[i];
		if (w->tree_fd >= 0)
			close(w->tree_fd);
		if (w->target_fd >= 0)
			close(w->target_fd);
		w->tree_fd = w->target_fd = -1;
	}
}

/*
 * Every mount read-only but the write grants: each is copied (with the
 * masks and pins inside it) before the rest turns read-only, then put back
 * on top of itself. The cost is one copy per mount, never a walk of the
 * tree. own_namespace: in a mount namespace of the caller's own, made
 * here, which leaves the one it was in writable.
 */
int namespaces_read_only_apply(const struct plan *plan, bool own_namespace, int *index)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int rc = 0;
	*index = -1;
	if (own_namespace && unshare(CLONE_NEWNS) != 0)
		return -errno;
	for (size_t i = 0; rc == 0 && i < plan->n_writable; i++) {
		struct plan_writable *w = &plan->writable[i];
		*index = (int)i;
		w->target_fd = mount_target_open(w->path);
		if (w->target_fd < 0) {
			rc = w->target_fd;
			break;
		}
		w->tree_fd = sys_open_tree(w->target_fd, "",
					   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
						   AT_RECURSIVE);
		if (w->tree_fd < 0)
			rc = -errno;
	}
	*index = -1;
	if (rc == 0 && sys_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro) != 0)
		rc = -errno;
	for (size_t i = 0; rc == 0 && i < plan->n_writable; i++) {
		const struct plan_writable *w = &plan->writable[i];
		*index = (int)i;
		if (sys_move_mount(w->tree_fd, "", w->target_fd, "",
				   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
			rc = -errno;
	}
	if (rc == 0)
		*index = -1;
	writable_close(plan);
	return rc;
}

int namespaces_mounts_apply(const struct plan *plan, int *index)
{
	*index = -1;
	int rc = namespaces_mounts_private();
	if (rc == 0)
		rc = namespaces_root_private_attach(plan);
	if (rc < 0 || plan->n_mounts == 0)
		return rc;
	int source = namespaces_mask_source_create();
	if (source < 0)
		return source;
	rc = namespaces_masks_apply(plan, source, index);
	close(source);
	return rc;
}

/*
 * A proxy-only run's network namespace: loopback up and one listener on
 * 127.0.0.1, the run's proxy, which the parent serves. Besides it only the
 * resolver and capture listeners of transparent egress listen in this
 * namespace (run/capture_setup.c), and it has no other interface.
 */
int namespaces_loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	int rc = ioctl(s, SIOCGIFFLAGS, &ifr) == 0 ? 0 : -errno;
	ifr.ifr_flags |= IFF_UP;
	if (rc == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
		rc = -errno;
	close(s);
	return rc;
}

int namespaces_proxy_listener(uint16_t port)
{
	int rc = namespaces_loopback_up();
	if (rc < 0)
		return rc;
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port),
				    .sin_addr = { htonl(INADDR_LOOPBACK) } };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 128) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}
