/* The Unix sockets bound on this host, for tier T1's socket masks. */
#ifndef PROCAGE_SOCKETS_H
#define PROCAGE_SOCKETS_H

#include <stddef.h>
#include <sys/types.h>

#include "procage.h"

/*
 * The canonical paths of the files of every pathname socket bound on this
 * host, without duplicates: *out holds *n paths (freed with sockets_free).
 * A socket is found by its file's inode, not by the name it was bound
 * with, which may be relative or stale (renamed after bind). A socket
 * whose file cannot be found is refused, naming it (-EPERM); so is a
 * process whose sockets cannot be listed.
 */
int sockets_bound(char ***out, size_t *n, struct procage_error *err);
void sockets_free(char **paths, size_t n);

/*
 * Is the file dev/ino bound to a Unix socket of the network namespace that
 * diag_fd (a NETLINK_SOCK_DIAG socket) was made in? 1 or 0, or a negative
 * errno when the list cannot be read. Only that namespace's processes bind
 * its sockets: a run of its own binds nothing a host program listens on.
 */
int sockets_file_bound_in(int diag_fd, dev_t dev, ino_t ino);

#endif
