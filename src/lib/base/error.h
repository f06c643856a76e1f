/* Filling the caller's struct procage_error without allocating. */
#ifndef PROCAGE_ERROR_H
#define PROCAGE_ERROR_H

#include <errno.h>
#include <stdbool.h>

#include "procage.h"

/*
 * Fill err (when not NULL) and return code, a negative errno, so a failing
 * path reads `return error_set(err, -EINVAL, ...);`.
 */
int error_set(struct procage_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for a failed system call: sys_errno is kept and named. */
int error_set_sys(struct procage_error *err, int sys_errno, int step, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void error_clear(struct procage_error *err);
/*
 * An outer step's words in front of the inner step's message, which is
 * kept ("finding the repositories before the run: " + "reading ...").
 * The code, errno and step stay the inner step's; where the inner step
 * left no message, the words are followed by strerror of code. Returns
 * the error's code (code when none was set). Cut at the buffer's end like
 * any message, the inner message's tail going first.
 */
int error_prefix(struct procage_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * For the walks that decide what a cage hides or keeps read-only (a root
 * caller's /etc, the hard-link check, repository discovery): an entry
 * that could not be opened for a reason of its own (gone, replaced,
 * refused, unreadable) is one the cage cannot reach either, and is passed
 * over. A reason of the caller's own process (no descriptor left, no
 * memory, a signal) says nothing of what the cage could reach: the walk
 * fails, rather than leave part of the tree unseen.
 */
static inline bool error_walk_passable(int e)
{
	return e != EMFILE && e != ENFILE && e != ENOMEM && e != EINTR;
}

#endif
