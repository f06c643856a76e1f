/* The pre-spawn hard-link check. */
#ifndef PROCAGE_HARDLINKS_H
#define PROCAGE_HARDLINKS_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy/path_rule.h"

/*
 * Examine the hidden and protected locations: every regular file in them
 * whose link count says it has a name outside them is listed in *findings
 * (a NULL-terminated list of messages, procage_strings_free), and so is a
 * location that has become a symbolic link. Protected files under an
 * exempt subtree are not examined; hidden ones are, everywhere. Large
 * application data (browser profiles) is skipped.
 */
int hardlinks_check(const struct cage_path *examined, size_t n_examined, char *const *exempt,
		    size_t n_exempt, char ***findings, struct procage_error *err);

/* A file with more than one name, found inside a hidden or protected location. */
struct hardlink_inode {
	dev_t dev;
	ino_t ino;
	bool hidden; /* one of its names lies in a hidden location */
};

/*
 * The files with more than one name inside the locations (denials: hidden
 * or protected), in *out (free it), walked as hardlinks_check walks them
 * but with no exemption: entry grants (tier T2) must not grant one of them
 * through a name outside the locations when report mode lets a spawn go on.
 */
int hardlinks_linked_files(const struct cage_path *locations, size_t n_locations,
			   struct hardlink_inode **out, size_t *n_out);

struct procage_cage;

#endif
