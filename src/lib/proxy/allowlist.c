/*
 * Allowlist entries, and checking a canonical host against them.
 *
 * Entries are read by the same host.c code as requests, so an entry and a
 * request naming the same host always compare equal; entries are held to a
 * stricter form (addresses in four decimal parts) because a caller who wrote
 * "010.0.0.1" most likely did not mean 8.0.0.1.
 */
#include "allowlist.h"

#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/error.h"

/* Ranges narrower than these are fine; wider ones allow too much of the
 * internet to be called an allowlist. */
#define RANGE_MIN_PREFIX_V4 8
#define RANGE_MIN_PREFIX_V6 16

struct name_entry {
	char name[DEST_NAME_MAX_LEN + 1]; /* for a wildcard, the part after "*." */
	bool wildcard;
	uint16_t port;   /* 0: ports 80 and 443, or every port (every_port) */
	bool every_port; /* "localhost": the loopback addresses, at every port */
};

struct range_entry {
	struct dest_addr base;
	unsigned prefix;
	uint16_t port; /* 0: every port; else a single address at this port */
};

struct allowlist {
	struct name_entry *names;
	size_t n_names;
	struct range_entry *ranges;
	size_t n_ranges;
};

static const char *const verdict_texts[ALLOWLIST_VERDICT__COUNT] = {
	[ALLOWLIST_ALLOWED] = "allowed",
	[ALLOWLIST_NAME_NOT_LISTED] = "host not on the allowlist",
	[ALLOWLIST_PORT_NOT_LISTED] = "port not allowed for this host",
	[ALLOWLIST_ADDRESS_NOT_LISTED] = "address not in an allowed range",
	[ALLOWLIST_SPECIAL_ADDRESS] = "name resolves to a special address",
	[ALLOWLIST_HOST_ADDRESS] = "name resolves to one of this host's own addresses",
};

const char *allowlist_verdict_text(enum allowlist_verdict verdict)
{
	if ((int)verdict < 0 || verdict >= ALLOWLIST_VERDICT__COUNT)
		return "unknown verdict";
	return verdict_texts[verdict];
}

/* ---- special addresses ------------------------------------------------ */

struct special_range {
	int family;
	uint8_t bytes[16];
	unsigned prefix;
	const char *name;
};

/*
 * Addresses a public name has no business resolving to. More specific
 * entries come first so that the name given is the precise one. Kept as data
 * so that the list reads like the IANA registries it comes from.
 */
static const struct special_range special_ranges[] = {
	{ AF_INET, { 0 }, 8, "unspecified" },
	{ AF_INET, { 10 }, 8, "private" },
	{ AF_INET, { 100, 64 }, 10, "shared (carrier-grade NAT)" },
	{ AF_INET, { 127 }, 8, "loopback" },
	{ AF_INET, { 169, 254 }, 16, "link-local" },
	{ AF_INET, { 172, 16 }, 12, "private" },
	{ AF_INET, { 192, 0, 0 }, 24, "IETF protocol assignment" },
	{ AF_INET, { 192, 0, 2 }, 24, "documentation" },
	{ AF_INET, { 192, 88, 99 }, 24, "6to4 relay" },
	{ AF_INET, { 192, 168 }, 16, "private" },
	{ AF_INET, { 198, 18 }, 15, "benchmarking" },
	{ AF_INET, { 198, 51, 100 }, 24, "documentation" },
	{ AF_INET, { 203, 0, 113 }, 24, "documentation" },
	{ AF_INET, { 224 }, 4, "multicast" },
	{ AF_INET, { 255, 255, 255, 255 }, 32, "broadcast" },
	{ AF_INET, { 240 }, 4, "reserved" },
	{ AF_INET6, { 0 }, 128, "unspecified" },
	{ AF_INET6, { [15] = 1 }, 128, "loopback" },
	{ AF_INET6, { [10] = 0xff, [11] = 0xff }, 96, "IPv4-mapped" },
	{ AF_INET6, { 0 }, 96, "IPv4-compatible" },
	{ AF_INET6, { 0, 0x64, 0xff, 0x9b }, 96, "NAT64" },
	{ AF_INET6, { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, "NAT64 (local use)" },
	{ AF_INET6, { 0 }, 8, "reserved" },
	{ AF_INET6, { 1, 0 }, 64, "discard" },
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation" },
	{ AF_INET6, { 0x20, 0x01 }, 23, "IETF protocol assignment (Teredo and others)" },
	{ AF_INET6, { 0x20, 0x02 }, 16, "6to4" },
	{ AF_INET6, { 0x3f, 0xff }, 20, "documentation" },
	{ AF_INET6, { 0x5f, 0x00 }, 16, "segment routing" },
	{ AF_INET6, { 0xfc }, 7, "unique local" },
	{ AF_INET6, { 0xfe, 0x80 }, 10, "link-local" },
	{ AF_INET6, { 0xfe, 0xc0 }, 10, "site-local" },
	{ AF_INET6, { 0xff }, 8, "multicast" },
};

static bool prefix_matches(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	unsigned full = prefix / 8, rest = prefix % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[full] & mask) == (b[full] & mask);
}

const char *allowlist_special_class(const struct dest_addr *addr)
{
	struct dest_addr a = *addr;

	dest_addr_unmap(&a);
	for (size_t i = 0; i < sizeof special_ranges / sizeof special_ranges[0]; i++) {
		const struct special_range *r = &special_ranges[i];
		if (r->family == a.family && prefix_matches(a.bytes, r->bytes, r->prefix))
			return r->name;
	}
	/* Outside 2000::/3 nothing is assigned for global unicast. */
	if (a.family == AF_INET6 && (a.bytes[0] & 0xe0) != 0x20)
		return "not global unicast";
	return NULL;
}

/*
 * The host's own addresses, on every interface, read now: a service bound
 * to 0.0.0.0 answers on each of them, and the proxy connects from the
 * caller's network namespace. The interface's name, or NULL. An address
 * the list cannot be read for is treated as the host's (fails closed).
 */
const char *allowlist_host_interface(const struct dest_addr *addr, char *name, size_t size)
{
	struct ifaddrs *all = NULL;
	struct dest_addr a = *addr;
	const char *found = NULL;
	dest_addr_unmap(&a);
	if (getifaddrs(&all) != 0) {
		snprintf(name, size, "(the interfaces could not be read)");
		return name;
	}
	for (struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;
		if (!sa || sa->sa_family != a.family)
			continue;
		const void *bytes = sa->sa_family == AF_INET
					    ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
					    : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (memcmp(bytes, a.bytes, a.family == AF_INET ? 4 : 16) == 0) {
			snprintf(name, size, "%s", i->ifa_name ? i->ifa_name : "?");
			found = name;
		}
	}
	freeifaddrs(all);
	return found;
}

/* ---- checks ---------------------------------------------------------- */

bool allowlist_range_allows(const struct allowlist *allowlist, const struct dest_addr *addr,
			    uint16_t port)
{
	struct dest_addr a = *addr;

	dest_addr_unmap(&a);
	for (size_t i = 0; i < allowlist->n_ranges; i++) {
		const struct range_entry *r = &allowlist->ranges[i];
		if (r->base.family == a.family && prefix_matches(a.bytes, r->base.bytes, r->prefix) &&
		    (r->port == 0 || r->port == port))
			return true;
	}
	return false;
}

static bool name_matches(const struct name_entry *entry, const char *name)
{
	size_t n = strlen(name), s = strlen(entry->name);

	if (!entry->wildcard)
		return strcmp(entry->name, name) == 0;
	/* "*.x.y" is strictly below x.y: "a.x.y" and "a.b.x.y", never "x.y". */
	return n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, entry->name) == 0;
}

static bool port_matches(const struct name_entry *entry, uint16_t port)
{
	if (entry->every_port)
		return true;
	if (entry->port == 0)
		return port == 80 || port == 443;
	return entry->port == port;
}

enum allowlist_verdict allowlist_check_host(const struct allowlist *allowlist,
					    const struct dest *host)
{
	bool name_listed = false;

	if (host->kind != DEST_NAME)
		return allowlist_range_allows(allowlist, &host->addr, host->port)
			       ? ALLOWLIST_ALLOWED
			       : ALLOWLIST_ADDRESS_NOT_LISTED;
	for (size_t i = 0; i < allowlist->n_names; i++) {
		const struct name_entry *e = &allowlist->names[i];
		if (!name_matches(e, host->text))
			continue;
		name_listed = true;
		if (port_matches(e, host->port))
			return ALLOWLIST_ALLOWED;
	}
	return name_listed ? ALLOWLIST_PORT_NOT_LISTED : ALLOWLIST_NAME_NOT_LISTED;
}

enum allowlist_verdict allowlist_check_resolved(const struct allowlist *allowlist,
						const struct dest_addr *addr, uint16_t port)
{
	if (allowlist_range_allows(allowlist, addr, port))
		return ALLOWLIST_ALLOWED;
	return allowlist_special_class(addr) ? ALLOWLIST_SPECIAL_ADDRESS : ALLOWLIST_ALLOWED;
}

/* ---- reading entries ------------------------------------------------- */

struct entry_ctx {
	struct allowlist *list;
	const char *text;  /* the entry as the caller wrote it */
	char shown[160];   /* the same, printable, for messages */
	struct procage_error *err;
};

static int entry_error(struct entry_ctx *ctx, const char *why)
{
	return error_set(ctx->err, -EINVAL, "allowlist entry \"%s\": %s", ctx->shown, why);
}

static int add_range(struct entry_ctx *ctx, const struct dest_addr *base, unsigned prefix,
		     uint16_t port)
{
	struct allowlist *l = ctx->list;
	struct range_entry *grown = realloc(l->ranges, (l->n_ranges + 1) * sizeof *grown);

	if (!grown)
		return error_set(ctx->err, -ENOMEM, "out of memory reading the allowlist");
	l->ranges = grown;
	l->ranges[l->n_ranges].base = *base;
	l->ranges[l->n_ranges].prefix = prefix;
	l->ranges[l->n_ranges].port = port;
	l->n_ranges++;
	return 0;
}

static int add_name(struct entry_ctx *ctx, const char *name, bool wildcard, uint16_t port)
{
	struct allowlist *l = ctx->list;
	struct name_entry *grown = realloc(l->names, (l->n_names + 1) * sizeof *grown);

	if (!grown)
		return error_set(ctx->err, -ENOMEM, "out of memory reading the allowlist");
	l->names = grown;
	struct name_entry *e = &l->names[l->n_names++];
	memset(e, 0, sizeof *e);
	strcpy(e->name, name); /* host.c bounds it to DEST_NAME_MAX_LEN */
	e->wildcard = wildcard;
	e->port = port;
	return 0;
}

/* An address in an entry: "[v6]", bare v6, or IPv4 in four decimal parts. */
static int entry_address(struct entry_ctx *ctx, const char *s, size_t n, struct dest_addr *out)
{
	struct dest h;
	enum dest_error e;
	bool bracketed = n >= 2 && s[0] == '[' && s[n - 1] == ']';

	if (bracketed || memchr(s, ':', n))
		e = bracketed ? dest_parse_ipv6(s + 1, n - 2, &h) : dest_parse_ipv6(s, n, &h);
	else
		e = dest_parse_plain(s, n, &h);
	if (e != DEST_OK)
		return entry_error(ctx, dest_error_text(e));
	if (h.kind == DEST_NAME)
		return entry_error(ctx, "a range needs an address, not a name");
	if (h.kind == DEST_IPV4 && !bracketed && !memchr(s, ':', n) &&
	    (strlen(h.text) != n || strncmp(h.text, s, n) != 0))
		return entry_error(ctx, "write an IPv4 address as four decimal parts "
					"without leading zeros");
	*out = h.addr;
	return 0;
}

static int entry_prefix(struct entry_ctx *ctx, const char *s, unsigned max, unsigned *out)
{
	unsigned v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 3 || (s[0] == '0' && n > 1))
		return entry_error(ctx, "bad prefix length");
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return entry_error(ctx, "bad prefix length");
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > max)
		return entry_error(ctx, "prefix length longer than the address");
	*out = v;
	return 0;
}

/* "addr/prefix": no host bits set, not too wide. */
static int entry_range(struct entry_ctx *ctx, const char *slash)
{
	struct dest_addr base;
	unsigned prefix = 0;
	int rc = entry_address(ctx, ctx->text, (size_t)(slash - ctx->text), &base);

	if (rc < 0)
		return rc;
	bool mapped = base.family == AF_INET && memchr(ctx->text, ':', (size_t)(slash - ctx->text));
	rc = entry_prefix(ctx, slash + 1, base.family == AF_INET && !mapped ? 32 : 128, &prefix);
	if (rc < 0)
		return rc;
	if (mapped) {
		/* [::ffff:a.b.c.d]/n is an IPv4 range, since that is how
		 * v4-mapped hosts are checked; a shorter prefix would mix in
		 * IPv6 space no IPv4 check ever sees. */
		if (prefix < 96)
			return entry_error(ctx, "a v4-mapped range needs a prefix of at least 96");
		prefix -= 96;
	}
	if (prefix < (base.family == AF_INET ? RANGE_MIN_PREFIX_V4 : RANGE_MIN_PREFIX_V6))
		return entry_error(ctx, base.family == AF_INET
						? "range too wide (the shortest prefix is /8)"
						: "range too wide (the shortest prefix is /16)");
	struct dest_addr masked = base;
	unsigned bytes = base.family == AF_INET ? 4 : 16;
	for (unsigned bit = prefix; bit < bytes * 8; bit++)
		masked.bytes[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
	if (!dest_addr_equal(&masked, &base))
		return entry_error(ctx, "address has bits set beyond the prefix length");
	return add_range(ctx, &base, prefix, 0);
}

/* "*.x.y[:port]": the wildcard is the whole first label, above two labels or more. */
static int entry_wildcard(struct entry_ctx *ctx, const char *rest, size_t n, uint16_t port)
{
	struct dest h;
	enum dest_error e;

	if (n == 1)
		return entry_error(ctx, "a lone \"*\" would allow every host");
	if (n < 3 || rest[1] != '.' || memchr(rest + 1, '*', n - 1))
		return entry_error(ctx, "\"*\" may only be the whole first label, as in *.example.org");
	e = dest_parse_plain(rest + 2, n - 2, &h);
	if (e != DEST_OK)
		return entry_error(ctx, dest_error_text(e));
	if (h.kind != DEST_NAME)
		return entry_error(ctx, "a wildcard covers names, not addresses");
	if (!strchr(h.text, '.'))
		return entry_error(ctx, "a wildcard over a single label (a whole top-level "
					"domain) is too wide");
	return add_name(ctx, h.text, true, port);
}

/*
 * "localhost[:port]": the name and both loopback addresses, 127.0.0.1 and
 * ::1, at that port or, without one, at every port (a local service's port
 * is seldom 80 or 443). Only this one name: other names of loopback stay
 * refused as they resolve inward.
 */
static int entry_localhost(struct entry_ctx *ctx, uint16_t port)
{
	static const struct dest_addr v4 = { .family = AF_INET, .bytes = { 127, 0, 0, 1 } };
	static const struct dest_addr v6 = { .family = AF_INET6, .bytes = { [15] = 1 } };
	int rc = add_name(ctx, "localhost", false, port);
	if (rc == 0)
		ctx->list->names[ctx->list->n_names - 1].every_port = port == 0;
	if (rc == 0)
		rc = add_range(ctx, &v4, 32, port);
	return rc < 0 ? rc : add_range(ctx, &v6, 128, port);
}

/* "[v6]" or "[v6]:port" (a bare v6 address has no room for a port). */
static int entry_ipv6(struct entry_ctx *ctx, const char *text, size_t n)
{
	struct dest_addr addr;
	uint16_t port = 0;
	const char *close = text[0] == '[' ? memchr(text, ']', n) : NULL;
	if (close && (size_t)(close - text) + 1 < n) {
		size_t tail = n - (size_t)(close - text) - 1;
		if (close[1] != ':' ||
		    dest_parse_port(close + 2, tail - 1, &port) != DEST_OK)
			return entry_error(ctx, "write an IPv6 entry as [address], [address]:port "
						"or [address]/prefix");
		n = (size_t)(close - text) + 1;
	} else if (text[0] == '[' && !close) {
		return entry_error(ctx, "write an IPv6 entry as [address], [address]:port or "
					"[address]/prefix");
	}
	int rc = entry_address(ctx, text, n, &addr);
	return rc < 0 ? rc : add_range(ctx, &addr, addr.family == AF_INET ? 32 : 128, port);
}

/* "name", "name:port", "*.name[:port]", "localhost[:port]" or one address[:port]. */
static int entry_host(struct entry_ctx *ctx)
{
	const char *text = ctx->text;
	size_t n = strlen(text);
	const char *colon = strchr(text, ':');
	uint16_t port = 0;
	struct dest h;

	if (text[0] == '[' || (colon && strchr(colon + 1, ':')))
		return entry_ipv6(ctx, text, n);
	if (colon) {
		if (dest_parse_port(colon + 1, n - (size_t)(colon - text) - 1, &port) != DEST_OK)
			return entry_error(ctx, dest_error_text(DEST_ERR_BAD_PORT));
		n = (size_t)(colon - text);
	}
	if (n > 0 && text[0] == '*')
		return entry_wildcard(ctx, text, n, port);
	if (memchr(text, '*', n))
		return entry_error(ctx, "\"*\" may only be the whole first label, as in *.example.org");
	enum dest_error e = dest_parse_plain(text, n, &h);
	if (e != DEST_OK)
		return entry_error(ctx, dest_error_text(e));
	if (h.kind == DEST_NAME && strcmp(h.text, "localhost") == 0)
		return entry_localhost(ctx, port);
	if (h.kind == DEST_NAME)
		return add_name(ctx, h.text, false, port);
	struct dest_addr addr;
	int rc = entry_address(ctx, text, n, &addr);
	return rc < 0 ? rc : add_range(ctx, &addr, 32, port);
}

static int read_entry(struct allowlist *list, const char *text, struct procage_error *err)
{
	struct entry_ctx ctx = { .list = list, .text = text, .err = err };
	size_t n = strlen(text);

	dest_escape(text, n, ctx.shown, sizeof ctx.shown);
	if (n == 0)
		return entry_error(&ctx, "empty entry");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c <= 0x20 || c >= 0x7f)
			return entry_error(&ctx, "only printable ASCII without spaces");
	}
	if (n > DEST_AUTHORITY_MAX_LEN)
		return entry_error(&ctx, "entry too long");
	if (strstr(text, "://"))
		return entry_error(&ctx, "write a host, not a URL");
	const char *slash = strchr(text, '/');
	return slash ? entry_range(&ctx, slash) : entry_host(&ctx);
}

int allowlist_new(const char *const *entries, size_t count, struct allowlist **out,
		  struct procage_error *err)
{
	struct allowlist *list;

	*out = NULL;
	if (count == 0)
		return error_set(err, -EINVAL,
				 "the allowlist is empty: a proxy-only run would reach nothing");
	list = calloc(1, sizeof *list);
	if (!list)
		return error_set(err, -ENOMEM, "out of memory reading the allowlist");
	for (size_t i = 0; i < count; i++) {
		int rc = entries[i] ? read_entry(list, entries[i], err)
				    : error_set(err, -EINVAL, "allowlist entry %zu is NULL", i);
		if (rc < 0) {
			allowlist_free(list);
			return rc;
		}
	}
	*out = list;
	return 0;
}

int allowlist_new_empty(struct allowlist **out, struct procage_error *err)
{
	*out = calloc(1, sizeof **out);
	return *out ? 0 : error_set(err, -ENOMEM, "out of memory reading the allowlist");
}

void allowlist_free(struct allowlist *allowlist)
{
	if (!allowlist)
		return;
	free(allowlist->names);
	free(allowlist->ranges);
	free(allowlist);
}
