/*
 * Tier T1: the mounts of one spawn, laid over what exists now (the spawn
 * snapshot). Each denial becomes a mask; inside the outermost writable
 * tree that holds it, every directory between the tree and the denial is
 * pinned (bound over itself) so that no rename can carry a mask away and
 * leave the path free to be made again; a cage that may use Unix sockets
 * gets a mask over every other socket bound at spawn. Then everything but
 * the write grants is made read-only, because Landlock does not judge
 * metadata calls (chmod, chown, utimes, xattrs): a read-only mount refuses
 * them all with EROFS.
 *
 * Also here: the working directory, which the child enters by its
 * canonical path after the mounts (a directory inherited from before them
 * would lie under the masks and pins, not beneath them).
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage/cage.h"
#include "base/error.h"
#include "plan.h"
#include "discover/sockets.h"
#include "base/syscalls.h"

/*
 * The kinds one spawn gives the cage's mask paths (cage->masks.paths):
 * a plan_mount_kind, or -1 for none. Each denial that exists now is
 * masked, its pins with it; the first to claim a path keeps it.
 */
static int denials_mark(const struct procage_cage *cage, signed char *kind,
			struct procage_error *err)
{
	const struct cage_masks *m = &cage->masks;
	for (size_t i = 0; i < cage->n_denials; i++) {
		const struct cage_path *d = &cage->denials[i];
		struct stat st;
		/*
		 * A denial of a path missing when the cage was made cannot be
		 * masked while it is missing (the end-of-run report checks
		 * it); if it has come to exist since, it is masked like any.
		 */
		if (lstat(d->path, &st) != 0) {
			if (d->absent)
				continue;
			return error_set(err, -ESTALE,
					 "%s was there when the cage was made and is gone now (moved "
					 "or removed); make the cage again",
					 d->path);
		}
		if (S_ISLNK(st.st_mode))
			return error_set(err, -ESTALE,
					 "%s has become a symbolic link since the cage was made; "
					 "make the cage again",
					 d->path);
		for (size_t p = m->pin_first[i]; p < m->pin_first[i + 1]; p++)
			if (kind[m->pins[p]] < 0)
				kind[m->pins[p]] = PLAN_MOUNT_PIN;
		if (kind[m->denial_path[i]] < 0)
			kind[m->denial_path[i]] = d->access == PROCAGE_PROTECT ? PLAN_MOUNT_READ_ONLY
						  : S_ISDIR(st.st_mode)	     ? PLAN_MOUNT_HIDE_DIR
									     : PLAN_MOUNT_HIDE_FILE;
	}
	return 0;
}

static bool socket_granted(const struct procage_cage *cage, const char *path)
{
	for (size_t i = 0; i < cage->n_sockets; i++)
		if (strcmp(cage->sockets[i].path, path) == 0)
			return true;
	return false;
}

static int string_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A cage that may use Unix sockets reaches only those it names: every
 * other socket bound now gets a mask, unless a mask path of the cage is
 * taken by the same path already. Sorted, each once, in *out (owned).
 */
static int sockets_collect(const struct procage_cage *cage, const signed char *kind,
			   char ***out, size_t *n_out, struct procage_error *err)
{
	const struct cage_masks *m = &cage->masks;
	char **bound = NULL;
	size_t n = 0, kept = 0;
	int rc = sockets_bound(&bound, &n, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *path = bound[i];
		bound[i] = NULL;
		if (socket_granted(cage, path) || lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
			free(path);
		else
			bound[kept++] = path;
	}
	if (kept)
		qsort(bound, kept, sizeof *bound, string_compare);
	size_t unique = 0;
	for (size_t i = 0; i < kept; i++) {
		char *path = bound[i];
		ssize_t at = cage_sorted_find(m->paths, m->n_paths, sizeof *m->paths, 0, path);
		bound[i] = NULL;
		if ((unique && strcmp(bound[unique - 1], path) == 0) || (at >= 0 && kind[at] >= 0))
			free(path);
		else
			bound[unique++] = path;
	}
	/* Room for the NULL that ends the list the plan owns. */
	char **list = realloc(bound, (unique + 1) * sizeof *list);
	if (!list) {
		sockets_free(bound, unique);
		return error_set(err, -ENOMEM, "out of memory");
	}
	list[unique] = NULL;
	*out = list;
	*n_out = unique;
	return 0;
}

static int hides(size_t index, void *mounts)
{
	enum plan_mount_kind k = ((const struct plan_mount *)mounts)[index].kind;
	return k == PLAN_MOUNT_HIDE_DIR || k == PLAN_MOUNT_HIDE_FILE;
}

/*
 * The mounts in path order (ancestors first), from the cage's marked
 * paths and the sockets, both sorted; nothing below a hidden path, which
 * cannot be reached.
 */
static int mounts_merge(const struct procage_cage *cage, const signed char *kind,
			char **sockets, size_t n_sockets, struct plan *plan)
{
	const struct cage_masks *m = &cage->masks;
	size_t n = 0, i = 0, j = 0, kept = 0;
	struct plan_mount *all = calloc(m->n_paths + n_sockets + 1, sizeof *all);
	bool *hidden = calloc(m->n_paths + n_sockets + 1, sizeof *hidden);
	if (!all || !hidden) {
		free(all);
		free(hidden);
		return -ENOMEM;
	}
	while (i < m->n_paths || j < n_sockets) {
		if (i < m->n_paths && kind[i] < 0) {
			i++;
		} else if (j == n_sockets || (i < m->n_paths && strcmp(m->paths[i], sockets[j]) < 0)) {
			all[n++] = (struct plan_mount){ kind[i], m->paths[i], false };
			i++;
		} else {
			all[n++] = (struct plan_mount){ PLAN_MOUNT_HIDE_FILE, sockets[j++], true };
		}
	}
	for (size_t k = 0; k < n; k++)
		hidden[k] = cage_sorted_ancestor(all, n, sizeof *all, offsetof(struct plan_mount, path),
						 all[k].path, hides, all) >= 0;
	for (size_t k = 0; k < n; k++)
		if (!hidden[k])
			all[kept++] = all[k];
	free(hidden);
	plan->mounts = all;
	plan->n_mounts = kept;
	return 0;
}

/* Add path to the writable trees unless one of them holds it; drop those it holds. */
static void writable_add(struct plan_writable *w, size_t *n, const char *path)
{
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++)
		if (path_within(path, w[i].path))
			return;
	for (size_t i = 0; i < *n; i++)
		if (!path_within(w[i].path, path))
			w[kept++] = w[i];
	w[kept++] = (struct plan_writable){ path, -1, -1 };
	*n = kept;
}

/*
 * The trees that stay writable: the cage's (its write grants on
 * directories and regular files, cage_masks), the run's temporary
 * directory and its shared memory.
 */
static int writable_build(const struct procage_cage *cage, const char *tmpdir, struct plan *plan,
			  struct procage_error *err)
{
	const struct cage_masks *m = &cage->masks;
	struct plan_writable *w = calloc(m->n_writable + 2, sizeof *w);
	size_t n = 0;
	if (!w)
		return error_set(err, -ENOMEM, "out of memory");
	for (; n < m->n_writable; n++)
		w[n] = (struct plan_writable){ m->writable[n], -1, -1 };
	if (tmpdir)
		writable_add(w, &n, tmpdir);
	if (cage->shm_mount)
		writable_add(w, &n, cage->shm_mount);
	/* A writable root leaves nothing to make read-only. */
	plan->read_only_mounts = !(n == 1 && strcmp(w[0].path, "/") == 0);
	plan->writable = w;
	plan->n_writable = plan->read_only_mounts ? n : 0;
	return 0;
}

int plan_cwd_resolve(const char *cwd, struct plan *plan, struct procage_error *err)
{
	char here[PATH_MAX];
	if (!cwd && !(cwd = getcwd(here, sizeof here)))
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "the working directory (removed, or out of reach)");
	char *canonical = realpath(cwd, NULL);
	if (!canonical)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "working directory %s",
				     cwd);
	plan->cwd = canonical;
	return 0;
}

int plan_mounts_build(const struct procage_cage *cage, const char *tmpdir, struct plan *plan,
		      struct procage_error *err)
{
	char **sockets = NULL;
	size_t n_sockets = 0;
	int rc = writable_build(cage, tmpdir, plan, err);
	if (rc < 0)
		return rc;
	signed char *kind = malloc(cage->masks.n_paths + 1);
	if (!kind)
		return error_set(err, -ENOMEM, "out of memory");
	memset(kind, -1, cage->masks.n_paths + 1);
	rc = denials_mark(cage, kind, err);
	if (rc == 0 && cage->n_sockets)
		rc = sockets_collect(cage, kind, &sockets, &n_sockets, err);
	if (rc == 0 && mounts_merge(cage, kind, sockets, n_sockets, plan) < 0)
		rc = error_set(err, -ENOMEM, "out of memory");
	free(kind);
	plan->owned_paths = sockets; /* NULL-terminated, the plan's from here */
	return rc;
}
