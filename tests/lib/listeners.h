/*
 * Listening sockets the socket canaries stand up outside the cage: fake
 * daemons on a Unix path, on an abstract name, or on a loopback TCP port.
 * They only listen: a connect() succeeds from the backlog without any
 * accept, so no thread serves them and nothing waits on them. Closing the
 * descriptor ends the listener; a path listener also leaves its file,
 * which the workspace removal takes away.
 */
#ifndef PROCAGE_TEST_LISTENERS_H
#define PROCAGE_TEST_LISTENERS_H

#include <stdbool.h>
#include <stddef.h>

/* A stream socket listening at path (any stale file there removed); fd or -errno. */
int listen_unix(const char *path);
/* The same on the abstract name (no leading NUL in name); fd or -errno. */
int listen_abstract(const char *name);
/* A TCP listener on 127.0.0.1 and a port the kernel picks; fd or -errno. */
int listen_tcp_loopback(int *port);
/*
 * A connected TCP pair over address text of family (AF_INET, AF_INET6):
 * out[0] dialled at dial, out[1] accepted on listen_at; false where the
 * address cannot be bound or reached here.
 */
bool tcp_pair(int family, const char *listen_at, const char *dial, int out[2]);
/* Close fd if it is one; a path listener also unlinks its file. */
void listen_close(int fd, const char *path);

#endif
