#include "listeners.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define LISTEN_BACKLOG 64

static int listen_at(int family, const void *addr, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, addr, len) != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int listen_unix(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof a.sun_path)
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	(void)unlink(path);
	return listen_at(AF_UNIX, &a, sizeof a);
}

int listen_abstract(const char *name)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t n = strlen(name);
	if (n + 1 > sizeof a.sun_path)
		return -ENAMETOOLONG;
	memcpy(a.sun_path + 1, name, n);
	return listen_at(AF_UNIX, &a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
}

int listen_tcp_loopback(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int fd = listen_at(AF_INET, &a, sizeof a);
	if (fd < 0)
		return fd;
	if (getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

void listen_close(int fd, const char *path)
{
	if (fd < 0)
		return;
	close(fd);
	if (path)
		(void)unlink(path);
}

/* A connected TCP pair over address text of family: out[0] dialled, out[1]
 * accepted; false where the address cannot be bound or reached here. */
bool tcp_pair(int family, const char *listen_at, const char *dial, int out[2])
{
	struct sockaddr_storage l_addr = { .ss_family = (sa_family_t)family }, d_addr;
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	void *l_bytes = family == AF_INET ? (void *)&((struct sockaddr_in *)&l_addr)->sin_addr
					  : (void *)&((struct sockaddr_in6 *)&l_addr)->sin6_addr;
	int l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	out[0] = out[1] = -1;
	if (l < 0 || inet_pton(family, listen_at, l_bytes) != 1 ||
	    bind(l, (struct sockaddr *)&l_addr, len) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&l_addr, &len) < 0)
		goto fail;
	d_addr = l_addr;
	void *d_bytes = family == AF_INET ? (void *)&((struct sockaddr_in *)&d_addr)->sin_addr
					  : (void *)&((struct sockaddr_in6 *)&d_addr)->sin6_addr;
	if (inet_pton(family, dial, d_bytes) != 1)
		goto fail;
	out[0] = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (out[0] < 0 || connect(out[0], (struct sockaddr *)&d_addr, len) < 0)
		goto fail;
	out[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (out[1] < 0)
		goto fail;
	close(l);
	return true;
fail:
	if (l >= 0)
		close(l);
	if (out[0] >= 0)
		close(out[0]);
	out[0] = -1;
	return false;
}
