/* The pre-spawn hard-link check. */
#ifndef PROCAGE_HARDLINKS_H
#define PROCAGE_HARDLINKS_H

#include "paths.h"

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

struct procage_cage;
/* Refuse a spawn of cage when its policy does and the check finds something. */
int hardlinks_refusal(const struct procage_cage *cage, struct procage_error *err);

#endif
