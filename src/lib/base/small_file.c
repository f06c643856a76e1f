/* Reading a small file of the kernel's (see small_file.h). */
#include "small_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

ssize_t small_file_read(const char *path, char *buf, size_t size)
{
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	ssize_t n;
	while ((n = read(fd, buf, size - 1)) < 0 && errno == EINTR)
		;
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return n;
}
