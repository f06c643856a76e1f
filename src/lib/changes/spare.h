/*
 * A spare change set: the directories of an emptied one kept for the next
 * run instead of removed. Removing a directory frees its block, which a
 * file system mounted with discard hands to the disk at once: an empty
 * change set cost every overlay run nine such frees at its end, and four
 * directories made at its start. A spare has one tree, its upper and work
 * directories empty; it is taken by rename, so that two runs never share
 * one, and checked again when taken.
 */
#ifndef PROCAGE_CHANGES_SPARE_H
#define PROCAGE_CHANGES_SPARE_H

#include <stdbool.h>

/* Its name in the store: a dot hides it from every listing of change sets. */
#define CHANGES_SPARE ".spare"
/* Where what retiring a set leaves of overlayfs's work waits to be removed. */
#define CHANGES_TRASH ".trash"

/*
 * The spare renamed to id, when there is one and it is whole: the set's
 * directory then holds 0/upper and 0/work, both empty. false: id names
 * nothing (a spare found unfit is removed).
 */
bool changes_spare_take(int store_fd, const char *id);

/*
 * The change set id, emptied, kept as the spare when it has one tree and
 * no other spare is kept; removed otherwise.
 */
void changes_set_retire(int store_fd, const char *id);

/*
 * Remove what the store's trash holds (errors ignored: what is left goes
 * next time). Off a run's critical path: beside a spawn's setup.
 */
void changes_trash_empty(int store_fd);
/* The same in the caller's store of change sets, opened here (nothing when it cannot be). */
void changes_store_trash_empty(void);

#endif
