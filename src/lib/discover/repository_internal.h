/* Shared between repositories.c (the scan, the stores) and repository_config.c. */
#ifndef PROCAGE_REPOSITORY_INTERNAL_H
#define PROCAGE_REPOSITORY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "repositories.h"

struct discovery {
	const char *const *trees;
	size_t n_trees;
	const char *home;
	unsigned options;
	struct repositories *out;
	struct procage_error *err;
	char *buffer; /* getdents64's room, one for the whole discovery */
	size_t buffer_size;
	/* Relative core.hooksPath values of the global and system config: every store's. */
	char *global_hooks_paths[8];
	size_t n_global_hooks_paths;
	size_t modules_read; /* directories read under modules/, against a budget */
};

struct listing_entry {
	char *name;
	bool is_dir;
};

/* A directory's names, and whether it looks like a store or a work tree. */
struct listing {
	struct listing_entry *items;
	size_t n, cap;
	bool has_git, has_head, has_objects, has_refs, has_hooks, has_config;
};

/* names_kept false: only the has_* marks (a directory at the scan's bound). */
int listing_read(struct discovery *d, int fd, struct listing *l, bool names_kept);
int listing_read_path(struct discovery *d, const char *dir, struct listing *l);
/*
 * A directory the discovery could not open (errno e): passed over (0)
 * for a reason of its own, which keeps the cage out too; for one of the
 * caller's process (no descriptor left) the discovery fails, since what
 * lies below would go unprotected (error_walk_passable).
 */
int discovery_unopened(struct discovery *d, const char *path, int e);
int listing_add(int dir_fd, struct listing *l, const char *name, unsigned char type);
void listing_mark(struct listing *l, const char *name);
void listing_free(struct listing *l);

bool discovery_within_trees(const struct discovery *d, const char *path);
int discovery_protect(struct discovery *d, const char *path, bool *absent);
int discovery_store(struct discovery *d, const char *gitdir, const char *worktree, int depth);
int discovery_gitfile(struct discovery *d, const char *path, const char *worktree, int depth);

/* repository_config.c */
int store_configs(struct discovery *d, const char *gitdir, const char *worktree);
int worktree_of(struct discovery *d, const char *worktree_gitdir, char **worktree, int depth);
int worktree_submodules(struct discovery *d, const char *worktree, int depth);
int ancestors_check(struct discovery *d, const char *tree);
/* Does the store's own config (core.worktree) name this work tree (canonical)? */
bool store_names_worktree(const char *gitdir, const char *worktree);
/* The system and global config files: their includes, and their core.hooksPath. */
int global_configs(struct discovery *d);

char *path_join_relative(const char *base, const char *rel, bool base_is_file);
char *file_read_small(const char *path, size_t *len);

#endif
