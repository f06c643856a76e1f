/*
 * How a run ends, beyond lifetime.c: whatever the run does to get
 * ahead of its reaper, and whatever became of the thread that started it.
 *
 *  - A fork chain (issue 11, item 17): pinned to one CPU, each process
 *    forks its successor and exits, so a reaper killing one generation at
 *    a time never catches up. Every link holds a pipe's write end; once
 *    the run has ended, the test's read end must report the hangup at
 *    once: no link is left. Without the cage the chain outlives the probe
 *    (the control), and a stop file ends it.
 *  - The thread that called procage_spawn has exited, and its stack and
 *    thread-local storage are unmapped, before the run ends: the run is
 *    still waited for, and what it left behind still dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "escape.h"

#define MAX_FOUND 64

/* Is pid a live (not zombie) "probe ACTION TOKEN ..."? */
static bool runs_action(pid_t pid, const char *action, const char *token)
{
	char path[64], buf[4096], stat[512];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *argv1 = buf + strlen(buf) + 1;
	if (argv1 >= buf + n || strcmp(argv1, action) != 0)
		return false;
	const char *argv2 = argv1 + strlen(argv1) + 1;
	if (argv2 >= buf + n || strcmp(argv2, token) != 0)
		return false;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (caged_read_file(path, stat, sizeof stat) < 0)
		return false;
	const char *paren = strrchr(stat, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z';
}

/* How many live processes run "probe ACTION TOKEN". */
static int running(const char *action, const char *token)
{
	int n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (!*end && pid > 0 && runs_action((pid_t)pid, action, token))
			n++;
	}
	closedir(d);
	return n;
}

/* Kill what is left of "probe linger TOKEN", through pidfds, and wait for it. */
static void lingerers_kill(const char *token)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (fd < 0)
			continue;
		if (runs_action((pid_t)pid, "linger", token)) {
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
			struct pollfd p = { fd, POLLIN, 0 };
			poll(&p, 1, 5000);
		}
		close(fd);
	}
	closedir(d);
}

/* ---- a fork chain ----------------------------------------------------- */

/*
 * Run the chain with the write end of a pipe as its descriptor 3, which
 * every link inherits; the test keeps only the read end. The end of the
 * last link is an event: the read end reports a hangup. A scan of /proc
 * could miss a chain that moves through pids faster than it reads them.
 */
static struct caged_result chain_run(struct caged_ws *ws, bool caged, const char *token,
				     const char *stop, int *chain_read)
{
	int p[2];
	struct caged_result r = { .how = CAGED_NOT_STARTED };
	*chain_read = -1;
	if (pipe2(p, O_CLOEXEC) != 0)
		return r;
	struct procage_fd_map map = { p[1], 3 };
	struct caged_opts o = { .fds = &map, .n_fds = 1 };
	r = caged ? run_caged(ws, &o, "fork-chain", token, stop, NULL)
		  : run_uncaged(ws, &o, "fork-chain", token, stop, NULL);
	close(p[1]);
	*chain_read = p[0];
	return r;
}

/* Has every link ended within timeout_ms (a deadline that only bounds a failure)? */
static bool chain_ended(int chain_read, int timeout_ms)
{
	struct pollfd p = { chain_read, POLLIN, 0 };
	char c;
	for (;;) {
		int n = poll(&p, 1, timeout_ms);
		if (n <= 0)
			return false;
		/* No link writes; a hangup (EOF) means no link holds it any more. */
		if (read(chain_read, &c, 1) == 0)
			return true;
	}
}

void r23_a_fork_chain_ends_with_the_run(const struct tier *t)
{
	char token[64], stop[PATH_MAX];
	static unsigned counter;
	int chain = -1;
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	snprintf(token, sizeof token, "r23-chain-%d-%u", (int)getpid(), ++counter);
	if (!path_join(t, stop, ws->rw, "stop-the-chain"))
		goto out;

	/* The target starts the chain and exits: the run ends at once, the chain with it. */
	struct caged_result r = chain_run(ws, true, token, stop, &chain);
	bool ended = chain >= 0 && chain_ended(chain, 0);
	check(t, did_it(&r) && strstr(r.out, "started") && ended, &r,
	      "r23: a fork chain pinned to one CPU has ended when the run has (%s)",
	      ended ? "no link left" : "links LEFT");
	/* A failure leaves the chain going: the stop file ends it. */
	put_file(stop, "");
	fixture(t, ended || (chain >= 0 && chain_ended(chain, 10000)),
		"r23: the chain ends on its stop file");
	if (chain >= 0)
		close(chain);
	unlink(stop);

	snprintf(token, sizeof token, "r23-chain-control-%d-%u", (int)getpid(), ++counter);
	r = chain_run(ws, false, token, stop, &chain);
	ended = chain >= 0 && chain_ended(chain, 0);
	check(t, did_it(&r) && !ended, &r,
	      "r23: control: without the cage, the chain outlives the probe (%d seen running)",
	      running("fork-chain", token));
	put_file(stop, "");
	fixture(t, chain >= 0 && (ended || chain_ended(chain, 10000)),
		"r23: the control's chain ends on its stop file");
	if (chain >= 0)
		close(chain);
	unlink(stop);
out:
	caged_ws_free(ws);
}

/* ---- the spawning thread gone ---------------------------------------- */

struct spawner {
	struct caged_ws *ws;
	const char *token;
	int hold_read;
	struct caged_proc *proc;
	bool started;
};

static void *spawner_main(void *arg)
{
	struct spawner *s = arg;
	struct procage_fd_map map = { s->hold_read, 3 };
	struct caged_opts o = { .fds = &map, .n_fds = 1 };
	s->proc = start_caged(s->ws, &o, "descendant", "child", s->token, "then", "wait-on-fd",
			      "3", NULL);
	s->started = s->proc && caged_proc_wait_for(s->proc, "started", 10000);
	return NULL;
}

/*
 * Spawn from a thread whose stack (and with it its thread control block
 * and TLS: glibc places them in a stack the caller gives) is unmapped once
 * it has exited. A reaper still reading that thread's TLS (a stack
 * protector's canary through %fs) would then fault.
 */
static struct caged_proc *spawn_from_gone_thread(const struct tier *t, struct spawner *s)
{
	const size_t size = 1 << 20;
	pthread_attr_t attr;
	pthread_t thread;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
			   -1, 0);
	if (!fixture(t, stack != MAP_FAILED, "r23: a thread stack: %s", strerror(errno)))
		return NULL;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, size);
	int rc = pthread_create(&thread, &attr, spawner_main, s);
	pthread_attr_destroy(&attr);
	if (rc == 0)
		pthread_join(thread, NULL);
	munmap(stack, size);
	fixture(t, rc == 0 && s->started,
		"r23: a thread spawned a run that left a child behind, and exited");
	return s->proc;
}

void r23_a_run_outlives_the_thread_that_spawned_it(const struct tier *t)
{
	char token[64];
	static unsigned counter;
	int hold[2];
	struct caged_ws *ws = workspace(t, "r23");
	if (!ws || cage_refused_here(t, ws, "r23"))
		goto out;
	snprintf(token, sizeof token, "r23-thread-%d-%u", (int)getpid(), ++counter);
	if (!fixture(t, pipe2(hold, O_CLOEXEC) == 0, "r23: pipe: %s", strerror(errno)))
		goto out;
	struct spawner s = { .ws = ws, .token = token, .hold_read = hold[0] };
	struct caged_proc *p = spawn_from_gone_thread(t, &s);
	close(hold[0]);
	int before = running("linger", token);
	/* EOF on descriptor 3: the target exits; the child it left must die with the run. */
	close(hold[1]);
	if (p) {
		struct caged_result r = caged_proc_finish(p);
		int left = running("linger", token);
		check(t, did_it(&r) && before > 0 && left == 0, &r,
		      "r23: with the spawning thread gone, the run is waited for and its child dies "
		      "(%d before, %d left)",
		      before, left);
	}
	lingerers_kill(token);

	/* The control: without the cage, the child outlives the probe. */
	snprintf(token, sizeof token, "r23-thread-control-%d-%u", (int)getpid(), ++counter);
	struct caged_result r = run_uncaged(ws, NULL, "descendant", "child", token, NULL);
	int left = running("linger", token);
	check(t, did_it(&r) && left > 0, &r,
	      "r23: control: without the cage, the child outlives the probe (%d left)", left);
	lingerers_kill(token);
out:
	caged_ws_free(ws);
}
