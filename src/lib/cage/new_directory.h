/*
 * The checks of a directory procage makes for a grant (new_directory.c),
 * shared with a cache's chain of parents (cache_directory.c).
 */
#ifndef PROCAGE_CAGE_NEW_DIRECTORY_H
#define PROCAGE_CAGE_NEW_DIRECTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/classes.h"
#include "policy/policy.h"

/*
 * The location of a hard-deny class (not waived) that path, canonical
 * or made of a canonical parent and plain names, lies at, inside or (with
 * above_too) above: true with it in location and its class in *cls.
 */
bool new_directory_class_overlap(const struct procage_policy *p, const char *path, char *location,
				 size_t size, enum class_id *cls, bool above_too);

/* "at", "inside" or "above": how path lies to the location it overlaps. */
const char *new_directory_overlap_word(const char *path, const char *location);

#endif
