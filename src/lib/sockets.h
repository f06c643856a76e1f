/* The Unix sockets bound on this host, for tier T1's socket masks. */
#ifndef PROCAGE_SOCKETS_H
#define PROCAGE_SOCKETS_H

#include <stddef.h>

/*
 * The canonical paths of the pathname sockets bound in every network
 * namespace we can look at (net/unix of each), without duplicates. *out is a
 * NULL-terminated array freed with sockets_free.
 */
int sockets_bound(char ***out, size_t *n);
void sockets_free(char **paths);

#endif
