/*
 * The public face of change sets (procage.h): list the kept ones, show
 * one, apply it by rule, discard it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "base/string_list.h"
#include "diff.h"
#include "spare.h"
#include "store.h"

static int id_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

PROCAGE_API int procage_changes_list(char ***ids, struct procage_error *err)
{
	char store[PATH_MAX];
	int fd;
	size_t n = 0;
	error_clear(err);
	*ids = NULL;
	int rc = changes_store_open(store, sizeof store, &fd, err);
	if (rc < 0)
		return rc;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (e->d_name[0] != '.' && string_list_append(ids, &n, e->d_name) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
	closedir(d);
	/* IDs begin with the time they were made: by name is oldest first. */
	if (rc == 0 && n)
		qsort(*ids, n, sizeof **ids, id_compare);
	return rc;
}

static int set_open(const char *id, int *store_fd, int *set_fd, struct procage_error *err)
{
	char store[PATH_MAX];
	int rc = changes_store_open(store, sizeof store, store_fd, err);
	if (rc == 0 && (rc = changes_set_open(*store_fd, id, set_fd, err)) < 0)
		close(*store_fd);
	return rc;
}

PROCAGE_API int procage_changes_discard(const char *id, struct procage_error *err)
{
	int store_fd, set_fd;
	error_clear(err);
	if (!id)
		return error_set(err, -EINVAL, "no change set ID given");
	int rc = set_open(id, &store_fd, &set_fd, err), claim = -1;
	if (rc < 0)
		return rc;
	rc = changes_set_claim(set_fd, id, &claim, err);
	close(set_fd);
	if (rc < 0) {
		close(store_fd);
		return rc;
	}
	rc = changes_remove_tree(store_fd, id);
	close(claim);
	close(store_fd);
	return rc < 0 ? error_set_sys(err, -rc, PROCAGE_STEP_NONE, "removing change set %s", id)
		      : 0;
}

/* What a walk gives back in its lines. */
enum set_lines {
	LINES_SHOWN,   /* procage_changes_show's, or apply's report */
	LINES_ENTRIES, /* procage_changes_entries' */
	LINES_RENAMES, /* procage_changes_renames' paths */
};

/* Walk every tree of set id in mode; what kind asks for in *lines. */
static int set_walk(const char *id, enum changes_walk_mode mode, const char *const *paths,
		    size_t n_paths, char ***lines, bool *emptied, enum set_lines kind,
		    struct procage_error *err)
{
	struct changes_tree *trees = NULL;
	const char *roots[CHANGES_MAX_TREES];
	struct changes_walk w = { .mode = mode, .filter = paths, .n_filter = n_paths,
				  .entries = kind != LINES_SHOWN };
	int store_fd, set_fd, claim = -1;
	size_t n = 0;
	int rc = set_open(id, &store_fd, &set_fd, err);
	if (rc < 0)
		return rc;
	/* Shown while its run goes on; applied only once it has ended, by one apply at a time. */
	if (mode != CHANGES_LIST && (rc = changes_set_claim(set_fd, id, &claim, err)) < 0) {
		close(set_fd);
		close(store_fd);
		return rc;
	}
	rc = changes_trees_read(set_fd, &trees, &n, err);
	if (rc == 0)
		rc = changes_started_read(set_fd, &w.started, err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		roots[i] = trees[i].path;
	/* The judge is made at the first entry it must see: an empty change set needs none. */
	w.roots = roots;
	w.n_roots = n;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = changes_tree_walk(&w, &trees[i], err);
	if (w.judge_ready)
		changes_judge_free(&w.judge);
	changes_trees_close(trees, n);
	close(set_fd);
	*emptied = rc == 0 && mode != CHANGES_LIST && w.remaining == 0;
	/* Let go before it may become the spare, which the next run claims. */
	if (claim >= 0)
		close(claim);
	if (*emptied)
		changes_set_retire(store_fd, id);
	close(store_fd);
	if (kind == LINES_RENAMES) {
		procage_strings_free(w.lines);
		w.lines = w.renamed_from;
		if (rc == 0 && !w.lines && !(w.lines = calloc(1, sizeof *w.lines)))
			rc = -ENOMEM;
	} else {
		procage_strings_free(w.renamed_from);
	}
	*lines = w.lines;
	if (rc < 0) {
		procage_strings_free(w.lines);
		*lines = NULL;
	}
	return rc;
}

/* Set id listed as kind asks, in *out; what names what *out holds, for the error. */
static int set_list(const char *id, char ***out, enum set_lines kind, const char *what,
		    struct procage_error *err)
{
	bool emptied;
	error_clear(err);
	if (!id || !out)
		return error_set(err, -EINVAL, "no change set ID or no place for the %s given",
				 what);
	return set_walk(id, CHANGES_LIST, NULL, 0, out, &emptied, kind, err);
}

PROCAGE_API int procage_changes_show(const char *id, char ***lines, struct procage_error *err)
{
	return set_list(id, lines, LINES_SHOWN, "lines", err);
}

PROCAGE_API int procage_changes_entries(const char *id, char ***entries, struct procage_error *err)
{
	return set_list(id, entries, LINES_ENTRIES, "entries", err);
}

PROCAGE_API int procage_changes_renames(const char *id, char ***paths, struct procage_error *err)
{
	return set_list(id, paths, LINES_RENAMES, "paths", err);
}

static int paths_check(const char *what, const char *const *paths, size_t n_paths,
		       struct procage_error *err)
{
	for (size_t i = 0; i < n_paths; i++)
		if (!paths[i] || paths[i][0] != '/')
			return error_set(err, -EINVAL, "%s: %s is not an absolute path", what,
					 paths[i] ? paths[i] : "(null)");
	return 0;
}

PROCAGE_API int procage_changes_diff(const char *id, const char *const *paths, size_t n_paths,
				     char **text, struct procage_error *err)
{
	struct changes_tree *trees = NULL;
	struct changes_diff d = { .filter = paths, .n_filter = n_paths };
	int store_fd, set_fd;
	size_t n = 0, size = 0;
	error_clear(err);
	if (!id || !text)
		return error_set(err, -EINVAL, "no change set ID or no place for the diff given");
	*text = NULL;
	int rc = paths_check("diff", paths, n_paths, err);
	if (rc == 0)
		rc = set_open(id, &store_fd, &set_fd, err);
	if (rc < 0)
		return rc;
	close(store_fd);
	struct timespec started;
	rc = changes_started_read(set_fd, &started, err);
	if (rc == 0)
		rc = changes_trees_read(set_fd, &trees, &n, err);
	close(set_fd);
	if (rc < 0)
		return rc;
	if (!(d.out = open_memstream(text, &size))) {
		changes_trees_close(trees, n);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = changes_diff_tree(&d, &trees[i], err);
	changes_trees_close(trees, n);
	if (fclose(d.out) != 0 && rc == 0)
		rc = error_set(err, -ENOMEM, "out of memory");
	if (rc < 0) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

PROCAGE_API int procage_changes_apply(const char *id, int rule, const char *const *paths,
				      size_t n_paths, char ***lines, int *kept,
				      struct procage_error *err)
{
	bool emptied = false;
	error_clear(err);
	if (!id || !lines)
		return error_set(err, -EINVAL, "no change set ID or no place for the lines given");
	*lines = NULL;
	if (rule != PROCAGE_APPLY_SAFE && rule != PROCAGE_APPLY_ALL && rule != PROCAGE_APPLY_NONE)
		return error_set(err, -EINVAL, "apply: %d is no rule (safe, all or none)", rule);
	int rc = paths_check("apply", paths, n_paths, err);
	if (rc < 0)
		return rc;
	if (rule == PROCAGE_APPLY_NONE) {
		if (kept)
			*kept = 1;
		return 0;
	}
	rc = set_walk(id, rule == PROCAGE_APPLY_ALL ? CHANGES_ALL : CHANGES_SAFE, paths, n_paths,
		      lines, &emptied, LINES_SHOWN, err);
	if (kept)
		*kept = !emptied;
	return rc;
}
