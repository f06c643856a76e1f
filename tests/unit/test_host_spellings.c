/*
 * The proxy's host reader (src/lib/proxy/dest.c, R-35), table by table:
 * every spelling of a host a client might send and the one canonical value
 * it becomes, or why it is refused; that canonical value read again is
 * itself; every byte value in a name; and the form written back in a Host
 * header. Numeric spellings are also checked against glibc's inet_aton, the
 * reader the proxy must agree with. The allowlist that judges the canonical
 * values is tests/unit/test_allowlist.c.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "proxy/dest.h"
#include "shown.h"
#include "tap.h"

/* ---- host spellings ------------------------------------------------------ */

struct spelling {
	const char *text;
	size_t len; /* 0: strlen(text); set for rows with a NUL inside */
	uint16_t default_port;
	enum dest_kind kind; /* 0 when refused */
	const char *canonical; /* dest_format_authority, NULL when refused */
	enum dest_error error;
};

#define NAME(t, c) { t, 0, 443, DEST_NAME, c, DEST_OK }
#define V4(t, c) { t, 0, 443, DEST_IPV4, c, DEST_OK }
#define V6(t, c) { t, 0, 443, DEST_IPV6, c, DEST_OK }
#define NAME80(t, c) { t, 0, 80, DEST_NAME, c, DEST_OK }
#define V4_80(t, c) { t, 0, 80, DEST_IPV4, c, DEST_OK }
#define NO(t, e) { t, 0, 443, 0, NULL, DEST_ERR_##e }
#define NO_BYTES(t, e) { t, sizeof t - 1, 443, 0, NULL, DEST_ERR_##e }

#define L63 "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" "abc"
#define L64 L63 "d"
/* Three labels of 63 and one of 61: a name of exactly 253 bytes. */
#define NAME253 L63 "." L63 "." L63 "." "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" \
		"abcdefghij" "abcdefghij" "a"
#define NAME254 NAME253 "x"

static const struct spelling spellings[] = {
	/* names: case and one trailing dot are the only things normalised */
	NAME("github.com", "github.com:443"),
	NAME("GitHub.COM", "github.com:443"),
	NAME("GITHUB.COM.", "github.com:443"),
	NAME("github.com.", "github.com:443"),
	NAME("github.com:443", "github.com:443"),
	NAME("github.com.:443", "github.com:443"),
	NAME("github.com:8443", "github.com:8443"),
	NAME("github.com:1", "github.com:1"),
	NAME("github.com:65535", "github.com:65535"),
	NAME80("github.com", "github.com:80"),
	NAME80("github.com:443", "github.com:443"),
	NAME80("example.org:8080", "example.org:8080"),
	NAME("localhost", "localhost:443"),
	NAME("LOCALHOST.", "localhost:443"),
	NAME("a", "a:443"),
	NAME("a.b", "a.b:443"),
	NAME("a.b.c.d.e.f.g", "a.b.c.d.e.f.g:443"),
	NAME("registry.npmjs.org", "registry.npmjs.org:443"),
	NAME("Registry.NpmJS.Org:443", "registry.npmjs.org:443"),
	NAME("xn--bcher-kva.example", "xn--bcher-kva.example:443"),
	NAME("XN--BCHER-KVA.EXAMPLE", "xn--bcher-kva.example:443"),
	NAME("a-b.example", "a-b.example:443"),
	NAME("a--b.example", "a--b.example:443"),
	NAME("a_b.example", "a_b.example:443"),
	NAME("_dmarc.example", "_dmarc.example:443"),
	NAME("123abc.example", "123abc.example:443"),
	NAME("1.example", "1.example:443"),
	NAME("127.0.0.1.nip.io", "127.0.0.1.nip.io:443"),
	NAME("0x7f.nip.io", "0x7f.nip.io:443"),
	NAME("1.1.1.1.in-addr.arpa", "1.1.1.1.in-addr.arpa:443"),
	NAME("allowed.test", "allowed.test:443"),
	NAME("ALLOWED.TEST.:443", "allowed.test:443"),
	NAME("e.x", "e.x:443"),
	NAME(L63 ".example", L63 ".example:443"),
	NAME(NAME253, NAME253 ":443"),
	NAME(NAME253 ".", NAME253 ":443"),
	NAME(NAME253 ".:80", NAME253 ":80"),
	/* empty pieces */
	NO("", EMPTY),
	NO(":443", EMPTY),
	NO(":", BAD_PORT),
	NO(".", EMPTY_LABEL),
	NO("..", EMPTY_LABEL),
	NO(".:443", EMPTY_LABEL),
	NO("github.com..", EMPTY_LABEL),
	NO(".github.com", EMPTY_LABEL),
	NO("github..com", EMPTY_LABEL),
	NO("github.com..:443", EMPTY_LABEL),
	NO("a...b", EMPTY_LABEL),
	/* lengths */
	NO(L64 ".example", LABEL_TOO_LONG),
	NO("www." L64, LABEL_TOO_LONG),
	NO(NAME254, NAME_TOO_LONG),
	NO(NAME254 ".", NAME_TOO_LONG),
	NO(NAME253 "..", NAME_TOO_LONG),
	NO(NAME253 NAME253, TOO_LONG),
	/* hyphens and characters a host name has no use for */
	NO("-github.com", BAD_HYPHEN),
	NO("github-.com", BAD_HYPHEN),
	NO("github.-com", BAD_HYPHEN),
	NO("github.com-", BAD_HYPHEN),
	NO("-", BAD_HYPHEN),
	NO("*.github.com", BAD_CHAR),
	NO("*", BAD_CHAR),
	NO("git*hub.com", BAD_CHAR),
	NO("github.com/", BAD_CHAR),
	NO("github.com/x", BAD_CHAR),
	NO("github.com?", BAD_CHAR),
	NO("github.com#", BAD_CHAR),
	NO("github.com#@evil.com", USERINFO),
	NO("git!hub.com", BAD_CHAR),
	NO("git$hub.com", BAD_CHAR),
	NO("git&hub.com", BAD_CHAR),
	NO("git'hub.com", BAD_CHAR),
	NO("git\"hub.com", BAD_CHAR),
	NO("git(hub).com", BAD_CHAR),
	NO("git+hub.com", BAD_CHAR),
	NO("git,hub.com", BAD_CHAR),
	NO("git;hub.com", BAD_CHAR),
	NO("git=hub.com", BAD_CHAR),
	NO("git<hub>.com", BAD_CHAR),
	NO("git^hub.com", BAD_CHAR),
	NO("git`hub.com", BAD_CHAR),
	NO("git{hub}.com", BAD_CHAR),
	NO("git|hub.com", BAD_CHAR),
	NO("git~hub.com", BAD_CHAR),
	NO("github.com]", BAD_CHAR),
	NO("gith[ub.com", BAD_CHAR),
	/* NUL, control bytes and spaces, wherever they are */
	NO_BYTES("allowed.test\0.evil.com", NUL),
	NO_BYTES("evil.com\0.allowed.test", NUL),
	NO_BYTES("allowed.test\0", NUL),
	NO_BYTES("\0allowed.test", NUL),
	NO_BYTES("\0", NUL),
	NO_BYTES("allowed.test:443\0", NUL),
	NO_BYTES("allowed.test:4\0" "43", NUL),
	NO_BYTES("[::1\0]", NUL),
	NO_BYTES("127.0.0.1\0.allowed.test", NUL),
	NO_BYTES("allowed.test\0%@\\ \n", NUL),
	NO("allowed.test\r\nX-Injected: 1", CONTROL),
	NO("allowed.test\n", CONTROL),
	NO("allowed.test\r", CONTROL),
	NO("allowed.test\t", CONTROL),
	NO("\tallowed.test", CONTROL),
	NO("allowed\x01.test", CONTROL),
	NO("allowed\x1b[31m.test", CONTROL),
	NO("allowed.test\x7f", CONTROL),
	NO("allowed.test ", SPACE),
	NO(" allowed.test", SPACE),
	NO("allowed .test", SPACE),
	NO("allowed.test :443", SPACE),
	NO("allowed.test: 443", SPACE),
	NO("allowed.test:443 ", SPACE),
	NO(" ", SPACE),
	NO("127.0.0.1 evil", SPACE),
	NO("127.0.0.1 ", SPACE),
	/* non-ASCII names, including look-alike dots */
	NO("b\xc3\xbc" "cher.example", NON_ASCII),
	NO("allowed\xef\xbc\x8etest", NON_ASCII),
	NO("allowed\xe3\x80\x82test", NON_ASCII),
	NO("allowed\xc0\xae" "test", NON_ASCII),
	NO("\xff", NON_ASCII),
	NO("allowed.test\x80", NON_ASCII),
	NO("\xd0\xb0pple.com", NON_ASCII),
	NO("127.0.0.1\xc2\xa0", NON_ASCII),
	/* percent encoding, userinfo, backslashes */
	NO("allowed%2etest", PERCENT),
	NO("%61llowed.test", PERCENT),
	NO("allowed.test%00", PERCENT),
	NO("allowed.test%2f@evil.com", PERCENT),
	NO("127.0.0.1%2e", PERCENT),
	NO("allowed.test:%34%34%33", PERCENT),
	NO("%", PERCENT),
	NO("user@allowed.test", USERINFO),
	NO("user:pass@allowed.test", USERINFO),
	NO("allowed.test@evil.com", USERINFO),
	NO("@allowed.test", USERINFO),
	NO("allowed.test@", USERINFO),
	NO("allowed.test:443@evil.com", USERINFO),
	NO("allowed.test\\@evil.com", USERINFO),
	NO("evil.com\\.allowed.test", BACKSLASH),
	NO("allowed.test\\", BACKSLASH),
	NO("\\\\allowed.test", BACKSLASH),
	/* ports */
	NO("github.com:", BAD_PORT),
	NO("github.com:0", BAD_PORT),
	NO("github.com:00", BAD_PORT),
	NO("github.com:0443", BAD_PORT),
	NO("github.com:65536", BAD_PORT),
	NO("github.com:99999", BAD_PORT),
	NO("github.com:100000", BAD_PORT),
	NO("github.com:4294967739", BAD_PORT),
	NO("github.com:+443", BAD_PORT),
	NO("github.com:-443", BAD_PORT),
	NO("github.com:0x1bb", BAD_PORT),
	NO("github.com:443a", BAD_PORT),
	NO("github.com:https", BAD_PORT),
	NO("github.com:1e3", BAD_PORT),
	NO("github.com:443.", BAD_PORT),
	NO("github.com:443:443", UNBRACKETED_IPV6),
	NO("github.com::443", UNBRACKETED_IPV6),
	/* IPv4 in every notation inet_aton reads */
	V4("127.0.0.1", "127.0.0.1:443"),
	V4("127.0.0.1:8080", "127.0.0.1:8080"),
	V4_80("127.0.0.1", "127.0.0.1:80"),
	V4("127.0.0.1.", "127.0.0.1:443"),
	V4("127.0.0.1.:443", "127.0.0.1:443"),
	V4("127.1", "127.0.0.1:443"),
	V4("127.0.1", "127.0.0.1:443"),
	V4("127.1.", "127.0.0.1:443"),
	V4("2130706433", "127.0.0.1:443"),
	V4("2130706433:80", "127.0.0.1:80"),
	V4("0x7f000001", "127.0.0.1:443"),
	V4("0X7F000001", "127.0.0.1:443"),
	V4("017700000001", "127.0.0.1:443"),
	V4("0177.0.0.1", "127.0.0.1:443"),
	V4("0177.0.0.01", "127.0.0.1:443"),
	V4("0177.1", "127.0.0.1:443"),
	V4("0x7f.1", "127.0.0.1:443"),
	V4("0x7F.0.0.1", "127.0.0.1:443"),
	V4("0X7f.0x0.0x0.0x1", "127.0.0.1:443"),
	V4("0x7f.0.1", "127.0.0.1:443"),
	V4("0x7f.0x000001", "127.0.0.1:443"),
	V4("127.0x1", "127.0.0.1:443"),
	V4("127.0.0.0x1", "127.0.0.1:443"),
	V4("0x00000000007f.1", "127.0.0.1:443"),
	V4("00000000177.1", "127.0.0.1:443"),
	V4("00000000127.0.0.1", "87.0.0.1:443"),
	V4("010.0.0.1", "8.0.0.1:443"),
	V4("0", "0.0.0.0:443"),
	V4("0.0.0.0", "0.0.0.0:443"),
	V4("0x0", "0.0.0.0:443"),
	V4("00", "0.0.0.0:443"),
	V4("0.0", "0.0.0.0:443"),
	V4("1", "0.0.0.1:443"),
	V4("255", "0.0.0.255:443"),
	V4("256", "0.0.1.0:443"),
	V4("4294967295", "255.255.255.255:443"),
	V4("0xffffffff", "255.255.255.255:443"),
	V4("037777777777", "255.255.255.255:443"),
	V4("255.255.255.255", "255.255.255.255:443"),
	V4("1.2.65535", "1.2.255.255:443"),
	V4("1.16777215", "1.255.255.255:443"),
	V4("1.2.3.4", "1.2.3.4:443"),
	V4("10.1.2", "10.1.0.2:443"),
	V4("10.258", "10.0.1.2:443"),
	V4("169.254.169.254", "169.254.169.254:443"),
	V4("2852039166", "169.254.169.254:443"),
	V4("0xa9fea9fe", "169.254.169.254:443"),
	V4("0251.0376.0251.0376", "169.254.169.254:443"),
	V4("169.254.43518", "169.254.169.254:443"),
	V4("192.168.1.1", "192.168.1.1:443"),
	V4("3232235777", "192.168.1.1:443"),
	V4("0xc0.0xa8.1.1", "192.168.1.1:443"),
	V4("8.8.8.8", "8.8.8.8:443"),
	V4("134744072", "8.8.8.8:443"),
	V4("1.0.0.0", "1.0.0.0:443"),
	/* numeric-looking but no address: refused, never resolved as a name */
	NO("4294967296", BAD_IPV4),
	NO("0x100000000", BAD_IPV4),
	NO("0xfffffffffffffffffff", BAD_IPV4),
	NO("99999999999999999999999", BAD_IPV4),
	NO("256.0.0.1", BAD_IPV4),
	NO("1.256.0.1", BAD_IPV4),
	NO("1.2.256.1", BAD_IPV4),
	NO("1.2.3.256", BAD_IPV4),
	NO("1.2.65536", BAD_IPV4),
	NO("1.16777216", BAD_IPV4),
	NO("1.2.3.4.5", BAD_IPV4),
	NO("1.2.3.4.5.", BAD_IPV4),
	NO("08", BAD_IPV4),
	NO("09.0.0.1", BAD_IPV4),
	NO("127.0.0.08", BAD_IPV4),
	NO("0x", BAD_IPV4),
	NO("0X", BAD_IPV4),
	NO("0x.1", BAD_IPV4),
	NO("1.0x", BAD_IPV4),
	NO("0x0x1", BAD_IPV4),
	NO("0xg", BAD_IPV4),
	NO("0x7g.1", BAD_IPV4),
	NO("1e5", BAD_IPV4),
	NO("1.2.3.4x", BAD_IPV4),
	NO("127.0.0.1a", BAD_IPV4),
	NO("1.2.3.0b1", BAD_IPV4),
	NO("a.1", BAD_IPV4),
	NO("evil.com.127.0.0.1", BAD_IPV4),
	NO("allowed.test.1", BAD_IPV4),
	NO("github.com.2", BAD_IPV4),
	NO("1-2.3", BAD_IPV4),
	NO("1_2", BAD_IPV4),
	NO("1.2.3.4.:", BAD_PORT),
	NO("1.2.3.4..", EMPTY_LABEL),
	NO("1..2", EMPTY_LABEL),
	NO(".1", EMPTY_LABEL),
	NO("-1", BAD_HYPHEN),
	NO("+1", BAD_CHAR),
	NO("127.0.0.1%0a", PERCENT),
	NO("127.0.0.1:0", BAD_PORT),
	NO("127.0.0.1:", BAD_PORT),
	/* IPv6 literals: brackets required, canonical text from inet_ntop */
	V6("[::1]", "[::1]:443"),
	V6("[::1]:8080", "[::1]:8080"),
	V6("[0:0:0:0:0:0:0:1]", "[::1]:443"),
	V6("[0000:0000:0000:0000:0000:0000:0000:0001]", "[::1]:443"),
	V6("[::]", "[::]:443"),
	V6("[::]:80", "[::]:80"),
	V6("[2001:DB8::A]", "[2001:db8::a]:443"),
	V6("[2001:db8:0:0:0:0:0:1]", "[2001:db8::1]:443"),
	V6("[2001:0db8::0001]", "[2001:db8::1]:443"),
	V6("[fd00::1]", "[fd00::1]:443"),
	V6("[FE80::1]", "[fe80::1]:443"),
	V6("[::127.0.0.1]", "[::127.0.0.1]:443"),
	V6("[64:ff9b::127.0.0.1]", "[64:ff9b::7f00:1]:443"),
	V6("[2606:4700:4700::1111]:443", "[2606:4700:4700::1111]:443"),
	V6("[1:2:3:4:5:6:7:8]", "[1:2:3:4:5:6:7:8]:443"),
	V6("[1::]", "[1::]:443"),
	/* v4-mapped: checked and connected to as the IPv4 address */
	V4("[::ffff:127.0.0.1]", "127.0.0.1:443"),
	V4("[::FFFF:127.0.0.1]", "127.0.0.1:443"),
	V4("[::ffff:7f00:1]", "127.0.0.1:443"),
	V4("[0:0:0:0:0:ffff:7f00:1]", "127.0.0.1:443"),
	V4("[::ffff:10.0.0.1]:8080", "10.0.0.1:8080"),
	V4("[::ffff:0.0.0.0]", "0.0.0.0:443"),
	V4("[::ffff:169.254.169.254]", "169.254.169.254:443"),
	V4("[::ffff:8.8.8.8]", "8.8.8.8:443"),
	NO("[::ffff:127.1]", BAD_IPV6),
	NO("[::ffff:0x7f.1]", BAD_IPV6),
	NO("[::ffff:2130706433]", BAD_IPV6),
	NO("::1", UNBRACKETED_IPV6),
	NO("::1:443", UNBRACKETED_IPV6),
	NO("2001:db8::1", UNBRACKETED_IPV6),
	NO("::ffff:127.0.0.1", UNBRACKETED_IPV6),
	NO("fe80::1:80", UNBRACKETED_IPV6),
	NO("[::1", BAD_IPV6),
	NO("[::1]x", BAD_IPV6),
	NO("[::1]]", BAD_IPV6),
	NO("[[::1]]", BAD_IPV6),
	NO("[::1]:", BAD_PORT),
	NO("[::1]:0", BAD_PORT),
	NO("[::1]:65536", BAD_PORT),
	NO("[::1]:08", BAD_PORT),
	NO("[]", BAD_IPV6),
	NO("[]:443", BAD_IPV6),
	NO("[", BAD_IPV6),
	NO("]", BAD_CHAR),
	NO("[127.0.0.1]", BAD_IPV6),
	NO("[localhost]", BAD_IPV6),
	NO("[v1.fe80::a]", BAD_IPV6),
	NO("[1::2::3]", BAD_IPV6),
	NO("[12345::]", BAD_IPV6),
	NO("[1:2:3:4:5:6:7:8:9]", BAD_IPV6),
	NO("[::1:]", BAD_IPV6),
	NO("[:::1]", BAD_IPV6),
	NO("[::g]", BAD_IPV6),
	NO("[fe80::1%eth0]", PERCENT),
	NO("[fe80::1%25eth0]", PERCENT),
	NO("[::1 ]", SPACE),
	NO("[::1]@evil.com", USERINFO),
	NO("[::1\\]", BACKSLASH),
	NO("[\xef\xbc\x9a\xef\xbc\x9a" "1]", NON_ASCII),
};

/* inet_aton must read an address we accept as the same address: it is the
 * reader of every other program the caged code might hand the host to. */
static void compare_with_inet_aton(const char *text, size_t len, const struct dest *h)
{
	char plain[300];
	struct in_addr a;

	if (h->kind != DEST_IPV4 || text[0] == '[' || memchr(text, ':', len) || len >= sizeof plain)
		return;
	memcpy(plain, text, len);
	plain[len] = '\0';
	if (plain[len - 1] == '.')
		return; /* inet_aton knows no trailing dot; we read it as DNS does */
	int ok = inet_aton(plain, &a);
	tap_ok(ok && memcmp(&a, h->addr.bytes, 4) == 0, "inet_aton agrees on %s", plain);
}

static void test_spellings(void)
{
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		const struct spelling *s = &spellings[i];
		size_t len = s->len ? s->len : strlen(s->text);
		struct dest h;
		char got[DEST_AUTHORITY_BUF];
		enum dest_error e = dest_parse_authority(s->text, len, s->default_port, &h);

		got[0] = '\0';
		if (e == DEST_OK)
			dest_format_authority(&h, got, sizeof got);
		bool ok = s->canonical ? e == DEST_OK && strcmp(got, s->canonical) == 0 &&
						 h.kind == s->kind
				       : e == s->error;
		if (!tap_ok(ok, "host \"%s\" -> %s", shown(s->text, len),
			    s->canonical ? s->canonical : dest_error_text(s->error)))
			tap_diag("got %s (kind %d)", e == DEST_OK ? got : dest_error_text(e),
				 (int)h.kind);
		if (e == DEST_OK)
			compare_with_inet_aton(s->text, len, &h);
	}
}

/* The canonical value read again is itself: nothing is normalised twice. */
static void test_round_trip(void)
{
	size_t stable = 0, total = 0;

	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		const struct spelling *s = &spellings[i];
		struct dest a, b;
		char first[DEST_AUTHORITY_BUF], second[DEST_AUTHORITY_BUF];

		if (!s->canonical)
			continue;
		total++;
		if (dest_parse_authority(s->text, strlen(s->text), s->default_port, &a) != DEST_OK)
			continue;
		dest_format_authority(&a, first, sizeof first);
		if (dest_parse_authority(first, strlen(first), 1, &b) != DEST_OK)
			continue;
		dest_format_authority(&b, second, sizeof second);
		stable += strcmp(first, second) == 0 && a.kind == b.kind && a.port == b.port;
	}
	tap_ok(stable == total, "every canonical value reads back as itself (%zu of %zu)", stable,
	       total);
}

/*
 * Every byte value in the middle of a name: the reason a byte is refused,
 * or the name it makes.
 */
static enum dest_error expected_for_byte(unsigned c)
{
	if (c == 0)
		return DEST_ERR_NUL;
	if (c < 0x20 || c == 0x7f)
		return DEST_ERR_CONTROL;
	if (c == ' ')
		return DEST_ERR_SPACE;
	if (c >= 0x80)
		return DEST_ERR_NON_ASCII;
	if (c == '%')
		return DEST_ERR_PERCENT;
	if (c == '@')
		return DEST_ERR_USERINFO;
	if (c == '\\')
		return DEST_ERR_BACKSLASH;
	if (c == ':')
		return DEST_ERR_BAD_PORT; /* "allowed:test": the port is "test" */
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    c == '-' || c == '_' || c == '.')
		return DEST_OK;
	return DEST_ERR_BAD_CHAR;
}

static void test_every_byte(void)
{
	size_t right = 0;

	for (unsigned c = 0; c < 256; c++) {
		char text[] = "allowed?test";
		struct dest h;
		text[7] = (char)c;
		enum dest_error want = expected_for_byte(c);
		enum dest_error got = dest_parse_authority(text, sizeof text - 1, 443, &h);
		bool ok = got == want;
		if (ok && want == DEST_OK) {
			char canonical[32];
			snprintf(canonical, sizeof canonical, "allowed%ctest",
				 c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : (char)c);
			ok = strcmp(h.text, canonical) == 0;
		}
		if (ok)
			right++;
		else
			tap_ok(false, "byte 0x%02X in a name: %s (got %s)", c,
			       dest_error_text(want), dest_error_text(got));
	}
	tap_ok(right == 256, "each of the 256 byte values in a name is read as expected");
}

static void test_host_header_form(void)
{
	static const struct {
		const char *authority;
		const char *header;
	} rows[] = {
		{ "Allowed.Test", "allowed.test" },  { "allowed.test:80", "allowed.test" },
		{ "allowed.test:8080", "allowed.test:8080" }, { "[::1]", "[::1]" },
		{ "[::1]:8080", "[::1]:8080" },        { "127.1:81", "127.0.0.1:81" },
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct dest h;
		char out[DEST_AUTHORITY_BUF] = "";
		if (dest_parse_authority(rows[i].authority, strlen(rows[i].authority), 80, &h) ==
		    DEST_OK)
			dest_format_host_header(&h, 80, out, sizeof out);
		tap_ok(strcmp(out, rows[i].header) == 0, "Host header for %s is %s (got %s)",
		       rows[i].authority, rows[i].header, out);
	}
}
int main(void)
{
	test_spellings();
	test_round_trip();
	test_every_byte();
	test_host_header_form();
	return tap_done();
}
