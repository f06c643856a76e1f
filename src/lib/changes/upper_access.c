/* The upper layer read back whatever modes the run left (upper_access.h). */
#include "upper_access.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the walks need of a directory: list it, enter it, remove what is applied. */
#define DIR_OWNER_NEEDS (S_IRUSR | S_IWUSR | S_IXUSR)

/* The /proc entry of descriptor fd, which names its inode whatever its path names by now. */
struct fd_entry {
	char path[40];
};

static struct fd_entry fd_entry_of(int fd)
{
	struct fd_entry e;
	snprintf(e.path, sizeof e.path, "/proc/self/fd/%d", fd);
	return e;
}

/*
 * The mode of the inode path_fd names (O_PATH, opened without following a
 * link) set to mode, through its /proc entry: a link swapped in at the
 * name since is never followed, so no file the name could be made to
 * point at is touched.
 */
static int inode_chmod(int path_fd, mode_t mode)
{
	return chmod(fd_entry_of(path_fd).path, mode) == 0 ? 0 : -errno;
}

/* name in dir, the entry itself, if it is of type (S_IFDIR or S_IFREG): an O_PATH descriptor. */
static int entry_pin(int dir, const char *name, mode_t type)
{
	struct stat st;
	int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

int upper_file_open(int dir, const char *name, int flags, mode_t mode)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	mode &= 07777;
	int fd = openat(dir, name, flags);
	if (fd >= 0 || errno != EACCES || (mode & S_IRUSR))
		return fd >= 0 ? fd : -errno;
	int pin = entry_pin(dir, name, S_IFREG);
	if (pin < 0)
		return pin;
	int rc = inode_chmod(pin, mode | S_IRUSR);
	/* Opened again through the pinned inode, not the name: a link swapped in is not followed. */
	fd = rc < 0 ? rc : open(fd_entry_of(pin).path, flags & ~O_NOFOLLOW);
	if (rc == 0 && fd < 0)
		rc = -errno;
	(void)inode_chmod(pin, mode);
	close(pin);
	return rc < 0 ? rc : fd;
}

int upper_dir_open(int dir, const char *name, mode_t mode)
{
	mode &= 07777;
	if ((mode & DIR_OWNER_NEEDS) == DIR_OWNER_NEEDS) {
		int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		return fd >= 0 ? fd : -errno;
	}
	/* Owner bits missing: a read-only directory opens, but its entries cannot be looked up. */
	int pin = entry_pin(dir, name, S_IFDIR);
	if (pin < 0)
		return pin;
	int rc = inode_chmod(pin, mode | DIR_OWNER_NEEDS);
	/* Not the caller's to change (a root caller's run gave it away): opened as it is. */
	if (rc < 0 && rc != -EPERM) {
		close(pin);
		return rc;
	}
	int fd = openat(pin, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		if (rc == 0)
			(void)inode_chmod(pin, mode);
	}
	close(pin);
	return fd;
}

void upper_dir_done(int fd, mode_t mode)
{
	mode &= 07777;
	if ((mode & DIR_OWNER_NEEDS) != DIR_OWNER_NEEDS)
		(void)!fchmod(fd, mode);
}

mode_t upper_dir_mode_while_filled(mode_t mode)
{
	return (mode & 0777) | DIR_OWNER_NEEDS;
}

mode_t upper_root_mode(int tree_fd)
{
	struct stat st;
	return fstatat(tree_fd, "upper", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)
		       ? st.st_mode & 07777
		       : 0700;
}
