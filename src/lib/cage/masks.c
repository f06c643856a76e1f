/*
 * Tier T1: the paths every spawn's masks and pins may take, and the trees
 * that stay writable, worked out once per cage (masks.h).
 */
#include "masks.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/syscalls.h"
#include "cage.h"

static const char *element_path(const void *base, size_t size, size_t offset, size_t i)
{
	const char *element = (const char *)base + i * size;
	const char *path;
	memcpy(&path, element + offset, sizeof path);
	return path;
}

/* The index of the first len bytes of key among the sorted paths, or -1. */
static ssize_t sorted_find_prefix(const void *base, size_t n, size_t size, size_t offset,
				  const char *key, size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = element_path(base, size, offset, mid);
		int r = strncmp(key, s, len);
		if (r == 0)
			r = s[len] == '\0' ? 0 : -1;
		if (r == 0)
			return (ssize_t)mid;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

ssize_t cage_sorted_find(const void *base, size_t n, size_t size, size_t offset, const char *path)
{
	return sorted_find_prefix(base, n, size, offset, path, strlen(path));
}

ssize_t cage_sorted_ancestor(const void *base, size_t n, size_t size, size_t offset,
			     const char *path, int (*pick)(size_t index, void *ctx), void *ctx)
{
	/* Each proper ancestor is path cut before one of its slashes, or "/". */
	for (size_t len = strlen(path); len-- > 1;) {
		if (path[len] != '/')
			continue;
		ssize_t i = sorted_find_prefix(base, n, size, offset, path, len);
		if (i >= 0 && (!pick || pick((size_t)i, ctx)))
			return i;
	}
	if (strcmp(path, "/") == 0)
		return -1;
	ssize_t i = sorted_find_prefix(base, n, size, offset, "/", 1);
	return i >= 0 && (!pick || pick((size_t)i, ctx)) ? i : -1;
}

static int string_compare(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The outermost grant containing path through which it could be renamed:
 * a rename through an outer grant carries a nested one away as well, so
 * pinning stops only at the outermost.
 */
static const char *renaming_grant(const struct procage_cage *c, const char *path)
{
	const char *best = NULL;
	for (size_t i = 0; i < c->n_grants; i++) {
		const struct landlock_grant *g = &c->grants[i];
		if ((g->access & LANDLOCK_ACCESS_FS_REMOVE_DIR) && path_within(path, g->path) &&
		    (!best || strlen(g->path) < strlen(best)))
			best = g->path;
	}
	return best;
}

/* Where the pins of path below root start: past root and its slash. */
static const char *pins_start(const char *root, const char *path)
{
	if (!root || strcmp(root, path) == 0)
		return NULL;
	return path + (strcmp(root, "/") == 0 ? 0 : strlen(root)) + 1;
}

/* The pins' strings, every denial's in turn, outermost first; counts in pin_first. */
static int pins_make(const struct procage_cage *c, struct cage_masks *m)
{
	size_t total = 0;
	m->pin_first = calloc(c->n_denials + 1, sizeof *m->pin_first);
	if (!m->pin_first)
		return -ENOMEM;
	for (size_t d = 0; d < c->n_denials; d++) {
		const char *path = c->denials[d].path;
		const char *from = pins_start(renaming_grant(c, path), path);
		m->pin_first[d] = total;
		for (const char *slash = from ? strchr(from, '/') : NULL; slash;
		     slash = strchr(slash + 1, '/'))
			total++;
	}
	m->pin_first[c->n_denials] = total;
	m->owned = calloc(total + 1, sizeof *m->owned);
	m->pins = calloc(total + 1, sizeof *m->pins);
	if (!m->owned || !m->pins)
		return -ENOMEM;
	for (size_t d = 0; d < c->n_denials; d++) {
		const char *path = c->denials[d].path;
		const char *from = pins_start(renaming_grant(c, path), path);
		for (const char *slash = from ? strchr(from, '/') : NULL; slash;
		     slash = strchr(slash + 1, '/'))
			if (!(m->owned[m->n_owned++] = strndup(path, (size_t)(slash - path))))
				return -ENOMEM;
	}
	return 0;
}

/* Every denial's and pin's path once, sorted; then each one's index there. */
static int paths_index(const struct procage_cage *c, struct cage_masks *m)
{
	size_t n = c->n_denials + m->n_owned, kept = 0;
	m->paths = calloc(n + 1, sizeof *m->paths);
	m->denial_path = calloc(c->n_denials + 1, sizeof *m->denial_path);
	if (!m->paths || !m->denial_path)
		return -ENOMEM;
	for (size_t d = 0; d < c->n_denials; d++)
		m->paths[d] = c->denials[d].path;
	for (size_t p = 0; p < m->n_owned; p++)
		m->paths[c->n_denials + p] = m->owned[p];
	if (n)
		qsort(m->paths, n, sizeof *m->paths, string_compare);
	for (size_t i = 0; i < n; i++)
		if (kept == 0 || strcmp(m->paths[kept - 1], m->paths[i]) != 0)
			m->paths[kept++] = m->paths[i];
	m->n_paths = kept;
	for (size_t d = 0; d < c->n_denials; d++)
		m->denial_path[d] = (size_t)cage_sorted_find(m->paths, kept, sizeof *m->paths, 0,
							     c->denials[d].path);
	for (size_t p = 0; p < m->n_owned; p++)
		m->pins[p] =
		    (size_t)cage_sorted_find(m->paths, kept, sizeof *m->paths, 0, m->owned[p]);
	return 0;
}

struct writable_candidate {
	const char *path;
	size_t order;
};

static int candidate_compare(const void *a, const void *b)
{
	const struct writable_candidate *x = a, *y = b;
	int r = strcmp(x->path, y->path);
	return r ? r : (x->order > y->order) - (x->order < y->order);
}

/*
 * Is path a directory or regular file? Devices, pipes and sockets are
 * written through read-only mounts too, so their grants need no writable
 * mount (which would only let their owner change their mode). A pinned
 * descriptor's file type never changes.
 */
static int writable_type(int fd, const char *path, bool *out, struct procage_error *err)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE, "write rule for %s", path);
	*out = S_ISDIR(st.st_mode) || S_ISREG(st.st_mode);
	return 0;
}

/*
 * The write grants on directories and regular files, the outermost of
 * nested ones, each once, in grant order: the grants as written where
 * Landlock's were made entry by entry (c->write_roots), else Landlock's.
 */
static int writable_make(const struct procage_cage *c, struct cage_masks *m,
			 struct procage_error *err)
{
	size_t total = c->write_roots ? c->n_write_roots : c->n_grants;
	struct writable_candidate *w = calloc(total + 1, sizeof *w);
	const char **by_order = calloc(total + 1, sizeof *by_order);
	m->writable = calloc(total + 1, sizeof *m->writable);
	size_t n = 0;
	int rc = w && by_order && m->writable ? 0 : error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < total; i++) {
		const struct landlock_grant *g = c->write_roots ? &c->write_roots[i] : &c->grants[i];
		bool kept = false;
		if (!(g->access & LANDLOCK_ACCESS_FS_WRITE_FILE))
			continue;
		rc = writable_type(g->path_fd, g->path, &kept, err);
		if (rc == 0 && kept) {
			w[n].path = g->path;
			w[n].order = n;
			n++;
		}
	}
	if (rc == 0 && n)
		qsort(w, n, sizeof *w, candidate_compare);
	/* Kept: the first of equal paths, and none below another. */
	for (size_t i = 0; rc == 0 && i < n; i++)
		if ((i == 0 || strcmp(w[i - 1].path, w[i].path) != 0) &&
		    cage_sorted_ancestor(w, n, sizeof *w, offsetof(struct writable_candidate, path),
					 w[i].path, NULL, NULL) < 0)
			by_order[w[i].order] = w[i].path;
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (by_order[i])
			m->writable[m->n_writable++] = by_order[i];
	free(by_order);
	free(w);
	return rc;
}

int cage_masks_build(struct procage_cage *c, struct procage_error *err)
{
	int rc = writable_make(c, &c->masks, err);
	if (rc == 0 && (pins_make(c, &c->masks) < 0 || paths_index(c, &c->masks) < 0))
		rc = error_set(err, -ENOMEM, "out of memory");
	return rc;
}

void cage_masks_free(struct cage_masks *m)
{
	for (size_t i = 0; i < m->n_owned; i++)
		free(m->owned[i]);
	free(m->owned);
	free(m->paths);
	free(m->denial_path);
	free(m->pins);
	free(m->pin_first);
	free(m->writable);
	memset(m, 0, sizeof *m);
}
