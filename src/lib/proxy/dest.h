/*
 * Reading a host from a request: the one place where text a caged client
 * wrote becomes a host the proxy checks and connects to.
 *
 * Every spelling is turned into a single canonical value. A host that could
 * be read two ways is refused rather than guessed at, and a numeric-looking
 * host is always an address, never a name handed to a resolver.
 */
#ifndef PROCAGE_PROXY_DEST_H
#define PROCAGE_PROXY_DEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEST_NAME_MAX_LEN 253 /* a DNS name without its trailing dot */
/* The longest authority worth reading: a name, its dot and ":65535". */
#define DEST_AUTHORITY_MAX_LEN (DEST_NAME_MAX_LEN + 1 + 6)
/* Room for "[" IPv6 "]:" port or a name and port, with the NUL. */
#define DEST_AUTHORITY_BUF 264

enum dest_kind {
	DEST_NAME = 1, /* resolved once by the proxy, then each address checked */
	DEST_IPV4,     /* needs an allowlisted range */
	DEST_IPV6,     /* needs an allowlisted range; v4-mapped ones are DEST_IPV4 */
};

struct dest_addr {
	int family;        /* AF_INET or AF_INET6 */
	uint8_t bytes[16]; /* network order; AF_INET uses the first four */
};

struct dest {
	enum dest_kind kind;
	/* A name in lower case without a trailing dot, or the address as
	 * inet_ntop writes it (no brackets). */
	char text[DEST_NAME_MAX_LEN + 1];
	struct dest_addr addr; /* DEST_IPV4 and DEST_IPV6 only */
	uint16_t port;
};

/* Why a host was refused. Texts are short and fit in a 403 reason. */
enum dest_error {
	DEST_OK = 0,
	DEST_ERR_EMPTY,
	DEST_ERR_TOO_LONG,
	DEST_ERR_NUL,
	DEST_ERR_CONTROL,
	DEST_ERR_SPACE,
	DEST_ERR_NON_ASCII,
	DEST_ERR_PERCENT,
	DEST_ERR_USERINFO,
	DEST_ERR_BACKSLASH,
	DEST_ERR_EMPTY_LABEL,
	DEST_ERR_LABEL_TOO_LONG,
	DEST_ERR_NAME_TOO_LONG,
	DEST_ERR_BAD_CHAR,
	DEST_ERR_BAD_HYPHEN,
	DEST_ERR_BAD_IPV4,
	DEST_ERR_BAD_IPV6,
	DEST_ERR_UNBRACKETED_IPV6,
	DEST_ERR_BAD_PORT,
	DEST_ERR__COUNT
};

const char *dest_error_text(enum dest_error error);

/*
 * Read an authority, "host", "host:port" or "[ipv6]:port", of exactly len
 * bytes (NUL bytes included, so that one inside is seen and refused). A
 * missing port is default_port. On success *out holds the canonical value.
 */
enum dest_error dest_parse_authority(const char *text, size_t len, uint16_t default_port,
				     struct dest *out);

/*
 * The host part alone, without a port and without brackets: a name or an
 * IPv4 address in any notation inet_aton reads. Used for allowlist entries
 * too, so that entries and requests are read by the same code.
 */
enum dest_error dest_parse_plain(const char *text, size_t len, struct dest *out);

/* The IPv6 text between brackets; a v4-mapped address becomes DEST_IPV4. */
enum dest_error dest_parse_ipv6(const char *text, size_t len, struct dest *out);

/* A port: digits only, no sign, no leading zero, 1..65535. */
enum dest_error dest_parse_port(const char *text, size_t len, uint16_t *port);

/* "name:port", "192.0.2.1:port" or "[2001:db8::1]:port". */
void dest_format_authority(const struct dest *host, char *out, size_t size);
/* The same without the port when it is default_port (for a Host header). */
void dest_format_host_header(const struct dest *host, uint16_t default_port, char *out,
			     size_t size);

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d) becomes the IPv4 address. */
void dest_addr_unmap(struct dest_addr *addr);
void dest_addr_format(const struct dest_addr *addr, char *out, size_t size);
bool dest_addr_equal(const struct dest_addr *a, const struct dest_addr *b);

/* Printable text for untrusted bytes: \xNN for anything not plain ASCII. */
void dest_escape(const char *bytes, size_t len, char *out, size_t size);

#endif
