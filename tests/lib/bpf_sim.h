/*
 * A classic BPF interpreter for seccomp programs, so tests can ask what a
 * filter answers for a given call without installing it.
 *
 * It takes the instructions seccomp accepts (loads from struct seccomp_data,
 * immediates and scratch memory, ALU, forward jumps, returns) and checks
 * what the kernel's checker checks: in-range jumps, aligned in-range loads,
 * scratch memory written before it is read, a return at the end.
 */
#ifndef PROCAGE_BPF_SIM_H
#define PROCAGE_BPF_SIM_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Check prog as the kernel would before installing it. Returns 0, or -1 and
 * points *why (when not NULL) at a static description with the index.
 */
int bpf_sim_check(const struct sock_filter *prog, size_t len, const char **why);

/*
 * Run prog over data. Returns 0 and sets *action to the SECCOMP_RET_* value
 * the program returns, or -1 (with *why) if an instruction the run reaches
 * is malformed; instructions it does not reach are not checked (that is
 * bpf_sim_check's work).
 */
int bpf_sim_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *data,
		uint32_t *action, const char **why);

/*
 * The same for a program bpf_sim_check accepted whole (and that has not
 * changed since): no instruction is checked again. On any other program
 * its behaviour is undefined.
 */
int bpf_sim_run_checked(const struct sock_filter *prog, size_t len,
			const struct seccomp_data *data, uint32_t *action, const char **why);

#endif
