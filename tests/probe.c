/*
 * probe: run inside cages by the escape canaries. It attempts one operation
 * and tells the outcome by its exit code alone, so the test judges from
 * outside the cage:
 *
 *   0  PROBE_DID_IT   the operation succeeded
 *   10 PROBE_REFUSED  a permission check refused it (per action below)
 *   20 PROBE_ERROR    anything else: usage, a missing file, an errno the
 *                     action does not count as a refusal
 *
 * Every failure prints one line on stderr naming the action, the target and
 * the errno. Data an action reads goes to stdout.
 *
 *   probe ACTION [ARGS] [then ACTION [ARGS]]...
 *
 * Actions joined by "then" run in order; the first one that does not
 * succeed ends the probe with its code. An argument that starts with
 * "$TMPDIR" has that prefix replaced by the probe's $TMPDIR (/tmp when it is
 * unset), so a test can name a file in a run's private directory before the
 * run exists.
 *
 * Which errnos count as a refusal (everything else is PROBE_ERROR):
 *   files (read-file, write-file, truncate-path, open-trunc, ftruncate-rw,
 *   list-dir): EACCES, EPERM, EROFS
 *   ftruncate-ro: the above, plus EINVAL and EBADF, which the kernel gives
 *     for ftruncate on a descriptor not open for writing
 *   read-fd: EBADF (the descriptor is not open in this process)
 *   env-has: the variable is absent
 *   socket: EPERM, EACCES, EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT,
 *     ENOSYS (a filter or a kernel without the family; the control run
 *     without the cage tells which)
 *   io-uring, bpf: EPERM, EACCES, ENOSYS
 *   unshare-user, clone-newuser, clone3-newuser: EPERM, EACCES, ENOSPC
 *     (user.max_user_namespaces), EUSERS, ENOSYS (clone3 refused by a filter)
 *   mount-tmpfs: EPERM, EACCES
 *   ptrace-attach, ptrace-traceme: EPERM, EACCES
 *   tiocsti, tty-inject, tioclinux: EPERM, EACCES, EIO (dev.tty.legacy_tiocsti=0)
 *   find-listener, reopen-listener: "refused" means no seccomp listener was
 *     found (among the descriptors, or reopened through /proc)
 *   own-listener: refused when io_uring_setup stays refused (EPERM, EACCES,
 *     ENOSYS) whether or not the probe's own listener could be installed
 *   refuse-loop, refuse-crowd: never refused; they print counts
 *   setsid: EPERM, EACCES (a filter; the probe's child, never a group leader,
 *     asks)
 *   descendant: never refused; it leaves a process behind (running
 *     "linger TOKEN FD"), which the test looks for by its command line
 *   rename, link, flink, symlink, unlink, mkdir: the file errnos, EBUSY (a mount point),
 *     EXDEV (across mounts, or Landlock's refer check)
 *   connect-*, unix-self, listen-unix: EPERM, EACCES, EROFS, EAFNOSUPPORT,
 *     ECONNREFUSED and ENOENT (no listener visible: masked, or another
 *     network namespace), ENETUNREACH (an empty network namespace); the
 *     run without the cage shows the listener is there
 *   socketpair: as socket; private-*, unshare-mount: as unshare-user
 *   kill, umount, bind-mount, remount-rw, open-tree, fsopen-tmpfs,
 *   mount-setattr-rw, setns: EPERM, EACCES
 *
 * Kept free of the library and of sanitizers: what it measures is the cage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* The values tests/lib/caged.h gives the suite. */
#define PROBE_DID_IT 0
#define PROBE_REFUSED 10
#define PROBE_ERROR 20

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

extern char **environ;

static const char *action_name = "?";

enum refusal_set {
	REFUSE_FILE,
	REFUSE_FTRUNCATE_RO,
	REFUSE_FD,
	REFUSE_SOCKET,
	REFUSE_SYSCALL,
	REFUSE_NAMESPACE,
	REFUSE_MOUNT,
	REFUSE_PTRACE,
	REFUSE_TTY,
	REFUSE_MOVE,
	REFUSE_CONNECT,
};

static bool errno_refuses(enum refusal_set set, int e)
{
	if (e == EPERM || e == EACCES)
		return true;
	switch (set) {
	case REFUSE_FILE:
		return e == EROFS;
	case REFUSE_FTRUNCATE_RO:
		return e == EROFS || e == EINVAL || e == EBADF;
	case REFUSE_FD:
		return e == EBADF;
	case REFUSE_SOCKET:
		return e == EAFNOSUPPORT || e == EPROTONOSUPPORT || e == ESOCKTNOSUPPORT ||
		       e == ENOSYS;
	case REFUSE_SYSCALL:
		return e == ENOSYS;
	case REFUSE_NAMESPACE:
		return e == ENOSPC || e == EUSERS || e == ENOSYS;
	case REFUSE_TTY:
		return e == EIO;
	case REFUSE_MOVE:
		return e == EROFS || e == EBUSY || e == EXDEV;
	case REFUSE_CONNECT:
		return e == EROFS || e == EAFNOSUPPORT || e == ECONNREFUSED || e == ENOENT ||
		       e == ENETUNREACH;
	default:
		return false;
	}
}

/* The outcome of a failed call: refused or error, with one line on stderr. */
static int failed(enum refusal_set set, const char *what, const char *target)
{
	int e = errno;
	bool refused = errno_refuses(set, e);
	const char *ename = strerrorname_np(e);
	fprintf(stderr, "probe: %s%s%s: %s %s: %s (%s)\n", action_name,
		target && target[0] ? " " : "", target ? target : "",
		refused ? "refused by" : "failed at", what, ename ? ename : "?", strerror(e));
	return refused ? PROBE_REFUSED : PROBE_ERROR;
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "probe: %s: %s %s\n", action_name, what, arg);
	return PROBE_ERROR;
}

static bool parse_int(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

static int copy_to_stdout(int fd, bool positional)
{
	char buf[65536];
	off_t off = 0;
	for (;;) {
		ssize_t n =
		    positional ? pread(fd, buf, sizeof buf, off) : read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && positional && errno == ESPIPE) {
			positional = false;
			continue;
		}
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		off += n;
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return -1;
	}
}

/* ---- descriptors and environment -------------------------------------- */

static int do_read_fd(char **args)
{
	long fd;
	if (!parse_int(args[0], &fd) || fd < 0 || fd > 1 << 20)
		return usage_error("bad descriptor number", args[0]);
	if (fcntl((int)fd, F_GETFD) < 0)
		return failed(REFUSE_FD, "fcntl", args[0]);
	/* pread: the description may be shared, so its offset is left alone. */
	if (copy_to_stdout((int)fd, true) != 0)
		return failed(REFUSE_FD, "read", args[0]);
	return PROBE_DID_IT;
}

static int do_env_has(char **args)
{
	const char *v = getenv(args[0]);
	if (!v) {
		fprintf(stderr, "probe: env-has %s: absent\n", args[0]);
		return PROBE_REFUSED;
	}
	printf("%s", v);
	return PROBE_DID_IT;
}

static int do_env_list(char **args)
{
	for (char **e = environ; e && *e; e++)
		printf("%s\n", *e);
	return PROBE_DID_IT;
}

/* ---- files ------------------------------------------------------------ */

static int do_read_file(char **args)
{
	int fd = open(args[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc =
	    copy_to_stdout(fd, false) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "read", args[0]);
	close(fd);
	return rc;
}

static int do_write_file(char **args)
{
	int fd = open(args[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	size_t len = strlen(args[1]);
	ssize_t n = write(fd, args[1], len);
	if (n != (ssize_t)len) {
		int rc = failed(REFUSE_FILE, "write", args[0]);
		close(fd);
		return rc;
	}
	return close(fd) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "close", args[0]);
}

static int do_truncate_path(char **args)
{
	return truncate(args[0], 0) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "truncate", args[0]);
}

static int do_open_trunc(char **args)
{
	int fd = open(args[0], O_RDONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open(O_RDONLY|O_TRUNC)", args[0]);
	close(fd);
	return PROBE_DID_IT;
}

static int do_ftruncate(const char *path, int flags, enum refusal_set set)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, flags == O_RDONLY ? "open(O_RDONLY)" : "open(O_RDWR)",
			      path);
	int rc = ftruncate(fd, 0) == 0 ? PROBE_DID_IT : failed(set, "ftruncate", path);
	close(fd);
	return rc;
}

static int do_ftruncate_ro(char **args)
{
	return do_ftruncate(args[0], O_RDONLY, REFUSE_FTRUNCATE_RO);
}

static int do_ftruncate_rw(char **args)
{
	return do_ftruncate(args[0], O_RDWR, REFUSE_FILE);
}

static int do_list_dir(char **args)
{
	DIR *d = opendir(args[0]);
	if (!d)
		return failed(REFUSE_FILE, "opendir", args[0]);
	errno = 0;
	for (struct dirent *e; (e = readdir(d)); errno = 0)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			printf("%s\n", e->d_name);
	int rc = errno ? failed(REFUSE_FILE, "readdir", args[0]) : PROBE_DID_IT;
	closedir(d);
	return rc;
}

/* rename FROM TO, link FROM TO, symlink TARGET PATH, unlink PATH, mkdir PATH */
static int do_path_call(char **args)
{
	const char *a = action_name;
	int rc = strcmp(a, "rename") == 0    ? rename(args[0], args[1])
		 : strcmp(a, "link") == 0    ? link(args[0], args[1])
		 : strcmp(a, "symlink") == 0 ? symlink(args[0], args[1])
		 : strcmp(a, "unlink") == 0  ? unlink(args[0])
					     : mkdir(args[0], 0755);
	return rc == 0 ? PROBE_DID_IT : failed(REFUSE_MOVE, a, args[0]);
}

/*
 * flink FROM TO: a second name for a file through a descriptor of it
 * (linkat with AT_EMPTY_PATH), not through its path. Since Linux 6.10 the
 * opener of a file may do this without CAP_DAC_READ_SEARCH; before, the
 * kernel ignores the flag and fails with ENOENT (the control tells which).
 */
static int do_flink(char **args)
{
	int fd = open(args[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc = linkat(fd, "", AT_FDCWD, args[1], AT_EMPTY_PATH) == 0
		     ? PROBE_DID_IT
		     : failed(REFUSE_MOVE, "linkat", args[0]);
	close(fd);
	return rc;
}

/* ---- sockets and signals (R-09, R-25, R-34) ---------------------------- */

/* Connect without blocking for long: a listener that never answers is an error. */
static int connect_to(int family, const void *addr, socklen_t len, const char *target)
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
static socklen_t unix_address(struct sockaddr_un *a, const char *name, bool abstract)
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
static int do_connect_unix(char **args)
{
	struct sockaddr_un a;
	socklen_t len = unix_address(&a, args[0], strcmp(action_name, "connect-abstract") == 0);
	if (!len)
		return usage_error("socket name too long:", args[0]);
	return connect_to(AF_UNIX, &a, len, args[0]);
}

static int do_connect_tcp(char **args)
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
static int do_unix_self(char **args)
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

static int do_socketpair(char **args)
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

static int do_kill(char **args)
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

/* ---- mounts and namespaces (R-29) -------------------------------------- */

static bool text_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/*
 * For controls: namespaces of our own (flags), in a user namespace of our
 * own where one can be made (else as root), so that what succeeds here
 * changes nothing outside this process.
 */
static int private_namespaces(int flags, const char *what)
{
	char uid_map[64], gid_map[64];
	snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
	snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
	if (unshare(CLONE_NEWUSER | flags) == 0) {
		(void)text_write("/proc/self/setgroups", "deny");
		if (!text_write("/proc/self/uid_map", uid_map) ||
		    !text_write("/proc/self/gid_map", gid_map))
			return failed(REFUSE_NAMESPACE, "writing the id maps", "");
	} else if (unshare(flags) != 0) {
		return failed(REFUSE_NAMESPACE, what, "");
	}
	return PROBE_DID_IT;
}

static int do_private_mounts(char **args)
{
	int rc = private_namespaces(CLONE_NEWNS, "unshare(CLONE_NEWNS)");
	if (rc == PROBE_DID_IT && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return failed(REFUSE_MOUNT, "mount(MS_REC|MS_PRIVATE)", "/");
	return rc;
}

static int do_private_net(char **args)
{
	return private_namespaces(CLONE_NEWNET, "unshare(CLONE_NEWNET)");
}

/* Listen at PATH until the probe exits (the descriptor is kept on purpose). */
static int do_listen_unix(char **args)
{
	struct sockaddr_un a;
	socklen_t len = unix_address(&a, args[0], false);
	int fd = len ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, 16) != 0)
		return failed(REFUSE_CONNECT, "listen", args[0]);
	return PROBE_DID_IT;
}

static int do_unshare_mount(char **args)
{
	return unshare(CLONE_NEWNS) == 0 ? PROBE_DID_IT
					 : failed(REFUSE_NAMESPACE, "unshare(CLONE_NEWNS)", "");
}

/*
 * umount PATH, bind-mount FROM TO, remount-rw PATH (a bind remount without
 * MS_RDONLY), mount-setattr-rw PATH (clearing MOUNT_ATTR_RDONLY)
 */
static int do_mount_call(char **args)
{
	const char *a = action_name;
	struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};
	int rc = strcmp(a, "umount") == 0	? umount2(args[0], MNT_DETACH)
		 : strcmp(a, "bind-mount") == 0 ? mount(args[0], args[1], NULL, MS_BIND, NULL)
		 : strcmp(a, "remount-rw") == 0
		     ? mount(NULL, args[0], NULL, MS_REMOUNT | MS_BIND, NULL)
		     : mount_setattr(AT_FDCWD, args[0], 0, &attr, sizeof attr);
	return rc == 0 ? PROBE_DID_IT : failed(REFUSE_MOUNT, a, args[1] ? args[1] : args[0]);
}

static int move_to(int tree, const char *target, const char *what)
{
	if (tree < 0)
		return failed(REFUSE_MOUNT, what, target);
	int rc = move_mount(tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) == 0
		     ? PROBE_DID_IT
		     : failed(REFUSE_MOUNT, "move_mount", target);
	close(tree);
	return rc;
}

static int do_open_tree(char **args)
{
	int tree = open_tree(AT_FDCWD, args[0], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	return move_to(tree, args[1], "open_tree(OPEN_TREE_CLONE)");
}

static int do_fsopen_tmpfs(char **args)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), tree = -1;
	if (fs < 0)
		return failed(REFUSE_MOUNT, "fsopen(tmpfs)", args[0]);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		tree = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	int e = errno;
	close(fs);
	errno = e;
	return move_to(tree, args[0], "fsconfig/fsmount");
}

static int do_setns(char **args)
{
	long fd, type;
	if (!parse_int(args[0], &fd) || !parse_int(args[1], &type))
		return usage_error("setns wants a descriptor and a type, got", args[0]);
	return setns((int)fd, (int)type) == 0 ? PROBE_DID_IT
					      : failed(REFUSE_MOUNT, "setns", args[0]);
}

/* ---- kernel interfaces that bypass path and socket rules (R-28) -------- */

static int do_io_uring(char **args)
{
	struct io_uring_params params;
	memset(&params, 0, sizeof params);
	int fd = (int)syscall(__NR_io_uring_setup, 4, &params);
	if (fd < 0)
		return failed(REFUSE_SYSCALL, "io_uring_setup", "");
	close(fd);
	return PROBE_DID_IT;
}

static int do_socket(char **args)
{
	long family, type, proto;
	if (!parse_int(args[0], &family) || !parse_int(args[1], &type) ||
	    !parse_int(args[2], &proto))
		return usage_error("socket wants three numbers, got", args[0]);
	int fd = socket((int)family, (int)type | SOCK_CLOEXEC, (int)proto);
	if (fd < 0) {
		char target[64];
		snprintf(target, sizeof target, "%ld %ld %ld", family, type, proto);
		return failed(REFUSE_SOCKET, "socket", target);
	}
	close(fd);
	return PROBE_DID_IT;
}

static int do_unshare_user(char **args)
{
	return unshare(CLONE_NEWUSER) == 0 ? PROBE_DID_IT
					   : failed(REFUSE_NAMESPACE, "unshare(CLONE_NEWUSER)", "");
}

/* The child of a raw clone only exits: it shares nothing with libc's state. */
static int reap_clone_child(long pid, const char *what)
{
	if (pid < 0)
		return failed(REFUSE_NAMESPACE, what, "");
	if (pid == 0)
		syscall(SYS_exit, 0);
	while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
		;
	return PROBE_DID_IT;
}

static int do_clone_newuser(char **args)
{
	/* x86 order: flags, stack, parent_tid, child_tid, tls. */
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, NULL, NULL, 0);
	return reap_clone_child(pid, "clone(CLONE_NEWUSER)");
}

static int do_clone3_newuser(char **args)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_NEWUSER;
	ca.exit_signal = SIGCHLD;
	long pid = syscall(__NR_clone3, &ca, sizeof ca);
	return reap_clone_child(pid, "clone3(CLONE_NEWUSER)");
}

static int do_mount_tmpfs(char **args)
{
	if (mount("procage-probe", args[0], "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=16k") != 0)
		return failed(REFUSE_MOUNT, "mount(tmpfs)", args[0]);
	/* It worked; take it away again so nothing is left behind. */
	if (umount2(args[0], MNT_DETACH) != 0)
		fprintf(stderr, "probe: mount-tmpfs %s: mounted, but umount failed: %s\n", args[0],
			strerror(errno));
	return PROBE_DID_IT;
}

static int do_bpf(char **args)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	int fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr);
	if (fd < 0)
		return failed(REFUSE_SYSCALL, "bpf(BPF_MAP_CREATE)", "");
	close(fd);
	return PROBE_DID_IT;
}

static int do_ptrace_attach(char **args)
{
	long pid;
	if (!parse_int(args[0], &pid) || pid <= 0)
		return usage_error("bad pid", args[0]);
	if (ptrace(PTRACE_ATTACH, (pid_t)pid, NULL, NULL) != 0)
		return failed(REFUSE_PTRACE, "ptrace(PTRACE_ATTACH)", args[0]);
	/* Attached: wait for the stop, then let it go unchanged. */
	while (waitpid((pid_t)pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	if (ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL) != 0)
		fprintf(stderr, "probe: ptrace-attach %s: attached, but detach failed: %s\n",
			args[0], strerror(errno));
	return PROBE_DID_IT;
}

static int do_ptrace_traceme(char **args)
{
	/* Our parent becomes the tracer; the probe exits without another exec. */
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0
		   ? PROBE_DID_IT
		   : failed(REFUSE_PTRACE, "ptrace(PTRACE_TRACEME)", "");
}

/* Let any process of the user attach to us (Yama ptrace_scope=1), for controls. */
static int do_allow_ptracer(char **args)
{
	if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0 && errno != EINVAL)
		return failed(REFUSE_PTRACE, "prctl(PR_SET_PTRACER)", "");
	return PROBE_DID_IT; /* EINVAL: no Yama, nothing to allow */
}

/* ---- terminal --------------------------------------------------------- */

static int do_tiocsti(char **args)
{
	const char *target = args[0] ? args[0] : "0";
	long fd_number;
	int fd;
	bool opened = false;
	if (parse_int(target, &fd_number)) {
		fd = (int)fd_number;
	} else {
		fd = open(target, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return failed(REFUSE_TTY, "open", target);
		opened = true;
	}
	/* One space: pushed into the terminal's input queue if this works. */
	char c = ' ';
	int rc = ioctl(fd, TIOCSTI, &c) == 0 ? PROBE_DID_IT
					     : failed(REFUSE_TTY, "ioctl(TIOCSTI)", target);
	if (opened)
		close(fd);
	return rc;
}

/*
 * Push TEXT into the terminal at FD, from a child that first tries to make
 * it its controlling terminal (a new session, TIOCSCTTY), as an attacker
 * would: TIOCSTI works only on one's controlling terminal. "wide" sets
 * bits above the 32 the kernel reads in the command, which a filter must
 * not be fooled by.
 */
static int do_tty_inject(char **args)
{
	long fd;
	bool wide = args[2] && strcmp(args[2], "wide") == 0;
	if (!parse_int(args[0], &fd) || fd < 0)
		return usage_error("bad descriptor number", args[0]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return failed(REFUSE_TTY, "fork", "");
	if (pid == 0) {
		(void)setsid(); /* refused in the session lifetime: no terminal becomes ours */
		(void)ioctl((int)fd, TIOCSCTTY, 0);
		unsigned long cmd = TIOCSTI;
		if (wide && sizeof(long) > 4)
			cmd |= (unsigned long)1 << (sizeof(long) * 4);
		for (const char *c = args[1]; *c; c++)
			if (syscall(SYS_ioctl, (int)fd, cmd, c) != 0)
				_exit(failed(REFUSE_TTY, wide ? "ioctl(TIOCSTI | 1 << 32)" : "ioctl(TIOCSTI)",
					     args[0]));
		_exit(PROBE_DID_IT);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : PROBE_ERROR;
}

/*
 * TIOCLINUX (paste the selection, and more, on a virtual console). On a
 * pseudo-terminal the kernel answers ENOTTY, so the control is that it is
 * not refused (EPERM) without the cage.
 */
static int do_tioclinux(char **args)
{
	long fd;
	bool wide = args[1] && strcmp(args[1], "wide") == 0;
	char subcode[2] = { 3 /* TIOCL_PASTESEL */, 0 };
	unsigned long cmd = TIOCLINUX;
	if (!parse_int(args[0], &fd) || fd < 0)
		return usage_error("bad descriptor number", args[0]);
	if (wide && sizeof(long) > 4)
		cmd |= (unsigned long)1 << (sizeof(long) * 4);
	if (syscall(SYS_ioctl, (int)fd, cmd, subcode) == 0)
		return PROBE_DID_IT;
	return failed(REFUSE_TTY, "ioctl(TIOCLINUX)", args[0]);
}

/* ---- lifetime (R-23) -------------------------------------------------- */

static const char *probe_self; /* argv[0]: absolute, as the suite starts us */

static int do_setsid(char **args)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return failed(REFUSE_SYSCALL, "fork", "");
	if (pid == 0)
		_exit(setsid() >= 0 ? PROBE_DID_IT : failed(REFUSE_SYSCALL, "setsid", ""));
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : PROBE_ERROR;
}

/* linger TOKEN FD: say we run (one byte on FD), leave stdio, wait for ever. */
static int do_linger(char **args)
{
	long fd;
	if (parse_int(args[1], &fd) && fd > 2) {
		(void)!write((int)fd, "L", 1);
		close((int)fd);
	}
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 3; i++)
		if (null < 0 || dup2(null, i) < 0)
			close(i);
	for (;;)
		pause();
	return PROBE_ERROR;
}

/*
 * descendant MODE TOKEN: leave a process behind that runs "linger TOKEN",
 * and return once it runs. MODE:
 *   child        our own child
 *   double-fork  the child of a child that exits at once (an orphan)
 *   group        our child, in a process group of its own
 *   session      an orphan that first tries setsid (a new session)
 */
static int do_descendant(char **args)
{
	const char *mode = args[0];
	bool orphan = strcmp(mode, "double-fork") == 0 || strcmp(mode, "session") == 0;
	int p[2];
	char fd_text[16], byte = 0;
	if (!orphan && strcmp(mode, "child") != 0 && strcmp(mode, "group") != 0)
		return usage_error("unknown mode", mode);
	if (pipe(p) != 0 || fcntl(p[0], F_SETFD, FD_CLOEXEC) != 0)
		return failed(REFUSE_SYSCALL, "pipe", "");
	snprintf(fd_text, sizeof fd_text, "%d", p[1]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return failed(REFUSE_SYSCALL, "fork", "");
	if (pid == 0) {
		close(p[0]);
		if (strcmp(mode, "group") == 0 && setpgid(0, 0) != 0)
			_exit(failed(REFUSE_SYSCALL, "setpgid", ""));
		if (orphan) {
			pid_t grandchild = fork();
			if (grandchild != 0)
				_exit(grandchild < 0 ? PROBE_ERROR : PROBE_DID_IT);
			if (strcmp(mode, "session") == 0 && setsid() < 0)
				fprintf(stderr, "probe: descendant: setsid: %s; lingering in the "
						"session\n",
					strerror(errno));
		}
		execl(probe_self, probe_self, "linger", args[1], fd_text, (char *)NULL);
		_exit(failed(REFUSE_SYSCALL, "exec", probe_self));
	}
	close(p[1]);
	if (orphan)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	ssize_t n;
	do
		n = read(p[0], &byte, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n != 1 || byte != 'L') {
		fprintf(stderr, "probe: descendant %s: it never ran\n", mode);
		return PROBE_ERROR;
	}
	printf("descendant %s started\n", mode);
	fflush(stdout);
	return PROBE_DID_IT;
}

/* ---- helpers for tests ------------------------------------------------ */

static int do_wait_on_fd(char **args)
{
	long fd;
	char c;
	if (!parse_int(args[0], &fd) || fd < 0)
		return usage_error("bad descriptor number", args[0]);
	ssize_t n;
	do
		n = read((int)fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n >= 0 ? PROBE_DID_IT : failed(REFUSE_FD, "read", args[0]);
}

static int do_print(char **args)
{
	printf("%s\n", args[0]);
	fflush(stdout);
	return PROBE_DID_IT;
}

/* ---- proxy-only networking (R-35, R-36) -------------------------------- */

/* connect-tcp6 ADDR PORT: TCP over IPv6; connect-mptcp ADDR PORT: MPTCP over IPv4. */
static int do_connect_other(char **args)
{
	long port;
	if (!parse_int(args[1], &port) || port <= 0 || port > 65535)
		return usage_error("wants an address and a port, got", args[1]);
	if (strcmp(action_name, "connect-tcp6") == 0) {
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
		if (inet_pton(AF_INET6, args[0], &a.sin6_addr) != 1)
			return usage_error("not an IPv6 address:", args[0]);
		return connect_to(AF_INET6, &a, sizeof a, args[0]);
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, args[0], &a.sin_addr) != 1)
		return usage_error("not an IPv4 address:", args[0]);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 262 /* IPPROTO_MPTCP */);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket(IPPROTO_MPTCP)", args[0]);
	int rc = connect(fd, (struct sockaddr *)&a, sizeof a) == 0
		     ? PROBE_DID_IT
		     : failed(REFUSE_CONNECT, "connect", args[0]);
	close(fd);
	return rc;
}

/* C escapes in a request written on the command line: \r \n \0 \\ \xHH. */
static size_t unescape(const char *in, char *out, size_t size)
{
	size_t n = 0;
	for (const char *p = in; *p && n < size; p++) {
		if (*p != '\\' || !p[1]) {
			out[n++] = *p;
			continue;
		}
		p++;
		if (*p == 'r')
			out[n++] = '\r';
		else if (*p == 'n')
			out[n++] = '\n';
		else if (*p == '0')
			out[n++] = '\0';
		else if (*p == 'x' && p[1] && p[2]) {
			char hex[3] = {p[1], p[2], 0};
			out[n++] = (char)strtol(hex, NULL, 16);
			p += 2;
		} else
			out[n++] = *p;
	}
	return n;
}

/*
 * udp-send ADDR PORT TEXT: one datagram (IPv4 or IPv6); tfo-send ADDR PORT
 * TEXT: TCP Fast Open (sendto MSG_FASTOPEN). Whether anything arrived is
 * judged by the receiver, outside.
 */
static int do_send_other(char **args)
{
	long port;
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof ss);
	if (!parse_int(args[1], &port) || port <= 0 || port > 65535)
		return usage_error("wants an address and a port, got", args[1]);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, args[0], &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		len = sizeof *a4;
	} else if (inet_pton(AF_INET6, args[0], &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		len = sizeof *a6;
	} else {
		return usage_error("not an address:", args[0]);
	}
	bool tfo = strcmp(action_name, "tfo-send") == 0;
	int fd = socket(ss.ss_family, (tfo ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	char text[1024];
	size_t tn = unescape(args[2], text, sizeof text);
	ssize_t n = sendto(fd, text, tn, tfo ? 0x20000000 /* MSG_FASTOPEN */ : 0,
			   (struct sockaddr *)&ss, len);
	int rc = n >= 0 ? PROBE_DID_IT : failed(REFUSE_CONNECT, "sendto", args[0]);
	close(fd);
	return rc;
}

/* Read into buf until EOF, stop (if found) or a quiet 3 s; the length. */
static size_t read_some(int fd, char *buf, size_t size, size_t have, const char *stop)
{
	while (have + 1 < size) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 3000) != 1)
			break;
		ssize_t r = read(fd, buf + have, size - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = 0;
		if (stop && memmem(buf, have, stop, strlen(stop)))
			break;
	}
	buf[have] = 0;
	return have;
}

/*
 * proxy-request REQ [TUNNEL]: send REQ (C escapes read) to the proxy that
 * $HTTP_PROXY names (http://ADDR:PORT), print the answer; on a 200 with
 * TUNNEL, send that through the tunnel and print what comes back. Exit:
 * did it on 200, refused on 403 (or a refused connect), error otherwise.
 */
static int do_proxy_request(char **args)
{
	const char *proxy = getenv("HTTP_PROXY");
	char host[64];
	long port;
	if (!proxy || sscanf(proxy, "http://%63[0-9.]:%ld", host, &port) != 2)
		return usage_error("HTTP_PROXY is not http://ADDR:PORT:", proxy ? proxy : "(unset)");
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return usage_error("HTTP_PROXY address:", host);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "socket", proxy);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int rc = failed(REFUSE_CONNECT, "connect to the proxy", proxy);
		close(fd);
		return rc;
	}
	static char req[8192], resp[65536];
	size_t n = unescape(args[0], req, sizeof req);
	if (write(fd, req, n) != (ssize_t)n) {
		close(fd);
		return failed(REFUSE_CONNECT, "write", proxy);
	}
	bool tunnel = args[1] != NULL;
	size_t got = read_some(fd, resp, sizeof resp, 0, tunnel ? "\r\n\r\n" : NULL);
	int status = 0;
	(void)sscanf(resp, "HTTP/1.%*d %d", &status);
	if (status == 200 && tunnel) {
		n = unescape(args[1], req, sizeof req);
		if (write(fd, req, n) == (ssize_t)n)
			got = read_some(fd, resp, sizeof resp, got, NULL);
	}
	close(fd);
	for (size_t i = 0; i < got; i++)
		if (resp[i] == 0)
			resp[i] = ' ';
	fwrite(resp, 1, got, stdout);
	fprintf(stderr, "probe: %s: status %d\n", action_name, status);
	return status == 200 ? PROBE_DID_IT : status == 403 ? PROBE_REFUSED : PROBE_ERROR;
}

/* ---- dispatch --------------------------------------------------------- */

/* ---- the seccomp listener (R-32) --------------------------------------- */

/* A listener answers SECCOMP_IOCTL_NOTIF_ID_VALID with 0 or ENOENT. */
static bool is_listener(int fd)
{
	__u64 id = 0;
	return ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 || errno == ENOENT;
}

static int do_find_listener(char **args)
{
	int open_fds = 0;
	for (int fd = 0; fd < 4096; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		open_fds++;
		if (is_listener(fd)) {
			printf("listener at fd %d\n", fd);
			return PROBE_DID_IT;
		}
	}
	fprintf(stderr, "probe: find-listener: no listener among %d descriptors\n", open_fds);
	return PROBE_REFUSED;
}

/* Reopen every descriptor of self or our parent through /proc. */
static int do_reopen_listener(char **args)
{
	char dir[64];
	int tried = 0;
	if (strcmp(args[0], "parent") == 0)
		snprintf(dir, sizeof dir, "/proc/%d/fd", (int)getppid());
	else
		snprintf(dir, sizeof dir, "/proc/self/fd");
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "probe: reopen-listener %s: no listener reached: opendir %s: %s\n",
			args[0], dir, strerrorname_np(errno));
		return PROBE_REFUSED;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[384], link[256];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ssize_t n = readlink(path, link, sizeof link - 1);
		link[n > 0 ? n : 0] = '\0';
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC);
		tried++;
		if (fd >= 0 && is_listener(fd)) {
			printf("listener reopened from %s (%s)\n", path, link);
			closedir(d);
			return PROBE_DID_IT;
		}
		if (fd < 0 && strstr(link, "seccomp"))
			fprintf(stderr, "probe: reopen-listener: %s (%s): %s\n", path, link,
				strerrorname_np(errno));
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	fprintf(stderr, "probe: reopen-listener %s: no listener among %d entries of %s\n",
		args[0], tried, dir);
	return PROBE_REFUSED;
}

/*
 * Install a filter of our own that hands io_uring_setup to a listener of
 * our own, and answer it "continue" from a child's call. The outer refusal
 * must stay in force whatever happens here.
 */
static int do_own_listener(char **args)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		fprintf(stderr, "probe: own-listener: no listener of our own: %s\n",
			strerrorname_np(errno));
	else
		printf("own listener installed\n");
	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		return failed(REFUSE_SYSCALL, "fork", "");
	if (child == 0) {
		struct io_uring_params params;
		memset(&params, 0, sizeof params);
		int fd = (int)syscall(__NR_io_uring_setup, 4, &params);
		_exit(fd >= 0 ? 0 : errno == EPERM ? 1 : errno == ENOSYS ? 2 : 3);
	}
	if (listener >= 0) {
		struct pollfd p = {listener, POLLIN, 0};
		if (poll(&p, 1, 5000) == 1) {
			struct seccomp_notif n;
			struct seccomp_notif_resp r;
			memset(&n, 0, sizeof n);
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) == 0) {
				memset(&r, 0, sizeof r);
				r.id = n.id;
				r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
				if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r) == 0)
					printf("our listener answered continue\n");
			}
		}
	}
	int status;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	int code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
	if (code_ == 0)
		return PROBE_DID_IT;
	errno = code_ == 1 ? EPERM : code_ == 2 ? ENOSYS : EINVAL;
	return failed(REFUSE_SYSCALL, "io_uring_setup", "(a child, under our own filter)");
}

/* N refused calls in a tight loop; prints how many failed with EPERM. */
static int do_refuse_loop(char **args)
{
	long n, eperm = 0;
	if (!parse_int(args[0], &n) || n < 0)
		return usage_error("bad count", args[0]);
	for (long i = 0; i < n; i++)
		if (syscall(__NR_io_uring_setup, 0, NULL) < 0 && errno == EPERM)
			eperm++;
	printf("%ld of %ld refused with EPERM\n", eperm, n);
	return eperm == n ? PROBE_DID_IT : PROBE_ERROR;
}

/* K children make refused calls without end; killed after MS; then one more. */
static int do_refuse_crowd(char **args)
{
	long k, ms;
	pid_t pids[256];
	if (!parse_int(args[0], &k) || k < 1 || k > 256 || !parse_int(args[1], &ms) || ms < 0)
		return usage_error("bad crowd", args[0]);
	for (long i = 0; i < k; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			for (;;)
				syscall(__NR_io_uring_setup, 0, NULL);
		if (pids[i] < 0)
			return failed(REFUSE_SYSCALL, "fork", "");
	}
	usleep((useconds_t)ms * 1000);
	for (long i = 0; i < k; i++)
		kill(pids[i], SIGKILL);
	for (long i = 0; i < k; i++)
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	long rc = syscall(__NR_io_uring_setup, 1, NULL);
	printf("crowd of %ld killed; then io_uring_setup: %s\n", k,
	       rc < 0 ? strerrorname_np(errno) : "succeeded");
	return rc < 0 && errno == EPERM ? PROBE_DID_IT : PROBE_ERROR;
}

/* Try each refused call once, whatever the outcome of the others. */
static int do_refused_set(char **args)
{
	struct io_uring_params params;
	memset(&params, 0, sizeof params);
	long r1 = syscall(__NR_io_uring_setup, 4, &params);
	int e1 = errno;
	long r2 = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	int e2 = errno;
	long r3 = mount("none", "/tmp", "tmpfs", 0, NULL);
	int e3 = errno;
	long r4 = unshare(CLONE_NEWUSER);
	int e4 = errno;
	char c = ' ';
	long r5 = ioctl(0, TIOCSTI, &c);
	int e5 = errno;
	printf("io_uring_setup %s ptrace %s mount %s unshare %s tiocsti %s\n",
	       r1 < 0 ? strerrorname_np(e1) : "ok", r2 < 0 ? strerrorname_np(e2) : "ok",
	       r3 < 0 ? strerrorname_np(e3) : "ok", r4 < 0 ? strerrorname_np(e4) : "ok",
	       r5 < 0 ? strerrorname_np(e5) : "ok");
	return PROBE_DID_IT;
}

struct action {
	const char *name;
	int min_args, max_args;
	int (*run)(char **args);
	const char *usage;
};

static const struct action actions[] = {
    {"read-fd", 1, 1, do_read_fd, "N: print what descriptor N holds"},
    {"env-has", 1, 1, do_env_has, "NAME: print $NAME; refused when absent"},
    {"env-list", 0, 0, do_env_list, ": print the whole environment"},
    {"read-file", 1, 1, do_read_file, "PATH: print the file"},
    {"write-file", 2, 2, do_write_file, "PATH TEXT: create or replace the file"},
    {"truncate-path", 1, 1, do_truncate_path, "PATH: truncate(PATH, 0)"},
    {"open-trunc", 1, 1, do_open_trunc, "PATH: open(PATH, O_RDONLY|O_TRUNC)"},
    {"ftruncate-ro", 1, 1, do_ftruncate_ro, "PATH: ftruncate on an O_RDONLY descriptor"},
    {"ftruncate-rw", 1, 1, do_ftruncate_rw, "PATH: ftruncate on an O_RDWR descriptor"},
    {"list-dir", 1, 1, do_list_dir, "PATH: print the names in a directory"},
    {"rename", 2, 2, do_path_call, "FROM TO: rename(2)"},
    {"link", 2, 2, do_path_call, "FROM TO: a hard link"},
    {"flink", 2, 2, do_flink, "FROM TO: a hard link through a descriptor (AT_EMPTY_PATH)"},
    {"symlink", 2, 2, do_path_call, "TARGET PATH: a symbolic link"},
    {"unlink", 1, 1, do_path_call, "PATH: unlink(2)"},
    {"mkdir", 1, 1, do_path_call, "PATH: mkdir(2)"},
    {"connect-unix", 1, 1, do_connect_unix, "PATH: connect to a Unix socket"},
    {"connect-abstract", 1, 1, do_connect_unix, "NAME: connect to @NAME"},
    {"connect-tcp", 2, 2, do_connect_tcp, "ADDR PORT: connect over TCP (IPv4)"},
    {"unix-self", 1, 1, do_unix_self, "PATH: bind a Unix socket there and connect to it"},
    {"socketpair", 0, 0, do_socketpair, ": an AF_UNIX pair, one byte through it"},
    {"kill", 2, 2, do_kill, "PID|self SIG: kill(2)"},
    {"private-mounts", 0, 0, do_private_mounts, ": own user+mount namespaces (controls)"},
    {"private-net", 0, 0, do_private_net, ": own user+network namespaces (fixtures)"},
    {"listen-unix", 1, 1, do_listen_unix, "PATH: listen there until the probe exits"},
    {"unshare-mount", 0, 0, do_unshare_mount, ": unshare(CLONE_NEWNS)"},
    {"umount", 1, 1, do_mount_call, "PATH: umount2(MNT_DETACH)"},
    {"bind-mount", 2, 2, do_mount_call, "FROM TO: mount(MS_BIND)"},
    {"remount-rw", 1, 1, do_mount_call, "PATH: mount(MS_REMOUNT|MS_BIND) without MS_RDONLY"},
    {"open-tree", 2, 2, do_open_tree, "FROM TO: open_tree(CLONE) and move_mount"},
    {"fsopen-tmpfs", 1, 1, do_fsopen_tmpfs, "PATH: fsopen/fsmount a tmpfs, move_mount there"},
    {"mount-setattr-rw", 1, 1, do_mount_call, "PATH: mount_setattr clearing RDONLY"},
    {"setns", 2, 2, do_setns, "FD TYPE: setns(2)"},
    {"io-uring", 0, 0, do_io_uring, ": io_uring_setup"},
    {"socket", 3, 3, do_socket, "FAMILY TYPE PROTO: socket() with these numbers"},
    {"unshare-user", 0, 0, do_unshare_user, ": unshare(CLONE_NEWUSER)"},
    {"clone-newuser", 0, 0, do_clone_newuser, ": clone(CLONE_NEWUSER)"},
    {"clone3-newuser", 0, 0, do_clone3_newuser, ": clone3(CLONE_NEWUSER)"},
    {"mount-tmpfs", 1, 1, do_mount_tmpfs, "PATH: mount a tmpfs there (and unmount it)"},
    {"bpf", 0, 0, do_bpf, ": bpf(BPF_MAP_CREATE)"},
    {"ptrace-attach", 1, 1, do_ptrace_attach, "PID: PTRACE_ATTACH, then detach"},
    {"ptrace-traceme", 0, 0, do_ptrace_traceme, ": PTRACE_TRACEME"},
    {"allow-ptracer", 0, 0, do_allow_ptracer, ": PR_SET_PTRACER_ANY (Yama)"},
    {"tiocsti", 0, 1, do_tiocsti, "[FD|PATH]: push a space into a terminal (default fd 0)"},
    {"tty-inject", 2, 3, do_tty_inject,
     "FD TEXT [wide]: make FD our terminal, push TEXT into it (TIOCSTI)"},
    {"tioclinux", 1, 2, do_tioclinux, "FD [wide]: TIOCLINUX paste on FD"},
    {"setsid", 0, 0, do_setsid, ": a child of ours makes a new session"},
    {"descendant", 2, 2, do_descendant,
     "MODE TOKEN: leave a process behind (child, double-fork, group, session)"},
    {"linger", 2, 2, do_linger, "TOKEN FD: say so on FD, then wait for ever"},
    {"wait-on-fd", 1, 1, do_wait_on_fd, "N: block until a byte or EOF on descriptor N"},
    {"print", 1, 1, do_print, "TEXT: print TEXT and a newline at once"},
    {"connect-tcp6", 2, 2, do_connect_other, "ADDR PORT: connect over TCP (IPv6)"},
    {"connect-mptcp", 2, 2, do_connect_other, "ADDR PORT: connect over MPTCP (IPv4)"},
    {"udp-send", 3, 3, do_send_other, "ADDR PORT TEXT: one UDP datagram"},
    {"tfo-send", 3, 3, do_send_other, "ADDR PORT TEXT: TCP Fast Open (sendto MSG_FASTOPEN)"},
    {"proxy-request", 1, 2, do_proxy_request,
     "REQ [TUNNEL]: REQ (C escapes) to $HTTP_PROXY; on 200, TUNNEL through it"},
    {"find-listener", 0, 0, do_find_listener, ": look for a seccomp listener among our fds"},
    {"reopen-listener", 1, 1, do_reopen_listener, "self|parent: reopen fds through /proc"},
    {"own-listener", 0, 0, do_own_listener, ": our own listener answers io_uring_setup"},
    {"refuse-loop", 1, 1, do_refuse_loop, "N: N refused calls (io_uring_setup)"},
    {"refuse-crowd", 2, 2, do_refuse_crowd, "K MS: K children refused without end, killed"},
    {"refused-set", 0, 0, do_refused_set, ": io_uring, ptrace, mount, userns, TIOCSTI once"},
};

static void usage(void)
{
	fprintf(stderr,
		"usage: probe ACTION [ARGS] [then ACTION [ARGS]]...\n"
		"exit: %d did it, %d refused, %d error\nactions:\n",
		PROBE_DID_IT, PROBE_REFUSED, PROBE_ERROR);
	for (size_t i = 0; i < sizeof actions / sizeof *actions; i++)
		fprintf(stderr, "  %s %s\n", actions[i].name, actions[i].usage);
}

/* "$TMPDIR..." -> the probe's temporary directory and the rest. */
static char *expand(char *arg)
{
	static const char prefix[] = "$TMPDIR";
	if (strncmp(arg, prefix, sizeof prefix - 1) != 0)
		return arg;
	const char *tmp = getenv("TMPDIR");
	char *out;
	if (!tmp || !tmp[0])
		tmp = "/tmp";
	if (asprintf(&out, "%s%s", tmp, arg + sizeof prefix - 1) < 0)
		return arg;
	return out;
}

static int run_one(int argc, char **argv)
{
	action_name = argv[0];
	for (size_t i = 0; i < sizeof actions / sizeof *actions; i++) {
		const struct action *a = &actions[i];
		if (strcmp(a->name, argv[0]) != 0)
			continue;
		int n = argc - 1;
		if (n < a->min_args || n > a->max_args) {
			fprintf(stderr, "probe: %s takes %d to %d arguments, got %d\n", a->name,
				a->min_args, a->max_args, n);
			return PROBE_ERROR;
		}
		char *args[4] = {NULL, NULL, NULL, NULL};
		for (int k = 0; k < n; k++)
			args[k] = expand(argv[k + 1]);
		int rc = a->run(args);
		fflush(stdout);
		return rc;
	}
	fprintf(stderr, "probe: unknown action %s\n", argv[0]);
	usage();
	return PROBE_ERROR;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage();
		return PROBE_ERROR;
	}
	probe_self = argv[0];
	int start = 1;
	for (int i = 1; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "then") != 0)
			continue;
		if (i == start) {
			fprintf(stderr, "probe: empty action before or after \"then\"\n");
			return PROBE_ERROR;
		}
		int rc = run_one(i - start, argv + start);
		if (rc != PROBE_DID_IT)
			return rc;
		start = i + 1;
	}
	return PROBE_DID_IT;
}
