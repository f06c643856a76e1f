/*
 * Where a brokered call lands: the directory that holds its final
 * component, resolved by the broker itself from its own copy of the path,
 * and whether that directory is a zone or lies in a tree the broker made
 * in one during the run.
 */
#ifndef PROCAGE_BROKER_PLACE_H
#define PROCAGE_BROKER_PLACE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cage/broker_zones.h"

/* The directories the broker made directly in a zone, by identity. */
struct broker_created {
	dev_t dev;
	ino_t ino;
};

/* At most this many: a flood of mkdir costs the cage ENOSPC, not our memory. */
#define BROKER_CREATED_MAX 65536

/*
 * A directory found beneath one the broker made (broker_place.c): its
 * identity with its birth time, and the identity of the zone the walk
 * reached.
 */
struct broker_beneath {
	dev_t dev;
	ino_t ino;
	long long born_s;
	unsigned born_ns;
	dev_t zone_dev;
	ino_t zone_ino;
};

#define BROKER_BENEATH_MAX 32

struct broker_state {
	struct broker_zones zones;
	struct broker_created *created;
	size_t n_created;
	/* The last directories found beneath made ones: no walk for them again. */
	struct broker_beneath beneath[BROKER_BENEATH_MAX];
	size_t n_beneath, next_beneath;
	/*
	 * A directory born (statx btime) before this second, a margin
	 * before the broker started, is none the broker made
	 * (broker_place.c). 0: not known, every walk goes to a zone.
	 */
	long long born_before;
};

/* Set born_before from the clock: when the broker starts. */
void broker_state_started(struct broker_state *s);

struct broker_place {
	const struct broker_zone *zone; /* NULL: not brokered */
	bool in_created;		/* beneath a directory the broker made: no name rules */
	int dir;	  /* act relative to this: the zone's own descriptor, or owned */
	int owned;	  /* a descriptor to close, or -1 */
	const char *name; /* the final component, a single name */
};

/*
 * Resolve path (the broker's copy, modified in place) from base (a
 * directory of the broker's; unused for an absolute path). Trailing
 * slashes are taken off where dir_ok (calls on directories), else such a
 * path is not brokered. 1: brokered, place filled; 0: not brokered (the
 * kernel and Landlock judge the call); negative errno: the broker failed.
 */
int broker_place_resolve(struct broker_state *s, int base, char *path, bool dir_ok,
			 struct broker_place *place);
void broker_place_release(struct broker_place *place);

/*
 * Could path, named by thread tid relative to its dirfd (AT_FDCWD: its
 * cwd), land in a zone or a tree the broker made? One statx of the
 * directory part through /proc/TID/cwd or /proc/TID/fd/N, before the
 * broker takes any descriptor: false only when the directory is there
 * and is neither, so that broker_place_resolve would say 0 too; true in
 * every other case (then the call is resolved as before). Call it
 * before the notification is checked to be still pending, as for the
 * descriptors, so that tid is the caller's.
 */
bool broker_place_maybe(const struct broker_state *s, pid_t tid, int dirfd, const char *path);
/*
 * The directory part of path as broker_place_resolve takes it (trailing
 * slashes off, up to the last slash; "." for a single name, "/" for one
 * at the root): its length, *dir pointing at its first byte.
 */
size_t broker_path_dir(const char *path, const char **dir);

/*
 * Forget the directories found beneath made ones: called before the
 * broker renames or removes a directory, and whenever a zone is made or
 * forgotten (see broker_place.c).
 */
void broker_beneath_forget(struct broker_state *s);

/* Note a directory made directly in a zone; -ENOSPC when the table is full. */
int broker_created_add(struct broker_state *s, dev_t dev, ino_t ino);
void broker_created_remove(struct broker_state *s, dev_t dev, ino_t ino);
bool broker_created_full(const struct broker_state *s);

#endif
