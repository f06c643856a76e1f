/* Canonical spellings of paths, existing or not. */
#ifndef PROCAGE_CANONICAL_H
#define PROCAGE_CANONICAL_H

#include <stdbool.h>

/* "." and ".." and repeated slashes removed, in place; path is absolute. */
void lexical_normalize(char *path);

/*
 * The canonical spelling of path; when it does not exist, its nearest
 * existing ancestor's canonical path and the rest (*absent set). NULL when
 * neither can be had (errno says why; ENOMEM only when out of memory).
 */
char *canonical_or_absent(const char *path, bool *absent);

/*
 * realpath(path, NULL); between canonical_memo_begin and canonical_memo_end
 * (nested pairs count) the calling thread reads each resolved prefix as a
 * link at most once.
 */
char *canonical_path(const char *path);
void canonical_memo_begin(void);
void canonical_memo_end(void);
/*
 * In a memo only (EAGAIN otherwise): path's canonical spelling, or, when a
 * component is missing before any link was followed, canonical_or_absent's
 * spelling of it (*absent set). NULL for anything else: errno ENOENT or
 * ENOTDIR when it is missing behind a link.
 */
char *canonical_memo_spell(const char *path, bool *absent);
/* What the memo holds is dropped: the caller has just made something. */
void canonical_memo_forget(void);

#endif
