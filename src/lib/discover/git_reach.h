/*
 * Where git's own discovery leads from a directory (setup.c,
 * setup_git_directory_gently_1): upward from it, the first ".git" that
 * is a store (a directory, or a link to one) or a gitfile naming one, or
 * the first directory that is a store itself (a bare repository), with
 * GIT_DIR and GIT_CEILING_DIRECTORIES unset, stopping where git stops: at
 * a file system's boundary, or at a gitfile naming no store (git fails).
 *
 * A run can rearrange a repository with git's own names and leave its
 * .git/config and .git/hooks untouched: a ".git" directory, a gitfile
 * (gitdir: ../evil) or a bare layout (HEAD, objects, refs) made in a
 * directory of a work tree makes git, run there afterwards, take the
 * run's directory for the repository and run its config and hooks. The
 * trust-handoff report records before the run, by identity
 * (device and inode), where discovery leads from a bounded set of
 * directories, and compares after it (reach_points_compare).
 */
#ifndef PROCAGE_GIT_REACH_H
#define PROCAGE_GIT_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct git_reach {
	bool found;
	dev_t dev; /* the git directory's identity */
	ino_t ino;
	dev_t common_dev; /* its common directory's (itself without a commondir) */
	ino_t common_ino;
	char *gitdir; /* canonical */
	char *common; /* canonical, NULL without a commondir naming another */
};

/* Where discovery from dir (canonical) leads now: 0 (found or not), or -ENOMEM. */
int git_reach_from(const char *dir, struct git_reach *out);
void git_reach_free(struct git_reach *r);

struct reach_point {
	char *dir; /* canonical */
	struct git_reach was;
};

/* The directories recorded before a run, each with where discovery led from it. */
struct reach_points {
	struct reach_point *items;
	size_t n;
};

/* Record dir (canonical) with where discovery leads from it now; a dir missing or recorded is
 * skipped. 0, -ENOMEM. */
int reach_points_add(struct reach_points *p, const char *dir);

/*
 * After the run: each recorded directory, and each candidate (a directory
 * where a ".git" or a store was made or found new), from which discovery
 * now leads to another git directory than it did before the run, when it
 * led to one then (it lay in a work tree). A candidate's "before" is its
 * nearest recorded directory above it. One line each in *lines (quoted
 * as a shell reads names back), the git directories they name in *named;
 * both NULL-terminated (procage_strings_free). 0, or -ENOMEM.
 */
int reach_points_compare(const struct reach_points *p, char *const *candidates, size_t n_candidates,
			 char ***lines, char ***named);

void reach_points_free(struct reach_points *p);

#endif
