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
 *   chmod, fchmod-ro, set-times, chown-self, set-xattr: the file errnos (EROFS:
 *     a read-only mount)
 *   rename, link, flink, symlink, unlink, mkdir: the file errnos, EBUSY (a mount point),
 *     EXDEV (across mounts, or Landlock's refer check)
 *   connect-*, unix-self, listen-unix: EPERM, EACCES, EROFS, EAFNOSUPPORT,
 *     ECONNREFUSED and ENOENT (no listener visible: masked, or another
 *     network namespace), ENETUNREACH (an empty network namespace); the
 *     run without the cage shows the listener is there
 *   socketpair: as socket; private-*, unshare-mount: as unshare-user
 *   kill, umount, bind-mount, remount-rw, open-tree, fsopen-tmpfs,
 *   mount-setattr-rw, setns: EPERM, EACCES
 *   chmod, fchmod-ro, fchmodat2, setflags-ro, fssetxattr-ro: the file
 *     errnos; setxattr, fsetxattr-ro, removexattr: those and EOPNOTSUPP
 *   listmount, statmount, shm-*, msg-*, mq-*, prlimit, core-limit, setpriority,
 *     setaffinity, ioprio, setscheduler: EPERM, EACCES, ENOSYS (tests/probe/targets.c)
 *
 * Kept free of the library and of sanitizers: what it measures is the cage.
 */
#include "probe/probe.h"

const char *action_name = "?";
const char *probe_self; /* argv[0]: absolute, as the suite starts us */

bool errno_refuses(enum refusal_set set, int e)
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
int failed(enum refusal_set set, const char *what, const char *target)
{
	int e = errno;
	bool refused = errno_refuses(set, e);
	const char *ename = strerrorname_np(e);
	fprintf(stderr, "probe: %s%s%s: %s %s: %s (%s)\n", action_name,
		target && target[0] ? " " : "", target ? target : "",
		refused ? "refused by" : "failed at", what, ename ? ename : "?", strerror(e));
	return refused ? PROBE_REFUSED : PROBE_ERROR;
}

int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "probe: %s: %s %s\n", action_name, what, arg);
	return PROBE_ERROR;
}

bool parse_int(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

int copy_to_stdout(int fd, bool positional)
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
    {"chdir-read", 2, 2, do_chdir_read, "DIR PATH: chdir to DIR, then print PATH"},
    {"read-via-fd", 1, 1, do_read_via_fd, "PATH: open O_PATH, print it through /proc/self/fd/N"},
    {"read-at", 2, 2, do_read_at, "DIR NAME: print NAME opened relative to DIR"},
    {"read-own-task", 1, 1, do_read_own_task, "NAME: print /proc/self/task/TID/NAME"},
    {"dir-escape", 1, 1, do_dir_escape,
     "DIR: through a descriptor of DIR, make a file, a directory, or climb out by ENTRY/.."},
    {"pty-hold-read", 1, 1, do_pty_hold_read, "PATH: hold a master of its own, read PATH"},
    {"sem-own", 2, 2, do_sem_own, "NAME keep|remove: a semaphore file made as sem_open makes it"},
    {"write-file", 2, 2, do_write_file, "PATH TEXT: create or replace the file"},
    {"read-head", 1, 1, do_read_head, "PATH: read at most a page, without waiting"},
    {"open-write", 1, 1, do_open_write, "PATH: open for writing, write nothing"},
    {"truncate-path", 1, 1, do_truncate_path, "PATH: truncate(PATH, 0)"},
    {"open-trunc", 1, 1, do_open_trunc, "PATH: open(PATH, O_RDONLY|O_TRUNC)"},
    {"ftruncate-ro", 1, 1, do_ftruncate_ro, "PATH: ftruncate on an O_RDONLY descriptor"},
    {"ftruncate-rw", 1, 1, do_ftruncate_rw, "PATH: ftruncate on an O_RDWR descriptor"},
    {"list-dir", 1, 3, do_list_dir,
     "PATH [NAME...]: print the names in a directory (only those given, when any)"},
    {"rename", 2, 2, do_path_call, "FROM TO: rename(2)"},
    {"link", 2, 2, do_path_call, "FROM TO: a hard link"},
    {"flink", 2, 2, do_flink, "FROM TO: a hard link through a descriptor (AT_EMPTY_PATH)"},
    {"symlink", 2, 2, do_path_call, "TARGET PATH: a symbolic link"},
    {"unlink", 1, 1, do_path_call, "PATH: unlink(2)"},
    {"mkdir", 1, 1, do_path_call, "PATH: mkdir(2)"},
    {"set-times", 1, 1, do_metadata, "PATH: utimensat(2) to 2001-09-09"},
    {"set-xattr", 1, 1, do_metadata, "PATH: setxattr(2) of user.probe"},
    {"chown-self", 1, 1, do_metadata, "PATH: chown(2) to the probe's own uid and gid"},
    {"meta-procfd", 2, 2, do_meta_fd, "PATH MODE: chmod /proc/self/fd/N of PATH opened O_RDONLY"},
    {"meta-opath", 2, 2, do_meta_fd, "PATH MODE: fchmodat2 AT_EMPTY_PATH on an O_PATH descriptor"},
    {"meta-opath-chown", 1, 1, do_meta_fd, "PATH: fchownat AT_EMPTY_PATH, O_PATH, own ids"},
    {"meta-futimens-ro", 1, 1, do_meta_fd, "PATH: futimens on an O_RDONLY descriptor"},
    {"meta-lchown", 1, 1, do_meta_fd, "PATH: lchown(2) to the probe's own uid and gid"},
    {"list-then-open", 2, 2, do_list_then_open,
     "DIR NAME: list DIR, then read NAME through its descriptor and from it as cwd"},
    {"meta-race", 4, 4, do_meta_race,
     "A B N MODE: N chmods of a path another thread flips between A and B"},
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
    {"tty-read", 1, 1, do_tty_path, "PATH: print what a terminal's input holds (no wait)"},
    {"tty-write", 2, 2, do_tty_path, "PATH TEXT: write TEXT to a terminal by its path"},
    {"pty-own", 0, 0, do_pty_own, ": make a pseudo-terminal pair, pass a line through it"},
    {"setsid", 0, 0, do_setsid, ": a child of ours makes a new session"},
    {"descendant", 2, 2, do_descendant,
     "MODE TOKEN: leave a process behind (child, double-fork, group, session)"},
    {"linger", 2, 2, do_linger, "TOKEN FD: say so on FD, then wait for ever"},
    {"fork-chain", 2, 2, do_fork_chain,
     "TOKEN STOPFILE: a chain forking its successor and exiting, until STOPFILE exists"},
    {"wait-on-fd", 1, 1, do_wait_on_fd, "N: block until a byte or EOF on descriptor N"},
    {"print", 1, 1, do_print, "TEXT: print TEXT and a newline at once"},
    {"connect-tcp6", 2, 2, do_connect_other, "ADDR PORT: connect over TCP (IPv6)"},
    {"connect-mptcp", 2, 2, do_connect_other, "ADDR PORT: connect over MPTCP (IPv4)"},
    {"udp-send", 3, 3, do_send_other, "ADDR PORT TEXT: one UDP datagram"},
    {"tfo-send", 3, 3, do_send_other, "ADDR PORT TEXT: TCP Fast Open (sendto MSG_FASTOPEN)"},
    {"loopback-self", 1, 1, do_loopback_self, "ADDR: a TCP server and its client on ADDR"},
    {"udp-self", 1, 1, do_udp_self, "ADDR: a datagram between two sockets on ADDR"},
    {"udp-sendmsg", 3, 3, do_udp_sendmsg, "ADDR PORT TEXT: one datagram through sendmsg"},
    {"bind-tcp", 1, 1, do_bind_tcp, "ADDR: bind a TCP socket on ADDR and listen"},
    {"listen-any", 0, 0, do_listen_any, ": listen on a TCP socket never bound"},
    {"source-route", 2, 2, do_source_route, "HOP PORT: set an LSRR route through HOP"},
    {"broker-stall", 3, 3, do_broker_stall,
     "hostile|quiet ADDR PORT: rounds of brokered calls beside threads stalling the broker"},
    {"connect-race", 5, 5, do_connect_race,
     "GOOD GPORT BAD BPORT N: N connects while a thread flips the address"},
    {"connect-unix-race", 3, 3, do_connect_unix_race,
     "GOOD BAD N: N Unix connects while a thread flips the path"},
    {"connect-unix-opath", 1, 1, do_connect_unix_opath,
     "PATH: connect to /proc/self/fd/N of an O_PATH descriptor of PATH"},
    {"record-big", 1, 1, do_record_big,
     "N: one N-byte record through a SOCK_SEQPACKET pair: whole, or refused whole"},
    {"handed-abstract", 3, 3, do_handed_abstract,
     "PATH NAME connect|bind|tcp: take a socket the service at PATH hands over, use it on "
     "@NAME (tcp: on 127.0.0.1, port NAME)"},
    {"unix-dgram-send", 1, 1, do_unix_dgram_send,
     "PATH: one datagram to the Unix datagram socket at PATH (sendto)"},
    {"unix-dgram-handover", 1, 1, do_unix_dgram_send,
     "PATH: the same by sendmsg with the flags of the cage's listener hand-over"},
    {"env-to-file", 2, 2, do_env_to_file, "NAME PATH: write $NAME into PATH"},
    {"sendmsg-swap", 3, 3, do_sendmsg_swap,
     "ADDR PORT N: N sendmsg to ADDR while a thread swaps the descriptor's socket"},
    {"proxy-request", 1, 2, do_proxy_request,
     "REQ [TUNNEL]: REQ (C escapes) to $HTTP_PROXY; on 200, TUNNEL through it"},
    {"agent-request", 1, 4, do_agent_request,
     "MSG...: MSG (C escapes) as SSH agent requests to $SSH_AUTH_SOCK, one connection"},
    {"dns-connect", 3, 3, do_dns_connect,
     "NAME PORT REQ: NAME from the resolver at 127.0.0.53, REQ to it at PORT, print the answer"},
    {"find-listener", 0, 0, do_find_listener, ": look for a seccomp listener among our fds"},
    {"reopen-listener", 1, 1, do_reopen_listener, "self|parent: reopen fds through /proc"},
    {"own-listener", 0, 0, do_own_listener, ": our own listener answers io_uring_setup"},
    {"refuse-loop", 1, 1, do_refuse_loop, "N: N refused calls (io_uring_setup)"},
    {"refuse-distinct", 1, 1, do_refuse_distinct, "N: N different refused calls, then a mount"},
    {"refuse-crowd", 2, 2, do_refuse_crowd, "K MS: K children refused without end, killed"},
    {"refused-set", 0, 0, do_refused_set, ": io_uring, ptrace, mount, userns, TIOCSTI once"},
    {"chmod", 2, 2, do_chmod, "PATH MODE: chmod(2), MODE in octal"},
    {"fchmod-ro", 2, 2, do_chmod, "PATH MODE: fchmod on an O_RDONLY descriptor"},
    {"fchmodat2", 2, 2, do_chmod, "PATH MODE: fchmodat2(AT_FDCWD, PATH, MODE, 0)"},
    {"setxattr", 3, 3, do_xattr, "PATH NAME VALUE: setxattr(2)"},
    {"fsetxattr-ro", 3, 3, do_xattr, "PATH NAME VALUE: fsetxattr on an O_RDONLY descriptor"},
    {"removexattr", 2, 2, do_xattr, "PATH NAME: removexattr(2)"},
    {"setflags-ro", 2, 2, do_inode_flags, "PATH FLAG: FS_IOC_SETFLAGS adding FLAG, O_RDONLY"},
    {"fssetxattr-ro", 2, 2, do_inode_flags, "PATH XFLAG: FS_IOC_FSSETXATTR adding XFLAG"},
    {"listmount", 0, 0, do_mount_table, ": listmount(2) of the root: print the count"},
    {"statmount", 0, 0, do_mount_table, ": listmount, then statmount of the first"},
    {"shm-read", 1, 1, do_shm, "key:K|id:N: attach a SysV segment, print it"},
    {"shm-write", 2, 2, do_shm, "key:K|id:N TEXT: attach a SysV segment, write TEXT"},
    {"shm-private", 1, 1, do_shm_private, "TEXT: TEXT through a segment of our own"},
    {"msg-recv", 1, 1, do_msg, "key:K|id:N: take a message from a SysV queue, print it"},
    {"msg-send", 2, 2, do_msg, "key:K|id:N TEXT: put a message on a SysV queue"},
    {"mq-recv", 1, 1, do_mq, "NAME: take a message from a POSIX queue, print it"},
    {"mq-unlink", 1, 1, do_mq, "NAME: remove a POSIX queue"},
    {"mq-create", 1, 1, do_mq, "NAME: make a new POSIX queue (O_EXCL, 0666)"},
    {"pshm-read", 1, 1, do_posix_shm, "NAME: print what a POSIX shared memory segment holds"},
    {"pshm-create", 1, 1, do_posix_shm, "NAME: make a new POSIX shared memory segment (O_EXCL)"},
    {"prlimit", 4, 4, do_prlimit, "PID RESOURCE SOFT HARD: prlimit(2) on PID (0: self)"},
    {"core-limit", 2, 2, do_core_limit, "SOFT HARD: set the core dump limit, print it read back"},
    {"core-limit-lowered", 2, 2, do_core_limit_lowered,
     "SOFT HARD: set the core dump limit; refused when it reads back unchanged"},
    {"setpriority", 2, 2, do_setpriority, "PID NICE: setpriority(PRIO_PROCESS, PID)"},
    {"setaffinity", 2, 2, do_setaffinity, "PID CPU: sched_setaffinity to that CPU only"},
    {"ioprio", 2, 2, do_ioprio, "PID LEVEL: ioprio_set(best effort, LEVEL)"},
    {"setscheduler", 1, 2, do_setscheduler,
     "PID [batch|other]: sched_setscheduler(SCHED_BATCH, or SCHED_OTHER)"},
    {"race-create", 4, 4, do_race_create,
     "text|text-mkdir|link|rename A B N: N creations while a thread races the path"},
    {"config-race", 4, 4, do_config_race,
     "DIR ALLOWED REFUSED N: config.lock renamed over config while a thread rewrites it"},
    {"create-via", 3, 3, do_create_via, "fd|magic|cwd DIR NAME: make NAME through DIR's fd"},
    {"broker-flood", 3, 3, do_broker_flood, "DIR T N: T threads making and removing in DIR"},
    {"broker-die", 2, 2, do_broker_die, "DIR K: K children killed while making entries"},
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
