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

struct mount_list {
	struct plan_mount *items;
	size_t n, cap;
	char **owned; /* NULL-terminated */
	size_t n_owned;
};

static int list_add(struct mount_list *l, enum plan_mount_kind kind, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].path, path) == 0)
			return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct plan_mount *grown = realloc(l->items, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		l->items = grown;
		l->cap = cap;
	}
	l->items[l->n++] = (struct plan_mount){ kind, path, false };
	return 0;
}

/* A path string the plan keeps alive for as long as its mounts. */
static const char *list_own(struct mount_list *l, char *path)
{
	char **grown = realloc(l->owned, (l->n_owned + 2) * sizeof *grown);
	if (!grown) {
		free(path);
		return NULL;
	}
	l->owned = grown;
	l->owned[l->n_owned++] = path;
	l->owned[l->n_owned] = NULL;
	return path;
}

/*
 * The outermost grant containing path through which it could be renamed:
 * a rename through an outer grant carries a nested one away as well, so
 * pinning stops only at the outermost.
 */
static const char *renaming_grant(const struct procage_cage *cage, const char *path)
{
	const char *best = NULL;
	for (size_t i = 0; i < cage->n_grants; i++) {
		const struct landlock_grant *g = &cage->grants[i];
		if ((g->access & LANDLOCK_ACCESS_FS_REMOVE_DIR) && path_within(path, g->path) &&
		    (!best || strlen(g->path) < strlen(best)))
			best = g->path;
	}
	return best;
}

static int pins_add(struct mount_list *l, const char *root, const char *path)
{
	size_t root_len = strcmp(root, "/") == 0 ? 0 : strlen(root);
	for (const char *slash = strchr(path + root_len + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		char *ancestor = strndup(path, (size_t)(slash - path));
		const char *kept = ancestor ? list_own(l, ancestor) : NULL;
		if (!kept || list_add(l, PLAN_MOUNT_PIN, kept) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int denials_add(const struct procage_cage *cage, struct mount_list *l,
		       struct procage_error *err)
{
	for (size_t i = 0; i < cage->n_denials; i++) {
		const struct cage_path *d = &cage->denials[i];
		struct stat st;
		/*
		 * A denial of a path missing when the cage was made cannot be
		 * masked while it is missing (the end-of-run report checks
		 * it); if it has come to exist since, it is masked like any.
		 */
		if (d->absent && lstat(d->path, &st) != 0)
			continue;
		if (lstat(d->path, &st) != 0)
			return error_set(err, -ENOENT,
					 "%s was there when the cage was made and is gone now (moved "
					 "or removed); make the cage again",
					 d->path);
		if (S_ISLNK(st.st_mode))
			return error_set(err, -ELOOP,
					 "%s has become a symbolic link since the cage was made; "
					 "make the cage again",
					 d->path);
		const char *root = renaming_grant(cage, d->path);
		enum plan_mount_kind kind = d->access == PROCAGE_PROTECT ? PLAN_MOUNT_READ_ONLY
					    : S_ISDIR(st.st_mode)	 ? PLAN_MOUNT_HIDE_DIR
									 : PLAN_MOUNT_HIDE_FILE;
		if ((root && strcmp(root, d->path) != 0 && pins_add(l, root, d->path) < 0) ||
		    list_add(l, kind, d->path) < 0)
			return error_set(err, -ENOMEM, "out of memory");
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

/* A cage that may use Unix sockets reaches only those it names. */
static int sockets_add(const struct procage_cage *cage, struct mount_list *l,
		       struct procage_error *err)
{
	char **bound = NULL;
	size_t n = 0;
	int rc = sockets_bound(&bound, &n, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct stat st;
		if (socket_granted(cage, bound[i]) || lstat(bound[i], &st) != 0 ||
		    !S_ISSOCK(st.st_mode))
			continue;
		const char *kept = list_own(l, bound[i]);
		bound[i] = NULL;
		size_t before = l->n;
		if (!kept || list_add(l, PLAN_MOUNT_HIDE_FILE, kept) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
		else if (l->n > before)
			l->items[before].bound_socket = true;
	}
	sockets_free(bound, n); /* by count: entries taken over are NULL */
	return rc;
}

static int mount_compare(const void *a, const void *b)
{
	return strcmp(((const struct plan_mount *)a)->path, ((const struct plan_mount *)b)->path);
}

/* Ancestors first; nothing below a hidden path, which cannot be reached. */
static void list_order(struct mount_list *l)
{
	size_t kept = 0;
	if (l->n)
		qsort(l->items, l->n, sizeof *l->items, mount_compare);
	for (size_t i = 0; i < l->n; i++) {
		bool hidden = false;
		for (size_t j = 0; j < kept && !hidden; j++)
			hidden = (l->items[j].kind == PLAN_MOUNT_HIDE_DIR ||
				  l->items[j].kind == PLAN_MOUNT_HIDE_FILE) &&
				 path_within(l->items[i].path, l->items[j].path);
		if (!hidden)
			l->items[kept++] = l->items[i];
	}
	l->n = kept;
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
 * The trees that stay writable: every write grant on a directory or a
 * regular file, the run's temporary directory and its shared memory.
 * Devices, pipes and sockets are written through read-only mounts too, so
 * their grants need
 * no writable mount (which would only let their owner change their mode).
 */
static int writable_build(const struct procage_cage *cage, const char *tmpdir, struct plan *plan,
			  struct procage_error *err)
{
	struct plan_writable *w = calloc(cage->n_grants + 2, sizeof *w);
	size_t n = 0;
	if (!w)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < cage->n_grants; i++) {
		const struct landlock_grant *g = &cage->grants[i];
		struct stat st;
		if (!(g->access & LANDLOCK_ACCESS_FS_WRITE_FILE))
			continue;
		if (fstat(g->path_fd, &st) != 0) {
			int e = errno;
			free(w);
			return error_set_sys(err, e, PROCAGE_STEP_PREPARE, "write rule for %s",
					     g->path);
		}
		if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
			writable_add(w, &n, g->path);
	}
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
	struct mount_list l = { 0 };
	int rc = writable_build(cage, tmpdir, plan, err);
	if (rc < 0)
		return rc;
	rc = denials_add(cage, &l, err);
	if (rc == 0 && cage->n_sockets)
		rc = sockets_add(cage, &l, err);
	plan->owned_paths = l.owned;
	if (rc < 0) {
		free(l.items);
		return rc;
	}
	list_order(&l);
	plan->mounts = l.items;
	plan->n_mounts = l.n;
	return 0;
}
