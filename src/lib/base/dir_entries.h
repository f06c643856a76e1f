/*
 * Reading a directory's entries straight from its descriptor with
 * getdents64. opendir and fdopendir cost a spawn three system calls per
 * directory beyond the listing itself (a stat to size their buffer, and
 * fcntl twice for the descriptor's flags); the walks of a cage list
 * hundreds of directories on tier T2, so they read entries here instead.
 */
#ifndef PROCAGE_DIR_ENTRIES_H
#define PROCAGE_DIR_ENTRIES_H

#include <stddef.h>

#define DIR_ENTRIES_BUFFER 16384

struct dir_entries {
	int fd;		   /* the directory, owned by the caller */
	size_t pos, len;   /* the part of buf not yet given */
	int error;	   /* a negative errno once a read failed, else 0 */
	char buf[DIR_ENTRIES_BUFFER] __attribute__((aligned(8)));
};

/* One entry: its name (NUL-terminated) and its type (DT_*, maybe DT_UNKNOWN). */
struct dir_entry {
	const char *name;
	unsigned char type;
};

/* Begin reading the directory open at fd (O_RDONLY | O_DIRECTORY). */
void dir_entries_begin(struct dir_entries *d, int fd);

/*
 * The next entry other than "." and "..", into *e (valid until the next
 * call). Returns 1 with an entry, 0 at the end, or a negative errno when
 * the listing failed (also kept in d->error).
 */
int dir_entries_next(struct dir_entries *d, struct dir_entry *e);

#endif
