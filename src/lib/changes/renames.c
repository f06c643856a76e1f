/*
 * Renamed directories (renames.h). A redirect is a name in the same
 * directory or a path from the layer's root; a relative one is taken
 * against the directory's parent where the host had it (which may have
 * been renamed too). Paths here are relative to the tree root, without a
 * leading slash; "" is the root.
 */
#include "renames.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/path_rule.h"

static bool rel_within(const char *rel, const char *top)
{
	size_t n = strlen(top);
	if (n == 0)
		return true;
	return strncmp(rel, top, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* dir/name in buf; false when it does not fit. */
static bool rel_join(char *buf, size_t size, const char *dir, const char *name)
{
	return (size_t)snprintf(buf, size, "%s%s%s", dir, dir[0] ? "/" : "", name) < size;
}

struct collect_ctx {
	const struct overlay_marks *m;
	int host_root;
	const char *tree;
	struct changes_renames *r;
};

static int rename_add(struct changes_renames *r, const char *new_rel, const char *old_rel,
		      bool file)
{
	struct changes_rename *items = realloc(r->items, (r->n + 1) * sizeof *items);
	if (!items)
		return -ENOMEM;
	r->items = items;
	items[r->n] = (struct changes_rename){ .new_rel = strdup(new_rel),
					       .old_rel = strdup(old_rel), .file = file };
	if (!items[r->n].new_rel || !items[r->n].old_rel) {
		free(items[r->n].new_rel);
		free(items[r->n].old_rel);
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

/*
 * Where the host holds the file whose handle the copy-up name in dir
 * carries, below the tree root, in old_rel; false when it is none of the
 * tree's, has other names too (a hard link: which one moved is not
 * known), or the mark names nothing.
 */
static bool file_origin(const struct collect_ctx *c, int dir, const char *name, char *old_rel,
			size_t size)
{
	char proc[64], at[PATH_MAX];
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	int host = marks_origin_open(c->m, fd, c->host_root);
	close(fd);
	if (host < 0)
		return false;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", host);
	ssize_t n = fstat(host, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1
			    ? readlink(proc, at, sizeof at - 1)
			    : -1;
	close(host);
	if (n <= 0)
		return false;
	at[n] = '\0';
	size_t t = strcmp(c->tree, "/") ? strlen(c->tree) : 0;
	if (strncmp(at, c->tree, t) != 0 || at[t] != '/')
		return false;
	return (size_t)snprintf(old_rel, size, "%s", at + t + 1) < size;
}

/*
 * The directories below dir (at rel in the upper layer, at lower_rel on
 * the host, or lower_rel NULL: none there), depth first.
 */
static int collect(const struct collect_ctx *c, int dir, const char *rel, const char *lower_rel,
		   int depth)
{
	const struct overlay_marks *m = c->m;
	struct changes_renames *r = c->r;
	/* A description of its own: one shared with the caller would leave it read to the end. */
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	int rc = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	if (depth > 256) {
		closedir(d);
		return -ELOOP;
	}
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		char sub_rel[PATH_MAX], redirect[PATH_MAX], sub_lower[PATH_MAX];
		const char *lower = NULL;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/*
		 * A copy-up of a host file: renamed when the host file is not
		 * the one at this name of the directory the host had here.
		 */
		if (e->d_type == DT_REG && c->host_root >= 0 &&
		    rel_join(sub_rel, sizeof sub_rel, rel, e->d_name) &&
		    file_origin(c, dir, e->d_name, sub_lower, sizeof sub_lower) &&
		    (!lower_rel || !rel_join(redirect, sizeof redirect, lower_rel, e->d_name) ||
		     strcmp(sub_lower, redirect) != 0)) {
			rc = rename_add(r, sub_rel, sub_lower, true);
			continue;
		}
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		int sub = openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		if (!rel_join(sub_rel, sizeof sub_rel, rel, e->d_name)) {
			close(sub);
			rc = -ENAMETOOLONG;
			break;
		}
		if (marks_redirect(m, sub, redirect, sizeof redirect) > 0) {
			if (redirect[0] == '/')
				snprintf(sub_lower, sizeof sub_lower, "%s", redirect + 1);
			else if (!rel_join(sub_lower, sizeof sub_lower, lower_rel ? lower_rel : "",
					   redirect))
				rc = -ENAMETOOLONG;
			lower = sub_lower;
			if (rc == 0)
				rc = rename_add(r, sub_rel, sub_lower, false);
		} else if (!marks_opaque(m, sub) && lower_rel &&
			   rel_join(sub_lower, sizeof sub_lower, lower_rel, e->d_name)) {
			lower = sub_lower;
		}
		if (rc == 0)
			rc = collect(c, sub, sub_rel, lower, depth + 1);
		close(sub);
	}
	closedir(d);
	return rc;
}

static size_t depth_of(const char *rel)
{
	size_t n = 0;
	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

static int by_depth(const void *a, const void *b)
{
	const struct changes_rename *x = a, *y = b;
	size_t dx = depth_of(x->new_rel), dy = depth_of(y->new_rel);
	return dx < dy ? -1 : dx > dy ? 1 : strcmp(x->new_rel, y->new_rel);
}

int renames_collect(const struct overlay_marks *m, int upper, int host_root, const char *tree,
		    struct changes_renames *r)
{
	*r = (struct changes_renames){ 0 };
	struct collect_ctx c = { .m = m, .host_root = host_root, .tree = tree, .r = r };
	int rc = collect(&c, upper, "", "", 0);
	if (rc < 0) {
		renames_free(r);
		return rc;
	}
	if (r->n > 1)
		qsort(r->items, r->n, sizeof *r->items, by_depth);
	return 0;
}

void renames_free(struct changes_renames *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->items[i].new_rel);
		free(r->items[i].old_rel);
	}
	free(r->items);
	*r = (struct changes_renames){ 0 };
}

struct changes_rename *renames_at_new(const struct changes_renames *r, const char *rel)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->items[i].new_rel, rel) == 0)
			return &r->items[i];
	return NULL;
}

/* rel with the deepest rename of those chosen (all, or done ones) that holds it applied. */
static void moved(const struct changes_renames *r, const char *rel, bool done_only,
		  const struct changes_rename *skip, char *buf, size_t size)
{
	const struct changes_rename *best = NULL;
	for (size_t i = 0; i < r->n; i++) {
		const struct changes_rename *x = &r->items[i];
		if (x == skip || (done_only && x->state != RENAME_DONE) ||
		    !rel_within(rel, x->old_rel))
			continue;
		if (!best || strlen(x->old_rel) > strlen(best->old_rel))
			best = x;
	}
	if (!best) {
		snprintf(buf, size, "%s", rel);
		return;
	}
	if ((size_t)snprintf(buf, size, "%s%s", best->new_rel, rel + strlen(best->old_rel)) >= size)
		buf[0] = '\0'; /* too long to be a path: matches nothing */
}

void renames_host_now(const struct changes_renames *r, const char *rel, char *buf, size_t size)
{
	moved(r, rel, true, NULL, buf, size);
}

void renames_whiteout_of(const struct changes_renames *r, const struct changes_rename *x,
			 char *buf, size_t size)
{
	/* Its parent as the overlay showed it when the run renamed it. */
	char parent[PATH_MAX], moved_parent[PATH_MAX];
	const char *slash = strrchr(x->old_rel, '/');
	if (!slash) {
		snprintf(buf, size, "%s", x->old_rel);
		return;
	}
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - x->old_rel), x->old_rel);
	moved(r, parent, false, x, moved_parent, sizeof moved_parent);
	if ((size_t)snprintf(buf, size, "%s%s", moved_parent, slash) >= size)
		buf[0] = '\0';
}

const struct changes_rename *renames_pending_below(const struct changes_renames *r,
						   const char *rel)
{
	char now[PATH_MAX];
	for (size_t i = 0; i < r->n; i++) {
		if (r->items[i].state == RENAME_DONE)
			continue;
		renames_host_now(r, r->items[i].old_rel, now, sizeof now);
		if (rel_within(now, rel))
			return &r->items[i];
	}
	return NULL;
}

const struct changes_rename *renames_pending_whiteout(const struct changes_renames *r,
						      const char *rel)
{
	char w[PATH_MAX];
	for (size_t i = 0; i < r->n; i++) {
		if (r->items[i].state == RENAME_DONE)
			continue;
		renames_whiteout_of(r, &r->items[i], w, sizeof w);
		if (strcmp(w, rel) == 0)
			return &r->items[i];
	}
	return NULL;
}
