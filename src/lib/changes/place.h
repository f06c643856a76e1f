/*
 * One entry of a change set put on the host, or a host entry the run
 * removed taken away: each by rename, checked against what was judged.
 */
#ifndef PROCAGE_CHANGES_PLACE_H
#define PROCAGE_CHANGES_PLACE_H

#include <sys/stat.h>

/*
 * The upper layer's file or link name (st) put in host_dir under the same
 * name; judged: what the host held there when it was judged, or NULL when
 * it held nothing. -ESTALE: the host holds something else by now. On
 * failure the upper layer still holds the entry.
 */
int place_entry(int upper_dir, const char *name, const struct stat *st, int host_dir,
		const struct stat *judged);

/* The host's file, link or directory name in dir taken away, if it is still the one judged. */
int place_removal(int dir, const char *name, const struct stat *judged);

#endif
