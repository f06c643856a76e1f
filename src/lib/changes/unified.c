/*
 * Unified diff hunks (unified.h). The common head and tail are taken off
 * first, so that a small edit in a large file costs its own size; the
 * middle gets Myers' greedy search, whose trace (one row per edit) is
 * what bounds the memory: beyond MAX_EDITS the middle is shown whole.
 */
#include "unified.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT 3
#define MAX_EDITS 1000

struct text_lines {
	const char **at;
	size_t *len; /* with the line's '\n', when it has one */
	size_t n;
};

static int lines_split(const char *text, size_t size, struct text_lines *l)
{
	size_t n = 0;
	for (size_t i = 0; i < size; i++)
		if (text[i] == '\n')
			n++;
	n += size && text[size - 1] != '\n';
	l->at = malloc((n + 1) * sizeof *l->at);
	l->len = malloc((n + 1) * sizeof *l->len);
	l->n = 0;
	if (!l->at || !l->len)
		return -ENOMEM;
	for (size_t start = 0; start < size;) {
		const char *nl = memchr(text + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - text) + 1 : size;
		l->at[l->n] = text + start;
		l->len[l->n++] = end - start;
		start = end;
	}
	return 0;
}

static void lines_free(struct text_lines *l)
{
	free(l->at);
	free(l->len);
}

static bool same(const struct text_lines *a, size_t i, const struct text_lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

enum { OP_SAME = '=', OP_OLD = '-', OP_NEW = '+' };

/*
 * Myers' search over a[a0, a0+n) and b[b0, b0+m): the script (OP_*) in
 * ops, its length in *n_ops; -E2BIG past MAX_EDITS.
 */
static int myers(const struct text_lines *a, size_t a0, size_t n, const struct text_lines *b,
		 size_t b0, size_t m, char *ops, size_t *n_ops)
{
	const long off = MAX_EDITS + 1, width = 2 * MAX_EDITS + 3;
	long *trace = NULL, d, found = -1, rows = 0;
	long v[2 * MAX_EDITS + 3] = {0};
	for (d = 0; d <= MAX_EDITS && found < 0; d++) {
		/* Room for twice the rows each time: a copy per row made the search quadratic. */
		if (d == rows) {
			rows = rows ? 2 * rows : 16;
			long *grown = realloc(trace, (size_t)rows * (size_t)width * sizeof *trace);
			if (!grown) {
				free(trace);
				return -ENOMEM;
			}
			trace = grown;
		}
		memcpy(trace + d * width, v, sizeof v);
		for (long k = -d; k <= d; k += 2) {
			long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				     ? v[off + k + 1]
				     : v[off + k - 1] + 1;
			long y = x - k;
			while ((size_t)x < n && (size_t)y < m && y >= 0 &&
			       same(a, a0 + (size_t)x, b, b0 + (size_t)y))
				x++, y++;
			v[off + k] = x;
			if ((size_t)x >= n && (size_t)y >= m) {
				found = d;
				break;
			}
		}
	}
	if (found < 0) {
		free(trace);
		return -E2BIG;
	}
	/* Back from the end, the script written backwards, then turned round. */
	long x = (long)n, y = (long)m;
	size_t k_ops = 0;
	for (d = found; d > 0; d--) {
		const long *pv = trace + d * width;
		long k = x - y;
		long pk =
		    (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1])) ? k + 1 : k - 1;
		long px = pv[off + pk], py = px - pk;
		while (x > px && y > py)
			ops[k_ops++] = OP_SAME, x--, y--;
		ops[k_ops++] = pk == k + 1 ? OP_NEW : OP_OLD;
		x = px, y = py;
	}
	while (x > 0 && y > 0)
		ops[k_ops++] = OP_SAME, x--, y--;
	free(trace);
	for (size_t i = 0; i < k_ops / 2; i++) {
		char t = ops[i];
		ops[i] = ops[k_ops - 1 - i];
		ops[k_ops - 1 - i] = t;
	}
	*n_ops = k_ops;
	return 0;
}

static void line_put(FILE *out, char mark, const struct text_lines *l, size_t i)
{
	fputc(mark, out);
	fwrite(l->at[i], 1, l->len[i], out);
	if (l->len[i] == 0 || l->at[i][l->len[i] - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", out);
}

static void range_put(FILE *out, char mark, size_t start, size_t count)
{
	/* diff -u: a range of one line is its number alone; an empty one names the line before. */
	if (count == 1)
		fprintf(out, " %c%zu", mark, start + 1);
	else
		fprintf(out, " %c%zu,%zu", mark, count ? start + 1 : start, count);
}

/* One hunk: the script's entries [from, to), starting at lines ai and bi. */
static void hunk_put(FILE *out, const char *ops, size_t from, size_t to, size_t ai, size_t bi,
		     const struct text_lines *a, const struct text_lines *b)
{
	size_t na = 0, nb = 0;
	for (size_t i = from; i < to; i++) {
		na += ops[i] != OP_NEW;
		nb += ops[i] != OP_OLD;
	}
	fputs("@@", out);
	range_put(out, '-', ai, na);
	range_put(out, '+', bi, nb);
	fputs(" @@\n", out);
	for (size_t i = from; i < to; i++) {
		if (ops[i] == OP_NEW)
			line_put(out, '+', b, bi++);
		else if (ops[i] == OP_OLD)
			line_put(out, '-', a, ai++);
		else
			line_put(out, ' ', a, ai++), bi++;
	}
}

/* The script's changes grouped in hunks, changes closer than twice the context joined. */
static void hunks_put(FILE *out, const char *ops, size_t n_ops, const struct text_lines *a,
		      const struct text_lines *b)
{
	size_t i = 0, ai = 0, bi = 0;
	while (i < n_ops) {
		size_t c = i, ca = ai, cb = bi;
		while (c < n_ops && ops[c] == OP_SAME)
			c++, ca++, cb++;
		if (c == n_ops)
			return;
		size_t lead = c - i < CONTEXT ? c - i : CONTEXT;
		size_t from = c - lead, end = c;
		for (;;) {
			while (end < n_ops && ops[end] != OP_SAME)
				end++;
			size_t run = 0;
			while (end + run < n_ops && ops[end + run] == OP_SAME)
				run++;
			if (end + run == n_ops || run > 2 * CONTEXT) {
				end += run < CONTEXT ? run : CONTEXT;
				break;
			}
			end += run;
		}
		hunk_put(out, ops, from, end, ca - lead, cb - lead, a, b);
		for (; i < end; i++) {
			ai += ops[i] != OP_NEW;
			bi += ops[i] != OP_OLD;
		}
	}
}

int unified_hunks(FILE *out, const char *old_text, size_t old_len, const char *new_text,
		  size_t new_len)
{
	struct text_lines a = {0}, b = {0};
	char *ops = NULL;
	int rc = lines_split(old_text, old_len, &a);
	if (rc == 0)
		rc = lines_split(new_text, new_len, &b);
	if (rc == 0 && !(ops = malloc(a.n + b.n + 1)))
		rc = -ENOMEM;
	if (rc < 0)
		goto done;
	size_t head = 0, tail = 0, n_ops = 0, k = 0;
	while (head < a.n && head < b.n && same(&a, head, &b, head))
		head++;
	while (tail < a.n - head && tail < b.n - head &&
	       same(&a, a.n - 1 - tail, &b, b.n - 1 - tail))
		tail++;
	memset(ops, OP_SAME, head);
	size_t mid_a = a.n - head - tail, mid_b = b.n - head - tail;
	rc = myers(&a, head, mid_a, &b, head, mid_b, ops + head, &n_ops);
	if (rc == -E2BIG) {
		/* Rewritten whole: the middle removed, then added. */
		memset(ops + head, OP_OLD, mid_a);
		memset(ops + head + mid_a, OP_NEW, mid_b);
		n_ops = mid_a + mid_b;
		rc = 0;
	}
	if (rc < 0)
		goto done;
	k = head + n_ops;
	memset(ops + k, OP_SAME, tail);
	hunks_put(out, ops, k + tail, &a, &b);
done:
	free(ops);
	lines_free(&a);
	lines_free(&b);
	return rc;
}
