/*
 * Unit tests: the hunks of procage changes diff (changes/unified.c). Fixed
 * cases against what diff -u writes, then random texts whose hunks,
 * applied by the small patcher below, must give back the new text
 * exactly, including a rewrite too large for the shortest script.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes/unified.h"
#include "tap.h"

static char *hunks(const char *a, const char *b)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out || unified_hunks(out, a, strlen(a), b, strlen(b)) != 0)
		abort();
	fclose(out);
	return text;
}

static void expect(const char *a, const char *b, const char *want, const char *what)
{
	char *got = hunks(a, b);
	if (!tap_ok(strcmp(got, want) == 0, "%s", what))
		tap_diag("got:\n%s\nwant:\n%s", got, want);
	free(got);
}

/* The line at *p (up to and with its '\n'), its length; *p moves past it. */
static size_t line_next(const char **p)
{
	const char *nl = strchr(*p, '\n');
	size_t n = nl ? (size_t)(nl - *p) + 1 : strlen(*p);
	*p += n;
	return n;
}

/*
 * Apply hunks to old (each hunk's old lines checked against it); the
 * result in a new buffer, or NULL when a hunk does not fit.
 */
static char *patch(const char *old, const char *diff)
{
	size_t cap = strlen(old) + strlen(diff) + 1, len = 0, at_line = 0;
	char *out = malloc(cap);
	const char *o = old, *d = diff;
	while (*d) {
		unsigned long a_start, a_count = 1, b_start, b_count = 1;
		if (sscanf(d, "@@ -%lu,%lu +%lu,%lu @@", &a_start, &a_count, &b_start, &b_count) <
			4 &&
		    sscanf(d, "@@ -%lu +%lu,%lu @@", &a_start, &b_start, &b_count) < 3 &&
		    sscanf(d, "@@ -%lu,%lu +%lu @@", &a_start, &a_count, &b_start) < 3 &&
		    sscanf(d, "@@ -%lu +%lu @@", &a_start, &b_start) < 2)
			goto bad;
		line_next(&d);
		size_t first = a_count ? a_start - 1 : a_start;
		while (at_line < first) { /* unchanged lines before the hunk */
			const char *s = o;
			size_t n = line_next(&o);
			if (!n)
				goto bad;
			memcpy(out + len, s, n), len += n, at_line++;
		}
		while (*d == ' ' || *d == '-' || *d == '+') {
			char mark = *d++;
			const char *s = d;
			size_t n = line_next(&d);
			bool no_newline = strncmp(d, "\\ No newline at end of file\n", 28) == 0;
			size_t keep = no_newline ? n - 1 : n;
			if (no_newline)
				line_next(&d);
			if (mark != '+') {
				const char *os = o;
				size_t on = line_next(&o);
				if (on != keep || memcmp(os, s, keep) != 0)
					goto bad;
				at_line++;
			}
			if (mark != '-')
				memcpy(out + len, s, keep), len += keep;
		}
	}
	size_t rest = strlen(o);
	memcpy(out + len, o, rest);
	out[len + rest] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static unsigned long seed = 12345;
static unsigned rnd(unsigned n)
{
	seed = seed * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)(seed >> 33) % n;
}

/* A text of n lines drawn from a few words (so that lines repeat), maybe without a last '\n'. */
static char *text_random(unsigned n)
{
	static const char *const words[] = {"alpha", "beta", "gamma", "delta", "", "x"};
	char *t = calloc(n * 8 + 2, 1);
	for (unsigned i = 0; i < n; i++) {
		strcat(t, words[rnd(6)]);
		if (i + 1 < n || rnd(4))
			strcat(t, "\n");
	}
	return t;
}

/* old with edits: lines dropped, added and changed at random. */
static char *text_edit(const char *old, unsigned edits)
{
	char *t = calloc(strlen(old) + edits * 16 + 2, 1);
	const char *o = old;
	unsigned every = edits ? 1 + (unsigned)(strlen(old) / 4 / (edits + 1)) : 1000000;
	while (*o) {
		const char *s = o;
		size_t n = line_next(&o);
		unsigned r = rnd(every * 3);
		if (r == 0)
			continue; /* dropped */
		if (r == 1)
			strcat(t, "added\n");
		if (r == 2)
			strcat(t, "changed\n");
		else
			strncat(t, s, n);
	}
	return t;
}

int main(void)
{
	expect("a\nb\nc\n", "a\nb\nc\n", "", "the same text: no hunk");
	expect("a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "one changed line");
	expect("", "new\n", "@@ -0,0 +1 @@\n+new\n", "an added file: from line 0");
	expect("gone\n", "", "@@ -1 +0,0 @@\n-gone\n", "a removed file: to line 0");
	expect("a\n", "a", "@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n",
	       "a last line losing its newline is said so");
	expect("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n",
	       "@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n", "three lines of context before");
	expect("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n",
	       "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen\n",
	       "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -13,4 +13,4 @@\n 13\n 14\n "
	       "15\n-16\n+sixteen\n",
	       "changes far apart make two hunks");

	unsigned failed = 0;
	for (unsigned round = 0; round < 300; round++) {
		char *a = text_random(rnd(120));
		char *b = text_edit(a, rnd(30));
		char *d = hunks(a, b);
		char *back = patch(a, d);
		if (!back || strcmp(back, b) != 0)
			failed++;
		free(back);
		free(d);
		free(a);
		free(b);
	}
	tap_ok(failed == 0,
	       "300 random edits: the hunks turn the old text into the new (%u failed)", failed);

	/* Past the bound on edits: shown removed, then added, still exact. */
	char *a = calloc(30000, 1), *b = calloc(30000, 1);
	for (unsigned i = 0; i < 2500; i++) {
		sprintf(a + strlen(a), "%u\n", i * 2);
		sprintf(b + strlen(b), "%u\n", i * 2 + 1);
	}
	char *d = hunks(a, b), *back = patch(a, d);
	tap_ok(back && strcmp(back, b) == 0, "a rewrite of 5000 edits: still an exact diff");
	free(back);
	free(d);
	free(a);
	free(b);
	return tap_done();
}
