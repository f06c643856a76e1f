/* Shared by broker_meta.c and broker_meta_judge.c. */
#ifndef PROCAGE_BROKER_META_INTERNAL_H
#define PROCAGE_BROKER_META_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "broker_meta.h"

struct meta_identity {
	dev_t dev;
	ino_t ino;
};

/* Sorted once filled, searched by bisection. */
struct meta_set {
	struct meta_identity *ids;
	size_t n, room;
};

struct broker_meta {
	struct meta_set write;	  /* write grants' roots and the run's temporary directory */
	struct meta_set zones;	  /* the broker's zones: written to through it */
	struct meta_set examined; /* hidden and protected locations: never */
};

/*
 * Is the inode fd (stat st) inside the write grants: itself, or a
 * directory up through `..` from it (from the directory its name is in,
 * for a non-directory), a write root or a zone before any hidden or
 * protected location?
 */
bool broker_meta_writable(const struct broker_meta *m, int fd, const struct stat *st);

#endif
