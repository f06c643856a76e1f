/*
 * Reading overlayfs's marks (marks.h). The origin mark holds overlayfs's
 * own record of a file handle: a version byte 0, the magic 0xfb, the
 * record's length, flags, the handle's type, the file system's UUID (16
 * bytes) and then the handle's bytes, which name_to_handle_at gives for
 * the host file when it is the same inode of the same generation.
 */
#include "marks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/xattr.h>

static const struct overlay_marks user_marks = {
	.opaque = "user.overlay.opaque",
	.origin = "user.overlay.origin",
	.redirect = "user.overlay.redirect",
};
static const struct overlay_marks trusted_marks = {
	.opaque = "trusted.overlay.opaque",
	.origin = "trusted.overlay.origin",
	.redirect = "trusted.overlay.redirect",
};

#define ORIGIN_HEADER 21 /* version, magic, length, flags, type, UUID */
#define ORIGIN_MAGIC 0xfb
#define HANDLE_MAX 128

const struct overlay_marks *overlay_marks_of(bool trusted)
{
	return trusted ? &trusted_marks : &user_marks;
}

bool marks_opaque(const struct overlay_marks *m, int fd)
{
	char value[4];
	return fgetxattr(fd, m->opaque, value, sizeof value) == 1 && value[0] == 'y';
}

bool marks_origin_present(const struct overlay_marks *m, int fd)
{
	return fgetxattr(fd, m->origin, NULL, 0) >= 0;
}

int marks_redirect(const struct overlay_marks *m, int fd, char *buf, size_t size)
{
	ssize_t n = fgetxattr(fd, m->redirect, buf, size - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* A NUL inside, or an empty name, is no redirect overlayfs wrote. */
	return strlen(buf) == (size_t)n ? (int)n : -1;
}

bool marks_origin_is(const struct overlay_marks *m, int fd, int host_dir, const char *name)
{
	unsigned char mark[ORIGIN_HEADER + HANDLE_MAX];
	struct {
		struct file_handle h;
		unsigned char bytes[HANDLE_MAX];
	} host;
	int mount_id;
	ssize_t n = fgetxattr(fd, m->origin, mark, sizeof mark);
	if (n <= ORIGIN_HEADER || mark[0] != 0 || mark[1] != ORIGIN_MAGIC || mark[2] != n)
		return false;
	host.h.handle_bytes = HANDLE_MAX;
	if (name_to_handle_at(host_dir, name, &host.h, &mount_id, 0) != 0)
		return false;
	return host.h.handle_type == (int)mark[4] &&
	       host.h.handle_bytes == (unsigned)(n - ORIGIN_HEADER) &&
	       memcmp(host.h.f_handle, mark + ORIGIN_HEADER, host.h.handle_bytes) == 0;
}

int marks_origin_open(const struct overlay_marks *m, int fd, int mount_fd)
{
	unsigned char mark[ORIGIN_HEADER + HANDLE_MAX];
	struct {
		struct file_handle h;
		unsigned char bytes[HANDLE_MAX];
	} handle;
	ssize_t n = fgetxattr(fd, m->origin, mark, sizeof mark);
	if (n <= ORIGIN_HEADER || mark[0] != 0 || mark[1] != ORIGIN_MAGIC || mark[2] != n)
		return -ENODATA;
	handle.h.handle_bytes = (unsigned)(n - ORIGIN_HEADER);
	handle.h.handle_type = mark[4];
	memcpy(handle.h.f_handle, mark + ORIGIN_HEADER, handle.h.handle_bytes);
	int out = open_by_handle_at(mount_fd, &handle.h, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return out < 0 ? -errno : out;
}
