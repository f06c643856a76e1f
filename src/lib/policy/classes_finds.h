/*
 * What the classes' rows find, row by row, before the caller's waivers
 * merge it into a list of locations (classes.c): the form in which the
 * rows can be walked ahead of the cage (classes_prepared.c) and applied
 * later exactly as if walked then. Inside the policy folder only.
 */
#ifndef PROCAGE_CLASSES_FINDS_H
#define PROCAGE_CLASSES_FINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "classes.h"

struct class_find {
	char *path; /* canonical; NULL when error is set */
	enum class_id cls;
	enum procage_access deny;
	bool absent;
	int error; /* the row could not be walked: a refusal unless its class is waived */
};

struct class_finds {
	struct class_find *items;
	size_t n, room;
};

/* The home, runtime and system rows and the moved locations, but waived classes. */
int classes_find_all(unsigned waived, const char *home, const char *runtime_dir,
		     struct class_finds *out);
/*
 * The same walk in units (classes_unit_count of them, merged in their
 * order), each independent of the others: what unit finds, after out's.
 */
size_t classes_unit_count(void);
int classes_find_unit(size_t unit, unsigned waived, const char *home, const char *runtime_dir,
		      struct class_finds *out);
/* from's finds moved to the end of to's (from emptied); a negative errno when out of memory. */
int class_finds_append(struct class_finds *to, struct class_finds *from);
/* Merged into out in row order, as classes_expand merges them; a failed row's error. */
int class_finds_apply(const struct class_finds *found, unsigned waived,
		      struct class_locations *out);
void class_finds_free(struct class_finds *found);

/* The values of every variable the rows read, as one string (NULL: out of memory). */
char *classes_env_signature(void);

/*
 * The finds walked ahead for exactly this home, runtime directory and
 * environment, taken once (into out, true); false when none were, or for
 * other ones (which are dropped).
 */
bool classes_prepared_take(const char *home, const char *runtime_dir, struct class_finds *out);

#endif
