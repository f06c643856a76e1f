/*
 * floor_launcher: the least a sandboxing command can do, to measure what
 * the start-up targets leave procage on this machine.
 *
 *   floor_launcher [--namespaces] -- COMMAND [ARG...]
 *
 * It forks; the child sets no_new_privs, restricts itself with a Landlock
 * ruleset (everything below / readable and executable, the working
 * directory and /dev/null writable) and a small seccomp filter, and executes COMMAND;
 * the parent waits and exits with its status. With --namespaces the child
 * first enters new user, mount and network namespaces, maps its ids and
 * makes its mounts private, as a tier T1 cage must at the least. No
 * policy, no hidden file, no supervisor: what is left between this and
 * bubblewrap is the machine's own cost of exec and of namespaces, the
 * floor under any ratio `bench/run startup` reports.
 *
 * It is a measuring stick, not a sandbox: it hides nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FS_READ_EXECUTE                                                          \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |             \
	 LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_WRITE                                                                 \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |         \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |         \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |             \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |           \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

static void die(const char *what)
{
	fprintf(stderr, "floor_launcher: %s: %s\n", what, strerror(errno));
	_exit(126);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

/* User, mount and network namespaces, the ids mapped, mounts private. */
static void enter_namespaces(uid_t uid, gid_t gid)
{
	char map[64];
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) != 0)
		die("unshare");
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	write_file("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		die("mount");
}

static void add_rule(int ruleset, const char *path, __u64 access)
{
	struct landlock_path_beneath_attr rule = { .allowed_access = access };
	rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0)
		die(path);
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
		die("landlock_add_rule");
	close(rule.parent_fd);
}

static void restrict_files(void)
{
	struct landlock_ruleset_attr attr = { .handled_access_fs = FS_READ_EXECUTE | FS_WRITE };
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (ruleset < 0)
		die("landlock_create_ruleset");
	add_rule(ruleset, "/", FS_READ_EXECUTE);
	add_rule(ruleset, ".", FS_READ_EXECUTE | FS_WRITE);
	add_rule(ruleset, "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE);
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
		die("landlock_restrict_self");
	close(ruleset);
}

/* A filter of the shape every sandbox's has: the architecture checked,
 * a few calls refused, the rest allowed. */
static void restrict_calls(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_bpf, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		die("seccomp");
}

int main(int argc, char **argv)
{
	int first = 1, namespaces = 0;
	if (first < argc && strcmp(argv[first], "--namespaces") == 0)
		namespaces = 1, first++;
	if (first < argc && strcmp(argv[first], "--") == 0)
		first++;
	if (first >= argc) {
		fprintf(stderr, "usage: floor_launcher [--namespaces] -- COMMAND [ARG...]\n");
		return 2;
	}
#ifndef __x86_64__
	fprintf(stderr, "floor_launcher: its seccomp filter is written for x86_64\n");
	return 2;
#endif
	uid_t uid = getuid();
	gid_t gid = getgid();
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (namespaces)
			enter_namespaces(uid, gid);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			die("no_new_privs");
		restrict_files();
		restrict_calls();
		execvp(argv[first], argv + first);
		die(argv[first]);
	}
	int status;
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
