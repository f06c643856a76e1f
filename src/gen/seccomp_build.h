/*
 * Building the cage's seccomp programs with libseccomp, from the rules in
 * seccomp_rules.c. Used at build time by seccomp_gen.c, which writes the
 * programs into a C file for the library, and by the unit test, which
 * checks that file is what this builds now. The library itself never runs
 * it, so it does not load libseccomp.
 */
#ifndef PROCAGE_SECCOMP_BUILD_H
#define PROCAGE_SECCOMP_BUILD_H

#include <linux/filter.h>

#include "procage.h"
#include "kernel/seccomp.h"

/*
 * Build the program for these options. On success prog->filter is
 * allocated (free it with free()). The result depends only on the options
 * and the libseccomp version, never on the kernel it runs on.
 */
int seccomp_build_program(const struct seccomp_options *opts, struct sock_fprog *prog,
			  struct procage_error *err);

#endif
