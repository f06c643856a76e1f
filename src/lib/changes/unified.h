/*
 * A unified diff of two texts, line by line (unified.c): the hunks only,
 * with three lines of context, as diff -u writes them after its two
 * header lines. The edit script is Myers' shortest one; past a bound on
 * the edits (a file rewritten whole) the differing middle is shown as
 * removed, then added: still a correct diff, no longer the shortest.
 */
#ifndef PROCAGE_CHANGES_UNIFIED_H
#define PROCAGE_CHANGES_UNIFIED_H

#include <stdio.h>
#include <stddef.h>

/* The hunks turning old (old_len bytes) into new, written to out. 0 or -ENOMEM. */
int unified_hunks(FILE *out, const char *old_text, size_t old_len, const char *new_text,
		  size_t new_len);

#endif
