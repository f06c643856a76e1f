#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>

void error_clear(struct procage_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->sys_errno = 0;
	err->step = PROCAGE_STEP_NONE;
	err->message[0] = '\0';
}

int error_set(struct procage_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	err->code = code;
	err->sys_errno = 0;
	err->step = PROCAGE_STEP_NONE;
	return code;
}

int error_set_sys(struct procage_error *err, int sys_errno, int step, const char *fmt, ...)
{
	int code = sys_errno > 0 ? -sys_errno : -EIO;
	if (!err)
		return code;
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(err->message, sizeof err->message, "%s: %s", what, strerror(sys_errno));
	err->code = code;
	err->sys_errno = sys_errno;
	err->step = step;
	return code;
}
