/* The id maps of procage's user namespaces (id_maps.h). */
#include "id_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

void id_maps_own(struct id_maps *m)
{
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	m->uid_map_len = snprintf(m->uid_map, sizeof m->uid_map, "%u %u 1\n", uid, uid);
	m->gid_map_len = snprintf(m->gid_map, sizeof m->gid_map, "%u %u 1\n", gid, gid);
}

static int file_write(pid_t pid, const char *name, const char *text, int len)
{
	char path[64];
	if (pid > 0)
		snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof path, "/proc/self/%s", name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, (size_t)len);
	int e = errno;
	close(fd);
	if (n != len)
		return n < 0 ? -e : -EIO;
	return 0;
}

int id_maps_write(const struct id_maps *m, pid_t pid)
{
	int rc = file_write(pid, "setgroups", "deny", 4);
	if (rc == 0)
		rc = file_write(pid, "uid_map", m->uid_map, m->uid_map_len);
	if (rc == 0)
		rc = file_write(pid, "gid_map", m->gid_map, m->gid_map_len);
	return rc;
}
