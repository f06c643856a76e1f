/*
 * A root caller's cage runs as uid 0, the owner of the system's files:
 * mode bits do not keep it out of root-only ones (/etc/shadow 0640
 * root:shadow, /etc/ssl/private 0700). What others may not read in /etc is
 * hidden from it, so that it reads what any user could.
 */
#ifndef PROCAGE_ROOT_PRIVATE_H
#define PROCAGE_ROOT_PRIVATE_H

#include <stddef.h>

/* The system tree whose private files a root caller's cage may not read. */
#define ROOT_PRIVATE_TREE "/etc"

/*
 * Every file and directory below tree that others may not read (canonical,
 * a directory's contents not listed): a NULL-terminated list, or -ENOMEM.
 */
int root_private_find(const char *tree, char ***paths, size_t *n);

/*
 * For a root caller: begin the walk of ROOT_PRIVATE_TREE now, on a thread,
 * for the next cage to take (root_private_find joins it). Nothing for
 * other callers, or when a walk is already under way.
 */
void root_private_begin(void);

#endif
