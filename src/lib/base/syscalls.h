/*
 * Raw system call wrappers and the uAPI constants that older system headers
 * lack. Landlock has no maintained C library; the kernel's ABI is stable, so
 * the numbers and structures are defined here where the headers miss them.
 */
#ifndef PROCAGE_SYSCALLS_H
#define PROCAGE_SYSCALLS_H

#include <linux/landlock.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* File rights by the ABI that introduced them. */
#ifndef LANDLOCK_ACCESS_FS_REFER /* ABI 2 */
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE /* ABI 3 */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV /* ABI 5 */
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* Network rights, ABI 4. */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
/* Scopes, ABI 6. */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/*
 * The ruleset attribute as of ABI 6. Older headers declare a shorter struct
 * under the kernel's name; ours has its own name so both can coexist, and
 * the size passed to the kernel says which fields it may read.
 */
struct landlock_ruleset_attr_v6 {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct landlock_path_beneath_attr_packed {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct landlock_net_port_attr_v4 {
	uint64_t allowed_access;
	uint64_t port;
};

#ifndef LANDLOCK_RULE_PATH_BENEATH
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif
#ifndef LANDLOCK_RULE_NET_PORT
#define LANDLOCK_RULE_NET_PORT 2
#endif

static inline int sys_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags)
{
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline int sys_landlock_add_rule(int ruleset_fd, int rule_type, const void *attr,
					uint32_t flags)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, attr, flags);
}

static inline int sys_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
	return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(__NR_pidfd_open, pid, flags);
}

static inline int sys_pidfd_send_signal(int pidfd, int sig, void *info, unsigned int flags)
{
	return (int)syscall(__NR_pidfd_send_signal, pidfd, sig, info, flags);
}

static inline int sys_close_range(unsigned int first, unsigned int last, unsigned int flags)
{
	return (int)syscall(__NR_close_range, first, last, flags);
}

/* The mount API (Linux 5.2, mount_setattr 5.12) and openat2 (5.6). */
#include <linux/mount.h>
#include <linux/openat2.h>

#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#define __NR_fsopen 430
#define __NR_fsconfig 431
#define __NR_fsmount 432
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOUNT_ATTR_SIZE_VER0
struct mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};
#define MOUNT_ATTR_SIZE_VER0 32
#endif

static inline int sys_open_tree(int dfd, const char *path, unsigned int flags)
{
	return (int)syscall(__NR_open_tree, dfd, path, flags);
}

static inline int sys_move_mount(int from_dfd, const char *from_path, int to_dfd,
				 const char *to_path, unsigned int flags)
{
	return (int)syscall(__NR_move_mount, from_dfd, from_path, to_dfd, to_path, flags);
}

static inline int sys_fsopen(const char *fs_name, unsigned int flags)
{
	return (int)syscall(__NR_fsopen, fs_name, flags);
}

static inline int sys_fsconfig(int fd, unsigned int cmd, const char *key, const void *value,
			       int aux)
{
	return (int)syscall(__NR_fsconfig, fd, cmd, key, value, aux);
}

static inline int sys_fsmount(int fd, unsigned int flags, unsigned int attr_flags)
{
	return (int)syscall(__NR_fsmount, fd, flags, attr_flags);
}

static inline int sys_mount_setattr(int dfd, const char *path, unsigned int flags,
				    struct mount_attr *attr)
{
	return (int)syscall(__NR_mount_setattr, dfd, path, flags, attr, sizeof *attr);
}

static inline int sys_openat2(int dfd, const char *path, struct open_how *how)
{
	return (int)syscall(__NR_openat2, dfd, path, how, sizeof *how);
}

#endif
