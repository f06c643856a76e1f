/*
 * Unix sockets by path on tier T2 (below Landlock ABI 9, which has no
 * rule for them): the network broker judges every connect and addressed
 * send of an AF_UNIX socket here.
 *
 * The path is the broker's copy of the caller's address, read once. It is
 * resolved by the broker, from the caller's root (absolute) or cwd
 * (relative), following ordinary symlinks as the cage could, but no magic
 * link: /proc/self/fd/N or /proc/PID/cwd would be the broker's own, or
 * another process's, not the cage's to name. The file it ends at is held
 * as an O_PATH descriptor and judged by identity (device and inode)
 * against the socket files the policy grants, recorded when the run
 * starts. The broker then connects to "/proc/self/fd/N" of that
 * descriptor: the kernel follows the magic link to the very inode judged,
 * so nothing renamed, rebound or rewritten meanwhile changes where the
 * connection goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "broker_io.h"
#include "broker_net.h"
#include "base/syscalls.h"
#include "discover/sockets.h"

/*
 * path is the rule's canonical path (no symbolic link in it when the cage
 * was made): a link found in it now was planted since, maybe by an earlier
 * run with a write grant there, and is not followed.
 */
int broker_unix_grant_add(struct broker_net_config *net, const char *path)
{
	struct stat st;
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = sys_openat2(AT_FDCWD, path, &how);
	if (fd < 0)
		return 0; /* nothing there now, or through a link: nothing reachable */
	int rc = fstat(fd, &st);
	close(fd);
	if (rc != 0 || !S_ISSOCK(st.st_mode))
		return 0;
	if (net->n_unix_grants == BROKER_UNIX_GRANTS_MAX)
		return -E2BIG;
	net->unix_grants[net->n_unix_grants++] =
		(struct broker_unix_grant){ .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

/* A socket file bound in the run's own network namespace (tier T1): the run's own. */
static bool run_own(const struct broker_net_config *net, const struct stat *st)
{
	return net->own_netns && S_ISSOCK(st->st_mode) &&
	       sockets_file_bound_in(net->own_netns_diag, st->st_dev, st->st_ino) == 1;
}

static bool granted(const struct broker_net_config *net, const struct stat *st)
{
	if (!S_ISSOCK(st->st_mode))
		return false;
	for (size_t i = 0; i < net->n_unix_grants; i++)
		if (net->unix_grants[i].dev == st->st_dev && net->unix_grants[i].ino == st->st_ino)
			return true;
	return false;
}

/* The caller's file at path, as an O_PATH descriptor of the broker's. */
static int resolve(pid_t tid, const char *path)
{
	char base_path[64];
	int base;
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS };
	if (path[0] == '/') {
		/* The caller's root: an absolute symlink stays in it too. */
		snprintf(base_path, sizeof base_path, "/proc/%d/root", (int)tid);
		base = open(base_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		base = base < 0 ? -errno : base;
		how.resolve |= RESOLVE_IN_ROOT;
	} else {
		base = broker_base_fd(tid, AT_FDCWD);
	}
	if (base < 0)
		return base;
	int fd = sys_openat2(base, path, &how);
	int e = errno;
	close(base);
	return fd < 0 ? -e : fd;
}

bool broker_unix_run_socket(const struct broker_net_config *net, int sock)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof cookie;
	return net->own_netns &&
	       getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) == 0 &&
	       cookie == net->own_netns_cookie;
}

int broker_unix_target(const struct broker_net_config *net, pid_t tid, int sock,
		       const struct sockaddr_storage *addr, socklen_t len, struct sockaddr_un *out,
		       socklen_t *out_len, int *held)
{
	const size_t path_at = offsetof(struct sockaddr_un, sun_path);
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
	char path[sizeof un->sun_path + 1];
	*held = -1;
	if (len <= path_at || addr->ss_family != AF_UNIX)
		return -EINVAL;
	if (len > sizeof *un)
		return -EINVAL;
	/*
	 * Abstract names: nothing to judge them by on tier T2; on T1 they are
	 * the run's own network namespace's, the broker's copy connected there.
	 */
	if (un->sun_path[0] == '\0') {
		if (!broker_unix_run_socket(net, sock))
			return -EACCES;
		memcpy(out, un, len);
		*out_len = len;
		return 0;
	}
	memcpy(path, un->sun_path, len - path_at);
	path[len - path_at] = '\0';
	int fd = resolve(tid, path);
	/* One answer for every path not granted: no telling what exists where. */
	if (fd < 0)
		return -ECONNREFUSED;
	struct stat st;
	if (fstat(fd, &st) != 0 || !(granted(net, &st) || run_own(net, &st))) {
		close(fd);
		return -ECONNREFUSED;
	}
	memset(out, 0, sizeof *out);
	out->sun_family = AF_UNIX;
	int n = snprintf(out->sun_path, sizeof out->sun_path, "/proc/self/fd/%d", fd);
	*out_len = (socklen_t)(path_at + (size_t)n + 1);
	*held = fd;
	return 0;
}
