/* The probe's actions: sockets and signals. */
#include "probe.h"

/* ---- sockets and signals (R-09, R-25, R-34) ---------------------------- */

/* Connect without blocking for long: a listener that never answers is an error. */
int connect_to(int family, const void *addr, socklen_t len, const char *target)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "socket", target);
	int rc = connect(fd, addr, len);
	if (rc != 0 && errno == EINPROGRESS) {
		struct pollfd p = {fd, POLLOUT, 0};
		int e = ETIMEDOUT;
		socklen_t el = sizeof e;
		if (poll(&p, 1, 5000) == 1)
			(void)getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
		errno = e;
		rc = e ? -1 : 0;
	}
	rc = rc == 0 ? PROBE_DID_IT : failed(REFUSE_CONNECT, "connect", target);
	close(fd);
	return rc;
}

/* A Unix address for a path, or for an abstract name (leading NUL). */
socklen_t unix_address(struct sockaddr_un *a, const char *name, bool abstract)
{
	size_t n = strlen(name), at = abstract ? 1 : 0;
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	if (n + at >= sizeof a->sun_path)
		return 0;
	memcpy(a->sun_path + at, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + at + n + (abstract ? 0 : 1));
}

/* connect-unix PATH, connect-abstract NAME */
int do_connect_unix(char **args)
{
	struct sockaddr_un a;
	socklen_t len = unix_address(&a, args[0], strcmp(action_name, "connect-abstract") == 0);
	if (!len)
		return usage_error("socket name too long:", args[0]);
	return connect_to(AF_UNIX, &a, len, args[0]);
}

int do_connect_tcp(char **args)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	long port;
	if (inet_pton(AF_INET, args[0], &a.sin_addr) != 1 || !parse_int(args[1], &port) ||
	    port <= 0 || port > 65535)
		return usage_error("connect-tcp wants an IPv4 address and a port, got", args[0]);
	a.sin_port = htons((uint16_t)port);
	return connect_to(AF_INET, &a, sizeof a, args[0]);
}

/* Bind PATH, listen, and connect to it: the cage's own socket. */
int do_unix_self(char **args)
{
	struct sockaddr_un a;
	socklen_t len = unix_address(&a, args[0], false);
	if (!len)
		return usage_error("socket path too long:", args[0]);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "socket", args[0]);
	int rc = bind(fd, (struct sockaddr *)&a, len) == 0 && listen(fd, 4) == 0
		     ? connect_to(AF_UNIX, &a, len, args[0])
		     : failed(REFUSE_CONNECT, "bind", args[0]);
	close(fd);
	return rc;
}

int do_socketpair(char **args)
{
	int sv[2];
	char c = 'x';
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return failed(REFUSE_SOCKET, "socketpair", "AF_UNIX");
	bool ok = write(sv[0], &c, 1) == 1 && read(sv[1], &c, 1) == 1 && c == 'x';
	close(sv[0]);
	close(sv[1]);
	return ok ? PROBE_DID_IT : failed(REFUSE_SOCKET, "socketpair I/O", "AF_UNIX");
}

int do_kill(char **args)
{
	long pid, sig;
	if (strcmp(args[0], "self") == 0)
		pid = getpid();
	else if (!parse_int(args[0], &pid) || pid <= 0)
		return usage_error("bad pid", args[0]);
	if (!parse_int(args[1], &sig) || sig < 0)
		return usage_error("bad signal", args[1]);
	return kill((pid_t)pid, (int)sig) == 0 ? PROBE_DID_IT
					       : failed(REFUSE_PTRACE, "kill", args[0]);
}
