/*
 * The proxy's allowlist (src/lib/proxy/allowlist.c, R-35), table by table:
 * allowlist entries the constructor takes or refuses; which canonical hosts
 * an allowlist lets through; and which resolved addresses count as special.
 * How a host a client sends becomes the canonical value judged here is
 * tests/unit/test_host_spellings.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/allowlist.h"
#include "proxy/dest.h"
#include "shown.h"
#include "tap.h"

/* ---- allowlist entries ----------------------------------------------------- */

struct entry_row {
	const char *entry;
	const char *error; /* part of the message, NULL when accepted */
};

static const struct entry_row entry_rows[] = {
	{ "github.com", NULL },
	{ "GitHub.com.", NULL },
	{ "*.npmjs.org", NULL },
	{ "*.NPMJS.org:443", NULL },
	{ "registry.example:8443", NULL },
	{ "localhost", NULL },
	{ "10.1.2.0/24", NULL },
	{ "10.0.0.0/8", NULL },
	{ "192.0.2.7", NULL },
	{ "192.0.2.7/32", NULL },
	{ "127.0.0.1/32", NULL },
	{ "[fd00::]/64", NULL },
	{ "fd00::/64", NULL },
	{ "[fd00::1]", NULL },
	{ "fd00::1", NULL },
	{ "[::1]", NULL },
	{ "::1/128", NULL },
	{ "[2001:db8::]/16", "bits set beyond" },
	{ "[2001::]/16", NULL },
	{ "[::ffff:10.0.0.0]/104", NULL },
	{ "[::ffff:127.0.0.1]", NULL },
	{ "", "empty entry" },
	{ "*", "lone \"*\"" },
	{ "*.com", "single label" },
	{ "*.com.", "single label" },
	{ "*.com:443", "single label" },
	{ "**.example.com", "whole first label" },
	{ "*example.com", "whole first label" },
	{ "a*.example.com", "whole first label" },
	{ "a.*.example.com", "whole first label" },
	{ "example.*", "whole first label" },
	{ "*.*.example.com", "whole first label" },
	{ "*.10.0.0.1", "covers names, not addresses" },
	{ "0.0.0.0/0", "too wide" },
	{ "0.0.0.0/1", "too wide" },
	{ "0.0.0.0/7", "too wide" },
	{ "::/0", "too wide" },
	{ "[::]/0", "too wide" },
	{ "[2000::]/3", "too wide" },
	{ "[fc00::]/7", "too wide" },
	{ "[::ffff:0.0.0.0]/96", "too wide" },
	{ "[::ffff:0.0.0.0]/95", "at least 96" },
	{ "10.0.0.0/33", "longer than the address" },
	{ "[fd00::]/129", "longer than the address" },
	{ "10.0.0.1/24", "bits set beyond" },
	{ "10.0.0.0/08", "bad prefix" },
	{ "10.0.0.0/", "bad prefix" },
	{ "10.0.0.0/x", "bad prefix" },
	{ "10.0.0.0/-8", "bad prefix" },
	{ "localhost/8", "needs an address" },
	{ "127.1", "four decimal parts" },
	{ "0177.0.0.1", "four decimal parts" },
	{ "2130706433", "four decimal parts" },
	{ "010.0.0.0/8", "four decimal parts" },
	{ "10.0.0.1.", "four decimal parts" },
	{ "10.0.0.1:80", NULL },
	{ "[::1]:443", NULL },
	{ "localhost:3000", NULL },
	{ "10.0.0.1:0", "bad port" },
	{ "[::1]:", "write an IPv6 entry" },
	{ "[::1]443", "write an IPv6 entry" },
	{ "[::1]:https", "write an IPv6 entry" },
	{ "[::1", "write an IPv6 entry" },
	{ "github.com:0", "bad port" },
	{ "github.com:", "bad port" },
	{ "github.com:99999", "bad port" },
	{ "github.com:https", "bad port" },
	{ "git hub.com", "printable ASCII" },
	{ "github.com\n", "printable ASCII" },
	{ "b\xc3\xbc" "cher.example", "printable ASCII" },
	{ "user@github.com", "userinfo" },
	{ "github%2ecom", "percent" },
	{ "github..com", "empty label" },
	{ "-github.com", "hyphen" },
	{ "github.com.1", "not a valid IPv4" },
	{ "1.2.3.256", "not a valid IPv4" },
	{ "[::g]", "malformed IPv6" },
	{ "[fe80::1%eth0]", "percent" },
	{ "http://github.com", "not a URL" },
	{ "https://github.com/", "not a URL" },
};

static void test_entries(void)
{
	for (size_t i = 0; i < sizeof entry_rows / sizeof entry_rows[0]; i++) {
		const struct entry_row *r = &entry_rows[i];
		struct allowlist *list = NULL;
		struct procage_error err = { 0 };
		const char *entries[] = { r->entry };
		int rc = allowlist_new(entries, 1, &list, &err);

		if (r->error)
			tap_ok(rc == -EINVAL && !list && strstr(err.message, r->error) &&
				       strstr(err.message, "allowlist entry \""),
			       "entry \"%s\" refused: %s", shown(r->entry, strlen(r->entry)),
			       err.message);
		else if (!tap_ok(rc == 0 && list, "entry \"%s\" accepted", r->entry))
			tap_diag("%s", err.message);
		allowlist_free(list);
	}
}

static void test_empty_and_bad_lists(void)
{
	struct allowlist *list = (struct allowlist *)&list;
	struct procage_error err = { 0 };
	int rc = allowlist_new(NULL, 0, &list, &err);
	const char *mixed[] = { "github.com", "*.npmjs.org", "0.0.0.0/0", "example.org" };

	tap_ok(rc == -EINVAL && !list && strstr(err.message, "empty"),
	       "an empty allowlist is refused: %s", err.message);
	rc = allowlist_new(mixed, 4, &list, &err);
	tap_ok(rc == -EINVAL && !list && strstr(err.message, "\"0.0.0.0/0\""),
	       "one too-wide entry refuses the whole list, naming it: %s", err.message);
	const char *with_null[] = { "github.com", NULL };
	rc = allowlist_new(with_null, 2, &list, &err);
	tap_ok(rc == -EINVAL && !list, "a NULL entry is refused: %s", err.message);
	const char *control[] = { "evil\x1b[2J.com" };
	rc = allowlist_new(control, 1, &list, &err);
	tap_ok(rc == -EINVAL && !strchr(err.message, '\x1b'),
	       "an entry's control bytes are escaped in the message: %s", err.message);
}

/* ---- checking hosts against a list ------------------------------------------- */

struct check_row {
	const char *authority;
	uint16_t default_port;
	enum allowlist_verdict verdict;
};

static const char *const check_entries[] = {
	"github.com", "*.npmjs.org", "registry.example:8443", "*.internal.example:9000",
	"10.1.2.0/24", "[fd00::]/64", "192.0.2.7", "[::ffff:198.51.100.0]/120",
};

static const struct check_row check_rows[] = {
	{ "github.com", 443, ALLOWLIST_ALLOWED },
	{ "github.com:443", 443, ALLOWLIST_ALLOWED },
	{ "github.com", 80, ALLOWLIST_ALLOWED },
	{ "GITHUB.COM.", 443, ALLOWLIST_ALLOWED },
	{ "github.com:22", 443, ALLOWLIST_PORT_NOT_LISTED },
	{ "github.com:8443", 443, ALLOWLIST_PORT_NOT_LISTED },
	{ "www.github.com", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "github.com.evil.com", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "evilgithub.com", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "github.co", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "githubXcom", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "registry.npmjs.org", 443, ALLOWLIST_ALLOWED },
	{ "REGISTRY.npmjs.ORG.", 443, ALLOWLIST_ALLOWED },
	{ "a.b.c.npmjs.org:80", 443, ALLOWLIST_ALLOWED },
	{ "registry.npmjs.org:8080", 443, ALLOWLIST_PORT_NOT_LISTED },
	{ "npmjs.org", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "xnpmjs.org", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "npmjs.org.evil.com", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "registry.example:8443", 443, ALLOWLIST_ALLOWED },
	{ "registry.example", 443, ALLOWLIST_PORT_NOT_LISTED },
	{ "registry.example", 80, ALLOWLIST_PORT_NOT_LISTED },
	{ "a.registry.example:8443", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "db.internal.example:9000", 443, ALLOWLIST_ALLOWED },
	{ "db.internal.example", 443, ALLOWLIST_PORT_NOT_LISTED },
	{ "internal.example:9000", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "10.1.2.3", 443, ALLOWLIST_ALLOWED },
	{ "10.1.2.3:22", 443, ALLOWLIST_ALLOWED },
	{ "10.1.2.255:65535", 443, ALLOWLIST_ALLOWED },
	{ "012.1.2.3", 443, ALLOWLIST_ALLOWED },
	{ "0xa.1.2.3", 443, ALLOWLIST_ALLOWED },
	{ "167838211", 443, ALLOWLIST_ALLOWED },
	{ "[::ffff:10.1.2.3]", 443, ALLOWLIST_ALLOWED },
	{ "10.1.3.1", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "10.1.2", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "10.1", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "192.0.2.7", 443, ALLOWLIST_ALLOWED },
	{ "3221225991", 443, ALLOWLIST_ALLOWED },
	{ "192.0.2.8", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "198.51.100.9", 443, ALLOWLIST_ALLOWED },
	{ "198.51.101.9", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "[fd00::5]:8080", 443, ALLOWLIST_ALLOWED },
	{ "[FD00::FFFF:1]", 443, ALLOWLIST_ALLOWED },
	{ "[fd00:0:0:1::5]", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "[fd01::5]", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "127.0.0.1", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "127.1", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "0x7f.1", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "2130706433", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "0", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "[::1]", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "[::ffff:127.0.0.1]", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "169.254.169.254", 80, ALLOWLIST_ADDRESS_NOT_LISTED },
	{ "localhost", 443, ALLOWLIST_NAME_NOT_LISTED },
	{ "8.8.8.8", 443, ALLOWLIST_ADDRESS_NOT_LISTED },
};

static void test_checks(void)
{
	struct allowlist *list = NULL;
	struct procage_error err;
	size_t n = sizeof check_entries / sizeof check_entries[0];

	if (!tap_ok(allowlist_new(check_entries, n, &list, &err) == 0, "check list built")) {
		tap_diag("%s", err.message);
		return;
	}
	for (size_t i = 0; i < sizeof check_rows / sizeof check_rows[0]; i++) {
		const struct check_row *r = &check_rows[i];
		struct dest h;
		enum dest_error e =
			dest_parse_authority(r->authority, strlen(r->authority), r->default_port, &h);
		int v = e == DEST_OK ? (int)allowlist_check_host(list, &h) : -1;
		tap_ok(e == DEST_OK && v == (int)r->verdict, "check %s (default port %u): %s",
		       r->authority, (unsigned)r->default_port, allowlist_verdict_text(r->verdict));
	}
	allowlist_free(list);
}

/* ---- resolved addresses ------------------------------------------------------ */

struct class_row {
	const char *address;
	const char *class; /* NULL: ordinary */
};

static const struct class_row class_rows[] = {
	{ "0.0.0.0", "unspecified" },
	{ "0.1.2.3", "unspecified" },
	{ "10.0.0.1", "private" },
	{ "10.255.255.255", "private" },
	{ "11.0.0.0", NULL },
	{ "9.255.255.255", NULL },
	{ "100.63.255.255", NULL },
	{ "100.64.0.0", "shared (carrier-grade NAT)" },
	{ "100.127.255.255", "shared (carrier-grade NAT)" },
	{ "100.128.0.0", NULL },
	{ "127.0.0.1", "loopback" },
	{ "127.255.255.254", "loopback" },
	{ "128.0.0.1", NULL },
	{ "169.254.169.254", "link-local" },
	{ "169.253.0.1", NULL },
	{ "172.15.255.255", NULL },
	{ "172.16.0.0", "private" },
	{ "172.31.255.255", "private" },
	{ "172.32.0.0", NULL },
	{ "192.0.0.8", "IETF protocol assignment" },
	{ "192.0.2.1", "documentation" },
	{ "192.88.99.1", "6to4 relay" },
	{ "192.167.255.255", NULL },
	{ "192.168.0.1", "private" },
	{ "192.169.0.0", NULL },
	{ "198.17.255.255", NULL },
	{ "198.18.0.1", "benchmarking" },
	{ "198.19.255.255", "benchmarking" },
	{ "198.20.0.0", NULL },
	{ "198.51.100.1", "documentation" },
	{ "203.0.113.1", "documentation" },
	{ "223.255.255.255", NULL },
	{ "224.0.0.1", "multicast" },
	{ "239.255.255.250", "multicast" },
	{ "240.0.0.1", "reserved" },
	{ "255.255.255.254", "reserved" },
	{ "255.255.255.255", "broadcast" },
	{ "1.1.1.1", NULL },
	{ "8.8.8.8", NULL },
	{ "140.82.112.3", NULL },
	{ "::", "unspecified" },
	{ "::1", "loopback" },
	{ "::2", "IPv4-compatible" },
	{ "::127.0.0.1", "IPv4-compatible" },
	{ "::ffff:127.0.0.1", "loopback" },
	{ "::ffff:10.1.2.3", "private" },
	{ "::ffff:169.254.169.254", "link-local" },
	{ "::ffff:8.8.8.8", NULL },
	{ "::ffff:0:0", "unspecified" },
	{ "::1:0:0:0", "reserved" },
	{ "64:ff9b::808:808", "NAT64" },
	{ "64:ff9b:1::1", "NAT64 (local use)" },
	{ "100::1", "discard" },
	{ "2001::1", "IETF protocol assignment (Teredo and others)" },
	{ "2001:1ff::1", "IETF protocol assignment (Teredo and others)" },
	{ "2001:200::1", NULL },
	{ "2001:db8::1", "documentation" },
	{ "2001:4860:4860::8888", NULL },
	{ "2002:7f00:1::1", "6to4" },
	{ "2606:4700:4700::1111", NULL },
	{ "2a00:1450:4001::1", NULL },
	{ "3fff::1", "documentation" },
	{ "3ffe::1", NULL },
	{ "5f00::1", "segment routing" },
	{ "4000::1", "not global unicast" },
	{ "1000::1", "not global unicast" },
	{ "fc00::1", "unique local" },
	{ "fd12:3456::1", "unique local" },
	{ "fe80::1", "link-local" },
	{ "febf::1", "link-local" },
	{ "fec0::1", "site-local" },
	{ "ff02::1", "multicast" },
	{ "e000::1", "not global unicast" },
};

static bool parse_address(const char *text, struct dest_addr *out)
{
	memset(out, 0, sizeof *out);
	if (inet_pton(AF_INET, text, out->bytes) == 1) {
		out->family = AF_INET;
		return true;
	}
	out->family = AF_INET6;
	return inet_pton(AF_INET6, text, out->bytes) == 1;
}

static void test_special_classes(void)
{
	for (size_t i = 0; i < sizeof class_rows / sizeof class_rows[0]; i++) {
		const struct class_row *r = &class_rows[i];
		struct dest_addr a;
		const char *got = parse_address(r->address, &a) ? allowlist_special_class(&a) : "?";
		bool ok = r->class ? got && strcmp(got, r->class) == 0 : got == NULL;
		tap_ok(ok, "address %s is %s (got %s)", r->address, r->class ? r->class : "ordinary",
		       got ? got : "ordinary");
	}
}

/* A name the list allows still may not resolve inward, unless a range says so. */
/*
 * "localhost" is one entry for the name and both loopback addresses, at
 * every port; with a port, at that port only. An address with a port
 * allows that port only.
 */
static void test_local_and_ported(void)
{
	static const struct {
		const char *entry, *authority;
		enum allowlist_verdict verdict;
	} rows[] = {
		{ "localhost", "localhost:3000", ALLOWLIST_ALLOWED },
		{ "localhost", "localhost", ALLOWLIST_ALLOWED },
		{ "localhost", "127.0.0.1:5432", ALLOWLIST_ALLOWED },
		{ "localhost", "[::1]:8080", ALLOWLIST_ALLOWED },
		{ "localhost", "127.0.0.2:8080", ALLOWLIST_ADDRESS_NOT_LISTED },
		{ "localhost", "localhost.evil.com", ALLOWLIST_NAME_NOT_LISTED },
		{ "localhost:3000", "localhost:3000", ALLOWLIST_ALLOWED },
		{ "localhost:3000", "localhost:3001", ALLOWLIST_PORT_NOT_LISTED },
		{ "localhost:3000", "127.0.0.1:3000", ALLOWLIST_ALLOWED },
		{ "localhost:3000", "[::1]:3001", ALLOWLIST_ADDRESS_NOT_LISTED },
		{ "127.0.0.1:8080", "127.0.0.1:8080", ALLOWLIST_ALLOWED },
		{ "127.0.0.1:8080", "127.0.0.1:8081", ALLOWLIST_ADDRESS_NOT_LISTED },
		{ "127.0.0.1:8080", "[::1]:8080", ALLOWLIST_ADDRESS_NOT_LISTED },
		{ "127.0.0.1:8080", "localhost:8080", ALLOWLIST_NAME_NOT_LISTED },
		{ "[::1]:8080", "[::1]:8080", ALLOWLIST_ALLOWED },
		{ "[::1]:8080", "[::1]:80", ALLOWLIST_ADDRESS_NOT_LISTED },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct allowlist *list = NULL;
		struct procage_error err;
		struct dest h;
		const char *entry = rows[i].entry;
		int rc = allowlist_new(&entry, 1, &list, &err);
		enum dest_error e = dest_parse_authority(rows[i].authority,
							 strlen(rows[i].authority), 443, &h);
		int v = rc == 0 && e == DEST_OK ? (int)allowlist_check_host(list, &h) : -1;
		tap_ok(v == (int)rows[i].verdict, "entry %s, request %s: %s", entry,
		       rows[i].authority, allowlist_verdict_text(rows[i].verdict));
		allowlist_free(list);
	}
	/* A name resolved to loopback passes at the entry's port only. */
	const char *entry = "localhost:3000";
	struct allowlist *list = NULL;
	struct procage_error err;
	struct dest_addr loop = { .family = AF_INET, .bytes = { 127, 0, 0, 1 } };
	if (tap_ok(allowlist_new(&entry, 1, &list, &err) == 0, "localhost:3000 is an entry"))
		tap_ok(allowlist_check_resolved(list, &loop, 3000) == ALLOWLIST_ALLOWED &&
			       allowlist_check_resolved(list, &loop, 22) ==
				       ALLOWLIST_SPECIAL_ADDRESS,
		       "localhost:3000 resolving to 127.0.0.1: port 3000 allowed, port 22 not");
	allowlist_free(list);
}

static void test_resolved(void)
{
	const char *entries[] = { "allowed.test:8080", "127.0.0.1/32", "[fd00::]/64" };
	struct allowlist *list = NULL;
	struct procage_error err;
	static const struct {
		const char *address;
		enum allowlist_verdict verdict;
	} rows[] = {
		{ "127.0.0.1", ALLOWLIST_ALLOWED },
		{ "::ffff:127.0.0.1", ALLOWLIST_ALLOWED },
		{ "127.0.0.2", ALLOWLIST_SPECIAL_ADDRESS },
		{ "::1", ALLOWLIST_SPECIAL_ADDRESS },
		{ "10.0.0.1", ALLOWLIST_SPECIAL_ADDRESS },
		{ "::ffff:192.168.1.1", ALLOWLIST_SPECIAL_ADDRESS },
		{ "169.254.169.254", ALLOWLIST_SPECIAL_ADDRESS },
		{ "fd00::7", ALLOWLIST_ALLOWED },
		{ "fd01::7", ALLOWLIST_SPECIAL_ADDRESS },
		{ "fe80::1", ALLOWLIST_SPECIAL_ADDRESS },
		{ "0.0.0.0", ALLOWLIST_SPECIAL_ADDRESS },
		{ "224.0.0.251", ALLOWLIST_SPECIAL_ADDRESS },
		{ "8.8.8.8", ALLOWLIST_ALLOWED },
		{ "2606:4700:4700::1111", ALLOWLIST_ALLOWED },
		{ "64:ff9b::a00:1", ALLOWLIST_SPECIAL_ADDRESS },
	};

	if (!tap_ok(allowlist_new(entries, 3, &list, &err) == 0, "resolution list built")) {
		tap_diag("%s", err.message);
		return;
	}
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct dest_addr a;
		bool parsed = parse_address(rows[i].address, &a);
		tap_ok(parsed && allowlist_check_resolved(list, &a, 8080) == rows[i].verdict,
		       "allowed.test resolving to %s: %s", rows[i].address,
		       allowlist_verdict_text(rows[i].verdict));
	}
	allowlist_free(list);
}

int main(void)
{
	test_entries();
	test_empty_and_bad_lists();
	test_checks();
	test_special_classes();
	test_resolved();
	test_local_and_ported();
	return tap_done();
}
