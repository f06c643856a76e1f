/*
 * Canonical spellings of paths, also of paths that do not exist yet: a
 * location the cage must hold before anything is there.
 */
#include "canonical.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dir_entries.h"

/* "." and ".." and repeated slashes removed, in place; path is absolute. */
void lexical_normalize(char *path)
{
	char *out = path;
	for (const char *in = path; *in;) {
		while (*in == '/')
			in++;
		const char *end = strchrnul(in, '/');
		size_t n = (size_t)(end - in);
		if (n == 0)
			break;
		if (n == 1 && in[0] == '.') {
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in = end;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/*
 * Resolving the classes' few hundred locations with realpath reads every
 * component of every one as a link: the home alone some three hundred
 * times per cage. Between canonical_memo_begin and canonical_memo_end a
 * thread remembers what each resolved prefix is (a link and its target,
 * or why it is not one), so each is read once. The memo is one view of the
 * tree taken while the cage is resolved, no staler than the answers
 * realpath would have given moments apart; it is dropped at the end.
 */
struct link_answer {
	char *path;   /* resolved, absolute; NULL: free slot */
	char *target; /* the link's target; NULL when error says why it is none */
	int error;    /* EINVAL: present and not a link */
};

/*
 * Most of those locations share a few parents (the home, ~/.config,
 * ~/.local/share) and most are missing: once a second child of a parent
 * is asked about, the parent is listed, and its listing answers for every
 * child that is missing or no link (its entry's type), leaving readlink
 * for links and entries of unknown type. A parent that cannot be listed
 * and searched, or holds more than LISTING_MAX entries, is asked child by
 * child as before.
 */
#define LISTING_MAX 512

struct listed_name {
	char *name;
	unsigned char type; /* DT_* */
};

struct dir_listing {
	char *dir;		    /* resolved, absolute */
	struct listed_name *names;  /* sorted by name */
	size_t n;
	unsigned asks;
	bool listed, refused;
};

static __thread struct {
	struct link_answer *slot;
	size_t cap, used;
	unsigned depth;
	struct dir_listing *dirs;
	size_t n_dirs;
} memo;

void canonical_memo_begin(void)
{
	memo.depth++;
}

static void listing_names_free(struct dir_listing *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i].name);
	free(d->names);
	d->names = NULL;
	d->n = 0;
}

void canonical_memo_forget(void)
{
	for (size_t i = 0; i < memo.cap; i++) {
		free(memo.slot[i].path);
		free(memo.slot[i].target);
	}
	free(memo.slot);
	memo.slot = NULL;
	memo.cap = memo.used = 0;
	for (size_t i = 0; i < memo.n_dirs; i++) {
		listing_names_free(&memo.dirs[i]);
		free(memo.dirs[i].dir);
	}
	free(memo.dirs);
	memo.dirs = NULL;
	memo.n_dirs = 0;
}

void canonical_memo_end(void)
{
	if (memo.depth > 0 && --memo.depth == 0)
		canonical_memo_forget();
}

static size_t path_hash(const char *path)
{
	uint64_t h = 1469598103934665603u;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		h = (h ^ *c) * 1099511628211u;
	return (size_t)h;
}

static struct link_answer *memo_slot(struct link_answer *slots, size_t cap, const char *path)
{
	size_t i = path_hash(path) & (cap - 1);
	while (slots[i].path && strcmp(slots[i].path, path) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static bool memo_grow(void)
{
	size_t cap = memo.cap ? memo.cap * 2 : 256;
	struct link_answer *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	for (size_t i = 0; i < memo.cap; i++)
		if (memo.slot[i].path)
			*memo_slot(slots, cap, memo.slot[i].path) = memo.slot[i];
	free(memo.slot);
	memo.slot = slots;
	memo.cap = cap;
	return true;
}

static int name_compare(const void *a, const void *b)
{
	return strcmp(((const struct listed_name *)a)->name, ((const struct listed_name *)b)->name);
}

/*
 * A name missing from a listing is missing for a lookup only where names
 * are compared byte for byte: a case-folding directory (ext4's and
 * tmpfs's +F) or file system (vfat, XFS's ASCII-CI) finds ".SSH" as
 * ".ssh". Listings are used on file systems known to compare bytes, in
 * directories that do not fold.
 */
static bool names_exact(int fd)
{
	struct statfs fs;
	unsigned int flags = 0;
	if (fstatfs(fd, &fs) != 0)
		return false;
	switch ((unsigned long)fs.f_type) {
	case EXT4_SUPER_MAGIC:
	case TMPFS_MAGIC:
		return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_CASEFOLD_FL);
	case BTRFS_SUPER_MAGIC:
	case OVERLAYFS_SUPER_MAGIC:
		return true;
	default:
		return false;
	}
}

/* d's entries read and sorted; false when that cannot be done. */
static bool listing_read(struct dir_listing *d)
{
	struct dir_entries *e = malloc(sizeof *e);
	struct dir_entry entry;
	size_t cap = 0;
	int fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), got = -1;
	/* A child readlink could not reach is no answer of the listing's either. */
	bool ok = e && fd >= 0 && faccessat(fd, ".", X_OK, AT_EACCESS) == 0 && names_exact(fd);
	if (ok)
		dir_entries_begin(e, fd);
	while (ok && (got = dir_entries_next(e, &entry)) == 1) {
		if (d->n == cap) {
			struct listed_name *grown = NULL;
			cap = cap ? cap * 2 : 32;
			if (cap > LISTING_MAX || !(grown = realloc(d->names, cap * sizeof *grown))) {
				ok = false;
				break;
			}
			d->names = grown;
		}
		d->names[d->n] = (struct listed_name){ strdup(entry.name), entry.type };
		if (!d->names[d->n++].name)
			ok = false;
	}
	if (fd >= 0)
		close(fd);
	free(e);
	if (ok && got == 0) {
		qsort(d->names, d->n, sizeof *d->names, name_compare);
		return true;
	}
	listing_names_free(d);
	return false;
}

/*
 * What the listing of path's parent says of path, when it says enough:
 * missing (ENOENT) or no link (EINVAL), in *error. false: ask readlink.
 */
static bool listing_answer(const char *path, int *error)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return false;
	size_t dir_len = slash == path ? 1 : (size_t)(slash - path);
	struct dir_listing *d = NULL;
	for (size_t i = 0; i < memo.n_dirs && !d; i++)
		if (strlen(memo.dirs[i].dir) == dir_len && strncmp(memo.dirs[i].dir, path, dir_len) == 0)
			d = &memo.dirs[i];
	if (!d) {
		struct dir_listing *dirs = realloc(memo.dirs, (memo.n_dirs + 1) * sizeof *dirs);
		if (!dirs)
			return false;
		memo.dirs = dirs;
		d = &dirs[memo.n_dirs];
		*d = (struct dir_listing){ .dir = strndup(path, dir_len) };
		if (!d->dir)
			return false;
		memo.n_dirs++;
	}
	if (!d->listed && !d->refused && ++d->asks >= 2) {
		d->listed = listing_read(d);
		d->refused = !d->listed;
	}
	if (!d->listed)
		return false;
	struct listed_name key = { (char *)(slash + 1), 0 };
	const struct listed_name *found = bsearch(&key, d->names, d->n, sizeof *d->names,
						  name_compare);
	if (!found) {
		*error = ENOENT;
		return true;
	}
	if (found->type == DT_LNK || found->type == DT_UNKNOWN)
		return false;
	*error = EINVAL;
	return true;
}

/* What path (resolved, absolute) is, read once per memo; NULL: out of memory. */
static const struct link_answer *link_answer(const char *path)
{
	if (memo.used * 2 >= memo.cap && !memo_grow())
		return NULL;
	struct link_answer *a = memo_slot(memo.slot, memo.cap, path);
	if (a->path)
		return a;
	char target[PATH_MAX];
	int listed_error;
	ssize_t n = listing_answer(path, &listed_error) ? (errno = listed_error, -1)
							: readlink(path, target, sizeof target);
	struct link_answer fresh = { strdup(path), NULL, n < 0 ? errno : 0 };
	if (n >= (ssize_t)sizeof target)
		fresh.error = ENAMETOOLONG;
	else if (n >= 0 && !(fresh.target = strndup(target, (size_t)n)))
		fresh.error = ENOMEM;
	if (!fresh.path || fresh.error == ENOMEM) {
		free(fresh.path);
		free(fresh.target);
		return NULL;
	}
	*a = fresh;
	memo.used++;
	return a;
}

/*
 * Only slashes and dots left after a component that is no link: realpath
 * then also checks that the component is a directory ("file/" and
 * "file/.." fail), and is asked itself.
 */
static bool suffix_needs_directory(const char *rest)
{
	if (!*rest)
		return false;
	for (; *rest; rest++)
		if (*rest != '/' && *rest != '.')
			return false;
	return true;
}

static char *absent_spelling(const char *resolved, const char *rest, bool *absent)
{
	char *spelled = NULL;
	if (asprintf(&spelled, "%s/%s", resolved, rest) < 0)
		return NULL;
	lexical_normalize(spelled);
	*absent = true;
	return spelled;
}

/*
 * realpath's walk over the memo: components in order, links expanded, ".."
 * on the result. With absent, a path missing from a component on, before
 * any link was followed, is spelled as canonical_or_absent spells it: the
 * resolved part and the rest.
 */
static char *memo_resolve(const char *path, bool *absent)
{
	char out[PATH_MAX], pending[PATH_MAX], next[PATH_MAX];
	size_t len = 0;
	int links = 0;
	if (strlen(path) >= sizeof pending) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(pending, path);
	out[0] = '\0';
	for (const char *p = pending; *p;) {
		while (*p == '/')
			p++;
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p = end;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
			out[len] = '\0';
			p = end;
			continue;
		}
		if (len + 1 + n >= sizeof out) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		out[len] = '/';
		memcpy(out + len + 1, p, n);
		out[len + 1 + n] = '\0';
		const struct link_answer *a = link_answer(out);
		if (!a) {
			errno = ENOMEM;
			return NULL;
		}
		if (a->error == EINVAL && suffix_needs_directory(end))
			return realpath(path, NULL);
		if (a->error == EINVAL) {
			len += 1 + n;
			p = end;
			continue;
		}
		if (absent && links == 0 && (a->error == ENOENT || a->error == ENOTDIR)) {
			out[len] = '\0';
			return absent_spelling(out, p, absent);
		}
		if (a->error || ++links > 40) {
			errno = a->error ? a->error : ELOOP;
			return NULL;
		}
		if ((size_t)snprintf(next, sizeof next, "%s%s", a->target, end) >= sizeof next) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		strcpy(pending, next);
		p = pending;
		if (a->target[0] == '/')
			len = 0;
		out[len] = '\0';
	}
	return strdup(len ? out : "/");
}

char *canonical_memo_spell(const char *path, bool *absent)
{
	*absent = false;
	if (memo.depth == 0 || path[0] != '/') {
		errno = EAGAIN;
		return NULL;
	}
	return memo_resolve(path, absent);
}

char *canonical_path(const char *path)
{
	if (memo.depth == 0 || !path || path[0] != '/')
		return realpath(path, NULL);
	return memo_resolve(path, NULL);
}

/*
 * The canonical spelling of path; when it does not exist, its nearest
 * existing ancestor's canonical path and the rest (*absent set). NULL when
 * neither can be had (errno says why; ENOMEM only when out of memory).
 */
char *canonical_or_absent(const char *path, bool *absent)
{
	*absent = false;
	if (memo.depth > 0 && path[0] == '/') {
		char *spelled = memo_resolve(path, absent);
		if (spelled || errno == ENOMEM || (errno != ENOENT && errno != ENOTDIR))
			return spelled;
		*absent = false; /* missing behind a link: the slower walk below */
	}
	char *canonical = canonical_path(path), *result = NULL;
	if (canonical || path[0] != '/' || (errno != ENOENT && errno != ENOTDIR))
		return canonical;
	char *norm = strdup(path);
	if (!norm)
		return NULL;
	lexical_normalize(norm);
	for (size_t cut = strlen(norm); cut > 0 && !result;) {
		while (cut > 0 && norm[cut - 1] != '/')
			cut--;
		if (cut == 0)
			break;
		char saved = norm[cut - 1];
		norm[cut - 1] = '\0';
		char *parent = canonical_path(cut > 1 ? norm : "/");
		norm[cut - 1] = saved;
		if (parent) {
			int n = asprintf(&result, "%s/%s", strcmp(parent, "/") ? parent : "",
					 norm + cut);
			free(parent);
			if (n < 0)
				result = NULL;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			break;
		cut--;
	}
	free(norm);
	*absent = result != NULL;
	if (!result && errno != ENOMEM)
		errno = ENOENT;
	return result;
}
