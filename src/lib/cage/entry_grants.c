#include "entry_grants.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/dir_entries.h"
#include "base/error.h"
#include "discover/hardlinks.h"

struct expansion {
	const struct cage_paths *paths;
	struct cage_path *out;
	size_t n_out;
	struct broker_zones *zones; /* or NULL */
	/* Tier T1: what exists is masked; only what is missing shapes the grants. */
	bool masks_hold_existing;
	/* Every hidden and protected location, inside the grants or not. */
	const struct cage_path *examined;
	size_t n_examined;
	/* Their files with more than one name, walked once when first needed. */
	struct hardlink_inode *linked;
	size_t n_linked;
	bool linked_walked;
};

static int out_add(struct expansion *x, const char *path, enum procage_access access, int depth,
		   bool no_directory)
{
	char *copy = strdup(path);
	struct cage_path *grown = copy ? realloc(x->out, (x->n_out + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	x->out = grown;
	x->out[x->n_out++] = (struct cage_path){ .path = copy,
						 .access = access,
						 .cls = depth ? CAGE_PATH_LISTED : -1,
						 .no_directory = no_directory };
	return 0;
}

/*
 * Does a denial that matters for access lie strictly below path? A
 * missing location matters only where something could be made (a write
 * grant), never for reading: there is nothing to read. Where masks hold
 * what exists (tier T1), only the missing ones do.
 */
static bool denial_below(const struct expansion *x, const char *path, enum procage_access access,
			 bool hidden_only)
{
	for (size_t i = 0; i < x->paths->n_denials; i++) {
		const struct cage_path *d = &x->paths->denials[i];
		if (strcmp(d->path, path) == 0 || !path_within(d->path, path))
			continue;
		if (d->absent) {
			if (!hidden_only && access == PROCAGE_WRITE)
				return true;
			continue;
		}
		if (x->masks_hold_existing)
			continue;
		if (d->access == PROCAGE_HIDE || (!hidden_only && access == PROCAGE_WRITE))
			return true;
	}
	return false;
}

/*
 * A directory of a write grant granted only reading, or nothing, because
 * of the denials below it: a zone of the broker, where the supervisor
 * makes the new entries whose names no denial starts with (and, in a git
 * directory, only git's own names: broker_zones.c). Every denial below
 * names one, those that exist and those still missing (a user unit
 * directory, a startup file): on tier T1 too, where the broker acts
 * outside the run's mounts, so a masked name must not be moved or
 * opened by it either.
 */
static int zone_record(struct expansion *x, const char *path)
{
	int rc = 0;
	if (!x->zones)
		return 0;
	for (size_t i = 0; rc == 0 && i < x->paths->n_denials; i++) {
		const struct cage_path *d = &x->paths->denials[i];
		if (strcmp(d->path, path) != 0 && path_within(d->path, path))
			rc = broker_zones_add(x->zones, path, d->path);
	}
	return rc;
}

/*
 * The access an entry grant may give path, a file with no denial below it:
 * access, unless it is a second name of a hidden or protected file. A rule
 * is on the inode, so granting that name would grant the file under its
 * denied name too (the hard-link check refuses the spawn, but report mode
 * lets it go on): a hidden one gets nothing (-1), a protected one reading.
 */
static int linked_file_access(struct expansion *x, const char *path, unsigned char type,
			      enum procage_access access, int *out)
{
	struct stat st;
	*out = (int)access;
	/* Only a regular file has names to share; its directory entry may say so. */
	if ((type != DT_UNKNOWN && type != DT_REG) || lstat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	if (!x->linked_walked) {
		int rc = hardlinks_linked_files(x->examined, x->n_examined, &x->linked,
						&x->n_linked);
		if (rc < 0)
			return rc;
		x->linked_walked = true;
	}
	for (size_t i = 0; i < x->n_linked; i++)
		if (x->linked[i].dev == st.st_dev && x->linked[i].ino == st.st_ino) {
			if (x->linked[i].hidden)
				*out = -1;
			else if (*out == PROCAGE_WRITE)
				*out = PROCAGE_READ;
		}
	return 0;
}

static const struct cage_path *denial_at(const struct expansion *x, const char *path)
{
	for (size_t i = 0; i < x->paths->n_denials; i++)
		if (strcmp(x->paths->denials[i].path, path) == 0)
			return &x->paths->denials[i];
	return NULL;
}

static int expand_node(struct expansion *x, const char *path, unsigned char type,
		       enum procage_access access, int depth);

static int expand_entries(struct expansion *x, const char *dir, enum procage_access access,
			  int depth)
{
	char child[PATH_MAX];
	int rc = 0, got;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	struct dir_entries *d = malloc(sizeof *d);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	dir_entries_begin(d, fd);
	for (struct dir_entry e; rc == 0 && (got = dir_entries_next(d, &e)) != 0;) {
		if (got < 0) {
			rc = got;
			break;
		}
		/* A link's target is governed by the grants on the target. */
		if (e.type == DT_LNK)
			continue;
		if (snprintf(child, sizeof child, "%s/%s", strcmp(dir, "/") ? dir : "", e.name) >=
		    (int)sizeof child)
			continue;
		rc = expand_node(x, child, e.type, access, depth + 1);
	}
	free(d);
	close(fd);
	return rc;
}

/* type: path's type as its directory entry gives it, or DT_UNKNOWN. */
static int expand_node(struct expansion *x, const char *path, unsigned char type,
		       enum procage_access access, int depth)
{
	const struct cage_path *d = denial_at(x, path);
	if (d && d->access == PROCAGE_HIDE)
		return 0;
	if (d)
		access = PROCAGE_READ; /* protected: readable, and so is all below */
	/*
	 * Below a file nothing can be made; its own name is held in its
	 * directory's zone.
	 */
	struct stat st;
	bool named_below = denial_below(x, path, access, false);
	bool below = named_below &&
		     (type == DT_DIR ||
		      (type == DT_UNKNOWN && (lstat(path, &st) != 0 || S_ISDIR(st.st_mode))));
	if (!below) {
		int given;
		int rc = linked_file_access(x, path, type, access, &given);
		if (rc < 0 || given < 0)
			return rc;
		return out_add(x, path, (enum procage_access)given, depth, named_below);
	}
	if (depth > 64)
		return -ELOOP;
	if (access == PROCAGE_WRITE) {
		int rc = zone_record(x, path);
		if (rc < 0)
			return rc;
	}
	/* Reading the directory itself would reach a hidden path below it. */
	if (!denial_below(x, path, access, true)) {
		int rc = out_add(x, path, PROCAGE_READ, depth, false);
		if (rc < 0)
			return rc;
	} else if (x->zones) {
		/* Listed only through the broker, and only if the policy accepts it. */
		int rc = broker_zones_add_listing(x->zones, path);
		if (rc < 0)
			return rc;
	}
	return expand_entries(x, path, access, depth);
}

int entry_grants_expand(const struct cage_paths *paths, const struct cage_path *examined,
			size_t n_examined, bool masks_hold_existing, struct cage_path **out,
			size_t *n_out, struct broker_zones *zones, struct procage_error *err)
{
	struct expansion x = { .paths = paths,
			       .zones = zones,
			       .masks_hold_existing = masks_hold_existing,
			       .examined = examined,
			       .n_examined = n_examined };
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < paths->n_grants; i++)
		rc = expand_node(&x, paths->grants[i].path, DT_UNKNOWN, paths->grants[i].access, 0);
	free(x.linked);
	if (rc < 0) {
		for (size_t i = 0; i < x.n_out; i++)
			free(x.out[i].path);
		free(x.out);
		if (zones)
			broker_zones_free(zones);
		return error_set(err, rc, "granting entry by entry around the denied paths: %s",
				 strerror(-rc));
	}
	*out = x.out;
	*n_out = x.n_out;
	return 0;
}
