/*
 * Unit tests: path_set (base/path_set.c), the index that keeps the cage's
 * location lists free of repeats. A pair is found only as it was put, tag
 * included, so that a path kept read-only and the same path hidden stay
 * two denials; a second put changes the value without adding a pair; a
 * set grown far past its first size still finds every pair it was given
 * and none it was not (a lost pair would let a denial be dropped as a
 * repeat, or be listed twice); an emptied set finds nothing and can be
 * filled again. The class lists built with it keep one location per path,
 * hiding winning over keeping read-only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path_set.h"
#include "policy/classes.h"
#include "tap.h"

#define MANY 5000

static void pairs_by_tag(void)
{
	struct path_set set = { 0 };
	size_t value = 99;
	tap_ok(!path_set_find(&set, "/home/u/.ssh", 1, &value) && value == 99,
	       "an empty set finds nothing and leaves the value alone");
	tap_ok(path_set_put(&set, "/home/u/.ssh", 1, 7) == 0, "a pair is put");
	tap_ok(path_set_find(&set, "/home/u/.ssh", 1, &value) && value == 7,
	       "it is found with its value");
	tap_ok(!path_set_find(&set, "/home/u/.ssh", 2, NULL),
	       "the same path with another tag is another pair");
	tap_ok(!path_set_find(&set, "/home/u/.ss", 1, NULL) &&
		       !path_set_find(&set, "/home/u/.ssh/", 1, NULL),
	       "a prefix or a longer spelling is not the path");
	tap_ok(path_set_put(&set, "/home/u/.ssh", 1, 8) == 0 && set.used == 1 &&
		       path_set_find(&set, "/home/u/.ssh", 1, &value) && value == 8,
	       "putting it again changes its value, not the count");
	path_set_free(&set);
}

static void many_pairs(void)
{
	struct path_set set = { 0 };
	char **keys = calloc(MANY, sizeof *keys);
	bool ok = keys != NULL;
	for (size_t i = 0; ok && i < MANY; i++) {
		ok = asprintf(&keys[i], "/home/u/.config/app%zu/token", i) > 0 &&
		     path_set_put(&set, keys[i], (int)(i % 3), i) == 0;
	}
	tap_ok(ok && set.used == MANY, "%d pairs put, the set grown as needed", MANY);
	size_t found = 0, wrong = 0, strangers = 0, value;
	char other[128];
	for (size_t i = 0; ok && i < MANY; i++) {
		if (path_set_find(&set, keys[i], (int)(i % 3), &value))
			found++, wrong += value != i;
		snprintf(other, sizeof other, "/home/u/.config/app%zu/token", i + MANY);
		strangers += path_set_find(&set, other, (int)(i % 3), NULL);
		strangers += path_set_find(&set, keys[i], (int)(i % 3) + 1, NULL);
	}
	tap_ok(found == MANY && wrong == 0, "every pair found with its own value (%zu of %d)",
	       found, MANY);
	tap_ok(strangers == 0, "no pair that was not put is found (%zu)", strangers);
	path_set_free(&set);
	tap_ok(set.cap == 0 && set.used == 0 && !path_set_find(&set, keys[0], 0, NULL),
	       "an emptied set finds nothing");
	tap_ok(path_set_put(&set, keys[1], 1, 1) == 0 && path_set_find(&set, keys[1], 1, NULL),
	       "and is filled again");
	path_set_free(&set);
	for (size_t i = 0; keys && i < MANY; i++)
		free(keys[i]);
	free(keys);
}

static void class_lists(void)
{
	struct class_locations l = { 0 };
	bool ok = class_locations_add(&l, "/home/u/.aws", CLASS_SECRETS, PROCAGE_PROTECT,
				      false) == 0 &&
		  class_locations_add(&l, "/home/u/.ssh", CLASS_SECRETS, PROCAGE_HIDE, false) ==
			  0 &&
		  class_locations_add(&l, "/home/u/.aws", CLASS_SECRETS, PROCAGE_HIDE, false) ==
			  0 &&
		  class_locations_add(&l, "/home/u/.ssh", CLASS_SECRETS, PROCAGE_PROTECT,
				      false) == 0;
	tap_ok(ok && l.n == 2, "a class list keeps one location per path (%zu)", l.n);
	tap_ok(ok && l.n == 2 && l.items[0].deny == PROCAGE_HIDE &&
		       l.items[1].deny == PROCAGE_HIDE,
	       "hiding wins whichever row came first");
	class_locations_free(&l);
	tap_ok(l.n == 0 && class_locations_add(&l, "/home/u/.aws", CLASS_SECRETS,
					       PROCAGE_PROTECT, false) == 0 &&
		       l.n == 1,
	       "a freed list starts again empty");
	class_locations_free(&l);
}

int main(void)
{
	pairs_by_tag();
	many_pairs();
	class_lists();
	return tap_done();
}
