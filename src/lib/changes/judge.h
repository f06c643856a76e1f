/*
 * The rules of --apply safe (judge.c): what a host program would execute
 * or trust is held back and named; ordinary content goes through.
 */
#ifndef PROCAGE_CHANGES_JUDGE_H
#define PROCAGE_CHANGES_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/error.h"
#include "policy/classes.h"

struct changes_judge {
	struct class_locations classes; /* every class's locations, on this host */
	char **path_dirs;               /* the caller's $PATH, canonical */
	size_t n_path_dirs;
};

int changes_judge_init(struct changes_judge *j, const char *const *roots, size_t n_roots,
		       struct procage_error *err);
void changes_judge_free(struct changes_judge *j);

/*
 * Why the entry at host path (rel: below the tree root) may not be
 * applied, in why, or false when it may. st: the entry in the upper
 * layer (upper_dir, name); host_dir: its parent on the host, or -1 when
 * that does not exist yet; host_exists: the host holds the name now.
 */
bool changes_judge_hold(const struct changes_judge *j, const char *tree, const char *rel,
			const char *path, const struct stat *st, int upper_dir, const char *name,
			int host_dir, bool host_exists, char *why, size_t size);

/*
 * Why a host directory the run renamed to path_new (rel_new below the
 * tree root) may not be moved there, in why, or false when it may. All
 * it holds arrives with it, unjudged: held when it lands in a git
 * directory or becomes one, where a class's location lies at, below or
 * above it, or when it becomes (or holds) a directory of $PATH.
 */
bool changes_judge_hold_move(const struct changes_judge *j, const char *rel_new,
			     const char *path_new, char *why, size_t size);

#endif
