/*
 * spawn_bench: what one caged spawn of /bin/true costs inside the library,
 * against the cheapest way to start a process, measured in one process.
 *
 * Each round runs every variant once, in an order shuffled anew each
 * round, so that machine noise and what one variant leaves to the next
 * spread over all of them alike; the fork's variant runs apart, after
 * the rounds (rounds_run says why). Reported: median and 90th percentile in microseconds, and the
 * ratio of each median to the bare spawn's. Then the cost of procage_cage_new
 * and the seccomp filter's cost per allowed system call: the benchmark runs
 * itself in a cage (with --syscall-loop) and compares with an uncaged run
 * and with a one-instruction filter, which is the floor any filter pays.
 * What installing the filter costs the child is bench/inside/seccomp_install.c's.
 * The targets of bench/README.md are printed with whether this run meets them:
 * a report, never the exit code (which is non-zero only when the benchmark
 * itself cannot run).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procage.h"
/* Internal: the cage's seccomp programs, to time their installation. */

extern char **environ;

#define TARGET "/bin/true"
#define DEFAULT_ITERATIONS 2000
#define DEFAULT_CAGE_ITERATIONS 300
#define WARMUP_ROUNDS 50
#define CLONE_STACK_SIZE (64 * 1024)
/* System calls per timed loop, loops per child, and rounds of children;
 * the fastest loop counts. */
#define SYSCALL_LOOP_CALLS 100000
#define SYSCALL_LOOP_REPEATS 5
#define SYSCALL_LOOP_ROUNDS 12
/* The descriptor the looping child reports on. */
#define SYSCALL_REPORT_FD 3
/* Installations of each filter to time, one per child. */

static char *target_argv[] = {TARGET, NULL};

/* Everything a variant needs; the cages are made once, outside the loop. */
struct bench {
	struct procage_cage *cage_tmp;	  /* default policy, private tmp on */
	struct procage_cage *cage_no_tmp; /* the same with private tmp off */
	const char *workdir;
	char *clone_stack;
};

struct variant {
	const char *label;
	int (*run)(struct bench *b);
	double *samples; /* microseconds */
	void (*before)(void); /* untimed, before each run; or NULL */
};

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int wait_true(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

static int clone_child(void *arg)
{
	(void)arg;
	execve(TARGET, target_argv, environ);
	_exit(127);
}

/* (a) The bare spawn: what a launcher cannot do without. */
static int run_bare_clone(struct bench *b)
{
	pid_t pid = clone(clone_child, b->clone_stack + CLONE_STACK_SIZE,
			  CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (pid < 0)
		return -errno;
	return wait_true(pid);
}

/* (a') glibc's posix_spawn, which is clone(CLONE_VM|CLONE_VFORK) inside. */
static int run_posix_spawn(struct bench *b)
{
	(void)b;
	pid_t pid;
	int rc = posix_spawn(&pid, TARGET, NULL, NULL, target_argv, environ);
	if (rc != 0)
		return -rc;
	return wait_true(pid);
}

/* (b) fork copies the page tables: the cost the library avoids. */
static int run_fork(struct bench *b)
{
	(void)b;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execve(TARGET, target_argv, environ);
		_exit(127);
	}
	return wait_true(pid);
}

/* A small generator of the rounds' orders: the same every run of the benchmark. */
static uint32_t order_next(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* One variant's run, timed; its sample kept past the warm-up rounds. */
static int variant_time(struct bench *b, struct variant *v, size_t round)
{
	if (v->before)
		v->before();
	double t0 = now_us();
	int vrc = v->run(b);
	double t = now_us() - t0;
	if (vrc < 0) {
		fprintf(stderr, "spawn_bench: %s failed: %s\n", v->label, strerror(-vrc));
		return vrc;
	}
	if (round >= WARMUP_ROUNDS)
		v->samples[round - WARMUP_ROUNDS] = t;
	return 0;
}

/*
 * Every variant but the fork's once a round, in an order shuffled anew
 * each round, so that what one leaves behind (a warm cache, a cold one)
 * falls on each of the others alike. The fork's runs apart, after them:
 * fork marks every page of this process copy-on-write, and the variant
 * that comes next pays a fault for each page it writes. With a rotation
 * that was the default cage four rounds in five, and it showed 1.4 to
 * 1.6 ms more than the cage without private tmp, which two such cages
 * alternated in a process of their own do not show.
 */
static int rounds_run(struct bench *b, struct variant *variants, size_t n_variants,
		      size_t iterations)
{
	size_t order[8], n = 0, fork_variant = 0;
	uint32_t state = 2463534242u;
	for (size_t v = 0; v < n_variants; v++) {
		if (variants[v].run == run_fork)
			fork_variant = v;
		else
			order[n++] = v;
	}
	for (size_t round = 0; round < WARMUP_ROUNDS + iterations; round++) {
		for (size_t k = n; k > 1; k--) {
			size_t j = order_next(&state) % k, t = order[k - 1];
			order[k - 1] = order[j];
			order[j] = t;
		}
		for (size_t k = 0; k < n; k++)
			if (variant_time(b, &variants[order[k]], round) < 0)
				return -1;
	}
	for (size_t round = 0; round < WARMUP_ROUNDS + iterations; round++)
		if (variant_time(b, &variants[fork_variant], round) < 0)
			return -1;
	return 0;
}

static int run_caged(const struct procage_cage *cage, const char *workdir)
{
	struct procage_error err;
	struct procage_run *run;
	int status, rc;

	rc = procage_spawn(cage,
			   &(struct procage_spawn_opts){.size = sizeof(struct procage_spawn_opts),
							.argv = target_argv,
							.cwd = workdir},
			   &run, &err);
	if (rc < 0) {
		fprintf(stderr, "spawn_bench: procage_spawn: %s\n", err.message);
		return rc;
	}
	rc = procage_run_wait(run, &status, &err);
	if (rc < 0)
		fprintf(stderr, "spawn_bench: procage_run_wait: %s\n", err.message);
	procage_run_free(run);
	if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = -ECHILD;
	return rc;
}

/* (c) The default cage, as `procage run` uses it. */
static int run_caged_tmp(struct bench *b)
{
	return run_caged(b->cage_tmp, b->workdir);
}

/* (d) No private temporary directory: Landlock and seccomp only. */
static int run_caged_no_tmp(struct bench *b)
{
	return run_caged(b->cage_no_tmp, b->workdir);
}

/*
 * (e) As (d), the spawn's user and network namespaces made ahead: the
 * caller asked for them (procage_prepare_ahead), then did 3 ms of other
 * work, as a harness does that asks after each spawn and lets the command
 * run. A pair not ready by then is waited for inside the timed spawn.
 */
static void namespaces_prepare(void)
{
	procage_prepare_ahead();
	struct timespec other_work = { 0, 3 * 1000 * 1000 };
	while (nanosleep(&other_work, &other_work) != 0 && errno == EINTR)
		;
}

/* ---- the seccomp filter's cost per allowed system call ---------------- */

/* Fastest of several loops of getppid (no filter rule names it), in ns. */
static double getppid_ns(void)
{
	double best = 0;
	for (int r = 0; r < SYSCALL_LOOP_REPEATS; r++) {
		double t0 = now_us();
		for (int i = 0; i < SYSCALL_LOOP_CALLS; i++)
			syscall(SYS_getppid);
		double ns = (now_us() - t0) * 1e3 / SYSCALL_LOOP_CALLS;
		if (r == 0 || ns < best)
			best = ns;
	}
	return best;
}

/*
 * The child side (argv[1] == "--syscall-loop"): time getppid as started,
 * then, with "floor", again under a one-instruction allow-all filter.
 * Reports two doubles on SYSCALL_REPORT_FD.
 */
static int syscall_loop_main(bool floor)
{
	double ns[2] = {getppid_ns(), 0};
	if (floor) {
		struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
		struct sock_fprog prog = {1, allow};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
			return 1;
		ns[1] = getppid_ns();
	}
	return write(SYSCALL_REPORT_FD, ns, sizeof ns) == (ssize_t)sizeof ns ? 0 : 1;
}

/* Read the child's report and reap it: the run's when run is not NULL. */
static int syscall_loop_collect(int fd, pid_t pid, struct procage_run *run, double ns[2])
{
	ssize_t n;
	int status = 0, rc = 0;
	do
		n = read(fd, ns, 2 * sizeof(double));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (run) {
		rc = procage_run_wait(run, &status, NULL);
		if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			rc = -ECHILD;
	} else {
		rc = wait_true(pid);
	}
	if (rc == 0 && n != (ssize_t)(2 * sizeof(double)))
		rc = -EIO;
	return rc;
}

/* This program, uncaged: getppid as started, then under the floor filter. */
static int syscall_loop_plain(char *self, double ns[2])
{
	char *argv[] = {self, "--syscall-loop", "floor", NULL};
	posix_spawn_file_actions_t fa;
	int fds[2], rc;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], SYSCALL_REPORT_FD);
	rc = -posix_spawn(&pid, self, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc < 0) {
		close(fds[0]);
		return rc;
	}
	return syscall_loop_collect(fds[0], pid, NULL, ns);
}

/* This program in the cage. */
static int syscall_loop_caged(const struct procage_cage *cage, char *self, const char *workdir,
			      double ns[2])
{
	char *argv[] = {self, "--syscall-loop", NULL};
	struct procage_error err;
	struct procage_run *run;
	int fds[2], rc;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	struct procage_fd_map map = {fds[1], SYSCALL_REPORT_FD};
	rc = procage_spawn(cage,
			   &(struct procage_spawn_opts){.size = sizeof(struct procage_spawn_opts),
							.argv = argv,
							.cwd = workdir,
							.fds = &map,
							.n_fds = 1},
			   &run, &err);
	close(fds[1]);
	if (rc < 0) {
		close(fds[0]);
		fprintf(stderr, "spawn_bench: filter cost: %s\n", err.message);
		return rc;
	}
	rc = syscall_loop_collect(fds[0], -1, run, ns);
	procage_run_free(run);
	return rc;
}

struct filter_cost {
	double none_ns, floor_ns, caged_ns;
};

/*
 * Uncaged and caged children alternate, round by round; each figure is
 * the fastest of all its loops. The cage is the default one (private tmp
 * off), which may also read this program's directory.
 */
static int bench_filter_cost(const char *workdir, struct filter_cost *out)
{
	char self[PATH_MAX], dir[PATH_MAX];
	struct procage_error err;
	struct procage_policy *p = NULL;
	struct procage_cage *cage = NULL;
	int rc;

	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return -errno;
	self[len] = '\0';
	memcpy(dir, self, (size_t)len + 1);
	rc = procage_policy_new_default(workdir, &p, &err);
	if (rc == 0)
		rc = procage_policy_set_private_tmp(p, false, &err);
	if (rc == 0)
		rc = procage_policy_allow(p, dirname(dir), PROCAGE_READ, &err);
	if (rc == 0)
		rc = procage_cage_new(p, &cage, &err);
	procage_policy_free(p);
	if (rc < 0) {
		fprintf(stderr, "spawn_bench: filter cost: %s\n", err.message);
		return rc;
	}
	for (int round = 0; rc == 0 && round < SYSCALL_LOOP_ROUNDS; round++) {
		double plain[2], caged[2];
		rc = syscall_loop_plain(self, plain);
		if (rc == 0)
			rc = syscall_loop_caged(cage, self, workdir, caged);
		if (rc < 0)
			break;
		if (round == 0 || plain[0] < out->none_ns)
			out->none_ns = plain[0];
		if (round == 0 || plain[1] < out->floor_ns)
			out->floor_ns = plain[1];
		if (round == 0 || caged[0] < out->caged_ns)
			out->caged_ns = caged[0];
	}
	procage_cage_free(cage);
	return rc;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The q-quantile of sorted samples (nearest rank). */
static double quantile(const double *sorted, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);
	return sorted[i < n ? i : n - 1];
}

static int make_cage(const char *workdir, bool private_tmp, struct procage_cage **out)
{
	struct procage_error err;
	struct procage_policy *p;
	int rc = procage_policy_new_default(workdir, &p, &err);
	if (rc == 0)
		rc = procage_policy_set_private_tmp(p, private_tmp, &err);
	if (rc == 0)
		rc = procage_cage_new(p, out, &err);
	if (rc < 0)
		fprintf(stderr, "spawn_bench: making the cage: %s\n", err.message);
	procage_policy_free(p);
	return rc;
}

/*
 * procage_cage_new on the default policy: the first call also measures the
 * host facts (once per process), so it is reported on its own.
 */
static int bench_cage_new(const char *workdir, size_t iterations, double *first_us, double *samples)
{
	struct procage_error err;
	struct procage_policy *p;
	struct procage_cage *c;
	int rc = procage_policy_new_default(workdir, &p, &err);
	if (rc < 0) {
		fprintf(stderr, "spawn_bench: default policy: %s\n", err.message);
		return rc;
	}
	for (size_t i = 0; i <= iterations; i++) {
		double t0 = now_us();
		rc = procage_cage_new(p, &c, &err);
		double t = now_us() - t0;
		if (rc < 0) {
			fprintf(stderr, "spawn_bench: procage_cage_new: %s\n", err.message);
			break;
		}
		procage_cage_free(c);
		if (i == 0)
			*first_us = t;
		else
			samples[i - 1] = t;
	}
	procage_policy_free(p);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spawn_bench [-n ITERATIONS] [-c CAGE_ITERATIONS]\n"
		"  -n  spawns per variant (default %d), after %d warm-up rounds\n"
		"  -c  procage_cage_new calls to time (default %d)\n",
		DEFAULT_ITERATIONS, WARMUP_ROUNDS, DEFAULT_CAGE_ITERATIONS);
}

static int parse_count(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 10000000)
		return -1;
	*out = v;
	return 0;
}

static void print_host(const struct bench *b)
{
	struct procage_host_facts f;
	struct procage_error err;
	struct utsname u;

	uname(&u);
	printf("host: Linux %s, %ld CPUs online", u.release, sysconf(_SC_NPROCESSORS_ONLN));
	if (procage_host_facts(&f, &err) == 0)
		printf(", Landlock ABI %d, host tier %s", f.landlock_abi,
		       procage_tier_name(f.tier));
	printf(", cage tier %s, running as uid %d\n",
	       procage_tier_name(procage_cage_tier(b->cage_tmp)), (int)getuid());
}

/* Ratio of a spawn under a cage to the bare spawn, against the target. */
static void print_target(const char *what, double ratio, double limit)
{
	printf("  %-34s %5.2fx    %s\n", what, ratio, ratio <= limit ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
	size_t iterations = DEFAULT_ITERATIONS, cage_iterations = DEFAULT_CAGE_ITERATIONS;
	char workdir[] = "/tmp/procage-bench-XXXXXX";
	struct bench b = {0};
	int opt, rc = 1;

	if (argc >= 2 && strcmp(argv[1], "--syscall-loop") == 0)
		return syscall_loop_main(argc >= 3 && strcmp(argv[2], "floor") == 0);
	while ((opt = getopt(argc, argv, "n:c:h")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		size_t *dst = opt == 'n' ? &iterations : opt == 'c' ? &cage_iterations : NULL;
		if (!dst || parse_count(optarg, dst) < 0) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	if (!mkdtemp(workdir)) {
		perror("spawn_bench: creating the working directory");
		return 1;
	}
	b.workdir = workdir;
	b.clone_stack = malloc(CLONE_STACK_SIZE);

	struct variant variants[] = {
	    {"(a) bare: clone(VM|VFORK)+exec+wait", run_bare_clone, NULL, NULL},
	    {"(a') posix_spawn+wait", run_posix_spawn, NULL, NULL},
	    {"(b) fork+exec+wait", run_fork, NULL, NULL},
	    {"(c) procage, private tmp on", run_caged_tmp, NULL, NULL},
	    {"(d) procage, private tmp off", run_caged_no_tmp, NULL, NULL},
	    {"(e) (d), namespaces made ahead", run_caged_no_tmp, NULL, namespaces_prepare},
	};
	const size_t n_variants = sizeof variants / sizeof *variants;
	double first_cage_us = 0, *cage_samples = calloc(cage_iterations, sizeof(double));

	bool ok = b.clone_stack && cage_samples;
	for (size_t v = 0; ok && v < n_variants; v++)
		ok = (variants[v].samples = calloc(iterations, sizeof(double))) != NULL;
	if (!ok) {
		fprintf(stderr, "spawn_bench: out of memory\n");
		goto out;
	}
	/* Before anything else: the first call pays for the host facts. */
	if (bench_cage_new(workdir, cage_iterations, &first_cage_us, cage_samples) < 0)
		goto out;
	if (make_cage(workdir, true, &b.cage_tmp) < 0 ||
	    make_cage(workdir, false, &b.cage_no_tmp) < 0)
		goto out;

	printf("procage spawn benchmark: %s, %zu spawns per variant after %d warm-up rounds,\n"
	       "variants in a new order each round, the fork's apart; times in microseconds\n",
	       TARGET, iterations, WARMUP_ROUNDS);
	print_host(&b);
	fflush(stdout);

	if (rounds_run(&b, variants, n_variants, iterations) < 0)
		goto out;

	double median[sizeof variants / sizeof *variants];
	printf("\n%-38s %9s %9s %8s\n", "variant", "median", "p90", "x bare");
	for (size_t v = 0; v < n_variants; v++) {
		qsort(variants[v].samples, iterations, sizeof(double), compare_double);
		median[v] = quantile(variants[v].samples, iterations, 0.5);
		printf("%-38s %9.1f %9.1f %7.2fx\n", variants[v].label, median[v],
		       quantile(variants[v].samples, iterations, 0.9), median[v] / median[0]);
	}
	printf("%-38s %9.1f\n", "    private tmp, (c) - (d)", median[3] - median[4]);
	printf("%-38s %9.1f\n", "    cage without tmp, (d) - (a)", median[4] - median[0]);

	qsort(cage_samples, cage_iterations, sizeof(double), compare_double);
	printf("\nprocage_cage_new (default policy): median %.1f, p90 %.1f over %zu calls;\n"
	       "  the process's first call, which also measures the host facts: %.1f\n",
	       quantile(cage_samples, cage_iterations, 0.5),
	       quantile(cage_samples, cage_iterations, 0.9), cage_iterations, first_cage_us);

	struct filter_cost fc;
	bool have_fc = bench_filter_cost(workdir, &fc) == 0;
	if (have_fc)
		printf("\nseccomp filter, per allowed system call (getppid, fastest of %d loops of "
		       "%d):\n"
		       "  uncaged %.1f ns; in the cage %.1f ns (+%.1f);\n"
		       "  under a one-instruction filter, the floor any filter pays: %.1f ns "
		       "(+%.1f)\n",
		       SYSCALL_LOOP_REPEATS * SYSCALL_LOOP_ROUNDS, SYSCALL_LOOP_CALLS, fc.none_ns,
		       fc.caged_ns, fc.caged_ns - fc.none_ns, fc.floor_ns,
		       fc.floor_ns - fc.none_ns);
	else
		printf("\nseccomp filter cost per call: could not be measured (see above)\n");

	int tier = procage_cage_tier(b.cage_tmp);
	double limit = tier == PROCAGE_TIER_T1 ? 2.1 : 1.2;
	printf("\ntargets (bench/README.md), this run:\n");
	printf("  a %s spawn <= %.1fx a bare spawn (a)\n", procage_tier_name(tier), limit);
	print_target("(c) default cage, private tmp on", median[3] / median[0], limit);
	print_target("(d) private tmp off", median[4] / median[0], limit);
	printf("  %-34s %5.2fx (procage_prepare_ahead before each spawn)\n",
	       "(e) namespaces made ahead", median[5] / median[0]);
	if (have_fc) {
		double extra = fc.caged_ns - fc.none_ns;
		printf("  filter cost <= 60 ns per allowed call\n");
		printf("  %-34s %5.1f ns %s\n", "the cage's filter", extra,
		       extra <= 60 ? "met" : "NOT met");
	}
	rc = 0;
out:
	procage_cage_free(b.cage_tmp);
	procage_cage_free(b.cage_no_tmp);
	for (size_t v = 0; v < n_variants; v++)
		free(variants[v].samples);
	free(cage_samples);
	free(b.clone_stack);
	rmdir(workdir);
	return rc;
}
