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
