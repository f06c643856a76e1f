/*
 * git's configuration format, read as a stream of characters the way git
 * reads it: "\r\n" is a newline, the end of the text is a last newline,
 * a UTF-8 byte order mark may open the text. An entry may follow its
 * section header on the same line ("[core] hooksPath = x"), a value ends
 * at the first newline outside a continuation, and a quote left open at
 * the end of a line, an unknown escape or a character git does not allow
 * in a name makes the whole file an error, as it does for git (which then
 * runs nothing from it).
 */
#include "git_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *text;
	size_t len, pos;
	int line;
	bool eof;
};

struct buffer {
	char *data;
	size_t len, cap;
};

static int buffer_add(struct buffer *b, char c)
{
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		char *grown = realloc(b->data, cap);
		if (!grown)
			return -ENOMEM;
		b->data = grown;
		b->cap = cap;
	}
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
	return 0;
}

static void buffer_truncate(struct buffer *b, size_t len)
{
	b->len = len;
	if (b->data)
		b->data[len] = '\0';
}

/* The next character; past the end, '\n' with eof set. */
static int next_char(struct reader *r)
{
	if (r->pos >= r->len) {
		r->eof = true;
		return '\n';
	}
	int c = (unsigned char)r->text[r->pos++];
	if (c == '\r' && r->pos < r->len && r->text[r->pos] == '\n')
		c = r->text[r->pos++];
	if (c == '\n')
		r->line++;
	return c;
}

static bool key_char(int c)
{
	return isalnum(c) || c == '-';
}

/* A value after '=': quotes removed, escapes and continuations applied. */
static int value_read(struct reader *r, struct buffer *v)
{
	bool quoted = false, comment = false;
	size_t trim = 0;
	for (;;) {
		int c = next_char(r);
		if (c == '\n') {
			if (quoted)
				return -EINVAL;
			if (trim)
				buffer_truncate(v, trim);
			return 0;
		}
		if (comment)
			continue;
		if (isspace(c) && !quoted) {
			/* Inner spaces are kept, trailing ones cut at the end. */
			if (!trim)
				trim = v->len;
			if (v->len && buffer_add(v, (char)c) < 0)
				return -ENOMEM;
			continue;
		}
		if (!quoted && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		trim = 0;
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\') {
			c = next_char(r);
			if (c == '\n')
				continue; /* a continuation line (or the end) */
			if (c == 't')
				c = '\t';
			else if (c == 'b')
				c = '\b';
			else if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return -EINVAL;
		}
		if (buffer_add(v, (char)c) < 0)
			return -ENOMEM;
	}
}

/* '[base "sub"]' after the space: the subsection, escapes kept literal. */
static int subsection_read(struct reader *r, struct buffer *name, int c)
{
	while (isspace(c)) {
		if (c == '\n')
			return -EINVAL;
		c = next_char(r);
	}
	if (c != '"' || buffer_add(name, '.') < 0)
		return c != '"' ? -EINVAL : -ENOMEM;
	for (;;) {
		c = next_char(r);
		/* A NUL would cut the name short where it is read as a string: refused. */
		if (c == '\n' || c == '\0')
			return -EINVAL;
		if (c == '"')
			break;
		if (c == '\\' && ((c = next_char(r)) == '\n' || c == '\0'))
			return -EINVAL;
		if (buffer_add(name, (char)c) < 0)
			return -ENOMEM;
	}
	return next_char(r) == ']' ? 0 : -EINVAL;
}

static int section_read(struct reader *r, struct buffer *name)
{
	buffer_truncate(name, 0);
	for (;;) {
		int c = next_char(r);
		if (r->eof)
			return -EINVAL;
		if (c == ']')
			break;
		if (isspace(c)) {
			int rc = subsection_read(r, name, c);
			if (rc < 0)
				return rc;
			break;
		}
		if (!key_char(c) && c != '.')
			return -EINVAL;
		if (buffer_add(name, (char)tolower(c)) < 0)
			return -ENOMEM;
	}
	if (name->len == 0)
		return -EINVAL;
	return buffer_add(name, '.');
}

/* An entry: its key (first character c) and, after '=', its value. */
static int entry_read(struct reader *r, struct buffer *name, size_t section_len, int c,
		      struct buffer *value, git_config_entry_fn fn, void *ctx)
{
	buffer_truncate(name, section_len);
	if (buffer_add(name, (char)tolower(c)) < 0)
		return -ENOMEM;
	for (;;) {
		c = next_char(r);
		if (r->eof || !key_char(c))
			break;
		if (buffer_add(name, (char)tolower(c)) < 0)
			return -ENOMEM;
	}
	while (c == ' ' || c == '\t')
		c = next_char(r);
	buffer_truncate(value, 0);
	if (c == '\n')
		return fn(name->data, NULL, ctx);
	if (c != '=')
		return -EINVAL;
	int rc = value_read(r, value);
	if (rc < 0)
		return rc;
	return fn(name->data, value->data ? value->data : "", ctx);
}

static int parse(struct reader *r, struct buffer *name, struct buffer *value,
		 git_config_entry_fn fn, void *ctx, int *start_line)
{
	static const char bom[] = "\xef\xbb\xbf";
	size_t section_len = 0;
	bool comment = false;
	if (r->len >= 3 && memcmp(r->text, bom, 3) == 0)
		r->pos = 3;
	for (;;) {
		int c = next_char(r);
		if (c == '\n') {
			if (r->eof)
				return 0;
			comment = false;
			continue;
		}
		if (comment || isspace(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		int rc;
		*start_line = r->line;
		if (c == '[') {
			rc = section_read(r, name);
			section_len = name->len;
		} else if (!isalpha(c)) {
			rc = -EINVAL;
		} else {
			/* Before any section, git takes the key alone as the name. */
			rc = entry_read(r, name, section_len, c, value, fn, ctx);
		}
		if (rc < 0)
			return rc;
	}
}

int git_config_parse(const char *text, size_t len, git_config_entry_fn fn, void *ctx, int *bad_line)
{
	struct reader r = {text, len, 0, 1, false};
	struct buffer name = {0}, value = {0};
	int start_line = 1;
	int rc = parse(&r, &name, &value, fn, ctx, &start_line);
	/* The line where the refused section or entry starts, as git counts. */
	if (rc == -EINVAL && bad_line)
		*bad_line = start_line;
	free(name.data);
	free(value.data);
	return rc;
}
