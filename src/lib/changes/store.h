/*
 * The store of change sets: a directory of procage's own, outside every
 * grant, holding one directory per change set (its ID), each holding one
 * numbered directory per overlaid tree with the overlay's upper and work
 * directories, a file "trees" naming each tree (its root's device and
 * inode when the run started, the overlay's marks, its path on the host)
 * and a file "started" (the start mark, the boot).
 *
 *   $XDG_STATE_HOME/procage/changes/ID/trees
 *   $XDG_STATE_HOME/procage/changes/ID/started
 *   $XDG_STATE_HOME/procage/changes/ID/0/upper
 *   $XDG_STATE_HOME/procage/changes/ID/0/work
 *
 * ($XDG_STATE_HOME when absolute, else $HOME/.local/state.) Every
 * component is opened without following a link, and procage's own
 * directories must be the caller's and closed to others (0700).
 */
#ifndef PROCAGE_CHANGES_STORE_H
#define PROCAGE_CHANGES_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"

/* The most trees one change set holds (the outermost write grants). */
#define CHANGES_MAX_TREES 64
/* An ID: the time it was made and random letters, YYYYMMDD-HHMMSS-xxxxxxxx. */
#define CHANGES_ID_MAX 32

/* The store's path (in buf), made if missing; its descriptor (O_DIRECTORY). */
int changes_store_open(char *buf, size_t size, int *fd, struct procage_error *err);
/* A new, empty change set's directory in the store: its ID (in id) and descriptor. */
int changes_set_create(int store_fd, char id[CHANGES_ID_MAX], int *fd, struct procage_error *err);
/* An existing change set by its ID, checked to be a name and no link. */
int changes_set_open(int store_fd, const char *id, int *fd, struct procage_error *err);

struct changes_tree {
	char path[PATH_MAX]; /* the host tree, canonical when the run started */
	int dir_fd;          /* the tree's directory in the change set (N), or -1 */
	dev_t root_dev;      /* the tree root's identity when the run started */
	ino_t root_ino;
	/*
	 * The overlay's marks are trusted.overlay.* (made by root, with
	 * redirects: renames.h), else user.overlay.* (userxattr, none).
	 */
	bool trusted_marks;
};

/* The trees of a change set, read from its "trees" file (*trees owned). */
int changes_trees_read(int set_fd, struct changes_tree **trees, size_t *n,
		       struct procage_error *err);
/* Closes their descriptors and frees the array. */
void changes_trees_close(struct changes_tree *trees, size_t n);
/* The identity of this boot of the machine (a UUID), in id. */
#define CHANGES_BOOT_ID_MAX 40
int changes_boot_id(char id[CHANGES_BOOT_ID_MAX]);
/*
 * When the change set's run started (its "started" file: the start mark
 * and the boot it was made in); a change set of an earlier boot is
 * refused, -ESTALE.
 */
int changes_started_read(int set_fd, struct timespec *t, struct procage_error *err);
/*
 * A change set claimed (*lock_fd, closed to let go): its run holds the
 * claim from its spawn until it has ended and its layers are in the store,
 * and apply and discard take it for as long as they work. A set claimed
 * already is -EBUSY: its run still writes into it through the overlay, or
 * another apply moves files out of it, and applying or removing it then
 * would leave the overlay undefined and the host half done.
 */
int changes_set_claim(int set_fd, const char *id, int *lock_fd, struct procage_error *err);

#endif
