/*
 * libFuzzer target for the --allow-ssh agent filter's reader.
 *
 *   make fuzz FUZZ_SECONDS=60   (builds and runs every target)
 *
 * The input is a stream of agent frames, judged in order on one
 * connection, each "answered" by the byte after it; then the whole input
 * is read as a known_hosts file. Besides crashes, leaks and undefined
 * behaviour it traps when a promise is broken:
 * - only a key listing, a sign-request or a session-bind is ever forwarded;
 * - nothing is forwarded before a bind succeeded, but the bind itself;
 * - a forwarded signature's data begins with the bound session identifier.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/agent_msg.h"
#include "proxy/known_hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

/* Every key whose blob starts with 'K' counts as an allowed host's. */
static bool known(void *ctx, const uint8_t *blob, size_t len)
{
	return len > 0 && blob[0] == 'K';
}

static void judge_stream(const uint8_t *data, size_t size)
{
	struct agent_conn_state s = {.bound = false};
	char why[256];
	size_t off = 0;
	while (size - off >= 4) {
		uint32_t len;
		if (agent_frame_length(data + off, &len) < 0 || len > size - off - 4)
			return;
		/* A copy of exactly len bytes: a sanitizer sees any read past it. */
		uint8_t *msg = malloc(len);
		memcpy(msg, data + off + 4, len);
		off += 4 + len;
		bool was_bound = s.bound;
		enum agent_verdict v = agent_judge(&s, msg, len, known, NULL, why, sizeof why);
		if (v == AGENT_FORWARD) {
			CHECK(msg[0] == AGENT_REQUEST_IDENTITIES || msg[0] == AGENT_SIGN_REQUEST ||
			      msg[0] == AGENT_EXTENSION);
			CHECK(was_bound || msg[0] == AGENT_EXTENSION);
			if (msg[0] == AGENT_SIGN_REQUEST) {
				struct agent_cursor c = {msg + 1, len - 1}, d;
				const uint8_t *key, *body, *sid;
				size_t key_len, body_len, sid_len;
				CHECK(agent_read_string(&c, &key, &key_len) == 0 &&
				      agent_read_string(&c, &body, &body_len) == 0);
				d = (struct agent_cursor){body, body_len};
				CHECK(agent_read_string(&d, &sid, &sid_len) == 0 &&
				      sid_len == s.session_id_len &&
				      memcmp(sid, s.session_id, sid_len) == 0);
			}
		} else {
			CHECK(why[0] != '\0');
		}
		uint8_t answer = off < size ? data[off++] : AGENT_FAILURE;
		agent_answered(&s, &answer, 1);
		free(msg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	judge_stream(data, size);
	char *hosts[] = {"git.example:22", "[::1]:2222", "127.0.0.1:2201", NULL};
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	struct known_keys keys = {NULL, NULL, 0};
	if (f) {
		known_hosts_select((const char *)data, size, hosts, 3, f, &keys);
		fclose(f);
	}
	free(out);
	known_keys_free(&keys);
	return 0;
}
