/*
 * The strict JSON reader: a recursive-descent parser over a byte buffer that
 * builds a tree of json_value, each stamped with its line and column.
 *
 * Recursion is bounded by JSON_MAX_DEPTH and the input by JSON_MAX_INPUT, so
 * hostile input can cost neither the stack nor unbounded memory. Nothing is
 * printed; every problem is returned as a message with a position.
 */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const unsigned char *text;
	size_t len;
	size_t pos;        /* the next byte to read */
	unsigned line;     /* of pos, 1-based */
	size_t line_start; /* offset of the first byte of that line */
	unsigned depth;    /* containers open around pos */
	struct json_error *e;
};

static int __attribute__((format(printf, 5, 0)))
error_va(struct parser *p, unsigned line, unsigned column, int code, const char *fmt, va_list ap)
{
	p->e->line = line;
	p->e->column = column;
	vsnprintf(p->e->message, sizeof p->e->message, fmt, ap);
	return code;
}

/* An error at a line and column noted earlier. */
static int __attribute__((format(printf, 5, 6)))
error_at(struct parser *p, unsigned line, unsigned column, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_va(p, line, column, code, fmt, ap);
	va_end(ap);
	return code;
}

static unsigned column_of(const struct parser *p, size_t at)
{
	return (unsigned)(at - p->line_start + 1);
}

/*
 * An error at offset at of the current line. Strings refuse a raw newline
 * before passing it, so everything after the last whitespace newline is on
 * the current line; a position from before it must be noted with
 * column_of() and reported with error_at().
 */
static int __attribute__((format(printf, 4, 5)))
parse_error(struct parser *p, size_t at, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_va(p, p->line, column_of(p, at), code, fmt, ap);
	va_end(ap);
	return code;
}

/* A byte shown in a message: itself when printable, else its hex value. */
static const char *byte_text(unsigned char c, char buf[8])
{
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "0x%02X", c);
	return buf;
}

static int unexpected_byte(struct parser *p, const char *expected)
{
	char shown[8];

	if (p->pos >= p->len)
		return parse_error(p, p->pos, -EINVAL, "unexpected end of input; expected %s",
				   expected);
	if (p->text[p->pos] == '/')
		return parse_error(p, p->pos, -EINVAL, "comments are not allowed in JSON");
	return parse_error(p, p->pos, -EINVAL, "unexpected %s; expected %s",
			   byte_text(p->text[p->pos], shown), expected);
}

static void skip_whitespace(struct parser *p)
{
	while (p->pos < p->len) {
		unsigned char c = p->text[p->pos];
		if (c == '\n') {
			p->line++;
			p->line_start = p->pos + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		p->pos++;
	}
}

static struct json_value *value_new(struct parser *p, enum json_type type, size_t at)
{
	struct json_value *v = calloc(1, sizeof *v);

	if (!v)
		return NULL;
	v->type = type;
	v->line = p->line;
	v->column = column_of(p, at);
	return v;
}

void json_free(struct json_value *v)
{
	if (!v)
		return;
	switch (v->type) {
	case JSON_NUMBER:
		free(v->u.number);
		break;
	case JSON_STRING:
		free(v->u.string);
		break;
	case JSON_ARRAY:
		for (size_t i = 0; i < v->u.array.count; i++)
			json_free(v->u.array.items[i]);
		free(v->u.array.items);
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < v->u.object.count; i++) {
			free(v->u.object.members[i].key);
			json_free(v->u.object.members[i].value);
		}
		free(v->u.object.members);
		break;
	case JSON_NULL:
	case JSON_BOOL:
		break;
	}
	free(v);
}

/* ---- strings ---------------------------------------------------------- */

/*
 * The length of the well-formed UTF-8 sequence at s, or 0. Overlong forms,
 * surrogates (U+D800..U+DFFF) and code points above U+10FFFF are refused, as
 * RFC 3629 asks: they are the classic ways to smuggle a '/' or a NUL past a
 * check that compares bytes.
 */
static size_t utf8_sequence_length(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xE0)
		lo = 0xA0;
	else if (s[0] == 0xED)
		hi = 0x9F;
	else if (s[0] == 0xF0)
		lo = 0x90;
	else if (s[0] == 0xF4)
		hi = 0x8F;
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

static size_t utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Four hex digits at text[at..end) as a number, or -1. */
static long hex4(const unsigned char *text, size_t at, size_t end)
{
	long value = 0;

	if (end - at < 4)
		return -1;
	for (size_t i = at; i < at + 4; i++) {
		unsigned char c = text[i];
		int digit;
		if (c >= '0' && c <= '9')
			digit = c - '0';
		else if (c >= 'a' && c <= 'f')
			digit = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			digit = c - 'A' + 10;
		else
			return -1;
		value = value * 16 + digit;
	}
	return value;
}

/*
 * A \u escape at text[*at] (the backslash), closing quote at end; a high
 * surrogate must be followed by a low one, since alone neither is a
 * character. Advances *at past the escape.
 */
static int decode_unicode_escape(struct parser *p, size_t *at, size_t end, uint32_t *cp)
{
	size_t start = *at;
	long unit = hex4(p->text, start + 2, end);

	if (unit < 0)
		return parse_error(p, start, -EINVAL, "\\u must be followed by four hex digits");
	*at = start + 6;
	if (unit >= 0xDC00 && unit <= 0xDFFF)
		return parse_error(p, start, -EINVAL,
				   "\\u%04lX is a low surrogate without a high surrogate before it",
				   unit);
	if (unit >= 0xD800 && unit <= 0xDBFF) {
		long low = -1;
		if (end - *at >= 6 && p->text[*at] == '\\' && p->text[*at + 1] == 'u')
			low = hex4(p->text, *at + 2, end);
		if (low < 0xDC00 || low > 0xDFFF)
			return parse_error(p, start, -EINVAL,
					   "\\u%04lX is a high surrogate not followed by a low "
					   "surrogate escape",
					   unit);
		*at += 6;
		unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
	}
	if (unit == 0)
		return parse_error(p, start, -EINVAL,
				   "\\u0000 (NUL) is not allowed: no path or name can hold it");
	*cp = (uint32_t)unit;
	return 0;
}

/* The escape at text[*at] (a backslash), written to out; advances both. */
static int decode_escape(struct parser *p, size_t *at, size_t end, char **out)
{
	static const char plain[] = "\"\\/bfnrt", meaning[] = "\"\\/\b\f\n\r\t";
	/* The scan for the closing quote stepped over escapes: a byte follows. */
	unsigned char c = *at + 1 < end ? p->text[*at + 1] : 0;
	const char *found = c ? strchr(plain, c) : NULL;
	char shown[8];
	uint32_t cp = 0;

	if (found) {
		*(*out)++ = meaning[found - plain];
		*at += 2;
		return 0;
	}
	if (c != 'u')
		return parse_error(p, *at, -EINVAL, "unknown escape \\%s in a string",
				   byte_text(c, shown));
	int rc = decode_unicode_escape(p, at, end, &cp);
	if (rc < 0)
		return rc;
	*out += utf8_encode(cp, *out);
	return 0;
}

/*
 * Decode the string whose opening quote is at pos into a new buffer. The
 * closing quote is found first, so the buffer can be sized once: decoding
 * never makes a string longer than its escaped form.
 */
static int parse_string(struct parser *p, char **result)
{
	size_t open = p->pos, end = open + 1;

	while (end < p->len && p->text[end] != '"')
		end += p->text[end] == '\\' ? 2 : 1;
	if (end >= p->len)
		return parse_error(p, open, -EINVAL, "string is not closed");

	char *buf = malloc(end - open), *out = buf;
	if (!buf)
		return parse_error(p, open, -ENOMEM, "out of memory");
	for (size_t at = open + 1; at < end;) {
		unsigned char c = p->text[at];
		size_t n = 1;
		int rc = 0;
		if (c < 0x20)
			rc = parse_error(p, at, -EINVAL,
					 "raw control character 0x%02X in a string; escape it", c);
		else if (c == '\\')
			rc = decode_escape(p, &at, end, &out);
		else if (c >= 0x80 && !(n = utf8_sequence_length(p->text + at, end - at)))
			rc = parse_error(p, at, -EINVAL, "invalid UTF-8 in a string");
		if (rc < 0) {
			free(buf);
			return rc;
		}
		if (c != '\\') {
			memcpy(out, p->text + at, n);
			out += n;
			at += n;
		}
	}
	*out = '\0';
	p->pos = end + 1;
	*result = buf;
	return 0;
}

/* ---- scalars ---------------------------------------------------------- */

static bool is_digit(const struct parser *p, size_t at)
{
	return at < p->len && p->text[at] >= '0' && p->text[at] <= '9';
}

static size_t skip_digits(const struct parser *p, size_t at)
{
	while (is_digit(p, at))
		at++;
	return at;
}

/* RFC 8259: -? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *p, struct json_value **out)
{
	size_t start = p->pos, at = start;

	if (p->text[at] == '-')
		at++;
	if (!is_digit(p, at))
		return parse_error(p, at, -EINVAL, "expected a digit after '-'");
	if (p->text[at] == '0' && is_digit(p, at + 1))
		return parse_error(p, start, -EINVAL, "numbers may not start with a 0");
	at = skip_digits(p, at);
	if (at < p->len && p->text[at] == '.') {
		if (!is_digit(p, at + 1))
			return parse_error(p, at + 1, -EINVAL, "expected a digit after '.'");
		at = skip_digits(p, at + 1);
	}
	if (at < p->len && (p->text[at] == 'e' || p->text[at] == 'E')) {
		at++;
		if (at < p->len && (p->text[at] == '+' || p->text[at] == '-'))
			at++;
		if (!is_digit(p, at))
			return parse_error(p, at, -EINVAL, "expected a digit in the exponent");
		at = skip_digits(p, at);
	}

	struct json_value *v = value_new(p, JSON_NUMBER, start);
	char *text = v ? strndup((const char *)p->text + start, at - start) : NULL;
	if (!text) {
		free(v);
		return parse_error(p, start, -ENOMEM, "out of memory");
	}
	v->u.number = text;
	p->pos = at;
	*out = v;
	return 0;
}

static int parse_literal(struct parser *p, struct json_value **out)
{
	static const struct {
		const char *word;
		enum json_type type;
		bool boolean;
	} literals[] = {
		{ "true", JSON_BOOL, true },
		{ "false", JSON_BOOL, false },
		{ "null", JSON_NULL, false },
	};

	for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
		size_t n = strlen(literals[i].word);
		if (p->len - p->pos < n || memcmp(p->text + p->pos, literals[i].word, n) != 0)
			continue;
		struct json_value *v = value_new(p, literals[i].type, p->pos);
		if (!v)
			return parse_error(p, p->pos, -ENOMEM, "out of memory");
		v->u.boolean = literals[i].boolean;
		p->pos += n;
		*out = v;
		return 0;
	}
	return parse_error(p, p->pos, -EINVAL, "unknown word; expected true, false or null");
}

static int parse_string_value(struct parser *p, struct json_value **out)
{
	struct json_value *v = value_new(p, JSON_STRING, p->pos);

	if (!v)
		return parse_error(p, p->pos, -ENOMEM, "out of memory");
	int rc = parse_string(p, &v->u.string);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	return 0;
}

/* ---- containers ------------------------------------------------------- */

static int parse_value(struct parser *p, struct json_value **out);

/*
 * Make room for one more element after count of them: the array, moved if it
 * had to grow, or NULL (the old array is still valid then).
 */
static void *grow_for_one(void *array, size_t count, size_t *capacity, size_t elem_size)
{
	if (count < *capacity)
		return array;
	size_t grown = *capacity ? *capacity * 2 : 4;
	void *bigger = reallocarray(array, grown, elem_size);
	if (bigger)
		*capacity = grown;
	return bigger;
}

/*
 * After an element: a ',' then another element, or the closing byte. A
 * closing byte right after the ',' gets its own message because a trailing
 * comma is the most common way to break a hand-edited file.
 */
static int after_element(struct parser *p, char close, bool *more)
{
	char expected[32];

	skip_whitespace(p);
	if (p->pos < p->len && p->text[p->pos] == (unsigned char)close) {
		p->pos++;
		*more = false;
		return 0;
	}
	if (p->pos >= p->len || p->text[p->pos] != ',') {
		snprintf(expected, sizeof expected, "',' or '%c'", close);
		return unexpected_byte(p, expected);
	}
	unsigned comma_line = p->line, comma_column = column_of(p, p->pos++);
	skip_whitespace(p);
	if (p->pos < p->len && p->text[p->pos] == (unsigned char)close)
		return error_at(p, comma_line, comma_column, -EINVAL, "trailing comma before '%c'",
				close);
	*more = true;
	return 0;
}

/* Opening a container: one level deeper, refused past the limit. */
static int enter_container(struct parser *p)
{
	if (p->depth >= JSON_MAX_DEPTH)
		return parse_error(p, p->pos, -EINVAL,
				   "arrays and objects are nested more than %d deep",
				   JSON_MAX_DEPTH);
	p->depth++;
	p->pos++;
	skip_whitespace(p);
	return 0;
}

static int parse_array(struct parser *p, struct json_value **out)
{
	struct json_value *v = value_new(p, JSON_ARRAY, p->pos);
	size_t capacity = 0;
	bool more = true;
	int rc;

	if (!v)
		return parse_error(p, p->pos, -ENOMEM, "out of memory");
	rc = enter_container(p);
	if (rc == 0 && p->pos < p->len && p->text[p->pos] == ']') {
		p->pos++;
		more = false;
	}
	while (rc == 0 && more) {
		struct json_value *item = NULL, **items;
		items = grow_for_one(v->u.array.items, v->u.array.count, &capacity, sizeof item);
		if (!items) {
			rc = parse_error(p, p->pos, -ENOMEM, "out of memory");
			break;
		}
		v->u.array.items = items;
		rc = parse_value(p, &item);
		if (rc == 0) {
			v->u.array.items[v->u.array.count++] = item;
			rc = after_element(p, ']', &more);
		}
	}
	if (rc < 0) {
		json_free(v);
		return rc;
	}
	p->depth--;
	*out = v;
	return 0;
}

/* How many bytes of s, at most max, end on a character boundary. */
static int utf8_prefix(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return (int)n;
}

static int compare_members(const void *a, const void *b)
{
	const struct json_member *const *ma = a, *const *mb = b;
	int by_key = strcmp((*ma)->key, (*mb)->key);

	if (by_key)
		return by_key;
	return *ma < *mb ? -1 : *ma > *mb;
}

/*
 * Duplicate keys are refused: RFC 8259 leaves their meaning open, and a
 * policy read one way by us and another way by a reviewer's tool is a hole.
 * Sorting keeps a large object from costing quadratic time; the error names
 * the first key, in document order, that repeats an earlier one.
 */
static int check_duplicate_keys(struct parser *p, const struct json_value *object)
{
	size_t n = object->u.object.count;
	const struct json_member **sorted = n > 1 ? calloc(n, sizeof *sorted) : NULL;
	const struct json_member *repeat = NULL;

	if (n < 2)
		return 0;
	if (!sorted)
		return parse_error(p, p->pos, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		sorted[i] = &object->u.object.members[i];
	qsort(sorted, n, sizeof *sorted, compare_members);
	for (size_t i = 1; i < n; i++)
		if (strcmp(sorted[i - 1]->key, sorted[i]->key) == 0 &&
		    (!repeat || sorted[i] < repeat))
			repeat = sorted[i];
	free(sorted);
	if (!repeat)
		return 0;
	return error_at(p, repeat->line, repeat->column, -EINVAL,
			"duplicate key \"%.*s%s\" in an object", utf8_prefix(repeat->key, 100),
			repeat->key, strlen(repeat->key) > 100 ? "..." : "");
}

/* One "key": value pair, appended to the object. */
static int parse_member(struct parser *p, struct json_value *object, size_t *capacity)
{
	struct json_member m = { .line = p->line };

	if (p->pos >= p->len || p->text[p->pos] != '"')
		return unexpected_byte(p, "a string as the object key");
	m.column = column_of(p, p->pos);
	struct json_member *members = grow_for_one(object->u.object.members,
						   object->u.object.count, capacity, sizeof m);
	if (!members)
		return parse_error(p, p->pos, -ENOMEM, "out of memory");
	object->u.object.members = members;
	int rc = parse_string(p, &m.key);
	if (rc < 0)
		return rc;
	skip_whitespace(p);
	if (p->pos >= p->len || p->text[p->pos] != ':')
		rc = unexpected_byte(p, "':' after the object key");
	else
		p->pos++;
	if (rc == 0)
		rc = parse_value(p, &m.value);
	if (rc < 0) {
		free(m.key);
		return rc;
	}
	object->u.object.members[object->u.object.count++] = m;
	return 0;
}

static int parse_object(struct parser *p, struct json_value **out)
{
	struct json_value *v = value_new(p, JSON_OBJECT, p->pos);
	size_t capacity = 0;
	bool more = true;
	int rc;

	if (!v)
		return parse_error(p, p->pos, -ENOMEM, "out of memory");
	rc = enter_container(p);
	if (rc == 0 && p->pos < p->len && p->text[p->pos] == '}') {
		p->pos++;
		more = false;
	}
	while (rc == 0 && more) {
		rc = parse_member(p, v, &capacity);
		if (rc == 0)
			rc = after_element(p, '}', &more);
	}
	if (rc == 0)
		rc = check_duplicate_keys(p, v);
	if (rc < 0) {
		json_free(v);
		return rc;
	}
	p->depth--;
	*out = v;
	return 0;
}

static int parse_value(struct parser *p, struct json_value **out)
{
	skip_whitespace(p);
	if (p->pos >= p->len)
		return unexpected_byte(p, "a value");
	switch (p->text[p->pos]) {
	case '{':
		return parse_object(p, out);
	case '[':
		return parse_array(p, out);
	case '"':
		return parse_string_value(p, out);
	case 't':
	case 'f':
	case 'n':
		return parse_literal(p, out);
	case '-':
	case '0' ... '9':
		return parse_number(p, out);
	default:
		return unexpected_byte(p, "a value");
	}
}

/* ---- public ----------------------------------------------------------- */

int json_parse(const char *text, size_t len, struct json_value **out, struct json_error *e)
{
	struct json_error scratch;
	struct parser p = { (const unsigned char *)text, len, 0, 1, 0, 0, e ? e : &scratch };
	struct json_value *root = NULL;
	int rc;

	*out = NULL;
	memset(p.e, 0, sizeof *p.e);
	if (len > JSON_MAX_INPUT)
		return parse_error(&p, 0, -E2BIG, "input is larger than %u bytes", JSON_MAX_INPUT);
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		return parse_error(&p, 0, -EINVAL,
				   "input starts with a byte order mark; save it as UTF-8 "
				   "without one");
	rc = parse_value(&p, &root);
	if (rc < 0)
		return rc;
	skip_whitespace(&p);
	if (p.pos < p.len) {
		json_free(root);
		return unexpected_byte(&p, "the end of input after the value");
	}
	*out = root;
	return 0;
}

const char *json_type_name(enum json_type type)
{
	switch (type) {
	case JSON_NULL:
		return "null";
	case JSON_BOOL:
		return "a boolean";
	case JSON_NUMBER:
		return "a number";
	case JSON_STRING:
		return "a string";
	case JSON_ARRAY:
		return "an array";
	case JSON_OBJECT:
		return "an object";
	}
	return "an unknown type";
}

const struct json_member *json_object_find(const struct json_value *object, const char *key)
{
	if (!object || object->type != JSON_OBJECT || !key)
		return NULL;
	for (size_t i = 0; i < object->u.object.count; i++)
		if (strcmp(object->u.object.members[i].key, key) == 0)
			return &object->u.object.members[i];
	return NULL;
}

const struct json_value *json_object_get(const struct json_value *object, const char *key)
{
	const struct json_member *m = json_object_find(object, key);

	return m ? m->value : NULL;
}

int json_number_to_u64(const struct json_value *v, uint64_t *out)
{
	uint64_t value = 0;

	if (!v || v->type != JSON_NUMBER)
		return -EINVAL;
	/* The grammar already holds: a leading digit means no sign. */
	for (const char *c = v->u.number; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EDOM;
		unsigned digit = (unsigned)(*c - '0');
		if (value > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		value = value * 10 + digit;
	}
	*out = value;
	return 0;
}
