/*
 * The JSON policy reader's tools, shared by its parts (policy_json.c and
 * policy_json_*.c, see policy_json_reader.h): messages that name the
 * position of the value at fault and show what the input holds without
 * passing control characters to a terminal, objects read against a fixed
 * table of keys, and lists of names each handed to a setter.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "policy_json_reader.h"

/* ---- messages --------------------------------------------------------- */

/*
 * Copy src into dst for a message, at most max_src bytes of it (finishing a
 * UTF-8 character that was started). Control characters, C0 and C1, become
 * escapes: a policy file may come from anyone, and what it holds must not
 * reach the user's terminal as escape sequences. Returns true if src was cut.
 */
bool escape_for_message(char *dst, size_t size, const char *src, size_t max_src, bool quoted)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = 0, i = 0;

	for (; s[i] && (i < max_src || (s[i] & 0xC0) == 0x80); i++) {
		char piece[8] = { (char)s[i], '\0' };
		if (s[i] < 0x20 || s[i] == 0x7f)
			snprintf(piece, sizeof piece, "\\x%02X", s[i]);
		else if (s[i] == 0xC2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F)
			snprintf(piece, sizeof piece, "\\u%04X", s[++i]);
		else if (quoted && (s[i] == '"' || s[i] == '\\'))
			snprintf(piece, sizeof piece, "\\%c", s[i]);
		size_t len = strlen(piece);
		if (n + len >= size)
			break;
		memcpy(dst + n, piece, len);
		n += len;
	}
	dst[n] = '\0';
	return s[i] != '\0';
}

/* A string from the input, quoted and shortened for a message. */
const char *quote(struct quoted *q, const char *s)
{
	q->text[0] = '"';
	bool cut = escape_for_message(q->text + 1, sizeof q->text - 5, s, 60, true);
	strcat(q->text, cut ? "\"..." : "\"");
	return q->text;
}

static int __attribute__((format(printf, 5, 0)))
fail_va(struct reader *r, unsigned line, unsigned column, int code, const char *fmt, va_list ap)
{
	char what[sizeof r->err->message];

	vsnprintf(what, sizeof what, fmt, ap);
	return error_set(r->err, code, "%s:%u:%u: %s", r->name, line, column, what);
}

int __attribute__((format(printf, 5, 6)))
fail_at(struct reader *r, unsigned line, unsigned column, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = fail_va(r, line, column, code, fmt, ap);
	va_end(ap);
	return rc;
}

int __attribute__((format(printf, 4, 5)))
fail_value(struct reader *r, const struct json_value *v, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = fail_va(r, v->line, v->column, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* A setter refused a value: its message, at the position of that value. */
int fail_setter(struct reader *r, unsigned line, unsigned column, int code,
		const struct procage_error *inner)
{
	char shown[sizeof inner->message];

	escape_for_message(shown, sizeof shown, inner->message, SIZE_MAX, false);
	fail_at(r, line, column, code, "%s", shown);
	if (r->err)
		r->err->sys_errno = inner->sys_errno;
	return code;
}

int expect_type(struct reader *r, const struct json_value *v, enum json_type want, const char *what)
{
	if (v->type == want)
		return 0;
	return fail_value(r, v, -EINVAL, "%s must be %s, not %s", what, json_type_name(want),
			  json_type_name(v->type));
}

/* ---- objects with a fixed set of keys --------------------------------- */

int unknown_key(struct reader *r, const struct json_member *m, const char *where,
		const struct key_reader *keys, size_t n_keys)
{
	char known[256] = "";
	struct quoted q;

	for (size_t i = 0; i < n_keys; i++) {
		size_t used = strlen(known);
		snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", keys[i].key);
	}
	return fail_at(r, m->line, m->column, -EINVAL, "unknown key %s %s (known: %s)",
		       quote(&q, m->key), where, known);
}

/* Each member in document order, by its key's reader; other keys are errors. */
int read_members(struct reader *r, const struct json_value *object, const char *where,
		 const struct key_reader *keys, size_t n_keys)
{
	for (size_t i = 0; i < object->u.object.count; i++) {
		const struct json_member *m = &object->u.object.members[i];
		const struct key_reader *k = NULL;
		for (size_t j = 0; j < n_keys && !k; j++)
			if (strcmp(keys[j].key, m->key) == 0)
				k = &keys[j];
		if (!k)
			return unknown_key(r, m, where, keys, n_keys);
		int rc = k->read(r, m, k->arg);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- lists of names -------------------------------------------------- */

/* An array of names, each handed to a setter that checks it. */
int read_name_list(struct reader *r, const struct json_member *m, const char *what,
		   int (*setter)(struct procage_policy *, const char *, struct procage_error *))
{
	struct procage_error inner;
	char expected[64];
	int rc = expect_type(r, m->value, JSON_ARRAY, what);

	snprintf(expected, sizeof expected, "each entry of %s", what);
	for (size_t i = 0; rc == 0 && i < m->value->u.array.count; i++) {
		const struct json_value *item = m->value->u.array.items[i];
		rc = expect_type(r, item, JSON_STRING, expected);
		if (rc < 0)
			return rc;
		rc = setter(r->policy, item->u.string, &inner);
		if (rc < 0)
			return fail_setter(r, item->line, item->column, rc, &inner);
	}
	return rc;
}
