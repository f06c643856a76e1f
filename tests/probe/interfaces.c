/* The probe's actions: kernel interfaces that bypass path and socket rules. */
#include "probe.h"

/* ---- kernel interfaces that bypass path and socket rules (R-28) -------- */

int do_io_uring(char **args)
{
	struct io_uring_params params;
	memset(&params, 0, sizeof params);
	int fd = (int)syscall(__NR_io_uring_setup, 4, &params);
	if (fd < 0)
		return failed(REFUSE_SYSCALL, "io_uring_setup", "");
	close(fd);
	return PROBE_DID_IT;
}

int do_socket(char **args)
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

int do_unshare_user(char **args)
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

int do_clone_newuser(char **args)
{
	/* x86 order: flags, stack, parent_tid, child_tid, tls. */
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, NULL, NULL, 0);
	return reap_clone_child(pid, "clone(CLONE_NEWUSER)");
}

int do_clone3_newuser(char **args)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_NEWUSER;
	ca.exit_signal = SIGCHLD;
	long pid = syscall(__NR_clone3, &ca, sizeof ca);
	return reap_clone_child(pid, "clone3(CLONE_NEWUSER)");
}

int do_mount_tmpfs(char **args)
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

int do_bpf(char **args)
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

int do_ptrace_attach(char **args)
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

int do_ptrace_traceme(char **args)
{
	/* Our parent becomes the tracer; the probe exits without another exec. */
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0
		   ? PROBE_DID_IT
		   : failed(REFUSE_PTRACE, "ptrace(PTRACE_TRACEME)", "");
}

/* Let any process of the user attach to us (Yama ptrace_scope=1), for controls. */
int do_allow_ptracer(char **args)
{
	if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0 && errno != EINVAL)
		return failed(REFUSE_PTRACE, "prctl(PR_SET_PTRACER)", "");
	return PROBE_DID_IT; /* EINVAL: no Yama, nothing to allow */
}
