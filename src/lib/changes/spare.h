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

#endif
