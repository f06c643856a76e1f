/*
 * Where the metadata broker may act (broker_meta.h): the identities it
 * judges by, taken when the run starts, and the walk up through `..`.
 */
#include "broker_meta_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker_internal.h"
#include "cage/cage.h"
#include "base/syscalls.h"

/* Deeper than any path the kernel resolves (PATH_MAX / 2 components). */
#define META_WALK_MAX 2048

static int identity_compare(const void *a, const void *b)
{
	const struct meta_identity *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static bool identity_in(const struct meta_set *s, const struct stat *st)
{
	struct meta_identity key = {st->st_dev, st->st_ino};
	return s->n && bsearch(&key, s->ids, s->n, sizeof key, identity_compare);
}

static int set_add(struct meta_set *s, const struct stat *st)
{
	if (s->n == s->room) {
		size_t room = s->room ? s->room * 2 : 16;
		struct meta_identity *grown = realloc(s->ids, room * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		s->ids = grown;
		s->room = room;
	}
	s->ids[s->n++] = (struct meta_identity){st->st_dev, st->st_ino};
	return 0;
}

static void set_sort(struct meta_set *s)
{
	if (s->n)
		qsort(s->ids, s->n, sizeof *s->ids, identity_compare);
}

static void set_free(struct meta_set *s)
{
	free(s->ids);
	*s = (struct meta_set){0};
}

/*
 * The roots: each write grant's inode (its descriptor, pinned when the
 * cage was made), each zone, the run's temporary directory; and every
 * hidden and protected location that exists, taken without following a
 * link (a location that is a link is refused at spawn, R-08).
 */
static int meta_collect(struct broker_meta *m, const struct procage_cage *c, const char *tmpdir)
{
	struct stat st;
	int rc = 0;
	/* A grant's identity was read when its descriptor pinned it: it cannot change. */
	for (size_t i = 0; rc == 0 && i < c->n_grants; i++)
		if (c->grants[i].access & LANDLOCK_ACCESS_FS_WRITE_FILE) {
			st.st_dev = c->grants[i].dev;
			st.st_ino = c->grants[i].ino;
			rc = set_add(&m->write, &st);
		}
	for (size_t i = 0; rc == 0 && i < c->zones.n; i++) {
		st.st_dev = c->zones.zones[i].dev;
		st.st_ino = c->zones.zones[i].ino;
		rc = set_add(&m->zones, &st);
	}
	if (rc == 0 && tmpdir && lstat(tmpdir, &st) == 0 && S_ISDIR(st.st_mode))
		rc = set_add(&m->write, &st);
	for (size_t i = 0; rc == 0 && i < c->n_examined; i++)
		if (lstat(c->examined[i].path, &st) == 0)
			rc = set_add(&m->examined, &st);
	set_sort(&m->write);
	set_sort(&m->zones);
	set_sort(&m->examined);
	return rc;
}

int broker_meta_start(struct broker *b, const struct procage_cage *c, const char *tmpdir,
		      struct procage_error *err)
{
	struct broker_meta *m = calloc(1, sizeof *m);
	if (!m || meta_collect(m, c, tmpdir) < 0) {
		if (m) {
			set_free(&m->write);
			set_free(&m->zones);
			set_free(&m->examined);
		}
		free(m);
		return error_set(err, -ENOMEM, "starting the metadata broker: out of memory");
	}
	b->meta = m;
	return 0;
}

void broker_meta_free(struct broker *b)
{
	if (!b || !b->meta)
		return;
	set_free(&b->meta->write);
	set_free(&b->meta->zones);
	set_free(&b->meta->examined);
	free(b->meta);
	b->meta = NULL;
}

/*
 * The directory holding a non-directory fd, by the name the kernel
 * gives it (d_path), opened without following any link and checked to
 * hold that very inode under that name. -1 when it has none (deleted,
 * anonymous, a pipe or socket, out of the broker's root) or the name
 * no longer leads to it.
 */
static int parent_of(int fd, const struct stat *st, struct stat *parent_st)
{
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 1 || path[0] != '/')
		return -1;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	const char *name = slash + 1;
	*slash = '\0';
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	int parent = sys_openat2(AT_FDCWD, slash == path ? "/" : path, &how);
	if (parent < 0)
		return -1;
	struct stat named;
	if (fstatat(parent, name, &named, AT_SYMLINK_NOFOLLOW) != 0 || named.st_dev != st->st_dev ||
	    named.st_ino != st->st_ino || fstat(parent, parent_st) != 0) {
		close(parent);
		return -1;
	}
	return parent;
}

/* Where a walk stands: a write root or zone ends it (yes), a denial ends it (no). */
static int meta_verdict(const struct broker_meta *m, const struct stat *st)
{
	if (identity_in(&m->examined, st))
		return 0;
	if (identity_in(&m->write, st) || identity_in(&m->zones, st))
		return 1;
	return -1;
}

bool broker_meta_writable(const struct broker_meta *m, int fd, const struct stat *st)
{
	struct stat cur_st = *st, up_st;
	int verdict = meta_verdict(m, st);
	if (verdict >= 0)
		return verdict == 1;
	bool owned = !S_ISDIR(st->st_mode);
	int cur = owned ? parent_of(fd, st, &cur_st) : fd;
	if (cur < 0)
		return false;
	if (owned)
		verdict = meta_verdict(m, &cur_st);
	for (int depth = 0; verdict < 0 && depth < META_WALK_MAX; depth++) {
		int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &up_st) != 0 ||
		    (up_st.st_dev == cur_st.st_dev && up_st.st_ino == cur_st.st_ino)) {
			if (up >= 0)
				close(up);
			verdict = 0; /* the root: no write grant above */
			break;
		}
		if (owned)
			close(cur);
		cur = up;
		owned = true;
		cur_st = up_st;
		verdict = meta_verdict(m, &cur_st);
	}
	if (owned)
		close(cur);
	return verdict == 1;
}
