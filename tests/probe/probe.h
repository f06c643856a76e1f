/* The probe's shared declarations: exit codes, refusal sets, helpers, actions. */
#ifndef PROCAGE_PROBE_H
#define PROCAGE_PROBE_H

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

extern const char *action_name;
extern const char *probe_self;

/* Shared by the socket actions and those that use a socket on the way. */
int connect_to(int family, const void *addr, socklen_t len, const char *target);
socklen_t unix_address(struct sockaddr_un *a, const char *name, bool abstract);

bool errno_refuses(enum refusal_set set, int e);
int failed(enum refusal_set set, const char *what, const char *target);
int usage_error(const char *what, const char *arg);
bool parse_int(const char *s, long *out);
int copy_to_stdout(int fd, bool positional);

int do_read_fd(char **args);
int do_env_has(char **args);
int do_env_list(char **args);
int do_read_file(char **args);
/* proc_self.c */
int do_chdir_read(char **args);
int do_read_via_fd(char **args);
int do_read_at(char **args);
int do_read_own_task(char **args);
int do_dir_escape(char **args);
int do_sem_own(char **args);
int do_pty_hold_read(char **args);
int do_write_file(char **args);
int do_read_head(char **args);
int do_open_write(char **args);
int do_truncate_path(char **args);
int do_open_trunc(char **args);
int do_ftruncate_ro(char **args);
int do_ftruncate_rw(char **args);
int do_list_dir(char **args);
int do_path_call(char **args);
int do_flink(char **args);
int do_metadata(char **args);
int do_meta_fd(char **args);
int do_meta_race(char **args);
int do_list_then_open(char **args);
int do_connect_unix(char **args);
int do_connect_tcp(char **args);
int do_unix_self(char **args);
int do_socketpair(char **args);
int do_kill(char **args);
int do_private_mounts(char **args);
int do_private_net(char **args);
int do_listen_unix(char **args);
int do_unshare_mount(char **args);
int do_mount_call(char **args);
int do_open_tree(char **args);
int do_fsopen_tmpfs(char **args);
int do_setns(char **args);
int do_io_uring(char **args);
int do_socket(char **args);
int do_unshare_user(char **args);
int do_clone_newuser(char **args);
int do_clone3_newuser(char **args);
int do_mount_tmpfs(char **args);
int do_bpf(char **args);
int do_ptrace_attach(char **args);
int do_ptrace_traceme(char **args);
int do_allow_ptracer(char **args);
int do_tiocsti(char **args);
int do_tty_inject(char **args);
int do_tty_path(char **args);
int do_pty_own(char **args);
int do_tioclinux(char **args);
int do_setsid(char **args);
int do_linger(char **args);
int do_descendant(char **args);
int do_fork_chain(char **args);
int do_wait_on_fd(char **args);
int do_print(char **args);
int do_connect_other(char **args);
int do_send_other(char **args);
int do_proxy_request(char **args);
int do_agent_request(char **args);
int do_dns_connect(char **args);
/* loopback.c: loopback-only networking */
int do_loopback_self(char **args);
int do_udp_self(char **args);
int do_udp_sendmsg(char **args);
int do_bind_tcp(char **args);
int do_listen_any(char **args);
int do_source_route(char **args);
int do_connect_race(char **args);
int do_connect_unix_race(char **args);
int do_connect_unix_opath(char **args);
int do_unix_dgram_send(char **args);
int do_handed_abstract(char **args);
int do_record_big(char **args);
int do_sendmsg_swap(char **args);
/* stall.c: a caller hostile to the supervisor */
int do_broker_stall(char **args);
int do_env_to_file(char **args);
int do_find_listener(char **args);
int do_reopen_listener(char **args);
int do_own_listener(char **args);
int do_refuse_loop(char **args);
int do_refuse_distinct(char **args);
int do_refuse_crowd(char **args);
int do_refused_set(char **args);
/* targets.c: metadata, SysV IPC, other processes by pid, the mount table */
int do_chmod(char **args);
int do_xattr(char **args);
int do_inode_flags(char **args);
int do_mount_table(char **args);
int do_shm(char **args);
int do_shm_private(char **args);
int do_msg(char **args);
int do_mq(char **args);
int do_posix_shm(char **args);
int do_prlimit(char **args);
int do_core_limit(char **args);
int do_core_limit_lowered(char **args);
int do_setpriority(char **args);
int do_setaffinity(char **args);
int do_ioprio(char **args);
int do_setscheduler(char **args);
/* broker.c: attacks on the T2 broker */
int do_race_create(char **args);
int do_config_race(char **args);
int do_create_via(char **args);
int do_broker_flood(char **args);
int do_broker_die(char **args);

#endif
