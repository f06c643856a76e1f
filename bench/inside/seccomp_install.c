/*
 * seccomp_install: what installing the cage's seccomp filter costs the
 * child, against a one-instruction filter (the floor). The kernel checks
 * and compiles the program and runs it for every call number, so the cost
 * grows with its length and its depth. It measures one mechanism of the
 * library's insides (kernel/seccomp.h), so it lives apart from the
 * benchmarks of the public API (scripts/check-includes allows bench/inside
 * that folder and nothing else of the library's).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel/seccomp.h"

#define INSTALL_SAMPLES 300

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

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ---- installing the seccomp filter ------------------------------------ */

/*
 * Fork a child that sets no_new_privs and times one seccomp(2) installing
 * prog, in microseconds. A fresh child each time: filters stack, and a
 * second one would be timed against the first.
 */
static int install_time_us(const struct sock_fprog *prog, double *us)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(1);
		double t0 = now_us();
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) != 0)
			_exit(1);
		double t = now_us() - t0;
		_exit(write(fds[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1);
	}
	close(fds[1]);
	ssize_t n = -1;
	if (pid > 0)
		while ((n = read(fds[0], us, sizeof *us)) < 0 && errno == EINTR)
			;
	close(fds[0]);
	int rc = pid < 0 ? -errno : wait_true(pid);
	return rc == 0 && n != (ssize_t)sizeof *us ? -EIO : rc;
}

/*
 * The cage's filter, network off and on, against a one-instruction filter
 * (the floor: the system call and the kernel's fixed work), alternated.
 */
static int bench_install(void)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog progs[3] = {{1, allow}};
	const char *labels[3] = {"one instruction (the floor)", "the cage's, network off",
				 "the cage's, network on"};
	static double samples[3][INSTALL_SAMPLES];
	for (int net = 0; net < 2; net++)
		if (seccomp_program_build(&(struct seccomp_options){.network_on = net},
					  &progs[1 + net], NULL) < 0)
			return -EINVAL;
	for (int i = 0; i < INSTALL_SAMPLES; i++)
		for (int k = 0; k < 3; k++) {
			int v = (i + k) % 3, rc = install_time_us(&progs[v], &samples[v][i]);
			if (rc < 0)
				return rc;
		}
	printf("\nseccomp filter installation in the child (median, p90 over %d, in "
	       "microseconds):\n",
	       INSTALL_SAMPLES);
	for (int v = 0; v < 3; v++) {
		qsort(samples[v], INSTALL_SAMPLES, sizeof(double), compare_double);
		printf("  %-30s %4u instructions %7.1f %7.1f\n", labels[v], progs[v].len,
		       samples[v][INSTALL_SAMPLES / 2], samples[v][INSTALL_SAMPLES * 9 / 10]);
	}
	seccomp_program_free(&progs[1]);
	seccomp_program_free(&progs[2]);
	return 0;
}

int main(void)
{
	if (bench_install() < 0) {
		printf("\nseccomp filter installation: could not be measured\n");
		return 1;
	}
	return 0;
}
