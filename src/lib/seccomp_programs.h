/*
 * The cage's seccomp programs, made at build time: src/gen/seccomp_gen.c
 * builds them with libseccomp from src/gen/seccomp_rules.c and writes
 * $(BUILD)/gen/seccomp_programs.c, which defines the table below. The
 * library only picks one, so it neither links nor runs libseccomp.
 */
#ifndef PROCAGE_SECCOMP_PROGRAMS_H
#define PROCAGE_SECCOMP_PROGRAMS_H

#include <linux/filter.h>
#include <stddef.h>

#include "seccomp.h"

struct seccomp_generated_program {
	const struct sock_filter *filter;
	unsigned short len;
};

/* One program per variant: network on or off, refusals as errno or reported. */
#define SECCOMP_N_PROGRAMS 4

static inline size_t seccomp_program_index(const struct seccomp_options *opts)
{
	return (opts->network_on ? 1u : 0u) | (opts->report ? 2u : 0u);
}

static inline struct seccomp_options seccomp_program_options(size_t index)
{
	return (struct seccomp_options){ .network_on = index & 1, .report = index & 2 };
}

extern const struct seccomp_generated_program seccomp_generated_programs[SECCOMP_N_PROGRAMS];

#endif
