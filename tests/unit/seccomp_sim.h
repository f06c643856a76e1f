/*
 * Shared by the parts of the seccomp unit test (tests/unit/test_seccomp.c
 * and tests/unit/seccomp_*.c): the programs under test, the ABIs, and
 * checks of one call in the BPF simulator. tests/lib/tap.h keeps its
 * counters in static variables, so only test_seccomp.c includes it; the
 * other parts report through sim_ok, sim_skip and sim_diag.
 */
#ifndef PROCAGE_TEST_SECCOMP_SIM_H
#define PROCAGE_TEST_SECCOMP_SIM_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel/seccomp_programs.h"

#define X32_SYSCALL_BIT 0x40000000u
#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define RET_EOPNOTSUPP (SECCOMP_RET_ERRNO | EOPNOTSUPP)
#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define N_VARIANTS SECCOMP_N_PROGRAMS
/* Every variant a cage can ask for (the table has no program for the others). */
#define for_each_variant(v)                                                                        \
	for (int v = 0; v < N_VARIANTS; v++)                                                       \
		if (!seccomp_program_exists((size_t)v)) {                                          \
		} else
#define ARGS(...) ((const uint64_t[6]){__VA_ARGS__})
#define NR_OPEN_TREE_ATTR 467 /* the same on all three ABIs; libseccomp 2.5 lacks it */

struct abi {
	const char *name;
	uint32_t audit_arch;
	uint32_t scmp_arch;
	bool x32;
};

extern const struct abi abis[3];
/* The programs under test, by seccomp_program_index. */
extern struct sock_fprog progs[N_VARIANTS];

const char *variant_name(int v);
/* The variant's options: network, Unix sockets, sessions locked. */
bool variant_net(int v);
bool variant_unix(int v);
bool variant_locked(int v);
/* The answer variant v gives where the errno variants answer want. */
uint32_t variant_answer(int v, uint32_t want);
/* The same for call name: an allowed call the observe variants hand over is a notification. */
uint32_t variant_answer_call(int v, const char *name, uint32_t want);
/* The ABI's number for name, x32 bit included, or -1 when it has none. */
long abi_nr(const struct abi *abi, const char *name);
/* The filter's answer for a raw call; 0xffffffff if the simulator failed. */
uint32_t run_nr(const struct sock_fprog *prog, uint32_t arch, long nr, const uint64_t args[6]);
/* One call on one ABI checked against want (as variant_answer maps it). */
void expect(int v, const struct abi *abi, const char *name, const uint64_t args[6], uint32_t want,
	    const char *what);

bool __attribute__((format(printf, 2, 3))) sim_ok(bool ok, const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) sim_skip(const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) sim_diag(const char *fmt, ...);

/* seccomp_sockets.c: socket and socketpair, matrices and named cases. */
void test_socket_matrix(void);
void test_socket_cases(void);
/* seccomp_targets.c: metadata, SysV IPC, calls aimed at other processes. */
void test_metadata(void);
void test_sysv_ipc(void);
void test_pid_targets(void);
void test_report_names(void);
/* seccomp_broker.c: the calls the broker variants send to the supervisor. */
void test_broker_calls(void);
void test_net_broker_calls(void);
void test_handover_closed(void);
/* seccomp_kernel.c: the programs installed in children on the real kernel. */
void test_kernel(void);
void test_kernel_variants(void);

#endif
