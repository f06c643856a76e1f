/*
 * The --allow-ssh agent filter's reading of messages and its judgement
 * (src/lib/proxy/agent_msg.c, R-53), and the known_hosts cut
 * (src/lib/proxy/known_hosts.c): bad, truncated and oversized lengths,
 * each request type, a session bound and what it allows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/agent_msg.h"
#include "proxy/hmac_sha1.h"
#include "proxy/known_hosts.h"
#include "tap.h"

/* ---- building messages ----------------------------------------------------- */

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put_u8(struct buf *m, uint8_t v)
{
	m->b[m->n++] = v;
}

static void put_u32(struct buf *m, uint32_t v)
{
	put_u8(m, (uint8_t)(v >> 24));
	put_u8(m, (uint8_t)(v >> 16));
	put_u8(m, (uint8_t)(v >> 8));
	put_u8(m, (uint8_t)v);
}

static void put_str(struct buf *m, const void *s, size_t len)
{
	put_u32(m, (uint32_t)len);
	memcpy(m->b + m->n, s, len);
	m->n += len;
}

static const uint8_t host_key[] = "\0\0\0\x0bssh-ed25519 allowed host key";
static const uint8_t other_key[] = "\0\0\0\x0bssh-ed25519 another host key";
static const uint8_t session[32] = {1, 2, 3, 4, 5, 6, 7, 8};

static bool known(void *ctx, const uint8_t *blob, size_t len)
{
	return len == sizeof host_key && memcmp(blob, host_key, len) == 0;
}

static struct buf bind_msg(const uint8_t *key, size_t key_len, const uint8_t *sid, size_t sid_len,
			   uint8_t forwarding)
{
	struct buf m = {.n = 0};
	put_u8(&m, AGENT_EXTENSION);
	put_str(&m, "session-bind@openssh.com", 24);
	put_str(&m, key, key_len);
	put_str(&m, sid, sid_len);
	put_str(&m, "signature", 9);
	put_u8(&m, forwarding);
	return m;
}

static struct buf sign_msg(const uint8_t *sid, size_t sid_len)
{
	struct buf data = {.n = 0}, m = {.n = 0};
	put_str(&data, sid, sid_len);
	put_u8(&data, 50); /* SSH2_MSG_USERAUTH_REQUEST */
	put_str(&data, "root", 4);
	put_u8(&m, AGENT_SIGN_REQUEST);
	put_str(&m, "user key blob", 13);
	put_str(&m, data.b, data.n);
	put_u32(&m, 0);
	return m;
}

static enum agent_verdict judge(struct agent_conn_state *s, const struct buf *m, char *why)
{
	return agent_judge(s, m->b, m->n, known, NULL, why, 256);
}

/* ---- framing and reading --------------------------------------------------- */

static void test_frames(void)
{
	static const struct {
		uint8_t h[4];
		int rc;
		const char *what;
	} rows[] = {
	    {{0, 0, 0, 0}, -1, "an empty message"},
	    {{0, 0, 0, 1}, 0, "a one-byte message"},
	    {{0, 4, 0, 0}, 0, "exactly the largest message"},
	    {{0, 4, 0, 1}, -1, "one byte above the largest"},
	    {{0xff, 0xff, 0xff, 0xff}, -1, "a length of 4 GiB - 1"},
	    {{0x80, 0, 0, 0}, -1, "a length with the top bit set"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		uint32_t len = 0;
		int rc = agent_frame_length(rows[i].h, &len);
		tap_ok(rows[i].rc == 0 ? rc == 0 && len > 0 && len <= AGENT_MSG_MAX : rc < 0,
		       "frame: %s is %s", rows[i].what, rows[i].rc == 0 ? "read" : "refused");
	}
}

static void test_strings(void)
{
	uint8_t bytes[] = {0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 4, 'x'};
	struct agent_cursor c = {bytes, sizeof bytes};
	const uint8_t *s;
	size_t len;
	tap_ok(agent_read_string(&c, &s, &len) == 0 && len == 3 && memcmp(s, "abc", 3) == 0,
	       "string: one that fits is read in place");
	tap_ok(agent_read_string(&c, &s, &len) < 0,
	       "string: a length beyond the message is refused");
	uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 'a'};
	c = (struct agent_cursor){huge, sizeof huge};
	tap_ok(agent_read_string(&c, &s, &len) < 0,
	       "string: a length near 4 GiB is refused, no overflow");
	uint8_t three[] = {0, 0, 0};
	c = (struct agent_cursor){three, sizeof three};
	tap_ok(agent_read_string(&c, &s, &len) < 0, "string: a truncated length is refused");
	uint32_t v;
	c = (struct agent_cursor){three, 0};
	tap_ok(agent_read_u32(&c, &v) < 0, "u32: nothing left is refused");
}

/* ---- judgement ------------------------------------------------------------- */

static void test_refused_types(void)
{
	static const uint8_t types[] = {AGENT_ADD_IDENTITY,
					AGENT_REMOVE_IDENTITY,
					AGENT_REMOVE_ALL_IDENTITIES,
					AGENT_ADD_SMARTCARD_KEY,
					AGENT_REMOVE_SMARTCARD_KEY,
					AGENT_LOCK,
					AGENT_UNLOCK,
					AGENT_ADD_ID_CONSTRAINED,
					AGENT_ADD_SMARTCARD_KEY_CONSTRAINED,
					1,
					99,
					255};
	char why[256];
	for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
		struct agent_conn_state s = {.bound = true, .session_id_len = 32};
		struct buf m = {.n = 0};
		put_u8(&m, types[i]);
		put_str(&m, "payload", 7);
		tap_ok(judge(&s, &m, why) == AGENT_REFUSE && why[0],
		       "type %u (%s) is refused even on a bound connection: %s", types[i],
		       agent_type_name(types[i]), why);
	}
	struct agent_conn_state s = {.bound = false};
	struct buf m = {.n = 0};
	put_u8(&m, AGENT_EXTENSION);
	put_str(&m, "query\x01\xff", 7);
	tap_ok(judge(&s, &m, why) == AGENT_REFUSE && strstr(why, "query\\x01\\xff"),
	       "another extension is refused, its name printable: %s", why);
	tap_ok(agent_judge(&s, m.b, 0, known, NULL, why, sizeof why) == AGENT_REFUSE,
	       "an empty request is refused");
}

static void test_unbound(void)
{
	char why[256];
	struct agent_conn_state s = {.bound = false};
	struct buf list = {.n = 0};
	put_u8(&list, AGENT_REQUEST_IDENTITIES);
	tap_ok(judge(&s, &list, why) == AGENT_REFUSE, "unbound: a key listing is refused: %s", why);
	struct buf sign = sign_msg(session, sizeof session);
	tap_ok(judge(&s, &sign, why) == AGENT_REFUSE, "unbound: a signature is refused: %s", why);
	struct buf bind = bind_msg(other_key, sizeof other_key, session, sizeof session, 0);
	tap_ok(judge(&s, &bind, why) == AGENT_REFUSE && !s.bind_pending,
	       "a bind to a key no allowed host has is refused: %s", why);
	bind = bind_msg(host_key, sizeof host_key, session, sizeof session, 1);
	tap_ok(judge(&s, &bind, why) == AGENT_REFUSE, "a forwarding bind is refused: %s", why);
	uint8_t long_id[AGENT_SESSION_ID_MAX + 1] = {0};
	bind = bind_msg(host_key, sizeof host_key, long_id, sizeof long_id, 0);
	tap_ok(judge(&s, &bind, why) == AGENT_REFUSE,
	       "a bind with an oversized session id is refused");
	bind = bind_msg(host_key, sizeof host_key, session, 0, 0);
	tap_ok(judge(&s, &bind, why) == AGENT_REFUSE, "a bind with an empty session id is refused");
	bind = bind_msg(host_key, sizeof host_key, session, sizeof session, 0);
	bind.b[bind.n++] = 0;
	tap_ok(judge(&s, &bind, why) == AGENT_REFUSE, "a bind with bytes after it is refused");
	/* Every cut of a valid bind: never forwarded, never a read past the end. */
	struct buf whole = bind_msg(host_key, sizeof host_key, session, sizeof session, 0);
	bool all_refused = true;
	for (size_t cut = 1; cut < whole.n; cut++) {
		struct agent_conn_state t = {.bound = false};
		uint8_t *copy = malloc(cut); /* exactly cut bytes: a sanitizer sees any overread */
		memcpy(copy, whole.b, cut);
		if (agent_judge(&t, copy, cut, known, NULL, why, sizeof why) != AGENT_REFUSE ||
		    t.bind_pending)
			all_refused = false;
		free(copy);
	}
	tap_ok(all_refused, "every truncation of a valid bind (%zu cuts) is refused", whole.n - 1);
}

static void test_bound(void)
{
	char why[256];
	struct agent_conn_state s = {.bound = false};
	struct buf bind = bind_msg(host_key, sizeof host_key, session, sizeof session, 0);
	tap_ok(judge(&s, &bind, why) == AGENT_FORWARD && s.bind_pending && !s.bound,
	       "a bind to an allowed host's key is forwarded, pending the agent's answer");
	struct buf list = {.n = 0};
	put_u8(&list, AGENT_REQUEST_IDENTITIES);
	tap_ok(judge(&s, &list, why) == AGENT_REFUSE,
	       "a request before the bind's answer is refused");
	uint8_t failure = AGENT_FAILURE, success = AGENT_SUCCESS;
	agent_answered(&s, &failure, 1);
	tap_ok(!s.bound && !s.bind_pending,
	       "the agent refusing the bind (a bad signature) binds nothing");
	tap_ok(judge(&s, &list, why) == AGENT_REFUSE, "and a key listing stays refused");

	tap_ok(judge(&s, &bind, why) == AGENT_FORWARD, "the bind again is forwarded");
	agent_answered(&s, &success, 1);
	tap_ok(s.bound && s.session_id_len == sizeof session,
	       "the agent's success binds the session");
	tap_ok(judge(&s, &list, why) == AGENT_FORWARD, "bound: a key listing is forwarded");
	struct buf sign = sign_msg(session, sizeof session);
	tap_ok(judge(&s, &sign, why) == AGENT_FORWARD,
	       "bound: a signature over the session's data is forwarded");
	uint8_t other_session[32] = {9, 9, 9};
	sign = sign_msg(other_session, sizeof other_session);
	tap_ok(judge(&s, &sign, why) == AGENT_REFUSE,
	       "bound: a signature over another session's data is refused: %s", why);
	sign = sign_msg(session, 16);
	tap_ok(judge(&s, &sign, why) == AGENT_REFUSE,
	       "bound: a signature over a prefix of the session id is refused");
	sign = sign_msg(session, sizeof session);
	sign.n -= 2;
	tap_ok(judge(&s, &sign, why) == AGENT_REFUSE, "bound: a truncated sign-request is refused");
	struct buf bind2 =
	    bind_msg(host_key, sizeof host_key, other_session, sizeof other_session, 0);
	tap_ok(judge(&s, &bind2, why) == AGENT_REFUSE && !s.bind_pending,
	       "bound: a second bind on the connection is refused: %s", why);
	struct buf add = {.n = 0};
	put_u8(&add, AGENT_ADD_IDENTITY);
	tap_ok(judge(&s, &add, why) == AGENT_REFUSE, "bound: adding a key is still refused");
}

/* ---- known_hosts ----------------------------------------------------------- */

static void test_known_hosts(void)
{
	/* "AAAA" decodes to three zero bytes, "AQID" to 1 2 3, "BAUG" to 4 5 6. */
	static const char text[] =
	    "# a comment\n"
	    "git.example ssh-ed25519 AQID\n"
	    "[git.example]:2222 ssh-ed25519 BAUG\n"
	    "*.corp.example,!bad.corp.example ssh-rsa BwgJ\n"
	    "|1|c2FsdA==|aGFzaA== ssh-ed25519 CgsM\n"
	    "|1|MDEyMzQ1Njc4OWFiY2RlZjAxMjM=|0c5hvAzj4jHYCLzfNW3jMe5rRl8= ssh-ed25519 FhcY\n"
	    "elsewhere.example ssh-ed25519 DQ4P\n"
	    "@revoked * ssh-ed25519 BAUG\n"
	    "@cert-authority git.example ssh-ed25519 EBES\n"
	    "[127.0.0.1]:2201 ssh-ed25519 ExQV\r\n"
	    "broken-line-without-key\n";
	char *hosts[] = {"git.example:22",
			 "git.example:2222",
			 "ok.corp.example:22",
			 "bad.corp.example:22",
			 "127.0.0.1:2201",
			 "git.example:2200",
			 NULL};
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	struct known_keys keys = {NULL, NULL, 0};
	int rc = known_hosts_select(text, sizeof text - 1, hosts, 6, f, &keys);
	fclose(f);
	tap_ok(rc == 0, "known_hosts: read");
	static const uint8_t k123[] = {1, 2, 3}, k456[] = {4, 5, 6}, k789[] = {7, 8, 9},
			     kabc[] = {10, 11, 12}, kdef[] = {13, 14, 15}, k192[] = {19, 20, 21},
			     k222[] = {22, 23, 24};
	tap_ok(known_keys_has(&keys, k123, 3), "the allowed host's key at port 22 is known");
	tap_ok(!known_keys_has(&keys, k456, 3),
	       "a revoked key is not, though listed for an allowed host");
	tap_ok(known_keys_has(&keys, k789, 3), "a wildcard line names an allowed host");
	tap_ok(!known_keys_has(&keys, kabc, 3),
	       "a hashed line whose hash is malformed is not matched");
	tap_ok(known_keys_has(&keys, k222, 3),
	       "a hashed line (HashKnownHosts) of an allowed host is");
	tap_ok(!known_keys_has(&keys, kdef, 3), "another host's key is not known");
	tap_ok(known_keys_has(&keys, k192, 3),
	       "[address]:port with brackets is literal, and CRLF is read");
	tap_ok(out && strstr(out, "git.example ssh-ed25519 AQID\n") &&
		   strstr(out, "[git.example]:2222 ssh-ed25519 BAUG\n") &&
		   strstr(out, "ok.corp.example ssh-rsa BwgJ\n") &&
		   !strstr(out, "bad.corp.example") && !strstr(out, "elsewhere") &&
		   strstr(out, "@revoked * ssh-ed25519 BAUG\n") &&
		   !strstr(out, "@cert-authority") &&
		   strstr(out, "[git.example]:2200 ssh-ed25519 FhcY\n") && !strstr(out, "|1|"),
	       "the written file names only the allowed hosts, the negated one left out, "
	       "revocations kept");
	free(out);
	known_keys_free(&keys);

	char name[300];
	known_hosts_name("git.example:22", name, sizeof name);
	tap_ok(strcmp(name, "git.example") == 0, "port 22: the plain name");
	known_hosts_name("[::1]:2222", name, sizeof name);
	tap_ok(strcmp(name, "[::1]:2222") == 0, "IPv6 at another port: [addr]:port");
	known_hosts_name("[::1]:22", name, sizeof name);
	tap_ok(strcmp(name, "::1") == 0, "IPv6 at port 22: the bare address");

	/* FIPS 180 and RFC 2202 vectors. */
	uint8_t d[SHA1_DIGEST_LEN], key[20];
	static const uint8_t abc_sha1[] = {0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81,
					   0x6a, 0xba, 0x3e, 0x25, 0x71, 0x78, 0x50,
					   0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d};
	static const uint8_t rfc2202_1[] = {0xb6, 0x17, 0x31, 0x86, 0x55, 0x05, 0x72,
					    0x64, 0xe2, 0x8b, 0xc0, 0xb6, 0xfb, 0x37,
					    0x8c, 0x8e, 0xf1, 0x46, 0xbe, 0x00};
	static const uint8_t rfc2202_6[] = {0xaa, 0x4a, 0xe5, 0xe1, 0x52, 0x72, 0xd0,
					    0x0e, 0x95, 0x70, 0x56, 0x37, 0xce, 0x8a,
					    0x3b, 0x55, 0xed, 0x40, 0x21, 0x12};
	sha1((const uint8_t *)"abc", 3, d);
	tap_ok(memcmp(d, abc_sha1, sizeof d) == 0, "sha1(\"abc\")");
	memset(key, 0x0b, sizeof key);
	hmac_sha1(key, sizeof key, (const uint8_t *)"Hi There", 8, d);
	tap_ok(memcmp(d, rfc2202_1, sizeof d) == 0, "HMAC-SHA1, RFC 2202 case 1");
	uint8_t long_key[80];
	memset(long_key, 0xaa, sizeof long_key);
	static const char msg6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	hmac_sha1(long_key, sizeof long_key, (const uint8_t *)msg6, sizeof msg6 - 1, d);
	tap_ok(memcmp(d, rfc2202_6, sizeof d) == 0,
	       "HMAC-SHA1, RFC 2202 case 6 (a key longer than a block)");

	uint8_t b[8];
	tap_ok(known_hosts_base64_decode("AQID", 4, b, sizeof b) == 3, "base64: a whole quantum");
	tap_ok(known_hosts_base64_decode("AQ==", 4, b, sizeof b) == 1, "base64: padding");
	tap_ok(known_hosts_base64_decode("AQ=D", 4, b, sizeof b) < 0,
	       "base64: data after padding refused");
	tap_ok(known_hosts_base64_decode("A!ID", 4, b, sizeof b) < 0, "base64: a bad byte refused");
	tap_ok(known_hosts_base64_decode("AQIDBAUG", 8, b, 4) < 0,
	       "base64: more than the room refused");
}

int main(void)
{
	test_frames();
	test_strings();
	test_refused_types();
	test_unbound();
	test_bound();
	test_known_hosts();
	return tap_done();
}
