/*
 * libFuzzer target for the JSON reader and the policy reader built on it.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -DPROCAGE_BUILDING \
 *     -Iinclude -iquote src/lib -iquote src tests/fuzz/fuzz_policy_json.c src/common/json.c \
 *     src/lib/policy/policy_json.c src/lib/policy/policy_json_reader.c src/lib/policy/policy_json_keys.c \
 *     src/lib/policy/policy_json_limits.c src/lib/policy/policy.c src/lib/base/error.c -o fuzz_policy_json
 *   ./fuzz_policy_json -max_total_time=60
 *
 * Besides crashes and leaks, it traps when a promise of the API is broken:
 * a failure must leave no policy behind and say where it happened, and a
 * successful parse must hold no string with a NUL and no position at 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "procage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_positions(const struct json_value *v)
{
	if (v->line == 0 || v->column == 0)
		__builtin_trap();
	if (v->type == JSON_ARRAY)
		for (size_t i = 0; i < v->u.array.count; i++)
			check_positions(v->u.array.items[i]);
	if (v->type == JSON_OBJECT)
		for (size_t i = 0; i < v->u.object.count; i++) {
			const struct json_member *m = &v->u.object.members[i];
			const struct json_value *value = m->value;
			/* A key starts before its value. */
			if (m->line == 0 || m->column == 0 || m->line > value->line ||
			    (m->line == value->line && m->column >= value->column))
				__builtin_trap();
			check_positions(m->value);
		}
}

/* The reader on the raw bytes, NUL bytes and all. */
static void fuzz_json(const uint8_t *data, size_t size)
{
	struct json_value *root = (struct json_value *)&root;
	struct json_error e;

	if (json_parse((const char *)data, size, &root, &e) < 0) {
		if (root || e.line == 0 || e.column == 0 ||
		    !memchr(e.message, '\0', sizeof e.message))
			__builtin_trap();
		return;
	}
	check_positions(root);
	json_free(root);
}

/* The policy reader on the bytes as a C string (up to the first NUL). */
static void fuzz_policy(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct procage_policy *policy = (struct procage_policy *)&policy;
	struct procage_error err;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	int rc = procage_policy_from_json_text(text, "fuzz", &policy, &err);
	if (rc < 0 && (policy || err.code != rc || strncmp(err.message, "fuzz:", 5) != 0))
		__builtin_trap();
	if (rc == 0 && (!policy || err.code != 0))
		__builtin_trap();
	procage_policy_free(policy);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_json(data, size);
	fuzz_policy(data, size);
	return 0;
}
