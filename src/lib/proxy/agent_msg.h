/*
 * The SSH agent protocol as the run's agent filter reads it
 * (draft-miller-ssh-agent, OpenSSH's PROTOCOL.agent), and the filter's
 * judgement of each request. Pure functions over bytes: no socket,
 * no allocation, every length checked against what is really there.
 *
 * A message is a uint32 length (big-endian) and that many bytes, the
 * first of which is the type. The filter reads at most AGENT_MSG_MAX.
 */
#ifndef PROCAGE_PROXY_AGENT_MSG_H
#define PROCAGE_PROXY_AGENT_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* OpenSSH's own agent takes at most 256 KiB; a request is far smaller. */
#define AGENT_MSG_MAX (256 * 1024)
/* A session identifier is a hash: 64 bytes for SHA-512, kept with room. */
#define AGENT_SESSION_ID_MAX 128

enum agent_type {
	AGENT_FAILURE = 5,
	AGENT_SUCCESS = 6,
	AGENT_REQUEST_IDENTITIES = 11,
	AGENT_IDENTITIES_ANSWER = 12,
	AGENT_SIGN_REQUEST = 13,
	AGENT_SIGN_RESPONSE = 14,
	AGENT_ADD_IDENTITY = 17,
	AGENT_REMOVE_IDENTITY = 18,
	AGENT_REMOVE_ALL_IDENTITIES = 19,
	AGENT_ADD_SMARTCARD_KEY = 20,
	AGENT_REMOVE_SMARTCARD_KEY = 21,
	AGENT_LOCK = 22,
	AGENT_UNLOCK = 23,
	AGENT_ADD_ID_CONSTRAINED = 25,
	AGENT_ADD_SMARTCARD_KEY_CONSTRAINED = 26,
	AGENT_EXTENSION = 27,
};

/* A length prefix: 0 and the length, or -EMSGSIZE (empty or above AGENT_MSG_MAX). */
int agent_frame_length(const uint8_t header[4], uint32_t *len);

/* A cursor over untrusted bytes. */
struct agent_cursor {
	const uint8_t *p;
	size_t left;
};
int agent_read_u8(struct agent_cursor *c, uint8_t *out);
int agent_read_u32(struct agent_cursor *c, uint32_t *out);
/* An SSH string: its bytes stay where they are (*out points into the message). */
int agent_read_string(struct agent_cursor *c, const uint8_t **out, size_t *len);

/* Is blob (an SSH public key blob) one the filter may bind a session to? */
typedef bool (*agent_key_known_fn)(void *ctx, const uint8_t *blob, size_t len);

/* One connection's state: the session it is bound to, if any. */
struct agent_conn_state {
	bool bound;
	uint8_t session_id[AGENT_SESSION_ID_MAX];
	size_t session_id_len;
	/* A bind forwarded to the agent, kept until its answer. */
	bool bind_pending;
	uint8_t pending_id[AGENT_SESSION_ID_MAX];
	size_t pending_id_len;
};

enum agent_verdict {
	AGENT_FORWARD, /* relay to the caller's agent */
	AGENT_REFUSE,  /* answer AGENT_FAILURE, report why */
};

/*
 * Judge one request (msg: the body after the length, len >= 1). Allowed:
 * a key listing and a signature on a connection bound, by
 * session-bind@openssh.com, to a known host key, the signature only over
 * data that begins with the bound session's identifier; the bind itself
 * when its host key is known and it is not a forwarding bind. Everything
 * else is refused, with why (a short text, fit for a report) in why.
 */
enum agent_verdict agent_judge(struct agent_conn_state *state, const uint8_t *msg, size_t len,
			       agent_key_known_fn known, void *known_ctx, char *why,
			       size_t why_size);

/* The agent's answer to a forwarded request: a bind counts only on AGENT_SUCCESS. */
void agent_answered(struct agent_conn_state *state, const uint8_t *msg, size_t len);

/* A request type's name ("sign-request", "add-identity", ...). */
const char *agent_type_name(uint8_t type);

#endif
