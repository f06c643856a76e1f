/*
 * Canonical spellings of paths, also of paths that do not exist yet: a
 * location the cage must hold before anything is there.
 */
#include "canonical.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir_listings.h"

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
 * or why it is not one), so each is read once, and the listings of
 * parents asked about often answer for children missing or no link
 * (dir_listings.h). The memo is one view of the tree taken while the cage
 * is resolved, no staler than the answers realpath would have given
 * moments apart; it is dropped at the end.
 */
struct link_answer {
	char *path;   /* resolved, absolute; NULL: free slot */
	char *target; /* the link's target; NULL when error says why it is none */
	int error;    /* EINVAL: present and not a link */
};

static __thread struct {
	struct link_answer *slot;
	size_t cap, used;
	unsigned depth;
	struct dir_listings dirs; /* parents listed (dir_listings.h) */
} memo;

void canonical_memo_begin(void)
{
	memo.depth++;
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
	dir_listings_free(&memo.dirs);
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

/* What path (resolved, absolute) is, read once per memo; NULL: out of memory. */
static const struct link_answer *link_answer(const char *path)
{
	if (memo.used * 2 >= memo.cap && !memo_grow())
		return NULL;
	struct link_answer *a = memo_slot(memo.slot, memo.cap, path);
	if (a->path)
		return a;
	char target[PATH_MAX];
	/* A parent's listing answers for a child missing or no link: readlink for the rest. */
	unsigned char type = DT_UNKNOWN;
	int listed = dir_listings_find(&memo.dirs, path, &type);
	ssize_t n = listed == 0				       ? (errno = ENOENT, -1)
		    : listed == 1 && type != DT_LNK && type != DT_UNKNOWN ? (errno = EINVAL, -1)
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
