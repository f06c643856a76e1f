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

#endif
