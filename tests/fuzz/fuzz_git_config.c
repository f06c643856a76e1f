/*
 * libFuzzer target for the reader of git's config format (git_config.c),
 * which decides what hooks directory and include files of a repository
 * are kept read-only.
 *
 *   make fuzz FUZZ_SECONDS=60   (builds and runs every target)
 *
 * Besides crashes, leaks and undefined behaviour, it traps when a promise
 * is broken: every name handed out is non-empty and lower-case outside a
 * subsection (a key before any section has no '.'), and every failure is
 * -EINVAL with a line number within the text's lines.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/git_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

static int entry(const char *name, const char *value, void *ctx)
{
	(void)value;
	(void)ctx;
	const char *dot = strchr(name, '.');
	const char *last = strrchr(name, '.');
	CHECK(name[0] && (!last || last[1]));
	if (!dot)
		dot = last = name + strlen(name);
	/* The section and the key are lower-cased; only a subsection keeps case. */
	for (const char *p = name; p < dot; p++)
		CHECK(!isupper((unsigned char)*p));
	for (const char *p = *last ? last + 1 : last; *p; p++)
		CHECK(!isupper((unsigned char)*p));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int bad_line = 0;
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	int rc = git_config_parse((const char *)data, size, entry, NULL, &bad_line);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc == -EINVAL)
		CHECK(bad_line >= 1 && (size_t)bad_line <= lines + 1);
	return 0;
}
