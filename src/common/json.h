/*
 * A small strict JSON reader (RFC 8259) that remembers where every value
 * starts. jansson reports positions for syntax errors only; the policy reader
 * also has to point at a well-formed value that means the wrong thing, so it
 * needs the line and column of each value and each object key.
 *
 * Beyond the RFC, the reader refuses what a policy never needs and what would
 * make a later check unsound: strings holding U+0000 (a path or a name cut
 * short by C code), duplicate object keys (which of the two would win?),
 * input over JSON_MAX_INPUT bytes and nesting deeper than JSON_MAX_DEPTH.
 */
#ifndef PROCAGE_JSON_H
#define PROCAGE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_INPUT (1024u * 1024u) /* bytes */
#define JSON_MAX_DEPTH 64              /* arrays and objects inside each other */

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value;

struct json_member {
	char *key;                 /* UTF-8, never holds a NUL byte */
	unsigned line, column;     /* where the key's opening quote is */
	struct json_value *value;
};

struct json_value {
	enum json_type type;
	unsigned line, column; /* 1-based; the column counts bytes, not characters */
	union {
		bool boolean;
		char *number; /* the text as written, e.g. "-1.5e3" */
		char *string; /* decoded UTF-8, never holds a NUL byte */
		struct {
			struct json_value **items;
			size_t count;
		} array;
		struct {
			struct json_member *members; /* in document order */
			size_t count;
		} object;
	} u;
};

struct json_error {
	unsigned line, column; /* where the problem is, 1-based, column in bytes */
	char message[160];
};

/*
 * Parse exactly one JSON value from text[0..len) (surrounding whitespace
 * allowed). Returns 0 and a tree to free with json_free, or a negative errno
 * (-EINVAL for bad input, -E2BIG when the input is too large, -ENOMEM) with
 * e filled; *out is NULL then. text need not be NUL-terminated.
 */
int json_parse(const char *text, size_t len, struct json_value **out, struct json_error *e);
void json_free(struct json_value *value);

/* "a string", "an object", ...: for messages such as "must be a string". */
const char *json_type_name(enum json_type type);

/* The member named key of an object, or NULL (also when v is no object). */
const struct json_member *json_object_find(const struct json_value *object, const char *key);
/* The same, giving the member's value. */
const struct json_value *json_object_get(const struct json_value *object, const char *key);

/*
 * A number as a non-negative whole number: 0, or -EDOM when it has a sign,
 * a fraction or an exponent, -ERANGE when it is above UINT64_MAX, -EINVAL
 * when v is not a number.
 */
int json_number_to_u64(const struct json_value *v, uint64_t *out);

#endif
