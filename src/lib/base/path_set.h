/*
 * A set of paths, each with a small tag (an access, say), that answers in
 * constant time whether a (path, tag) pair was added and with what value.
 * The lists a cage is resolved into are built by appending a path only if
 * it is not there yet; comparing each new path with every entry made that
 * quadratic, a few hundred locations deep for a root caller's home.
 *
 * The set stores the key pointers it is given, not copies: each key must
 * stay allocated, and unchanged, as long as the set is used.
 */
#ifndef PROCAGE_PATH_SET_H
#define PROCAGE_PATH_SET_H

#include <stdbool.h>
#include <stddef.h>

struct path_set_slot {
	const char *key; /* NULL: a free slot */
	int tag;
	size_t value;
};

struct path_set {
	struct path_set_slot *slots;
	size_t cap, used;
};

/* Whether (key, tag) was added; its value in *value when it was. */
bool path_set_find(const struct path_set *set, const char *key, int tag, size_t *value);
/* Add (key, tag) with value, or change the value of the pair already there. 0 or -ENOMEM. */
int path_set_put(struct path_set *set, const char *key, int tag, size_t value);
/* Empty the set; it may be used again. */
void path_set_free(struct path_set *set);

#endif
