/*
 * The hand-written parts of the cage's seccomp program, around libseccomp's.
 *
 * libseccomp allows one comparison per argument in a rule, so a test of
 * single bits (personality, unshare and clone flags) takes a rule per bit:
 * over a hundred instructions for personality alone, and a longer program
 * costs every spawn when the kernel checks, compiles and pre-evaluates it.
 * Those calls get rules with a marker action instead; libseccomp still
 * finds them by number, and each marker return is then turned into a jump
 * to a short block written here, after libseccomp's program. In front of
 * it, a prologue refuses the calls libseccomp is too old to name.
 */
#ifndef PROCAGE_SECCOMP_HANDWRITTEN_H
#define PROCAGE_SECCOMP_HANDWRITTEN_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "procage.h"
#include "kernel/seccomp.h"

/* Most instructions the prologue, and the blocks, may take. */
#define SECCOMP_PROLOGUE_MAX 32
#define SECCOMP_BLOCKS_MAX 56

/*
 * A call handed to a block: its rule's action in libseccomp is marker;
 * block is the block's label (private to seccomp_handwritten.c). Calls
 * whose arguments are tested alike share a block.
 */
struct seccomp_handoff {
	const char *name;
	uint32_t marker;
	int block;
};

extern const struct seccomp_handoff seccomp_handoffs[];
extern const size_t seccomp_n_handoffs;

/*
 * Write the prologue into out (room for SECCOMP_PROLOGUE_MAX) and return
 * its length, or a negative errno. It falls through to the instruction
 * after it, where libseccomp's program goes.
 */
int seccomp_prologue_write(const struct seccomp_options *opts, struct sock_filter *out,
			   struct procage_error *err);

/*
 * prog[from, *len) is libseccomp's program: append the blocks after it
 * (room for SECCOMP_BLOCKS_MAX more) and turn each marker return in it
 * into a jump to its block. Returns 0 or a negative errno.
 */
int seccomp_blocks_link(const struct seccomp_options *opts, struct sock_filter *prog,
			size_t from, size_t *len, struct procage_error *err);

#endif
