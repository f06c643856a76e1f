/*
 * The masks of the run's own /proc (tier T1). Why each entry is here, and
 * why nothing else is: docs/proc.md. The test of an entry is what a
 * process mapped to root in the run's user namespace, without any
 * capability (the target drops them all, child.c), could still do with it:
 * the kernel checks the owner's permission bits for uid 0 of the host, so
 * a root caller's run reads the files mode 0400 root and writes the ones
 * mode 0644 or 0200 root whose handler asks for no capability.
 */
#include "proc_masks.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "namespaces.h"

const struct proc_mask proc_masks[] = {
	/* Kernel memory and addresses. */
	{ "kcore", PROC_MASK_HIDE },
	{ "kallsyms", PROC_MASK_HIDE },
	{ "vmallocinfo", PROC_MASK_HIDE },
	{ "slabinfo", PROC_MASK_HIDE },
	{ "pagetypeinfo", PROC_MASK_HIDE },
	{ "kpagecount", PROC_MASK_HIDE },
	{ "kpageflags", PROC_MASK_HIDE },
	{ "kpagecgroup", PROC_MASK_HIDE },
	/* The kernel's log and its timers: what every process of the host does. */
	{ "kmsg", PROC_MASK_HIDE },
	{ "timer_list", PROC_MASK_HIDE },
	{ "timer_stats", PROC_MASK_HIDE },
	{ "sched_debug", PROC_MASK_HIDE },
	{ "latency_stats", PROC_MASK_HIDE },
	/* Other users' keys and key quotas. */
	{ "keys", PROC_MASK_HIDE },
	{ "key-users", PROC_MASK_HIDE },
	/* Drivers whose files root may write. */
	{ "acpi", PROC_MASK_HIDE },
	{ "scsi", PROC_MASK_HIDE },
	{ "asound", PROC_MASK_HIDE },
	/* Read for the programs that look, never written: the host's settings. */
	{ "sys", PROC_MASK_READ_ONLY },
	{ "sysrq-trigger", PROC_MASK_READ_ONLY },
	{ "irq", PROC_MASK_READ_ONLY },
	{ "bus", PROC_MASK_READ_ONLY },
	{ "fs", PROC_MASK_READ_ONLY },
};
const size_t proc_masks_count = sizeof proc_masks / sizeof *proc_masks;

/*
 * The entry beneath /proc, never through a link or another mount: every
 * name of the table is a plain entry of /proc's own top directory.
 */
static int proc_entry_open(int proc_fd, const char *name)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int fd = sys_openat2(proc_fd, name, &how);
	return fd < 0 ? -errno : fd;
}

/* The detached mount laid over target: a hiding mask or a read-only copy. */
static int proc_mask_tree(int mask_source, int target, enum proc_mask_kind kind)
{
	if (kind == PROC_MASK_READ_ONLY)
		return sys_open_tree(target, "",
				     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
					     AT_RECURSIVE);
	struct stat st;
	if (fstat(target, &st) != 0)
		return -1;
	return sys_open_tree(mask_source, S_ISDIR(st.st_mode) ? "d" : "f",
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
}

static int proc_mask_apply(int mask_source, int proc_fd, const struct proc_mask *m)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			    MOUNT_ATTR_NOEXEC,
	};
	int target = proc_entry_open(proc_fd, m->name), rc = 0;
	if (target == -ENOENT)
		return 0; /* not built into this kernel: nothing there to reach */
	if (target < 0)
		return target;
	int tree = proc_mask_tree(mask_source, target, m->kind);
	/* A mask is a clone of the mask source, whose flags it keeps (namespaces.c). */
	if (tree < 0 ||
	    (m->kind == PROC_MASK_READ_ONLY &&
	     sys_mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) != 0) ||
	    sys_move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) !=
		    0)
		rc = -errno;
	if (tree >= 0)
		close(tree);
	close(target);
	return rc;
}

int proc_masks_apply(int proc_fd, int mask_source, int *index)
{
	*index = -1;
	for (size_t i = 0; i < proc_masks_count; i++) {
		*index = (int)i;
		int rc = proc_mask_apply(mask_source, proc_fd, &proc_masks[i]);
		if (rc < 0)
			return rc;
	}
	*index = -1;
	return 0;
}
