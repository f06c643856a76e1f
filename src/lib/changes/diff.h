/*
 * What a change set would do to the host trees, as a unified diff
 * (diff.c): each text file the run changed against the host's, an added
 * one against /dev/null, a removed one to /dev/null; a binary file or one
 * too large is named as differing; a mode change and a link's target are
 * stated on lines of their own. Reads only: the host tree from its root,
 * no link followed, the change set from its descriptors.
 */
#ifndef PROCAGE_CHANGES_DIFF_H
#define PROCAGE_CHANGES_DIFF_H

#include <stdio.h>

#include "base/error.h"
#include "marks.h"
#include "renames.h"
#include "store.h"

struct changes_diff {
	FILE *out;
	const char *const *filter; /* absolute host paths; none: everything */
	size_t n_filter;
	/* Of the tree being read (changes_diff_tree sets them): */
	const char *tree;
	const struct overlay_marks *marks;
	struct changes_renames renames;
	int host_root;
};

/* The diff of tree t's upper layer against the host, written to d->out. */
int changes_diff_tree(struct changes_diff *d, const struct changes_tree *t,
		      struct procage_error *err);

#endif
