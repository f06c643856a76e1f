/*
 * Tier T1: what the mounts of every spawn of a cage have in common,
 * worked out once when the cage is made (plan/plan_mounts.c lays them).
 * Each denial that exists at spawn is masked; inside the outermost grant
 * through which it could be renamed, every directory between that grant
 * and the denial is pinned. Which paths those are depends only on the
 * cage: here they are, each once, sorted. Whether a denial exists at
 * spawn, and what it is then, only the spawn can judge.
 */
#ifndef PROCAGE_CAGE_MASKS_H
#define PROCAGE_CAGE_MASKS_H

#include <stddef.h>
#include <sys/types.h>

struct procage_cage;
struct procage_error;

struct cage_masks {
	/* Every denial's and every pin's path, sorted by strcmp, each once. */
	const char **paths;
	size_t n_paths;
	size_t *denial_path; /* per denial of the cage: its index in paths */
	/*
	 * The pins of denial d, outermost first, as indices in paths:
	 * pins[pin_first[d]] up to pins[pin_first[d + 1]] (n_denials + 1 of them).
	 */
	size_t *pins;
	size_t *pin_first;
	char **owned; /* the pins' strings */
	size_t n_owned;
	/*
	 * The write grants on directories and regular files that stay
	 * writable when the rest turns read-only: the outermost of nested
	 * ones, each once, in the order of the grants.
	 */
	const char **writable;
	size_t n_writable;
};

/* Fill c->masks from c->denials and c->grants (tier T1). */
int cage_masks_build(struct procage_cage *c, struct procage_error *err);
void cage_masks_free(struct cage_masks *m);

/*
 * The nearest proper ancestor of path among the n elements of base, each
 * size bytes with a path (const char *) at offset, sorted by strcmp, for
 * which pick(index, ctx) holds (NULL: any): its index, or -1. "/" is an
 * ancestor of every other path, as path_within says.
 */
ssize_t cage_sorted_ancestor(const void *base, size_t n, size_t size, size_t offset,
			     const char *path, int (*pick)(size_t index, void *ctx), void *ctx);
/* The index of path among them, or -1. */
ssize_t cage_sorted_find(const void *base, size_t n, size_t size, size_t offset, const char *path);

#endif
