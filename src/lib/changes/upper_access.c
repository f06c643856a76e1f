/* The upper layer read back whatever modes the run left (upper_access.h). */
#include "upper_access.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the walks need of a directory: list it, enter it, remove what is applied. */
#define DIR_OWNER_NEEDS (S_IRUSR | S_IWUSR | S_IXUSR)

int upper_file_open(int dir, const char *name, int flags, mode_t mode)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	mode &= 07777;
	int fd = openat(dir, name, flags);
	if (fd >= 0 || errno != EACCES || (mode & S_IRUSR))
		return fd >= 0 ? fd : -errno;
	if (fchmodat(dir, name, mode | S_IRUSR, 0) != 0)
		return -EACCES;
	fd = openat(dir, name, flags);
	int e = errno;
	(void)!fchmodat(dir, name, mode, 0);
	return fd >= 0 ? fd : -e;
}

int upper_dir_open(int dir, const char *name, mode_t mode)
{
	mode &= 07777;
	/* Owner bits missing: a read-only directory opens, but its entries cannot be looked up. */
	if ((mode & DIR_OWNER_NEEDS) != DIR_OWNER_NEEDS &&
	    fchmodat(dir, name, mode | DIR_OWNER_NEEDS, 0) != 0 && errno != EPERM)
		return -errno;
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		upper_dir_done(dir, name, mode);
		return -e;
	}
	return fd;
}

void upper_dir_done(int dir, const char *name, mode_t mode)
{
	mode &= 07777;
	if ((mode & DIR_OWNER_NEEDS) != DIR_OWNER_NEEDS)
		(void)!fchmodat(dir, name, mode, 0);
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
