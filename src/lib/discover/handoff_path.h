/*
 * The search path in the trust-handoff report: the directories of
 * the caller's $PATH that lie inside a writable tree (a project's
 * activated .venv/bin or node_modules/.bin, a direnv bin/). A program a
 * run makes there under the name of a command found later in $PATH (ls,
 * git, sudo) is what the user's next command of that name outside the
 * cage runs. Their names are listed before the run and compared after it.
 */
#ifndef PROCAGE_HANDOFF_PATH_H
#define PROCAGE_HANDOFF_PATH_H

#include <stddef.h>

struct search_path_dir {
	char *dir;    /* canonical */
	size_t order; /* its place among the absolute entries of $PATH */
	char **names; /* sorted, at the snapshot */
	size_t n_names;
};

struct search_path {
	char **entries; /* every absolute entry of $PATH, canonical, in order */
	size_t n_entries;
	struct search_path_dir *dirs; /* those inside a writable tree */
	size_t n_dirs;
};

/*
 * The entries of path_variable (the caller's $PATH; NULL: none) inside the
 * trees, with their names now. 0, or -ENOMEM.
 */
int search_path_snapshot(const char *path_variable, char *const *trees, size_t n_trees,
			 struct search_path *out);

/*
 * Each program made since the snapshot under the name of a command of a
 * later entry, as a line of the report (names quoted as a shell reads
 * them back), in a NULL-terminated list *lines. 0, or -ENOMEM.
 */
int search_path_compare(const struct search_path *sp, char ***lines);

void search_path_free(struct search_path *sp);

#endif
