#include "text_escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t escape_utf8_printable(const unsigned char *s)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (s[0] < 0x80 || len == 0 || s[0] > 0xf4)
		return s[0] < 0x80;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms and surrogates are not text either. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	/* U+0080..U+009F: C1 controls (CSI among them) act on a terminal. */
	if (s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	return len;
}

size_t escape_quoted(char *out, size_t size, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t o = 0;
	if (size < 8) {
		if (size)
			out[0] = '\0';
		return 0;
	}
	out[o++] = '"';
	while (*s) {
		size_t ok = *s == '"' || *s == '\\' || *s < 0x20 || *s == 0x7f
				    ? 0
				    : escape_utf8_printable(s);
		size_t need = ok ? ok : 4;
		if (o + need + 5 > size) { /* room for the cut mark, the quote and NUL */
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (ok) {
			memcpy(out + o, s, ok);
			o += ok;
			s += ok;
		} else {
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", *s++);
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return o;
}

/* text escaped by escape into memory of its own, room enough for any byte's longest form. */
static char *escaped_dup(size_t (*escape)(char *, size_t, const char *), size_t per_byte,
			 const char *text)
{
	size_t size = strlen(text) * per_byte + 12;
	char *out = malloc(size);
	if (out)
		escape(out, size, text);
	return out;
}

char *escape_quoted_dup(const char *text)
{
	return escaped_dup(escape_quoted, 4, text); /* \xNN */
}

/* One character of text at s: its length when it prints as itself, else 0. */
static size_t shell_printable(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f)
		return 0;
	return escape_utf8_printable(s);
}

size_t escape_shell(char *out, size_t size, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	bool quoted = false; /* inside a '...' run */
	size_t o = 0;
	if (size < 12) {
		if (size)
			out[0] = '\0';
		return 0;
	}
	while (*s) {
		bool special = *s == '\'' || *s == '\\';
		size_t ok = special ? 0 : shell_printable(s);
		/*
		 * Room for this character with the quote that may open or close a
		 * run before it (8 for $'\xNN'), and then still for a cut mark
		 * and the closing quote ('...'), or a closing quote, and the NUL.
		 */
		if (o + (ok ? ok + 1 : 8) + 6 > size) {
			if (!quoted)
				out[o++] = '\'';
			memcpy(out + o, "...", 3);
			o += 3;
			quoted = true;
			break;
		}
		if (ok && !quoted)
			out[o++] = '\'';
		else if (!ok && quoted)
			out[o++] = '\'';
		quoted = ok != 0;
		if (ok) {
			memcpy(out + o, s, ok);
			o += ok;
			s += ok;
		} else if (special) {
			out[o++] = '\\';
			out[o++] = (char)*s++;
		} else {
			o += (size_t)snprintf(out + o, size - o, "$'\\x%02x'", *s++);
		}
	}
	if (quoted || o == 0) {
		if (o == 0)
			out[o++] = '\'';
		out[o++] = '\'';
	}
	out[o] = '\0';
	return o;
}

char *escape_shell_dup(const char *text)
{
	return escaped_dup(escape_shell, 8, text); /* $'\xNN' and a quote closed before it */
}

char *escape_shell_word_dup(const char *text)
{
	return escaped_dup(escape_shell_word, 8, text);
}

size_t escape_shell_word(char *out, size_t size, const char *text)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_@%+=:,./-";
	size_t n = strlen(text);
	if (n && strspn(text, plain) == n && n < size) {
		memcpy(out, text, n + 1);
		return n;
	}
	return escape_shell(out, size, text);
}

bool escape_shell_read(const char *word, size_t len, char *out, size_t size)
{
	size_t n = 0;
	/* escape_shell's cut mark ends a word cut short: not the name. */
	if (len >= 4 && memcmp(word + len - 4, "...'", 4) == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = word[i];
		if (c == '$' || c == '"')
			return false;
		if (c == '\'') {
			const char *end = memchr(word + i + 1, '\'', len - i - 1);
			if (!end)
				return false;
			size_t run = (size_t)(end - (word + i + 1));
			if (n + run >= size)
				return false;
			memcpy(out + n, word + i + 1, run);
			n += run;
			i += run + 1;
			continue;
		}
		if (c == '\\') {
			if (++i == len)
				return false;
			c = word[i];
		}
		if (n + 1 >= size)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return true;
}
