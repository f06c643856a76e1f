/*
 * Hosts from requests, read one way. See host.h and docs/proxy.md.
 *
 * The parser works on (bytes, length), never on C strings, so a NUL byte in
 * the middle is something it sees and refuses instead of a place where two
 * readers stop at different points.
 */
#include "dest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static const char *const dest_error_texts[DEST_ERR__COUNT] = {
	[DEST_OK] = "ok",
	[DEST_ERR_EMPTY] = "empty host",
	[DEST_ERR_TOO_LONG] = "host too long",
	[DEST_ERR_NUL] = "NUL byte in host",
	[DEST_ERR_CONTROL] = "control byte in host",
	[DEST_ERR_SPACE] = "space in host",
	[DEST_ERR_NON_ASCII] = "non-ASCII byte in host",
	[DEST_ERR_PERCENT] = "percent encoding in host",
	[DEST_ERR_USERINFO] = "userinfo (@) in host",
	[DEST_ERR_BACKSLASH] = "backslash in host",
	[DEST_ERR_EMPTY_LABEL] = "empty label in host name",
	[DEST_ERR_LABEL_TOO_LONG] = "label longer than 63 bytes",
	[DEST_ERR_NAME_TOO_LONG] = "host name longer than 253 bytes",
	[DEST_ERR_BAD_CHAR] = "character not allowed in a host name",
	[DEST_ERR_BAD_HYPHEN] = "label starts or ends with a hyphen",
	[DEST_ERR_BAD_IPV4] = "numeric host is not a valid IPv4 address",
	[DEST_ERR_BAD_IPV6] = "malformed IPv6 address",
	[DEST_ERR_UNBRACKETED_IPV6] = "IPv6 address without brackets",
	[DEST_ERR_BAD_PORT] = "bad port",
};

const char *dest_error_text(enum dest_error error)
{
	if ((int)error < 0 || error >= DEST_ERR__COUNT)
		return "unknown host error";
	return dest_error_texts[error];
}

/*
 * Bytes that are refused wherever they appear, most dangerous first: the
 * reason names the worst one present, not merely the first, so that a table
 * of spellings has one expected answer per row.
 */
static enum dest_error scan_forbidden_bytes(const char *text, size_t len)
{
	bool nul = false, control = false, space = false, non_ascii = false;
	bool percent = false, at = false, backslash = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		nul |= c == 0;
		control |= (c > 0 && c < 0x20) || c == 0x7f;
		space |= c == ' ';
		non_ascii |= c >= 0x80;
		percent |= c == '%';
		at |= c == '@';
		backslash |= c == '\\';
	}
	if (nul)
		return DEST_ERR_NUL;
	if (control)
		return DEST_ERR_CONTROL;
	if (space)
		return DEST_ERR_SPACE;
	if (non_ascii)
		return DEST_ERR_NON_ASCII;
	if (percent)
		return DEST_ERR_PERCENT;
	if (at)
		return DEST_ERR_USERINFO;
	if (backslash)
		return DEST_ERR_BACKSLASH;
	return DEST_OK;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool has_hex_prefix(const char *s, size_t n)
{
	return n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/*
 * Whether a host is numeric-looking: its last label starts with a digit. No
 * top-level domain does, and every string inet_aton accepts has such a last
 * label ("1.2.3.4", "0x7f.1", "2130706433"), so such a host is read as an
 * IPv4 address or refused, and never handed to a resolver that might read it
 * as an address after all.
 */
static bool label_is_numeric(const char *s, size_t n)
{
	return n > 0 && is_digit(s[0]);
}

/* One part of an IPv4 address as inet_aton reads it: 0x hex, 0 octal, decimal. */
static bool ipv4_part(const char *s, size_t n, uint64_t *value)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;

	if (has_hex_prefix(s, n)) {
		base = 16;
		i = 2;
		if (n == 2)
			return false;
	} else if (n > 1 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	if (n == 0)
		return false;
	for (; i < n; i++) {
		int d = base == 16 ? hex_value(s[i]) : (is_digit(s[i]) ? s[i] - '0' : -1);
		if (d < 0 || (unsigned)d >= base)
			return false;
		v = v * base + (unsigned)d;
		if (v > 0xffffffffu)
			return false; /* inet_aton refuses it as well */
	}
	*value = v;
	return true;
}

/*
 * An IPv4 address in every notation inet_aton accepts: one to four parts,
 * each decimal, octal or hex; the last part fills the remaining bytes
 * ("127.1" is 127.0.0.1, "2130706433" is 127.0.0.1).
 */
static bool ipv4_parse(const char *s, size_t n, uint8_t out[4])
{
	uint64_t parts[4];
	size_t count = 0, start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (count == 4 || !ipv4_part(s + start, i - start, &parts[count]))
			return false;
		count++;
		start = i + 1;
	}
	uint32_t addr = 0;
	for (size_t i = 0; i + 1 < count; i++) {
		if (parts[i] > 0xff)
			return false;
		addr |= (uint32_t)parts[i] << (24 - 8 * i);
	}
	uint64_t last_max = 0xffffffffu >> (8 * (count - 1));
	if (parts[count - 1] > last_max)
		return false;
	addr |= (uint32_t)parts[count - 1];
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(addr >> (24 - 8 * i));
	return true;
}

static bool name_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
	       c == '_';
}

/* Split into labels: none empty, the last one decides name or address. */
static enum dest_error check_labels(const char *s, size_t n, size_t *last_start)
{
	size_t start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (i == start)
			return DEST_ERR_EMPTY_LABEL;
		*last_start = start;
		start = i + 1;
	}
	return DEST_OK;
}

static enum dest_error name_parse(const char *s, size_t n, struct dest *out)
{
	size_t label_start = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i] != '.' && !name_char(s[i]))
			return DEST_ERR_BAD_CHAR;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (i - label_start > 63)
			return DEST_ERR_LABEL_TOO_LONG;
		if (s[label_start] == '-' || s[i - 1] == '-')
			return DEST_ERR_BAD_HYPHEN;
		label_start = i + 1;
	}
	if (n > DEST_NAME_MAX_LEN)
		return DEST_ERR_NAME_TOO_LONG;
	for (size_t i = 0; i < n; i++)
		out->text[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
	out->text[n] = '\0';
	out->kind = DEST_NAME;
	return DEST_OK;
}

enum dest_error dest_parse_plain(const char *text, size_t len, struct dest *out)
{
	enum dest_error e = scan_forbidden_bytes(text, len);
	size_t last = 0;

	if (e != DEST_OK)
		return e;
	if (len == 0)
		return DEST_ERR_EMPTY;
	if (len > DEST_NAME_MAX_LEN + 1)
		return DEST_ERR_NAME_TOO_LONG;
	/* One trailing dot names the same host (an absolute name); two do not. */
	if (text[len - 1] == '.')
		len--;
	e = check_labels(text, len, &last);
	if (e != DEST_OK)
		return e;
	if (!label_is_numeric(text + last, len - last))
		return name_parse(text, len, out);
	memset(&out->addr, 0, sizeof out->addr);
	if (!ipv4_parse(text, len, out->addr.bytes))
		return DEST_ERR_BAD_IPV4;
	out->kind = DEST_IPV4;
	out->addr.family = AF_INET;
	dest_addr_format(&out->addr, out->text, sizeof out->text);
	return DEST_OK;
}

enum dest_error dest_parse_ipv6(const char *text, size_t len, struct dest *out)
{
	char buf[INET6_ADDRSTRLEN];
	enum dest_error e = scan_forbidden_bytes(text, len);

	if (e != DEST_OK)
		return e;
	if (len == 0 || len >= sizeof buf)
		return DEST_ERR_BAD_IPV6;
	/* inet_pton is strict, but only about what it reads: keep to the
	 * characters an IPv6 literal has, so nothing else is ever handed on. */
	for (size_t i = 0; i < len; i++)
		if (hex_value(text[i]) < 0 && text[i] != ':' && text[i] != '.')
			return DEST_ERR_BAD_IPV6;
	memcpy(buf, text, len);
	buf[len] = '\0';
	memset(&out->addr, 0, sizeof out->addr);
	if (inet_pton(AF_INET6, buf, out->addr.bytes) != 1)
		return DEST_ERR_BAD_IPV6;
	out->addr.family = AF_INET6;
	dest_addr_unmap(&out->addr);
	out->kind = out->addr.family == AF_INET ? DEST_IPV4 : DEST_IPV6;
	dest_addr_format(&out->addr, out->text, sizeof out->text);
	return DEST_OK;
}

/* Digits only, no sign, no leading zero, 1..65535. */
enum dest_error dest_parse_port(const char *s, size_t n, uint16_t *port)
{
	unsigned v = 0;

	if (n == 0 || n > 5 || s[0] == '0')
		return DEST_ERR_BAD_PORT;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return DEST_ERR_BAD_PORT;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535)
		return DEST_ERR_BAD_PORT;
	*port = (uint16_t)v;
	return DEST_OK;
}

/* "[v6]" or "[v6]:port": the bracket must close, then end or a port. */
static enum dest_error parse_bracketed(const char *text, size_t len, uint16_t default_port,
				       struct dest *out)
{
	const char *close = memchr(text, ']', len);
	size_t host_len, rest;

	if (!close)
		return DEST_ERR_BAD_IPV6;
	host_len = (size_t)(close - text) - 1;
	rest = len - (size_t)(close - text) - 1;
	out->port = default_port;
	if (rest > 0) {
		if (close[1] != ':')
			return DEST_ERR_BAD_IPV6;
		enum dest_error e = dest_parse_port(close + 2, rest - 1, &out->port);
		if (e != DEST_OK)
			return e;
	}
	return dest_parse_ipv6(text + 1, host_len, out);
}

static enum dest_error parse_authority(const char *text, size_t len, uint16_t default_port,
				       struct dest *out)
{
	enum dest_error e = scan_forbidden_bytes(text, len);
	const char *colon;
	size_t colons = 0;

	if (e != DEST_OK)
		return e;
	if (len == 0)
		return DEST_ERR_EMPTY;
	if (len > DEST_AUTHORITY_MAX_LEN)
		return DEST_ERR_TOO_LONG;
	if (text[0] == '[')
		return parse_bracketed(text, len, default_port, out);
	for (size_t i = 0; i < len; i++)
		colons += text[i] == ':';
	if (colons > 1)
		return DEST_ERR_UNBRACKETED_IPV6;
	out->port = default_port;
	colon = memchr(text, ':', len);
	if (colon) {
		e = dest_parse_port(colon + 1, len - (size_t)(colon - text) - 1, &out->port);
		if (e != DEST_OK)
			return e;
		len = (size_t)(colon - text);
	}
	if (len == 0)
		return DEST_ERR_EMPTY;
	return dest_parse_plain(text, len, out);
}

enum dest_error dest_parse_authority(const char *text, size_t len, uint16_t default_port,
				     struct dest *out)
{
	memset(out, 0, sizeof *out);
	enum dest_error e = parse_authority(text, len, default_port, out);
	if (e != DEST_OK)
		memset(out, 0, sizeof *out); /* nothing half-read is left to use */
	return e;
}

void dest_format_authority(const struct dest *host, char *out, size_t size)
{
	if (host->kind == DEST_IPV6)
		snprintf(out, size, "[%s]:%u", host->text, (unsigned)host->port);
	else
		snprintf(out, size, "%s:%u", host->text, (unsigned)host->port);
}

void dest_format_host_header(const struct dest *host, uint16_t default_port, char *out,
			     size_t size)
{
	const char *open = host->kind == DEST_IPV6 ? "[" : "";
	const char *close = host->kind == DEST_IPV6 ? "]" : "";

	if (host->port == default_port)
		snprintf(out, size, "%s%s%s", open, host->text, close);
	else
		snprintf(out, size, "%s%s%s:%u", open, host->text, close, (unsigned)host->port);
}

void dest_addr_unmap(struct dest_addr *addr)
{
	static const uint8_t mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (addr->family != AF_INET6 || memcmp(addr->bytes, mapped_prefix, 12) != 0)
		return;
	memmove(addr->bytes, addr->bytes + 12, 4);
	memset(addr->bytes + 4, 0, 12);
	addr->family = AF_INET;
}

void dest_addr_format(const struct dest_addr *addr, char *out, size_t size)
{
	if (!inet_ntop(addr->family, addr->bytes, out, (socklen_t)size) && size > 0)
		out[0] = '\0';
}

bool dest_addr_equal(const struct dest_addr *a, const struct dest_addr *b)
{
	size_t n = a->family == AF_INET ? 4 : 16;
	return a->family == b->family && memcmp(a->bytes, b->bytes, n) == 0;
}

void dest_escape(const char *bytes, size_t len, char *out, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (size_t i = 0; i < len && n + 5 < size; i++) {
		unsigned char c = (unsigned char)bytes[i];
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, size - n, "\\x%02X", c);
	}
	out[n] = '\0';
}
