/*
 * Bytes of a test's input, escaped for the test's name (dest_escape): the
 * host readers' tests feed NUL, control and non-ASCII bytes, which a TAP
 * line must not carry raw. Four buffers in turn, so that one message may
 * show several inputs.
 */
#ifndef PROCAGE_TESTS_SHOWN_H
#define PROCAGE_TESTS_SHOWN_H

#include <stddef.h>

#include "proxy/dest.h"

static inline const char *shown(const char *bytes, size_t len)
{
	static char buf[4][600];
	static int turn;
	char *out = buf[turn++ % 4];

	dest_escape(bytes, len, out, sizeof buf[0]);
	return out;
}

#endif
