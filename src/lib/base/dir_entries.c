/* Directory entries read with getdents64 (see dir_entries.h). */
#include "dir_entries.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

void dir_entries_begin(struct dir_entries *d, int fd)
{
	d->fd = fd;
	d->pos = 0;
	d->len = 0;
	d->error = 0;
}

int dir_entries_next(struct dir_entries *d, struct dir_entry *e)
{
	for (;;) {
		if (d->error)
			return d->error;
		if (d->pos >= d->len) {
			ssize_t n = getdents64(d->fd, d->buf, sizeof d->buf);
			/* A directory removed meanwhile (ENOENT) holds nothing now. */
			if (n < 0 && errno == ENOENT)
				return 0;
			if (n < 0) {
				d->error = errno ? -errno : -EIO;
				return d->error;
			}
			if (n == 0)
				return 0;
			d->pos = 0;
			d->len = (size_t)n;
		}
		const struct dirent64 *ent = (const struct dirent64 *)(d->buf + d->pos);
		/* The kernel's record length: never trusted to move us backwards or out. */
		if (ent->d_reclen == 0 || d->pos + ent->d_reclen > d->len) {
			d->error = -EIO;
			return d->error;
		}
		d->pos += ent->d_reclen;
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		e->name = ent->d_name;
		e->type = ent->d_type;
		return 1;
	}
}
