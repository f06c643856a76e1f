#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>

void error_clear(struct procage_error *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof *err);
	err->step = PROCAGE_STEP_NONE;
}

/*
 * A message cut at the buffer's end must not end inside a UTF-8 sequence:
 * a binding decoding it strictly would fail on the error itself. The
 * incomplete sequence at the end, if any, is dropped.
 */
static void utf8_trim_cut(char *text, size_t len)
{
	size_t start = len;
	while (start > 0 && len - start < 3 && ((unsigned char)text[start - 1] & 0xC0) == 0x80)
		start--;
	if (start == 0)
		return;
	unsigned char lead = (unsigned char)text[start - 1];
	size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	if (lead >= 0xC0 && len - (start - 1) < need)
		text[start - 1] = '\0';
}

static void message_format(struct procage_error *err, const char *fmt, va_list ap)
{
	int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
	if (n >= (int)sizeof err->message)
		utf8_trim_cut(err->message, sizeof err->message - 1);
}

static void fill(struct procage_error *err, int code, int sys_errno, int step)
{
	memset(err->reserved, 0, sizeof err->reserved);
	err->code = code;
	err->sys_errno = sys_errno;
	err->step = step;
}

int error_set(struct procage_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	message_format(err, fmt, ap);
	va_end(ap);
	fill(err, code, 0, PROCAGE_STEP_NONE);
	return code;
}

static void message_printf(struct procage_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void message_printf(struct procage_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message_format(err, fmt, ap);
	va_end(ap);
}

int error_set_sys(struct procage_error *err, int sys_errno, int step, const char *fmt, ...)
{
	int code = sys_errno > 0 ? -sys_errno : -EIO;
	if (!err)
		return code;
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof what)
		utf8_trim_cut(what, sizeof what - 1);
	message_printf(err, "%s: %s", what, strerror(sys_errno));
	fill(err, code, sys_errno, step);
	return code;
}

int error_prefix(struct procage_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	char words[sizeof err->message];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(words, sizeof words, fmt, ap);
	va_end(ap);
	if (n < 0)
		return err->code ? err->code : code;
	if (err->message[0] == '\0' || err->code == 0) {
		message_printf(err, "%s%s", words, strerror(code < 0 ? -code : EIO));
		fill(err, code, 0, PROCAGE_STEP_NONE);
		return code;
	}
	char inner[sizeof err->message];
	memcpy(inner, err->message, sizeof inner);
	message_printf(err, "%s%s", words, inner);
	return err->code;
}
