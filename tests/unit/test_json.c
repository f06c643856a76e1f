/*
 * The strict JSON reader: what it accepts, what it refuses and where it says
 * the problem is, the positions it records for values, string decoding, the
 * depth and size limits, duplicate keys and the integer conversion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "tap.h"

/* Text for a TAP line: control bytes would break the line, so they are escaped. */
static const char *shown(const char *text)
{
	static char buf[128];
	size_t n = 0;

	for (const unsigned char *c = (const unsigned char *)text; *c && n + 5 < sizeof buf; c++)
		n += (size_t)snprintf(buf + n, sizeof buf - n,
				      *c < 0x20 || *c >= 0x7f ? "\\x%02X" : "%c", *c);
	buf[n] = '\0';
	return buf;
}

/* ---- accepted documents ---------------------------------------------- */

static void test_accepted(void)
{
	static const char *const documents[] = {
		"0", "-0", "1.5e-3", "1E+2", "-12.25", "\"\"", "[]", "{}", " [ ] ", "true",
		"false", "null", "[[],{}]", "{\"\":1}", "\r\n\t{\"a\" : [ 1 , 2 ] }\n",
		"\"\xC2\x80\"", /* U+0080: a C1 control, still a valid JSON string */
	};

	for (size_t i = 0; i < sizeof documents / sizeof documents[0]; i++) {
		struct json_value *v = NULL;
		struct json_error e;
		int rc = json_parse(documents[i], strlen(documents[i]), &v, &e);
		if (!tap_ok(rc == 0 && v != NULL, "accepted: %s", shown(documents[i])))
			tap_diag("rc %d at %u:%u: %s", rc, e.line, e.column, e.message);
		json_free(v);
	}
}

/* ---- refused documents and where the error points ------------------- */

struct refused {
	const char *label;
	const char *text;
	size_t len; /* 0: strlen(text) */
	int code;
	unsigned line, column;
	const char *message; /* a part of the message */
};

static const struct refused refused_cases[] = {
	{ "empty input", "", 0, -EINVAL, 1, 1, "unexpected end of input; expected a value" },
	{ "only whitespace", "  \n ", 0, -EINVAL, 2, 2, "unexpected end of input" },
	{ "open object", "{", 0, -EINVAL, 1, 2,
	  "end of input; expected a string as the object key" },
	{ "open array", "[1,", 0, -EINVAL, 1, 4, "end of input; expected a value" },
	{ "trailing comma in array", "[1,]", 0, -EINVAL, 1, 3, "trailing comma before ']'" },
	{ "trailing comma in object", "{\"a\":1 ,\n}", 0, -EINVAL, 1, 8,
	  "trailing comma before '}'" },
	{ "missing colon", "{\"a\" 1}", 0, -EINVAL, 1, 6, "unexpected '1'; expected ':'" },
	{ "missing comma", "[1 2]", 0, -EINVAL, 1, 4, "unexpected '2'; expected ',' or ']'" },
	{ "unquoted key", "{a:1}", 0, -EINVAL, 1, 2, "expected a string as the object key" },
	{ "single quotes", "['a']", 0, -EINVAL, 1, 2, "unexpected '''" },
	{ "line comment", "// c\n{}", 0, -EINVAL, 1, 1, "comments are not allowed" },
	{ "block comment", "{\n  \"a\": /* x */ 1}", 0, -EINVAL, 2, 8,
	  "comments are not allowed" },
	{ "leading zero", "[01]", 0, -EINVAL, 1, 2, "numbers may not start with a 0" },
	{ "lone minus", "[-]", 0, -EINVAL, 1, 3, "expected a digit after '-'" },
	{ "bare fraction dot", "[1.]", 0, -EINVAL, 1, 4, "expected a digit after '.'" },
	{ "empty exponent", "[1e+]", 0, -EINVAL, 1, 5, "expected a digit in the exponent" },
	{ "leading dot", "[.5]", 0, -EINVAL, 1, 2, "unexpected '.'" },
	{ "plus sign", "[+1]", 0, -EINVAL, 1, 2, "unexpected '+'" },
	{ "NaN", "[NaN]", 0, -EINVAL, 1, 2, "unexpected 'N'" },
	{ "bad literal", "[tru]", 0, -EINVAL, 1, 2, "expected true, false or null" },
	{ "capital literal", "True", 0, -EINVAL, 1, 1, "unexpected 'T'" },
	{ "text after the value", "{} x", 0, -EINVAL, 1, 4, "expected the end of input" },
	{ "two values", "1\n2", 0, -EINVAL, 2, 1, "expected the end of input" },
	{ "unclosed string", "[\"abc", 0, -EINVAL, 1, 2, "string is not closed" },
	{ "escaped closing quote", "\"abc\\\"", 0, -EINVAL, 1, 1, "string is not closed" },
	{ "raw newline in string", "\"a\nb\"", 0, -EINVAL, 1, 3,
	  "raw control character 0x0A in a string" },
	{ "raw tab in string", "[\"a\tb\"]", 0, -EINVAL, 1, 4, "raw control character 0x09" },
	{ "unknown escape", "\"ab\\x\"", 0, -EINVAL, 1, 4, "unknown escape \\'x'" },
	{ "short \\u", "\"\\u12\"", 0, -EINVAL, 1, 2, "\\u must be followed by four hex digits" },
	{ "bad hex in \\u", "\"\\u12G4\"", 0, -EINVAL, 1, 2, "four hex digits" },
	{ "\\u0000", "{\"k\": \"a\\u0000b\"}", 0, -EINVAL, 1, 9, "\\u0000 (NUL) is not allowed" },
	{ "\\u0000 in a key", "{\"a\\u0000\": 1}", 0, -EINVAL, 1, 4, "NUL" },
	{ "lone low surrogate", "\"ab\\uDC00\"", 0, -EINVAL, 1, 4,
	  "\\uDC00 is a low surrogate without a high surrogate" },
	{ "lone high surrogate", "\"\\uD800\"", 0, -EINVAL, 1, 2,
	  "\\uD800 is a high surrogate not followed by a low surrogate" },
	{ "high surrogate then letter", "\"\\uD800\\u0041\"", 0, -EINVAL, 1, 2,
	  "high surrogate" },
	{ "high surrogate then text", "\"\\uDBFFxxxxxx\"", 0, -EINVAL, 1, 2, "high surrogate" },
	{ "overlong UTF-8", "\"a\xC0\xAF\"", 0, -EINVAL, 1, 3, "invalid UTF-8" },
	{ "overlong 3-byte", "\"\xE0\x80\xAF\"", 0, -EINVAL, 1, 2, "invalid UTF-8" },
	{ "UTF-8 surrogate", "\"\xED\xA0\x80\"", 0, -EINVAL, 1, 2, "invalid UTF-8" },
	{ "above U+10FFFF", "\"\xF4\x90\x80\x80\"", 0, -EINVAL, 1, 2, "invalid UTF-8" },
	{ "stray continuation", "\"ok\x80\"", 0, -EINVAL, 1, 4, "invalid UTF-8" },
	{ "cut sequence", "\"\xE2\x82\"", 0, -EINVAL, 1, 2, "invalid UTF-8" },
	{ "byte 0xFF", "\"\xFF\"", 0, -EINVAL, 1, 2, "invalid UTF-8" },
	{ "raw NUL byte outside strings", "[\0]", 3, -EINVAL, 1, 2, "unexpected 0x00" },
	{ "raw NUL byte in a string", "\"a\0\"", 4, -EINVAL, 1, 3, "raw control character 0x00" },
	{ "byte order mark", "\xEF\xBB\xBF{}", 0, -EINVAL, 1, 1, "byte order mark" },
	{ "error on a later line", "{\n  \"a\": [1,\n        2,,3]\n}", 0, -EINVAL, 3, 11,
	  "unexpected ','; expected a value" },
	{ "CR LF line ends", "{\r\n\"a\":x}", 0, -EINVAL, 2, 5, "unexpected 'x'" },
	{ "tab counts one column", "\t[x]", 0, -EINVAL, 1, 3, "unexpected 'x'" },
	{ "duplicate key", "{\"a\":1,\n \"b\":2,\n \"a\":3}", 0, -EINVAL, 3, 2,
	  "duplicate key \"a\"" },
	{ "duplicate key nested", "{\"x\":{\"k\":1,\"k\":2}}", 0, -EINVAL, 1, 13,
	  "duplicate key \"k\"" },
};

static void test_refused(void)
{
	for (size_t i = 0; i < sizeof refused_cases / sizeof refused_cases[0]; i++) {
		const struct refused *c = &refused_cases[i];
		struct json_value *v = (struct json_value *)&v; /* must come back NULL */
		struct json_error e;
		int rc = json_parse(c->text, c->len ? c->len : strlen(c->text), &v, &e);
		bool ok = rc == c->code && v == NULL && e.line == c->line &&
			  e.column == c->column && strstr(e.message, c->message);
		if (!tap_ok(ok, "refused: %s at %u:%u", c->label, c->line, c->column))
			tap_diag("rc %d, got %u:%u: %s", rc, e.line, e.column, e.message);
	}
}

/* Many keys: the repeat reported is the first one in document order. */
static void test_duplicate_in_large_object(void)
{
	size_t size = 64 * 1024, used = 0;
	char *text = malloc(size);
	struct json_value *v = NULL;
	struct json_error e;

	used += (size_t)snprintf(text + used, size - used, "{");
	for (int i = 0; i < 1000; i++) {
		int key = i == 800 ? 1 : i == 500 ? 3 : i;
		used += (size_t)snprintf(text + used, size - used, "%s\"k%d\": %d\n", i ? "," : "",
					 key, i);
	}
	used += (size_t)snprintf(text + used, size - used, "}");
	int rc = json_parse(text, used, &v, &e);
	if (!tap_ok(rc == -EINVAL && e.line == 501 && e.column == 2 &&
			    strstr(e.message, "duplicate key \"k3\""),
		    "the first repeated key of 1000 is named (line 501)"))
		tap_diag("rc %d at %u:%u: %s", rc, e.line, e.column, e.message);
	json_free(v);
	free(text);
}

/* A long repeated key is cut in the message, never inside a character. */
static void test_duplicate_long_key(void)
{
	char key[128], text[300], expected[160];
	struct json_value *v = NULL;
	struct json_error e;

	memset(key, 'a', 99);
	strcpy(key + 99, "\xC3\xA9z"); /* the 100th byte is the middle of U+00E9 */
	snprintf(text, sizeof text, "{\"%s\": 1, \"%s\": 2}", key, key);
	snprintf(expected, sizeof expected, "duplicate key \"%.99s...\" in an object", key);
	int rc = json_parse(text, strlen(text), &v, &e);
	if (!tap_ok(rc == -EINVAL && strcmp(e.message, expected) == 0,
		    "a long duplicate key is cut on a character boundary"))
		tap_diag("got %s", e.message);
}

/* ---- positions of values -------------------------------------------- */

static bool at(const struct json_value *v, enum json_type type, unsigned line, unsigned column)
{
	return v && v->type == type && v->line == line && v->column == column;
}

static void test_value_positions(void)
{
	static const char text[] = "{\n"
				   "  \"name\": \"x\",\n"
				   "  \"list\": [1, true,\n"
				   "           null, {\"k\": -2.5e3}],\n"
				   "\t\"tab\": false\n"
				   "}\n";
	struct json_value *root = NULL;
	struct json_error e;

	if (!tap_ok(json_parse(text, strlen(text), &root, &e) == 0, "position document parses")) {
		tap_diag("%u:%u: %s", e.line, e.column, e.message);
		return;
	}
	const struct json_member *name = json_object_find(root, "name");
	const struct json_value *list = json_object_get(root, "list");
	const struct json_member *tab = json_object_find(root, "tab");
	tap_ok(at(root, JSON_OBJECT, 1, 1) && root->u.object.count == 3, "object at 1:1");
	tap_ok(name && name->line == 2 && name->column == 3, "key \"name\" at 2:3");
	tap_ok(name && at(name->value, JSON_STRING, 2, 11) &&
		       strcmp(name->value->u.string, "x") == 0,
	       "string value at 2:11");
	tap_ok(at(list, JSON_ARRAY, 3, 11) && list->u.array.count == 4, "array at 3:11");
	if (!list || list->u.array.count != 4) {
		json_free(root);
		return;
	}
	struct json_value *const *items = list->u.array.items;
	tap_ok(at(items[0], JSON_NUMBER, 3, 12), "number at 3:12");
	tap_ok(at(items[1], JSON_BOOL, 3, 15) && items[1]->u.boolean, "true at 3:15");
	tap_ok(at(items[2], JSON_NULL, 4, 12), "null at 4:12");
	tap_ok(at(items[3], JSON_OBJECT, 4, 18), "inner object at 4:18");
	const struct json_member *k = json_object_find(items[3], "k");
	tap_ok(k && k->line == 4 && k->column == 19, "inner key at 4:19");
	tap_ok(k && at(k->value, JSON_NUMBER, 4, 24) && strcmp(k->value->u.number, "-2.5e3") == 0,
	       "number kept as its text \"-2.5e3\" at 4:24");
	tap_ok(tab && tab->line == 5 && tab->column == 2, "a tab is one column: key at 5:2");
	tap_ok(tab && at(tab->value, JSON_BOOL, 5, 9) && !tab->value->u.boolean, "false at 5:9");
	tap_ok(json_object_get(root, "missing") == NULL, "missing key: NULL");
	tap_ok(json_object_get(list, "name") == NULL, "lookup in an array: NULL");
	json_free(root);
}

/* ---- strings ---------------------------------------------------------- */

struct decoded {
	const char *label;
	const char *json;
	const char *expected;
};

static const struct decoded decoded_cases[] = {
	{ "simple escapes", "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t" },
	{ "\\u in the ASCII range", "\"\\u0041\\u007e\"", "A~" },
	{ "\\u two bytes", "\"\\u00e9\\u00C9\"", "\xC3\xA9\xC3\x89" },
	{ "\\u three bytes", "\"\\u20AC\\uFFFF\"", "\xE2\x82\xAC\xEF\xBF\xBF" },
	{ "surrogate pair", "\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80" },
	{ "largest code point", "\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF" },
	{ "raw UTF-8 kept", "\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF\"",
	  "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF" },
	{ "escaped key", "{\"a\\u0062\": 1}", "ab" },
	{ "empty string", "\"\"", "" },
};

static void test_decoding(void)
{
	for (size_t i = 0; i < sizeof decoded_cases / sizeof decoded_cases[0]; i++) {
		const struct decoded *c = &decoded_cases[i];
		struct json_value *v = NULL;
		struct json_error e;
		const char *got = NULL;
		if (json_parse(c->json, strlen(c->json), &v, &e) == 0)
			got = v->type == JSON_STRING ? v->u.string
			      : v->type == JSON_OBJECT && v->u.object.count
				      ? v->u.object.members[0].key
				      : NULL;
		if (!tap_ok(got && strcmp(got, c->expected) == 0, "decoded: %s", c->label))
			tap_diag("parse said %u:%u: %s", e.line, e.column, e.message);
		json_free(v);
	}
}

/* ---- limits ----------------------------------------------------------- */

static void test_depth(void)
{
	char text[2 * (JSON_MAX_DEPTH + 1) + 1];
	struct json_value *v = NULL;
	struct json_error e;

	memset(text, '[', JSON_MAX_DEPTH);
	memset(text + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	tap_ok(json_parse(text, 2 * JSON_MAX_DEPTH, &v, &e) == 0, "%d nested arrays parse",
	       JSON_MAX_DEPTH);
	json_free(v);

	memset(text, '[', JSON_MAX_DEPTH + 1);
	memset(text + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	int rc = json_parse(text, 2 * (JSON_MAX_DEPTH + 1), &v, &e);
	tap_ok(rc == -EINVAL && v == NULL && e.line == 1 && e.column == JSON_MAX_DEPTH + 1 &&
		       strstr(e.message, "nested more than"),
	       "%d nested arrays are refused at the one too deep", JSON_MAX_DEPTH + 1);

	/* Objects count too, and an error deep inside frees all levels. */
	size_t used = 0;
	char deep[16 * (JSON_MAX_DEPTH + 2)];
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		used += (size_t)snprintf(deep + used, sizeof deep - used, "{\"a\":");
	rc = json_parse(deep, used, &v, &e);
	tap_ok(rc == -EINVAL && e.column == 5 * JSON_MAX_DEPTH + 1,
	       "nested objects are refused at the one too deep");
}

static void test_size_limit(void)
{
	char *text = malloc(JSON_MAX_INPUT + 1);
	struct json_value *v = NULL;
	struct json_error e;

	memset(text, ' ', JSON_MAX_INPUT + 1);
	text[0] = '0';
	tap_ok(json_parse(text, JSON_MAX_INPUT, &v, &e) == 0, "input of exactly the limit parses");
	json_free(v);
	int rc = json_parse(text, JSON_MAX_INPUT + 1, &v, &e);
	tap_ok(rc == -E2BIG && v == NULL && e.line == 1 && e.column == 1,
	       "one byte over the limit is refused");
	free(text);
}

/* ---- numbers ---------------------------------------------------------- */

struct conversion {
	const char *json;
	int code;
	uint64_t value;
};

static const struct conversion conversions[] = {
	{ "0", 0, 0 },
	{ "1", 0, 1 },
	{ "1024", 0, 1024 },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "-1", -EDOM, 0 },
	{ "-0", -EDOM, 0 },
	{ "1.0", -EDOM, 0 },
	{ "1e3", -EDOM, 0 },
	{ "\"1\"", -EINVAL, 0 },
	{ "null", -EINVAL, 0 },
};

static void test_integer_conversion(void)
{
	for (size_t i = 0; i < sizeof conversions / sizeof conversions[0]; i++) {
		const struct conversion *c = &conversions[i];
		struct json_value *v = NULL;
		struct json_error e;
		uint64_t got = 12345;
		int rc = json_parse(c->json, strlen(c->json), &v, &e);
		if (rc == 0)
			rc = json_number_to_u64(v, &got);
		tap_ok(rc == c->code && (rc != 0 || got == c->value), "to u64: %s gives %d",
		       c->json, c->code);
		json_free(v);
	}
	uint64_t unused;
	tap_ok(json_number_to_u64(NULL, &unused) == -EINVAL, "to u64: NULL gives -EINVAL");
}

static void test_type_names(void)
{
	tap_ok(strcmp(json_type_name(JSON_STRING), "a string") == 0 &&
		       strcmp(json_type_name(JSON_OBJECT), "an object") == 0 &&
		       strcmp(json_type_name(JSON_ARRAY), "an array") == 0 &&
		       strcmp(json_type_name(JSON_BOOL), "a boolean") == 0,
	       "type names read as phrases");
	json_free(NULL);
	tap_ok(true, "json_free(NULL) is harmless");
}

int main(void)
{
	test_accepted();
	test_refused();
	test_duplicate_in_large_object();
	test_duplicate_long_key();
	test_value_positions();
	test_decoding();
	test_depth();
	test_size_limit();
	test_integer_conversion();
	test_type_names();
	return tap_done();
}
