/*
 * The repositories a later git on the host (or an editor scanning the
 * workspace) finds from the writable trees, by git's own rules, and what
 * in them git runs or reads: the effective hooks directory, every config
 * file (includes followed), the stores gitfiles and commondir point at,
 * worktrees and submodules. Discovery is bounded (REPOSITORY_SCAN_DEPTH)
 * so that its cost does not grow with the tree; metadata links are
 * followed at any depth.
 */
#ifndef PROCAGE_REPOSITORIES_H
#define PROCAGE_REPOSITORIES_H

#include <stdbool.h>
#include <stddef.h>

#include "procage.h"

/*
 * How deep below a writable tree's root directories are read to find
 * work trees and bare repositories: 2 reads the root, its children and
 * its grandchildren, so a repository whose work tree is the root, a child
 * or a grandchild is found, as an editor's workspace scan finds it.
 * Nothing deeper is read, and no directory named node_modules is entered
 * below a tree's root (editors skip it too): an existing repository deeper
 * than this or inside node_modules is not protected; what a run writes
 * where git runs there is named only through its observed calls
 * (handoff_observed.h, THREAT_MODEL.md R-07).
 */
#define REPOSITORY_SCAN_DEPTH 2

/* git's own bound on nested includes (config.c, MAX_INCLUDE_DEPTH). */
#define REPOSITORY_INCLUDE_DEPTH 10

struct repo_location {
	char *path;  /* canonical; for an absent one, its parent's canonical path and the rest */
	bool absent; /* did not exist when found: it cannot be masked, only checked */
};

struct repo_gitfile {
	char *path;   /* the .git file, canonical */
	char *target; /* what it named (gitdir: ...), as written */
};

/*
 * A protected location that is a symbolic link (.git/hooks -> ../.githooks):
 * its target is held, but on tier T1 no mount can hold the link itself,
 * which a run could replace; the end-of-run report checks it.
 */
struct repo_link {
	char *path;   /* the link, its parent canonical */
	char *target; /* what it named */
};

/*
 * What git writes for a work tree inside a writable tree whose git
 * directory lies outside every one (a linked worktree's
 * $GIT_DIR/worktrees/NAME, a submodule's store in the superproject):
 * granted so that status, add, commit and checkout work there, while the
 * hooks and config of those stores stay read-only.
 */
struct repo_grant {
	char *path; /* canonical */
	bool write; /* else read */
};

struct repositories {
	struct repo_location *protect; /* what the trust-handoff class keeps read-only */
	size_t n_protect;
	char **stores; /* canonical git directories (GIT_DIR, common dirs) */
	size_t n_stores;
	struct repo_gitfile *gitfiles;
	size_t n_gitfiles;
	struct repo_grant *grants;
	size_t n_grants;
	struct repo_link *links;
	size_t n_links;
	/* The work trees the scan found below the trees (canonical): where editors open. */
	char **worktrees;
	size_t n_worktrees;
};

/* Options of repositories_find. */
enum {
	/* Make a missing hooks directory in a store inside a writable tree. */
	REPOSITORIES_MAKE_HOOKS = 1 << 0,
	/* Refuse a writable tree that is, or lies inside, a repository store. */
	REPOSITORIES_REFUSE_STORES = 1 << 1,
};

/*
 * Find the repositories of the canonical writable trees. home expands
 * "~/" in config paths (may be NULL). On failure *out is empty.
 */
int repositories_find(const char *const *trees, size_t n_trees, const char *home, unsigned options,
		      struct repositories *out, struct procage_error *err);
void repositories_free(struct repositories *r);

#endif
