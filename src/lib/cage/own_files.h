/*
 * The files procage itself writes or reads on the caller's behalf. A run
 * can prepare what lies inside its write grants for the next one (a
 * symbolic link where a report file goes, a policy file that widens the
 * next cage), so these are opened without following links, judged by
 * inode against the write grants, and kept by descriptor, never reopened
 * by path.
 */
#ifndef PROCAGE_OWN_FILES_H
#define PROCAGE_OWN_FILES_H

#include <stdbool.h>
#include <sys/types.h>

#include "procage.h"

/*
 * The write grant of cage whose tree holds the directory dir_fd (by device
 * and inode, so any spelling or bind mount of it counts), or NULL.
 */
const char *own_files_write_grant_of(const struct procage_cage *cage, int dir_fd);

/*
 * Open the report file for appending: no symbolic link anywhere on the path,
 * a regular file with one name, and inside a write grant of the run only
 * when it is created now. Returns the descriptor (close-on-exec) or a
 * negative errno with err naming the path and the reason.
 */
int own_files_open_report(const struct procage_cage *cage, const char *path,
			  struct procage_error *err);

#endif
