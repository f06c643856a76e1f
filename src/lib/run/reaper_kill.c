/*
 * Ending every process of a run, from its reaper in phase 2 (see
 * reaper_raw.h: raw system calls only).
 *
 * In a PID namespace of its own the reaper is its first process: kill(-1)
 * reaches every other process of the run at once, and the kernel lets no
 * fork slip past it.
 *
 * Elsewhere (tier T2) a run could stay ahead of a reaper that kills its
 * children one generation at a time: a chain where each process forks its
 * successor and exits. So the run is first frozen: every process of the
 * run (in the reaper's session, or descended from a process of the run) is
 * sent SIGSTOP, scan after scan, until a scan finds none running; a
 * stopped process forks nothing. Then each is sent SIGKILL. Where the run
 * has a cgroup of its own, cgroup.kill does it all at once first.
 *
 * What follows needs no new descriptor, since the run may have lowered the
 * reaper's limit: the reaper's own children, read from the children file
 * opened before the target ran, are killed by pid (a child's pid is ours
 * until we reap it) until none is left. Every loop is bounded; if the
 * reaper cannot see or end what is left, it says so (r->lost).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "reaper_raw.h"
#include "base/syscalls.h"

/* How long the reaper keeps trying to end processes it sent SIGKILL. */
#define KILL_DEADLINE_MS 10000
/* Scans of the freeze before the run is killed whatever it is doing. */
#define FREEZE_ROUNDS 64

REAPER_RAW void reaper_pidfd_kill(int pidfd, int sig)
{
	raw_syscall4(__NR_pidfd_send_signal, pidfd, sig, NULL, 0);
}

REAPER_RAW long raw_read(int fd, void *buf, size_t len)
{
	long n;
	do
		n = raw_syscall3(SYS_read, fd, buf, len);
	while (n == -EINTR);
	return n;
}

REAPER_RAW size_t raw_format_uint(char *buf, unsigned n)
{
	char tmp[12];
	size_t len = 0, i = 0;
	do
		tmp[len++] = (char)('0' + n % 10);
	while ((n /= 10) && len < sizeof tmp);
	while (len)
		buf[i++] = tmp[--len];
	buf[i] = '\0';
	return i;
}

static REAPER_RAW long now_ms(void)
{
	struct timespec t;
	if (raw_syscall2(SYS_clock_gettime, CLOCK_MONOTONIC, &t) != 0)
		return 0;
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static REAPER_RAW int wait_status_of(const siginfo_t *info)
{
	switch (info->si_code) {
	case CLD_EXITED:
		return (info->si_status & 0xff) << 8;
	case CLD_DUMPED:
		return (info->si_status & 0x7f) | 0x80;
	default:
		return info->si_status & 0x7f;
	}
}

/*
 * A stop of the target is only reported if it made us its tracer (the
 * filter refuses that); it is killed, never taken for its end.
 */
REAPER_RAW int reaper_reap_ended(struct reaper *r)
{
	for (;;) {
		siginfo_t info;
		info.si_pid = 0;
		long rc = raw_syscall5(SYS_waitid, P_ALL, 0, &info, WEXITED | WNOHANG, NULL);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return 0; /* ECHILD: nothing left */
		if (info.si_pid == 0)
			return 1;
		if (info.si_pid != r->target || r->target_reaped)
			continue;
		if (info.si_code == CLD_EXITED || info.si_code == CLD_KILLED ||
		    info.si_code == CLD_DUMPED) {
			r->target_reaped = true;
			r->target_status = wait_status_of(&info);
		} else {
			reaper_pidfd_kill(r->target_pidfd, SIGKILL);
		}
	}
}

/* Parse the pids in text (decimal, separated by anything else) and kill each. */
static REAPER_RAW int kill_listed(const char *text, long len, unsigned *carry)
{
	int n = 0;
	for (long i = 0; i < len; i++) {
		char c = text[i];
		if (c >= '0' && c <= '9') {
			*carry = *carry * 10 + (unsigned)(c - '0');
			continue;
		}
		if (*carry) {
			/* Our unreaped child: its pid cannot name another process. */
			raw_syscall2(SYS_kill, *carry, SIGKILL);
			n++;
		}
		*carry = 0;
	}
	return n;
}

/* SIGKILL every child listed in the children file held open; -1 if there is none. */
static REAPER_RAW int children_kill_listed(struct reaper *r)
{
	char buf[4096];
	unsigned carry = 0;
	int n = 0;
	if (r->children_fd < 0 || raw_syscall3(SYS_lseek, r->children_fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		long got = raw_read(r->children_fd, buf, sizeof buf);
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		n += kill_listed(buf, got, &carry);
	}
	n += kill_listed(" ", 1, &carry);
	return n;
}

/* What the freeze reads of /proc/PID/stat. */
struct proc_stat {
	char state;
	long ppid;
	long session;
};

/* "pid (comm) S ppid pgrp session ...": comm may hold anything, so from the last ')'. */
static REAPER_RAW bool stat_parse(const char *text, long len, struct proc_stat *out)
{
	long i = len - 1, field[3] = { 0, 0, 0 };
	while (i >= 0 && text[i] != ')')
		i--;
	if (i < 0 || i + 3 >= len)
		return false;
	out->state = text[i + 2];
	i += 4;
	for (int f = 0; f < 3; f++) {
		if (i >= len || text[i] < '0' || text[i] > '9')
			return false;
		for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			field[f] = field[f] * 10 + (text[i] - '0');
		i++; /* the space */
	}
	out->ppid = field[0];
	out->session = field[2];
	return true;
}

/* Read /proc/PID/stat through the /proc held open; false if it is gone. */
static REAPER_RAW bool stat_read(struct reaper *r, unsigned pid, struct proc_stat *out)
{
	char path[32], text[512];
	size_t len = raw_format_uint(path, pid);
	const char suffix[] = "/stat";
	for (size_t k = 0; k < sizeof suffix; k++)
		path[len + k] = suffix[k];
	long fd = raw_syscall4(SYS_openat, r->proc_fd, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	long got = raw_read((int)fd, text, sizeof text);
	raw_syscall1(SYS_close, fd);
	return got > 0 && stat_parse(text, got, out);
}

static REAPER_RAW bool tracked(const struct reaper *r, long pid)
{
	for (int i = 0; i < r->n_tracked; i++)
		if (r->tracked[i] == pid)
			return true;
	return false;
}

static REAPER_RAW bool of_the_run(const struct reaper *r, const struct proc_stat *s)
{
	return s->session == r->self || s->ppid == r->self || tracked(r, s->ppid);
}

/*
 * Signal a process of the run found by pid. Our own child by pid; any
 * other through a pidfd, after checking again, on the process the pidfd
 * names, that it is of the run (its pid may have been reused since).
 */
static REAPER_RAW void run_process_signal(struct reaper *r, unsigned pid,
					  const struct proc_stat *s, int sig)
{
	if (s->ppid == r->self) {
		raw_syscall2(SYS_kill, pid, sig);
		return;
	}
	long fd = raw_syscall2(__NR_pidfd_open, pid, 0);
	if (fd < 0)
		return;
	struct proc_stat again;
	if (stat_read(r, pid, &again) && of_the_run(r, &again))
		reaper_pidfd_kill((int)fd, sig);
	raw_syscall1(SYS_close, fd);
}

/* The pid a /proc entry names, or 0 when it names none. */
static REAPER_RAW unsigned dirent_pid(const char *name)
{
	unsigned pid = 0;
	const char *c = name;
	for (; *c >= '0' && *c <= '9'; c++)
		pid = pid * 10 + (unsigned)(*c - '0');
	return *c ? 0 : pid;
}

/*
 * One scan of /proc: every process of the run is tracked and sent sig
 * (SIGSTOP to the running ones only). The number still running, or -1
 * when /proc cannot be read.
 */
static REAPER_RAW int run_scan(struct reaper *r, int sig)
{
	char buf[4096];
	int running = 0;
	if (raw_syscall3(SYS_lseek, r->proc_fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		long got = raw_syscall3(SYS_getdents64, r->proc_fd, buf, sizeof buf);
		if (got < 0)
			return -1;
		if (got == 0)
			return running;
		for (long off = 0; off < got;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
			off += d->reclen;
			unsigned pid = dirent_pid(d->name);
			struct proc_stat s;
			if (!pid || (pid_t)pid == r->self || !stat_read(r, pid, &s) ||
			    !of_the_run(r, &s))
				continue;
			if (!tracked(r, pid) && r->n_tracked < REAPER_MAX_TRACKED)
				r->tracked[r->n_tracked++] = (pid_t)pid;
			bool stopped = s.state == 'T' || s.state == 't' || s.state == 'Z' ||
				       s.state == 'X';
			if (sig == SIGSTOP && stopped)
				continue;
			if (sig == SIGSTOP)
				running++;
			run_process_signal(r, pid, &s, sig);
		}
	}
}

/* Freeze the run, then kill it: see the top of the file. */
static REAPER_RAW void freeze_then_kill(struct reaper *r)
{
	if (r->proc_fd < 0)
		return;
	r->n_tracked = 0;
	for (int round = 0; round < FREEZE_ROUNDS; round++) {
		int running = run_scan(r, SIGSTOP);
		if (running < 0)
			return;
		/* A scan that stopped no process may still have found a parent late. */
		if (running == 0 && round > 0)
			break;
		raw_syscall0(SYS_sched_yield);
	}
	run_scan(r, SIGKILL);
}

/*
 * Without the children file (CONFIG_PROC_CHILDREN): find our children by
 * their parent pid, through /proc held open; -1 when it cannot be read.
 */
static REAPER_RAW int children_kill_scanned(struct reaper *r)
{
	char buf[4096];
	int n = 0;
	if (r->proc_fd < 0 || raw_syscall3(SYS_lseek, r->proc_fd, 0, SEEK_SET) < 0)
		return -1;
	for (;;) {
		long got = raw_syscall3(SYS_getdents64, r->proc_fd, buf, sizeof buf);
		if (got < 0)
			return -1;
		if (got == 0)
			return n;
		for (long off = 0; off < got;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(void *)(buf + off);
			off += d->reclen;
			unsigned pid = dirent_pid(d->name);
			struct proc_stat s;
			if (!pid || !stat_read(r, pid, &s) || s.ppid != r->self)
				continue;
			raw_syscall2(SYS_kill, pid, SIGKILL);
			n++;
		}
	}
}

/* Wait up to ms for a child to change (SIGCHLD on the signalfd). */
static REAPER_RAW void child_event_wait(struct reaper *r, long ms)
{
	char drain[128 * 8];
	struct pollfd p;
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	p.fd = r->sigchld_fd;
	p.events = POLLIN;
	p.revents = 0;
	/* With a descriptor limit of 0, poll refuses even one: just wait. */
	if (raw_syscall5(SYS_ppoll, &p, 1, &t, NULL, sizeof(sigset_t)) < 0)
		raw_syscall2(SYS_nanosleep, &t, NULL);
	while (raw_syscall3(SYS_read, r->sigchld_fd, drain, sizeof drain) > 0)
		;
}

REAPER_RAW void reaper_kill_all(struct reaper *r)
{
	/* Mostly there is nothing left: then /proc is not even read. */
	if (!reaper_reap_ended(r))
		return;
	if (!r->pid_namespace) {
		if (r->cgroup_kill_fd >= 0)
			raw_syscall3(SYS_write, r->cgroup_kill_fd, "1", 1);
		freeze_then_kill(r);
	}
	long deadline = now_ms() + KILL_DEADLINE_MS;
	int blind = 0;
	while (reaper_reap_ended(r)) {
		int n;
		if (r->pid_namespace)
			n = raw_syscall2(SYS_kill, -1, SIGKILL) == 0 ? 1 : 0;
		else if ((n = children_kill_listed(r)) < 0)
			n = children_kill_scanned(r);
		if (!reaper_reap_ended(r))
			return;
		long left = deadline - now_ms();
		/*
		 * Children we cannot see (none listed though some are left: one
		 * just handed to us, or no /proc at all), or that do not end:
		 * look again, up to the deadline, then say so.
		 */
		if (n <= 0)
			blind++;
		if (left <= 0 || blind > 100) {
			r->lost = true;
			return;
		}
		child_event_wait(r, n > 0 ? (left < 100 ? left : 100) : 10);
	}
}
