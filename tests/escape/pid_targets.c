/*
 * Calls that name another process by pid: its resource limits (prlimit:
 * RLIMIT_FSIZE or RLIMIT_CPU kill it, a file limit of 1 cripples it), its
 * priority, CPUs, I/O priority and scheduling policy. Signals are refused
 * elsewhere; these are not signals, and where the run has no PID
 * namespace (tier T2, exec mode on both tiers) every process of the user
 * is in reach. The filter allows them only on the caller itself (pid 0).
 * The target is a process of the same user started by the test outside
 * the cage; judged from outside: its limits, nice value, CPUs, I/O
 * priority and policy afterwards. Run through procage_spawn and through
 * procage_exec.
 *
 * The changes asked for are ones the same user may make without privilege
 * whatever the target's state when the test starts (make check may itself
 * run under nice -n 19, or with an I/O priority or policy already set):
 * the nice value one step up, the I/O priority a best-effort level other
 * than the current one, the policy SCHED_BATCH or, from SCHED_BATCH,
 * SCHED_OTHER. Lowering a nice value needs privilege: at 19 the nice value
 * asked for is 19 itself, a change that cannot be seen from outside, and
 * only the call's own result tells whether it was refused (the other
 * calls still change what can be seen, and without the cage the canaries
 * still fail).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ioprio.h>

#include "escape.h"

#define PID_TARGET_READY "pid-target-ready"

/* What the test reads of the target from outside. */
struct proc_state {
	struct rlimit nofile;
	int nice;
	int cpus;
	long ioprio;
	int policy;
};

static bool state_read(pid_t pid, struct proc_state *s)
{
	cpu_set_t set;
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, (id_t)pid);
	if (errno || prlimit(pid, RLIMIT_NOFILE, NULL, &s->nofile) != 0 ||
	    sched_getaffinity(pid, sizeof set, &set) != 0)
		return false;
	s->cpus = CPU_COUNT(&set);
	s->ioprio = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);
	s->policy = sched_getscheduler(pid);
	return s->ioprio >= 0 && s->policy >= 0;
}

static bool state_same(const struct proc_state *a, const struct proc_state *b)
{
	return a->nofile.rlim_cur == b->nofile.rlim_cur && a->nice == b->nice &&
	       a->cpus == b->cpus && a->ioprio == b->ioprio && a->policy == b->policy;
}

static void state_diag(const char *what, const struct proc_state *s)
{
	diag("%s: nofile %llu, nice %d, %d cpus, ioprio %#lx, policy %d", what,
	     (unsigned long long)s->nofile.rlim_cur, s->nice, s->cpus, s->ioprio, s->policy);
}

/* The probe's actions that change process pid, each one joined by "then". */
struct pid_attack {
	char pid[16], soft[24], hard[24], nice[16], cpu[16], level[8];
	const char *policy; /* "batch" or "other" */
	int want_nice, want_ioprio, want_policy;
	const char *argv[40];
};

static void attack_args(struct pid_attack *a, pid_t pid, const struct proc_state *s, int cpu)
{
	snprintf(a->pid, sizeof a->pid, "%d", (int)pid);
	snprintf(a->soft, sizeof a->soft, "%llu",
		 (unsigned long long)(s->nofile.rlim_cur == 17 ? 18 : 17));
	snprintf(a->hard, sizeof a->hard, "%llu", (unsigned long long)s->nofile.rlim_max);
	/* Up one step, which needs no privilege; at 19 there is no step up. */
	a->want_nice = s->nice < 19 ? s->nice + 1 : 19;
	snprintf(a->nice, sizeof a->nice, "%d", a->want_nice);
	snprintf(a->cpu, sizeof a->cpu, "%d", cpu);
	/*
	 * Best effort, level 7, unless the target is there already: a task
	 * that never set one reads as best effort at a level derived from its
	 * nice value, which is 7 from nice 15 up.
	 */
	int level = s->ioprio == IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7) ? 6 : 7;
	a->want_ioprio = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, level);
	snprintf(a->level, sizeof a->level, "%d", level);
	a->want_policy = s->policy == SCHED_BATCH ? SCHED_OTHER : SCHED_BATCH;
	a->policy = a->want_policy == SCHED_BATCH ? "batch" : "other";
	const char *argv[] = {"prlimit",      a->pid,	     "7" /* RLIMIT_NOFILE */,
			      a->soft,	      a->hard,	     "then",
			      "setpriority",  a->pid,	     a->nice,
			      "then",	      "setaffinity", a->pid,
			      a->cpu,	      "then",	     "ioprio",
			      a->pid,	      a->level,	     "then",
			      "setscheduler", a->pid,	     a->policy,
			      NULL};
	memcpy(a->argv, argv, sizeof argv);
}

/* Each call alone, in a cage: refused, and the target unchanged. */
static void each_refused(const struct tier *t, struct caged_ws *ws, pid_t pid,
			 const struct proc_state *before, const struct pid_attack *a)
{
	/* The argv in groups: start index and length of each action. */
	static const struct {
		int at, n;
		const char *what;
	} calls[] = {{0, 5, "prlimit(RLIMIT_NOFILE)"},
		     {6, 3, "setpriority"},
		     {10, 3, "sched_setaffinity"},
		     {14, 3, "ioprio_set"},
		     {18, 3, "sched_setscheduler"}};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		const char *argv[8] = {NULL};
		memcpy(argv, a->argv + calls[i].at, (size_t)calls[i].n * sizeof *argv);
		struct caged_result r = run_caged_argv(ws, NULL, argv);
		struct proc_state after;
		bool same = state_read(pid, &after) && state_same(before, &after);
		if (!same)
			state_diag("the target after the cage", &after);
		check(t, refused(&r) && same, &r,
		      "pid targets: %s on a process outside the cage is refused, which stays "
		      "unchanged",
		      calls[i].what);
	}
}

struct caged_result run_exec_mode(struct caged_ws *ws, const char *const *args)
{
	struct caged_result r = {.how = CAGED_NOT_STARTED};
	const char *argv[48] = {caged_probe_path()};
	size_t n = 1;
	int err_pipe[2];
	for (; args[n - 1] && n + 1 < sizeof argv / sizeof *argv; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	if (pipe2(err_pipe, O_CLOEXEC) != 0)
		return r;
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0)
			dup2(null, 1);
		dup2(err_pipe[1], 2);
		if (!ws->held) {
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		struct procage_spawn_opts o = {
		    .size = sizeof o, .argv = (char *const *)argv, .cwd = ws->rw};
		struct procage_error err;
		(void)procage_exec(ws->held, &o, &err);
		dprintf(2, "procage_exec: %s\n", err.message);
		_exit(125);
	}
	close(err_pipe[1]);
	size_t got = 0;
	ssize_t k;
	while (child > 0 && got + 1 < sizeof r.err &&
	       ((k = read(err_pipe[0], r.err + got, sizeof r.err - 1 - got)) > 0 ||
		(k < 0 && errno == EINTR)))
		got += k > 0 ? (size_t)k : 0;
	r.err[got] = '\0';
	close(err_pipe[0]);
	int status;
	if (child < 0 || waitpid(child, &status, 0) != child)
		return r;
	r.how = WIFEXITED(status) ? CAGED_EXITED : CAGED_SIGNALED;
	r.code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
	r.caged = ws->held != NULL;
	snprintf(r.summary, sizeof r.summary, "exec mode: %s %d (%.600s)",
		 r.how == CAGED_EXITED ? "exit" : "signal", r.code, r.err);
	return r;
}

static void exec_mode_refused(const struct tier *t, struct caged_ws *ws, pid_t pid,
			      const struct proc_state *before, const struct pid_attack *a)
{
	char why[600] = "";
	struct procage_error err;
	if (!fixture(t,
		     procage_policy_set_private_tmp(ws->policy, false, &err) == 0 &&
			 caged_ws_hold_cage(ws, why, sizeof why) == 0,
		     "pid targets: a cage for exec mode (%s)", why))
		return;
	/* Each call in its own exec'd probe: the first refusal would end a chain. */
	static const int at[] = {0, 6, 10, 14, 18}, len[] = {5, 3, 3, 3, 3};
	bool all_refused = true;
	struct caged_result r = {0};
	for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
		const char *argv[8] = {NULL};
		memcpy(argv, a->argv + at[i], (size_t)len[i] * sizeof *argv);
		r = run_exec_mode(ws, argv);
		all_refused &= refused(&r);
	}
	struct proc_state after;
	bool same = state_read(pid, &after) && state_same(before, &after);
	if (!same)
		state_diag("the target after exec mode", &after);
	check(t, all_refused && same, &r,
	      "pid targets: in exec mode (no PID namespace on either tier) prlimit, setpriority, "
	      "sched_setaffinity, ioprio_set and sched_setscheduler on an outside process are "
	      "refused, which stays unchanged");
	/* 19: raising one's own nice value needs no privilege, whatever it is now. */
	const char *self[] = {"prlimit", "0",		"7", "64", a->hard,
			      "then",	 "setpriority", "0", "19", NULL};
	r = run_exec_mode(ws, self);
	check(t, did_it(&r), &r,
	      "pid targets: control: in exec mode the probe sets its own "
	      "limit and nice value (pid 0)");
	caged_ws_drop_cage(ws);
}

static struct caged_proc *pid_target(const struct tier *t, struct caged_ws *ws, int hold[2])
{
	if (!fixture(t, pipe2(hold, O_CLOEXEC) == 0, "pid targets: pipe: %s", strerror(errno)))
		return NULL;
	struct procage_fd_map map = {hold[0], 3};
	struct caged_opts o = {.fds = &map, .n_fds = 1};
	struct caged_proc *p =
	    start_uncaged(ws, &o, "print", PID_TARGET_READY, "then", "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	if (fixture(t, caged_proc_wait_for(p, PID_TARGET_READY, 10000),
		    "pid targets: a process of the same user runs outside the cage"))
		return p;
	close(hold[1]);
	hold[1] = -1;
	struct caged_result r = caged_proc_finish(p);
	result_diag(&r);
	return NULL;
}

void r25_other_processes_keep_their_limits_and_scheduling(const struct tier *t)
{
	int hold[2] = {-1, -1};
	struct caged_proc *target = NULL;
	struct proc_state before, after;
	struct pid_attack a;
	cpu_set_t set;
	struct caged_ws *ws = workspace(t, "pid-targets");
	if (!ws || cage_refused_here(t, ws, "pid-targets") || !(target = pid_target(t, ws, hold)))
		goto out;
	pid_t pid = caged_proc_pid(target);
	int cpu = 0;
	if (!fixture(t, state_read(pid, &before) && sched_getaffinity(pid, sizeof set, &set) == 0,
		     "pid targets: the target's state read from outside"))
		goto out;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpu = c;
	if (before.cpus < 2)
		diag("pid targets: the target has one CPU: a change of its CPUs cannot be seen, "
		     "the other calls can");
	if (before.nice == 19)
		diag("pid targets: the target's nice value is 19 already (the test runs under "
		     "nice): setpriority asks for 19, a change that cannot be seen; whether the "
		     "call is refused can, and the other calls' changes can");
	if (before.policy != SCHED_OTHER && before.policy != SCHED_BATCH)
		diag("pid targets: the target's policy is %d: leaving it may need privilege, and "
		     "the controls fail",
		     before.policy);
	attack_args(&a, pid, &before, cpu);
	state_diag("the target before", &before);

	each_refused(t, ws, pid, &before, &a);
	const char *self[] = {"prlimit",      "0",    "7",	"64",	a.hard,	       "then",
			      "setpriority",  "0",    a.nice,	"then", "setaffinity", "0",
			      a.cpu,	      "then", "ioprio", "0",	a.level,       "then",
			      "setscheduler", "0",    a.policy, NULL};
	struct caged_result r = run_caged_argv(ws, NULL, self);
	check(t, did_it(&r) && strstr(r.out, "nice "), &r,
	      "pid targets: control: in the cage the probe changes its own limits and scheduling "
	      "(pid 0)");
	exec_mode_refused(t, ws, pid, &before, &a);

	r = run_uncaged_argv(ws, NULL, a.argv);
	/* Each asked-for value differs from the one before, but for a nice value of 19. */
	bool changed = state_read(pid, &after) && after.nofile.rlim_cur != before.nofile.rlim_cur &&
		       after.nice == a.want_nice && after.ioprio == a.want_ioprio &&
		       after.policy == a.want_policy && (before.cpus < 2 || after.cpus == 1);
	state_diag("the target after the uncaged control", &after);
	check(t, did_it(&r) && changed, &r,
	      "pid targets: control: without the cage the same user changes the target's limit, "
	      "nice value, CPUs, I/O priority and policy");
out:
	if (hold[1] >= 0)
		close(hold[1]);
	if (target) {
		struct caged_result end = caged_proc_finish(target);
		if (!did_it(&end))
			result_diag(&end);
	}
	caged_ws_free(ws);
}
