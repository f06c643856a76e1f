/*
 * Renamed directories of a change set (renames.c). An overlay made with
 * redirects (by root: plan_overlay_premount) records a host directory the
 * run renamed as a directory at the new path marked with the old one
 * (redirect) and with the host directory's handle (origin), and a
 * whiteout at the old path. Read so, the change is listed as a rename
 * and applied as one: the host directory the run saw moved in one step,
 * then the changes inside it applied below the new name. Without
 * redirects (userxattr) there are none: the run's mv copied and removed.
 */
#ifndef PROCAGE_CHANGES_RENAMES_H
#define PROCAGE_CHANGES_RENAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "marks.h"

enum rename_state {
	RENAME_PENDING, /* not (yet) done on the host */
	RENAME_DONE,    /* done: the host directory is at the new path */
};

struct changes_rename {
	char *new_rel;      /* below the tree root, where the run put it */
	char *old_rel;      /* below the tree root, where the host had it */
	enum rename_state state;
	bool file;          /* a regular file, else a directory */
	bool deferred;      /* its new parent was not on the host yet: tried in the walk */
};

struct changes_renames {
	struct changes_rename *items; /* shallowest new path first */
	size_t n;
};

/*
 * Every redirect of the upper layer at upper (a directory), into r; and,
 * where host_root (the tree on the host, at path tree) is given, every
 * file copied up whose origin mark names a host file of the tree at
 * another path (a file the run renamed: overlayfs copies it up whole,
 * with no redirect), found by its handle.
 */
int renames_collect(const struct overlay_marks *m, int upper, int host_root, const char *tree,
		    struct changes_renames *r);
void renames_free(struct changes_renames *r);

/* The rename whose new path is rel, or NULL. */
struct changes_rename *renames_at_new(const struct changes_renames *r, const char *rel);
/*
 * Where the host holds, now, what it held at rel when the run started
 * (rel moved with the renames done so far), in buf.
 */
void renames_host_now(const struct changes_renames *r, const char *rel, char *buf, size_t size);
/*
 * Where the run's overlay held rel's entry before its own rename: the
 * path of the whiteout rename x left, in buf.
 */
void renames_whiteout_of(const struct changes_renames *r, const struct changes_rename *x,
			 char *buf, size_t size);
/*
 * A rename not done whose host directory lies at or below rel (in the
 * host's terms now), or NULL: removing rel would lose it.
 */
const struct changes_rename *renames_pending_below(const struct changes_renames *r,
						   const char *rel);
/* The rename not done that left the whiteout rel, or NULL. */
const struct changes_rename *renames_pending_whiteout(const struct changes_renames *r,
						      const char *rel);

#endif
