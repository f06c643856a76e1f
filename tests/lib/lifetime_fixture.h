/*
 * The fixture of the tests of how runs end, whatever happens to their
 * caller (test_lifetime_end.c, test_lifetime_strays.c). Judged from
 * outside: the test is a child subreaper, so every process of a run whose
 * caller was killed comes back to it; it waits for them on SIGCHLD with a
 * deadline that only bounds a failure, and finds the runs' private
 * temporary directories in a base directory of its own.
 */
#ifndef PROCAGE_TESTS_LIFETIME_FIXTURE_H
#define PROCAGE_TESTS_LIFETIME_FIXTURE_H

#include <stdbool.h>

#include "procage.h"

extern char lifetime_workspace[256], lifetime_tmp_base[256];
/* Default policy on the workspace, private tmp under lifetime_tmp_base. */
extern struct procage_cage *lifetime_cage;
/* Readable when a child of ours changed state (SIGCHLD, blocked). */
extern int lifetime_sigchld_fd;

/* The directories, the subreaper, the signalfd and the cage: false if any failed (said). */
bool lifetime_begin(void);
void lifetime_end(void);

long long lifetime_now_us(void);
/* Entries in dir, or -1. */
int lifetime_entries(const char *dir);
/* Remove whatever a failed check left in lifetime_tmp_base. */
void lifetime_tmp_clean(void);
/* SIGKILL our children now, saying which. */
void lifetime_children_kill(void);
/* SIGKILL and reap our children, expected there (a test's own processes). */
void lifetime_children_reap(void);
/*
 * Reap every child until none is left: true, or false when some are still
 * there after deadline_ms (they are then killed and reaped).
 */
bool lifetime_children_end(int deadline_ms);
/* Spawn /bin/sh -c script in the cage, with out_fd and err_fd (or -1) as its stdout and stderr. */
struct procage_run *lifetime_spawn_to(const char *script, int out_fd, int err_fd,
				      struct procage_error *err);
struct procage_run *lifetime_spawn_with(const char *script, int out_fd, struct procage_error *err);
/* How long a spawn takes here (the longest of a few), in microseconds; -1 if one failed. */
long long lifetime_spawn_duration(void);

#endif
