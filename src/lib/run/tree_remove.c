/*
 * Emptying a directory tree whatever its depth (see reaper_raw.h). A run
 * may nest directories thousands deep in its temporary directory; a
 * recursive walk runs out of stack or of descriptors and leaves them on
 * the host. This walk is a loop: it descends by openat, holding only the
 * directory it is in, and climbs by openat(".."), checking that the
 * directory it reaches holds the one it left (by inode) before removing
 * that one by the name found there. Nothing else runs in the tree by then
 * (every process of the run has ended), but the check keeps a moved
 * directory from taking the walk anywhere else.
 *
 * Raw system calls only: the reaper runs it in phase 2, and the caller
 * uses it too (tmpdir.c), so there is one removal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "reaper_raw.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* A bound on the steps of one walk: a tree that needs more is reported left. */
#define TREE_MAX_STEPS (1L << 26)

static REAPER_RAW bool is_dot_or_dotdot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

static REAPER_RAW void name_copy(char *out, const char *name)
{
	size_t i = 0;
	for (; name[i] && i < NAME_MAX; i++)
		out[i] = name[i];
	out[i] = '\0';
}

/*
 * One pass over dir: remove every entry that is not a directory. Returns 1
 * with the first subdirectory's name in sub_name, 2 when the pass removed
 * something (and so may have missed entries), 0 when it found nothing, or
 * a negative errno.
 */
static REAPER_RAW int scan_once(int dir, char *sub_name, long *steps)
{
	char buf[2048];
	int removed = 0;
	if (raw_syscall3(SYS_lseek, dir, 0, SEEK_SET) < 0)
		return -EIO;
	for (;;) {
		long got = raw_syscall3(SYS_getdents64, dir, buf, sizeof buf);
		if (got < 0)
			return (int)got;
		if (got == 0)
			return removed ? 2 : 0;
		for (long off = 0; off < got;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
			off += d->reclen;
			if (is_dot_or_dotdot(d->name))
				continue;
			if (++*steps > TREE_MAX_STEPS)
				return -ELOOP;
			long rc = raw_syscall3(SYS_unlinkat, dir, d->name, 0);
			if (rc == 0 || rc == -ENOENT) {
				removed = 1;
				continue;
			}
			/* EPERM: a directory on some systems, or an immutable file. */
			bool is_dir = rc == -EISDIR ||
				   (rc == -EPERM && (d->type == DT_DIR || d->type == DT_UNKNOWN));
			if (!is_dir)
				return (int)rc;
			name_copy(sub_name, d->name);
			return 1;
		}
	}
}

/* Empty dir of all but directories: 0 (empty), 1 (a subdirectory), or -errno. */
static REAPER_RAW int scan(int dir, char *sub_name, long *steps)
{
	int rc;
	/* Entries removed while the directory is read may hide others: read again. */
	while ((rc = scan_once(dir, sub_name, steps)) == 2)
		;
	return rc;
}

/* The name under which dir holds the inode ino (a directory), in name; 0 or -errno. */
static REAPER_RAW int name_of_inode(int dir, unsigned long long ino, char *name)
{
	char buf[2048];
	if (raw_syscall3(SYS_lseek, dir, 0, SEEK_SET) < 0)
		return -EIO;
	for (;;) {
		long got = raw_syscall3(SYS_getdents64, dir, buf, sizeof buf);
		if (got <= 0)
			return got < 0 ? (int)got : -ESTALE;
		for (long off = 0; off < got;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
			off += d->reclen;
			if (d->ino == ino && !is_dot_or_dotdot(d->name)) {
				name_copy(name, d->name);
				return 0;
			}
		}
	}
}

/*
 * Give the owner's rights back to the directory name in dir, which the run
 * left unreadable (mode 0): without them it cannot be opened to be
 * emptied. Never through a link: fchmodat2 refuses one (AT_SYMLINK_NOFOLLOW,
 * Linux 6.6); before it, the entry is checked to be a directory first, and
 * nothing of the run is left to swap it in between.
 */
static REAPER_RAW void owner_rights_restore(int dir, const char *name)
{
	struct stat st;
	long rc = raw_syscall4(SYS_fchmodat2, dir, name, 0700, AT_SYMLINK_NOFOLLOW);
	if (rc != -ENOSYS)
		return;
	if (raw_syscall4(SYS_newfstatat, dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode))
		raw_syscall3(SYS_fchmodat, dir, name, 0700);
}

/* Open name in dir as a directory on dev, restoring the owner's rights; fd or -errno. */
static REAPER_RAW long enter(int dir, const char *name, unsigned long long dev,
			     unsigned long long *ino)
{
	struct stat st;
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	long sub = raw_syscall4(SYS_openat, dir, name, flags, 0);
	if (sub == -EACCES) {
		owner_rights_restore(dir, name);
		sub = raw_syscall4(SYS_openat, dir, name, flags, 0);
	}
	if (sub < 0)
		return sub;
	if (raw_syscall2(SYS_fstat, sub, &st) != 0 || (unsigned long long)st.st_dev != dev) {
		/* Another file system mounted here: never entered, reported left. */
		raw_syscall1(SYS_close, sub);
		return -EXDEV;
	}
	/* The run may have taken its own rights away; the owner restores them. */
	raw_syscall2(SYS_fchmod, sub, 0700);
	*ino = (unsigned long long)st.st_ino;
	return sub;
}

REAPER_RAW int tree_empty_raw(int root, unsigned long long dev)
{
	char name[NAME_MAX + 1];
	struct stat st;
	long steps = 0;
	int cur = root, depth = 0, rc;
	unsigned long long cur_ino;

	if (raw_syscall2(SYS_fstat, root, &st) != 0)
		return -EBADF;
	cur_ino = (unsigned long long)st.st_ino;
	raw_syscall2(SYS_fchmod, root, 0700);
	for (;;) {
		rc = scan(cur, name, &steps);
		if (rc < 0)
			break;
		if (rc == 1) {
			/* Down one level: the subdirectory becomes the only one held. */
			unsigned long long ino;
			long sub = enter(cur, name, dev, &ino);
			if (sub < 0) {
				rc = (int)sub;
				break;
			}
			if (cur != root)
				raw_syscall1(SYS_close, cur);
			cur = (int)sub;
			cur_ino = ino;
			depth++;
			continue;
		}
		if (depth == 0)
			break; /* the root is empty */
		/* Empty: up one level, to the directory that holds this one. */
		long up = raw_syscall4(SYS_openat, cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
		if (up < 0) {
			rc = (int)up;
			break;
		}
		raw_syscall1(SYS_close, cur);
		cur = (int)up;
		depth--;
		if (raw_syscall2(SYS_fstat, cur, &st) != 0 || (unsigned long long)st.st_dev != dev) {
			rc = -EXDEV;
			break;
		}
		unsigned long long left_ino = cur_ino;
		cur_ino = (unsigned long long)st.st_ino;
		if (depth == 0) {
			/* Back at the top: it must be the root itself. */
			struct stat root_st;
			if (raw_syscall2(SYS_fstat, root, &root_st) != 0 ||
			    root_st.st_ino != st.st_ino) {
				rc = -ESTALE;
				break;
			}
			raw_syscall1(SYS_close, cur);
			cur = root;
		}
		if ((rc = name_of_inode(cur, left_ino, name)) < 0)
			break;
		long removed = raw_syscall3(SYS_unlinkat, cur, name, AT_REMOVEDIR);
		if (removed < 0) {
			rc = (int)removed;
			break;
		}
	}
	if (cur != root)
		raw_syscall1(SYS_close, cur);
	return rc < 0 ? rc : 0;
}
