/* Profile keys that grant only what exists on this machine (profile_present.c). */
#ifndef PROCAGE_PROFILE_PRESENT_H
#define PROCAGE_PROFILE_PRESENT_H

#include <stdbool.h>

#include "procage.h"

bool profile_present_key(const char *key);
/*
 * Each match of pattern given to add as "write" (devices) or "read": 0, or
 * -EINVAL for a pattern that is not absolute (or a PROCAGE_DEVICE_ROOT that
 * is no absolute directory), or add's or glob's -errno.
 */
int profile_present_add(const char *key, const char *pattern, procage_profile_line_fn add,
			void *ctx, struct procage_error *err);

#endif
