/*
 * Reading a change set's upper layers and applying them to the host
 * trees (apply.c), by identity: every directory of the host tree is
 * opened from the tree root's descriptor, one component at a time,
 * without following a link; every file is written under a temporary name
 * and renamed into place. What is applied leaves the change set; what is
 * held back or fails stays there, named in the lines.
 */
#ifndef PROCAGE_CHANGES_APPLY_H
#define PROCAGE_CHANGES_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/error.h"
#include "judge.h"
#include "marks.h"
#include "renames.h"
#include "store.h"

enum changes_walk_mode {
	CHANGES_LIST,  /* apply nothing; a line per change, with the safe verdict */
	CHANGES_SAFE,  /* apply what the judge lets through */
	CHANGES_ALL,   /* apply everything (set-id bits never) */
};

struct changes_walk {
	enum changes_walk_mode mode;
	const char *const *filter; /* absolute host paths; none: everything */
	size_t n_filter;
	struct changes_judge judge; /* made at the first entry to judge (judge_ready) */
	bool judge_ready;
	const char *const *roots; /* the trees' host paths, for the judge */
	size_t n_roots;
	char **lines; /* NULL-terminated, what was held, failed or listed */
	size_t n_lines;
	size_t applied, remaining;
	struct timespec started; /* when the run began: a host file changed since is a conflict */
	bool entries;            /* CHANGES_LIST: lines as procage_changes_entries */
	char **renamed_from;     /* entries: each rename's old and new host path, in turn */
	size_t n_renamed_from;
	/* Of the tree being walked: */
	const struct overlay_marks *marks; /* the names its overlay's marks have */
	struct changes_renames renames;    /* its renamed directories */
	int host_root;                     /* the tree on the host, or -1 */
	int upper_root;                    /* its upper layer */
	/* The host directory being walked may have lost a file since the run started. */
	bool dir_may_have_lost;
};

/* Shared by the walk's files: a line of its report, printf-like. */
__attribute__((format(printf, 2, 3))) int changes_walk_line(struct changes_walk *w,
							    const char *fmt, ...);
/* Is path (or, below: something under it) among those asked for? */
bool changes_walk_asked(const struct changes_walk *w, const char *path, bool below);
/* The judge made, at its first use. */
int changes_walk_judge_ready(struct changes_walk *w, struct procage_error *err);
/*
 * The renamed directories of the tree (w->renames), before its other
 * changes: listed, or moved on the host (rename_apply.c).
 */
int changes_renames_walk(struct changes_walk *w, const char *tree, int upper,
			 struct procage_error *err);
/* Rename x, whose new parent the walk has made on the host, now. */
int changes_rename_now(struct changes_walk *w, const char *tree, struct changes_rename *x,
		       struct procage_error *err);
/* A directory rel below root, one component at a time, following no link. */
int changes_rel_dir_open(int root, const char *rel, int *out);

/* Walk tree t's upper layer, in w's mode. */
int changes_tree_walk(struct changes_walk *w, const struct changes_tree *t,
		      struct procage_error *err);
/* Remove a directory and everything below it, without following a link. */
int changes_remove_tree(int dir, const char *name);

#endif
