/*
 * System calls that touch nothing in user space: no errno, no sanitizer
 * interceptor, no lock. A run's reaper shares the caller's memory (it is
 * cloned with CLONE_VM, which copies no page table) and keeps running
 * beside the caller, with the caller's thread pointer: glibc's wrappers
 * would write the calling thread's errno under it, and a sanitizer's
 * interceptors its per-thread state. The reaper therefore makes its
 * system calls through these, and the caller too, while the reaper is
 * starting. Each returns the result or a negative errno.
 */
#ifndef PROCAGE_RAW_SYSCALL_H
#define PROCAGE_RAW_SYSCALL_H

#include <sys/syscall.h>

#if defined(__x86_64__)

static inline __attribute__((always_inline)) long
raw_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#elif defined(__aarch64__)

static inline __attribute__((always_inline)) long
raw_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

#else
/*
 * Elsewhere glibc's syscall() (which sets errno on failure) is the
 * fallback. Cages are refused on these architectures anyway: the seccomp
 * programs cover the x86 ABIs only (seccomp.c).
 */
#include <errno.h>
#include <unistd.h>
static inline __attribute__((always_inline)) long
raw_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(n, a, b, c, d, e, f);
	return r == -1 ? -errno : r;
}
#endif

#define raw_syscall0(n) raw_syscall6((n), 0, 0, 0, 0, 0, 0)
#define raw_syscall1(n, a) raw_syscall6((n), (long)(a), 0, 0, 0, 0, 0)
#define raw_syscall2(n, a, b) raw_syscall6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define raw_syscall3(n, a, b, c) raw_syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define raw_syscall4(n, a, b, c, d)                                                            \
	raw_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define raw_syscall5(n, a, b, c, d, e)                                                         \
	raw_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#endif
