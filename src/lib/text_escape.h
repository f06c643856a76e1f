/*
 * Text that carries names chosen by the cage (file names, call arguments)
 * made safe to print: one line, no terminal controls, and an unambiguous
 * end when it is quoted.
 */
#ifndef PROCAGE_TEXT_ESCAPE_H
#define PROCAGE_TEXT_ESCAPE_H

#include <stddef.h>

/*
 * "text" with '"', '\\', control bytes (C0, DEL, the C1 range) and bytes
 * that are not valid UTF-8 written as \xNN; cut (with "...") to fit size.
 * Returns the length written.
 */
size_t escape_quoted(char *out, size_t size, const char *text);
/* The same, allocated; NULL when out of memory. */
char *escape_quoted_dup(const char *text);
/*
 * The length of the valid UTF-8 character at s that is printable (not a
 * C1 control), or 0 when the byte at s must be escaped. ASCII controls
 * are the caller's to judge.
 */
size_t escape_utf8_printable(const unsigned char *s);

#endif
