/*
 * Text that carries names chosen by the cage (file names, call arguments)
 * made safe to print: one line, no terminal controls, and an unambiguous
 * end when it is quoted.
 */
#ifndef PROCAGE_TEXT_ESCAPE_H
#define PROCAGE_TEXT_ESCAPE_H

#include <stdbool.h>
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
 * text as one shell word that sh, bash, zsh and fish read back as text and
 * nothing else, for names a reader may paste into a command: printable
 * characters inside single quotes, a single quote or a backslash as \' or
 * \\ between them, and a control or a byte that is not UTF-8 as $'\xNN'
 * (bash and zsh read the byte; sh reads harmless literal text, fish
 * refuses the word). Nothing in it expands: a name "$(cmd)" shows as
 * '$(cmd)', never as "$(cmd)". Cut (with "...") to fit size; returns the
 * length written.
 */
size_t escape_shell(char *out, size_t size, const char *text);
/* The same, allocated; NULL when out of memory. */
char *escape_shell_dup(const char *text);
/*
 * text bare when it needs no quoting in any shell (letters, digits and
 * _@%+=:,./- only), else as escape_shell writes it.
 */
size_t escape_shell_word(char *out, size_t size, const char *text);
/* The same, allocated; NULL when out of memory. */
char *escape_shell_word_dup(const char *text);
/*
 * The text of a word escape_shell_word wrote (len bytes at word: bare
 * text, '...' runs, \' or \\ between them) into out. False for a byte
 * written $'\xNN' (a control or a byte that is not UTF-8), for a word that
 * ends in the cut mark ("...'": it may have been cut short, and a name
 * that truly ends so is refused with it), for an unclosed quote, and when
 * out is too small.
 */
bool escape_shell_read(const char *word, size_t len, char *out, size_t size);
/*
 * The length of the valid UTF-8 character at s that is printable (not a
 * C1 control), or 0 when the byte at s must be escaped. ASCII controls
 * are the caller's to judge.
 */
size_t escape_utf8_printable(const unsigned char *s);

#endif
