/* The probe's actions: the terminal, lifetime and helpers for tests. */
#include "probe.h"

/* ---- terminal --------------------------------------------------------- */

int do_tiocsti(char **args)
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
 * A terminal by path, never made ours (O_NOCTTY), never waited on:
 * tty-read PATH prints what its input queue holds now, tty-write PATH
 * TEXT writes TEXT to it (what its other side reads).
 */
int do_tty_path(char **args)
{
	bool writing = strcmp(action_name, "tty-write") == 0;
	char text[256];
	if (writing && !args[1])
		return usage_error("no text for", args[0]);
	int fd = open(args[0], (writing ? O_WRONLY : O_RDONLY) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	ssize_t n = writing ? write(fd, args[1], strlen(args[1])) : read(fd, text, sizeof text - 1);
	int e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return failed(REFUSE_FILE, writing ? "write" : "read", args[0]);
	if (!writing)
		printf("%.*s\n", (int)n, text);
	return PROBE_DID_IT;
}

/*
 * pty-own: make a pseudo-terminal pair (posix_openpt, then the other side
 * by its name, as openpty does) and pass a line through it.
 */
int do_pty_own(char **args)
{
	char line[64];
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave = -1;
	if (master < 0)
		return failed(REFUSE_FILE, "posix_openpt", "/dev/ptmx");
	const char *name = grantpt(master) == 0 && unlockpt(master) == 0 ? ptsname(master) : NULL;
	if (!name || (slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		int rc = failed(REFUSE_FILE, "open", name ? name : "ptsname");
		close(master);
		return rc;
	}
	ssize_t n = write(master, "pty-line\n", 9) == 9 ? read(slave, line, sizeof line - 1) : -1;
	close(slave);
	close(master);
	if (n < 0)
		return failed(REFUSE_FILE, "read", name);
	printf("%s %.*s", name, (int)n, line);
	return PROBE_DID_IT;
}

/*
 * Push TEXT into the terminal at FD, from a child that first tries to make
 * it its controlling terminal (a new session, TIOCSCTTY), as an attacker
 * would: TIOCSTI works only on one's controlling terminal. "wide" sets
 * bits above the 32 the kernel reads in the command, which a filter must
 * not be fooled by.
 */
int do_tty_inject(char **args)
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
int do_tioclinux(char **args)
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


int do_setsid(char **args)
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
int do_linger(char **args)
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
int do_descendant(char **args)
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

int do_wait_on_fd(char **args)
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

int do_print(char **args)
{
	printf("%s\n", args[0]);
	fflush(stdout);
	return PROBE_DID_IT;
}

/*
 * fork-chain TOKEN STOPFILE: a chain that outruns a reaper killing one
 * generation at a time. Pinned to one CPU, each process forks its
 * successor and exits at once, until STOPFILE exists. Every process of the
 * chain runs "probe fork-chain TOKEN STOPFILE", which the test looks for
 * from outside once the run has ended. Returns (the target exits) as soon
 * as the chain runs.
 */
int do_fork_chain(char **args)
{
	cpu_set_t one;
	int cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu >= 0 ? cpu : 0, &one);
	(void)sched_setaffinity(0, sizeof one, &one);
	printf("started\n");
	fflush(stdout);
	pid_t first = fork();
	if (first < 0)
		return failed(REFUSE_SYSCALL, "fork", "");
	if (first > 0)
		return PROBE_DID_IT;
	/* The chain holds none of the test's pipes. */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < 3; i++)
		if (null < 0 || dup2(null, i) < 0)
			close(i);
	for (;;) {
		if (access(args[1], F_OK) == 0)
			_exit(0);
		pid_t next = fork();
		if (next > 0)
			_exit(0);
		/* next < 0 (a limit): try again; next == 0: the successor goes on. */
	}
}
