/* Filling the caller's struct procage_error without allocating. */
#ifndef PROCAGE_ERROR_H
#define PROCAGE_ERROR_H

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

#endif
