/*
 * libFuzzer target for the proxy's host reader and allowlist.
 *
 *   make fuzz FUZZ_SECONDS=60   (builds and runs every target)
 *
 * Besides crashes, leaks and undefined behaviour, it traps when a promise is
 * broken:
 * - the canonical value read again is the same value (parse, format, parse);
 * - a name is never something inet_aton or inet_pton would read as an
 *   address, and a canonical name holds only lower-case letters, digits,
 *   '-', '_' and inner dots;
 * - whatever inet_aton accepts (without its trailing-garbage leniency) we
 *   read as the same IPv4 address;
 * - an allowlist built from the input's lines either fails with a message
 *   naming an entry, or lets an address host through only inside a range.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/allowlist.h"
#include "proxy/dest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond))                                                                     \
			__builtin_trap();                                                        \
	} while (0)

static void check_name_text(const char *text)
{
	size_t n = strlen(text);
	char probe[16];

	CHECK(n > 0 && n <= DEST_NAME_MAX_LEN);
	CHECK(text[0] != '.' && text[n - 1] != '.' && !strstr(text, ".."));
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		CHECK((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.');
	}
	CHECK(inet_aton(text, (struct in_addr *)probe) == 0);
	CHECK(inet_pton(AF_INET6, text, probe) != 1);
}

static void check_round_trip(const struct dest *d)
{
	char canonical[DEST_AUTHORITY_BUF], again_text[DEST_AUTHORITY_BUF];
	struct dest again;

	dest_format_authority(d, canonical, sizeof canonical);
	CHECK(dest_parse_authority(canonical, strlen(canonical), 1, &again) == DEST_OK);
	dest_format_authority(&again, again_text, sizeof again_text);
	CHECK(strcmp(canonical, again_text) == 0);
	CHECK(again.kind == d->kind && again.port == d->port && strcmp(again.text, d->text) == 0);
	if (d->kind != DEST_NAME)
		CHECK(dest_addr_equal(&again.addr, &d->addr));
	else
		check_name_text(d->text);
	CHECK(d->port != 0);
}

/* inet_aton's reading of the same text, when the text is a plain host. */
static void compare_with_inet_aton(const uint8_t *data, size_t size, enum dest_error e,
				   const struct dest *d)
{
	char text[300];
	struct in_addr a;

	if (size == 0 || size >= sizeof text || memchr(data, '\0', size))
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	/* inet_aton ignores anything after whitespace; we refuse whitespace,
	 * and a colon or bracket makes it an authority with a port. */
	if (strpbrk(text, " \t\n\v\f\r:["))
		return;
	if (inet_aton(text, &a)) {
		CHECK(e == DEST_OK && d->kind == DEST_IPV4);
		CHECK(memcmp(d->addr.bytes, &a, 4) == 0);
	}
}

static void fuzz_host(const uint8_t *data, size_t size)
{
	struct dest d;
	enum dest_error e = dest_parse_authority((const char *)data, size, 443, &d);

	CHECK(dest_error_text(e) != NULL);
	if (e == DEST_OK)
		check_round_trip(&d);
	else
		CHECK(d.kind == 0 && d.text[0] == '\0');
	compare_with_inet_aton(data, size, e, &d);
}

/* Lines up to the first empty one are entries; the next line is a host. */
static void fuzz_list(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *entries[16];
	size_t count = 0;
	char *line, *save = NULL, *host = NULL;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (count == 16 || line[0] == '#') {
			host = line;
			break;
		}
		entries[count++] = line;
	}
	struct allowlist *list = (struct allowlist *)&list;
	struct procage_error err;
	int rc = allowlist_new(entries, count, &list, &err);
	if (rc < 0) {
		CHECK(list == NULL && err.code == rc && memchr(err.message, '\0', sizeof err.message));
		CHECK(count == 0 || strstr(err.message, "allowlist entry"));
	} else if (host) {
		struct dest d;
		if (dest_parse_authority(host + 1, strlen(host + 1), 443, &d) == DEST_OK &&
		    allowlist_check_host(list, &d) == ALLOWLIST_ALLOWED && d.kind != DEST_NAME)
			CHECK(allowlist_range_allows(list, &d.addr, d.port));
		if (d.kind != DEST_NAME && d.kind != 0)
			allowlist_check_resolved(list, &d.addr, d.port);
	}
	allowlist_free(rc == 0 ? list : NULL);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_host(data, size);
	fuzz_list(data, size);
	return 0;
}
