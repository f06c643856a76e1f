/* Entries placed on the host and taken away (place.h). */
#include "place.h"
#include "upper_access.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "apply.h"
#include "base/syscalls.h"

static int temp_name(char *buf, size_t size)
{
	unsigned char r[6];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		return -errno;
	snprintf(buf, size, ".procage-apply-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
		 r[4], r[5]);
	return 0;
}

/* The same file as when it was judged: inode, size and modification time. */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT);
}

/*
 * tmp put in name's place in one step, and the file it displaced checked
 * to be the one judged (renaming sets its change time, so the change
 * time is not compared here): one the host put there meanwhile is put
 * back and the change refused (-ESTALE). tmp then names what is removed.
 */
static int exchange_verified(int dir, const char *tmp, const char *name, const struct stat *judged)
{
	struct stat out;
	if (renameat2(dir, tmp, dir, name, RENAME_EXCHANGE) != 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (fstatat(dir, tmp, &out, AT_SYMLINK_NOFOLLOW) != 0 || !same_file(&out, judged)) {
		(void)renameat2(dir, tmp, dir, name, RENAME_EXCHANGE);
		return -ESTALE;
	}
	return unlinkat(dir, tmp, 0) == 0 ? 0 : -errno;
}

/*
 * A host file or link the run removed, taken out of the tree by rename
 * first and removed only when it is the one judged.
 */
int place_removal(int dir, const char *name, const struct stat *judged)
{
	char tmp[64];
	struct stat out;
	if (S_ISDIR(judged->st_mode))
		return changes_remove_tree(dir, name);
	int rc = temp_name(tmp, sizeof tmp);
	if (rc < 0)
		return rc;
	if (renameat2(dir, name, dir, tmp, RENAME_NOREPLACE) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstatat(dir, tmp, &out, AT_SYMLINK_NOFOLLOW) != 0 || !same_file(&out, judged)) {
		(void)renameat2(dir, tmp, dir, name, RENAME_NOREPLACE);
		return -ESTALE;
	}
	return unlinkat(dir, tmp, 0) == 0 ? 0 : -errno;
}

/*
 * The upper file (in, name in upper_dir) moved to tmp in host_dir, where
 * that gives what a copy would: a file of the caller's own with one link
 * and no extended attribute (no overlay mark, access list or label to
 * carry over), into a directory of the same file system that hands no
 * group down, its set-id bits then cleared. Anything else, or a step that
 * fails, leaves it in the upper layer to be copied. A change set of new
 * files is then applied without writing any of them again.
 */
static bool moved(int in, int upper_dir, const char *name, int host_dir, const char *tmp)
{
	struct stat st, dir, there;
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid() || st.st_gid != getegid() || flistxattr(in, NULL, 0) != 0 ||
	    fstat(host_dir, &dir) != 0 || dir.st_dev != st.st_dev || (dir.st_mode & S_ISGID))
		return false;
	if (renameat2(upper_dir, name, host_dir, tmp, RENAME_NOREPLACE) != 0)
		return false;
	if (fstatat(host_dir, tmp, &there, AT_SYMLINK_NOFOLLOW) != 0 || there.st_ino != st.st_ino ||
	    there.st_dev != st.st_dev || fchmod(in, st.st_mode & 0777) != 0) {
		(void)renameat2(host_dir, tmp, upper_dir, name, RENAME_NOREPLACE);
		return false;
	}
	return true;
}

static int copied(int in, const struct stat *st, int host_dir, const char *tmp)
{
	int rc = 0, out = openat(host_dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				 0600);
	if (out < 0)
		return -errno;
	for (off_t left = st->st_size; rc == 0 && left > 0;) {
		ssize_t n = sendfile(out, in, NULL, (size_t)(left > (1 << 30) ? 1 << 30 : left));
		if (n <= 0)
			rc = n < 0 ? -errno : -EIO;
		left -= n;
	}
	/* Set-id bits are never applied. */
	if (rc == 0 && fchmod(out, st->st_mode & 0777) != 0)
		rc = -errno;
	if (close(out) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

int place_entry(int upper_dir, const char *name, const struct stat *st, int host_dir,
		const struct stat *judged)
{
	char tmp[64];
	bool was_moved = false;
	int rc = temp_name(tmp, sizeof tmp);
	if (rc < 0)
		return rc;
	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(upper_dir, name, target, sizeof target - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		if (symlinkat(target, host_dir, tmp) != 0)
			return -errno;
	} else {
		int in = upper_file_open(upper_dir, name, O_RDONLY, st->st_mode);
		if (in < 0)
			return in;
		was_moved = moved(in, upper_dir, name, host_dir, tmp);
		if (!was_moved)
			rc = copied(in, st, host_dir, tmp);
		close(in);
	}
	/* A directory the run removed and replaced by a file: the rename cannot cover it. */
	if (rc == 0 && judged && S_ISDIR(judged->st_mode)) {
		rc = changes_remove_tree(host_dir, name);
		judged = NULL;
	}
	if (rc == 0)
		rc = judged ? exchange_verified(host_dir, tmp, name, judged)
			    : (renameat2(host_dir, tmp, host_dir, name, RENAME_NOREPLACE) == 0 ? 0
			       : errno == EEXIST ? -ESTALE
						 : -errno);
	/* Not placed: a moved file goes back where the change set keeps it. */
	if (rc < 0 && !(was_moved && renameat2(host_dir, tmp, upper_dir, name, RENAME_NOREPLACE) == 0))
		(void)unlinkat(host_dir, tmp, 0);
	return rc;
}
