/* Listings of directories that answer for their children (dir_listings.h). */
#include "dir_listings.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dir_entries.h"

struct listed_name {
	char *name;
	unsigned char type; /* DT_* */
};

struct dir_listing {
	char *dir;		   /* absolute */
	struct listed_name *names; /* sorted by name */
	size_t n;
	unsigned asks;
	bool listed, refused;
};

static void names_free(struct dir_listing *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i].name);
	free(d->names);
	d->names = NULL;
	d->n = 0;
}

void dir_listings_free(struct dir_listings *l)
{
	for (size_t i = 0; i < l->n; i++) {
		names_free(&l->dirs[i]);
		free(l->dirs[i].dir);
	}
	free(l->dirs);
	l->dirs = NULL;
	l->n = 0;
}

static int name_compare(const void *a, const void *b)
{
	return strcmp(((const struct listed_name *)a)->name, ((const struct listed_name *)b)->name);
}

/*
 * A name missing from a listing is missing for a lookup only where names
 * are compared byte for byte: a case-folding directory (ext4's and
 * tmpfs's +F) or file system (vfat, XFS's ASCII-CI) finds ".SSH" as
 * ".ssh". Listings are used on file systems known to compare bytes, in
 * directories that do not fold.
 */
static bool names_exact(int fd)
{
	struct statfs fs;
	unsigned int flags = 0;
	if (fstatfs(fd, &fs) != 0)
		return false;
	switch ((unsigned long)fs.f_type) {
	case EXT4_SUPER_MAGIC:
	case TMPFS_MAGIC:
		return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_CASEFOLD_FL);
	case BTRFS_SUPER_MAGIC:
	case OVERLAYFS_SUPER_MAGIC:
		return true;
	default:
		return false;
	}
}

/* d's entries read and sorted; false when that cannot be done. */
static bool listing_read(struct dir_listing *d)
{
	struct dir_entries *e = malloc(sizeof *e);
	struct dir_entry entry;
	size_t cap = 0;
	int fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), got = -1;
	/* A child a lookup could not reach is no answer of the listing's either. */
	bool ok = e && fd >= 0 && faccessat(fd, ".", X_OK, AT_EACCESS) == 0 && names_exact(fd);
	if (ok)
		dir_entries_begin(e, fd);
	while (ok && (got = dir_entries_next(e, &entry)) == 1) {
		if (d->n == cap) {
			struct listed_name *grown = NULL;
			cap = cap ? cap * 2 : 32;
			if (cap > DIR_LISTING_MAX || !(grown = realloc(d->names, cap * sizeof *grown))) {
				ok = false;
				break;
			}
			d->names = grown;
		}
		d->names[d->n] = (struct listed_name){ strdup(entry.name), entry.type };
		if (!d->names[d->n++].name)
			ok = false;
	}
	/*
	 * A directory removed while it was listed ends its listing empty
	 * (dir_entries.c); one made again at its path may hold the names:
	 * no answer then.
	 */
	struct stat st;
	if (ok && got == 0 && (fstat(fd, &st) != 0 || st.st_nlink == 0))
		ok = false;
	if (fd >= 0)
		close(fd);
	free(e);
	if (ok && got == 0) {
		if (d->n)
			qsort(d->names, d->n, sizeof *d->names, name_compare);
		return true;
	}
	names_free(d);
	return false;
}

/* The entry for path's parent (dir_len bytes of path), made at its first ask; NULL: out of memory. */
static struct dir_listing *listing_of(struct dir_listings *l, const char *path, size_t dir_len)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->dirs[i].dir) == dir_len && strncmp(l->dirs[i].dir, path, dir_len) == 0)
			return &l->dirs[i];
	struct dir_listing *dirs = realloc(l->dirs, (l->n + 1) * sizeof *dirs);
	if (!dirs)
		return NULL;
	l->dirs = dirs;
	struct dir_listing *d = &dirs[l->n];
	*d = (struct dir_listing){ .dir = strndup(path, dir_len) };
	if (!d->dir)
		return NULL;
	l->n++;
	return d;
}

int dir_listings_find(struct dir_listings *l, const char *path, unsigned char *type)
{
	const char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1])
		return -1;
	struct dir_listing *d = listing_of(l, path, slash == path ? 1 : (size_t)(slash - path));
	if (!d)
		return -1;
	if (!d->listed && !d->refused && ++d->asks >= 2) {
		d->listed = listing_read(d);
		d->refused = !d->listed;
	}
	if (!d->listed)
		return -1;
	struct listed_name key = { (char *)(slash + 1), 0 };
	/* An empty directory's listing holds no array to search. */
	const struct listed_name *found =
		d->n ? bsearch(&key, d->names, d->n, sizeof *d->names, name_compare) : NULL;
	if (!found)
		return 0;
	*type = found->type;
	return 1;
}
