/* The probe's actions: the seccomp listener and reports. */
#include "probe.h"

/* ---- the seccomp listener (R-32) --------------------------------------- */

/* A listener answers SECCOMP_IOCTL_NOTIF_ID_VALID with 0 or ENOENT. */
static bool is_listener(int fd)
{
	__u64 id = 0;
	return ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 || errno == ENOENT;
}

int do_find_listener(char **args)
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
int do_reopen_listener(char **args)
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
int do_own_listener(char **args)
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
int do_refuse_loop(char **args)
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

/*
 * N refused calls that all differ (io_uring_setup with N different entry
 * counts), then one mount of "r32-after-the-flood": a flood of harmless
 * refusals must not hide the call after it.
 */
int do_refuse_distinct(char **args)
{
	long n, eperm = 0;
	if (!parse_int(args[0], &n) || n < 0)
		return usage_error("bad count", args[0]);
	for (long i = 0; i < n; i++)
		if (syscall(__NR_io_uring_setup, (unsigned)(i + 1), NULL) < 0 && errno == EPERM)
			eperm++;
	/* A target that does not exist: uncaged (the sandbox-off run) it fails
	 * ENOENT and mounts nothing on the host. */
	long last = mount("r32-after-the-flood", "/tmp/r32-no-such-directory", "tmpfs", 0, NULL);
	printf("%ld of %ld refused with EPERM, then mount %s\n", eperm, n,
	       last < 0 ? strerrorname_np(errno) : "ok");
	return eperm == n && last < 0 ? PROBE_DID_IT : PROBE_ERROR;
}

/*
 * K children make refused calls without end; killed MS after each has had
 * its first one answered (it says so on a pipe, so a busy machine cannot
 * have them killed before they call); then one more.
 */
int do_refuse_crowd(char **args)
{
	long k, ms;
	pid_t pids[256];
	int calling[2];
	if (!parse_int(args[0], &k) || k < 1 || k > 256 || !parse_int(args[1], &ms) || ms < 0)
		return usage_error("bad crowd", args[0]);
	if (pipe(calling) != 0)
		return failed(REFUSE_SYSCALL, "pipe", "");
	for (long i = 0; i < k; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(calling[0]);
			syscall(__NR_io_uring_setup, 0, NULL);
			(void)!write(calling[1], "c", 1);
			for (;;)
				syscall(__NR_io_uring_setup, 0, NULL);
		}
		if (pids[i] < 0)
			return failed(REFUSE_SYSCALL, "fork", "");
	}
	close(calling[1]);
	char c;
	for (long i = 0; i < k; i++)
		while (read(calling[0], &c, 1) < 0 && errno == EINTR)
			;
	close(calling[0]);
	usleep((useconds_t)ms * 1000); /* the crowd's calls go on meanwhile: not a wait */
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
int do_refused_set(char **args)
{
	struct io_uring_params params;
	memset(&params, 0, sizeof params);
	long r1 = syscall(__NR_io_uring_setup, 4, &params);
	int e1 = errno;
	long r2 = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	int e2 = errno;
	/* A target that does not exist, so that the probe run without a cage
	 * (the sandbox-off run, as root) mounts nothing over the host's /tmp. */
	long r3 = mount("none", "/tmp/r32-no-such-directory", "tmpfs", 0, NULL);
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
