/* The agent filter's reading and judgement of messages (agent_msg.h, R-53). */
#include "agent_msg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char session_bind[] = "session-bind@openssh.com";

int agent_frame_length(const uint8_t header[4], uint32_t *len)
{
	uint32_t n = (uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 |
		     (uint32_t)header[2] << 8 | header[3];
	if (n == 0 || n > AGENT_MSG_MAX)
		return -EMSGSIZE;
	*len = n;
	return 0;
}

int agent_read_u8(struct agent_cursor *c, uint8_t *out)
{
	if (c->left < 1)
		return -EBADMSG;
	*out = c->p[0];
	c->p++;
	c->left--;
	return 0;
}

int agent_read_u32(struct agent_cursor *c, uint32_t *out)
{
	if (c->left < 4)
		return -EBADMSG;
	*out = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 | (uint32_t)c->p[2] << 8 | c->p[3];
	c->p += 4;
	c->left -= 4;
	return 0;
}

int agent_read_string(struct agent_cursor *c, const uint8_t **out, size_t *len)
{
	uint32_t n;
	/* The length is compared with what is left, never added to a pointer first. */
	if (agent_read_u32(c, &n) < 0 || n > c->left)
		return -EBADMSG;
	*out = c->p;
	*len = n;
	c->p += n;
	c->left -= n;
	return 0;
}

const char *agent_type_name(uint8_t type)
{
	switch (type) {
	case AGENT_REQUEST_IDENTITIES:
		return "request-identities";
	case AGENT_SIGN_REQUEST:
		return "sign-request";
	case AGENT_ADD_IDENTITY:
		return "add-identity";
	case AGENT_REMOVE_IDENTITY:
		return "remove-identity";
	case AGENT_REMOVE_ALL_IDENTITIES:
		return "remove-all-identities";
	case AGENT_ADD_SMARTCARD_KEY:
		return "add-smartcard-key";
	case AGENT_REMOVE_SMARTCARD_KEY:
		return "remove-smartcard-key";
	case AGENT_LOCK:
		return "lock";
	case AGENT_UNLOCK:
		return "unlock";
	case AGENT_ADD_ID_CONSTRAINED:
		return "add-identity-constrained";
	case AGENT_ADD_SMARTCARD_KEY_CONSTRAINED:
		return "add-smartcard-key-constrained";
	case AGENT_EXTENSION:
		return "extension";
	default:
		return "unknown request";
	}
}

/* Printable text for an extension name the run wrote. */
static void name_escape(const uint8_t *name, size_t len, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 5 < size; i++) {
		if (name[i] >= 0x21 && name[i] < 0x7f && name[i] != '\\')
			out[o++] = (char)name[i];
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", name[i]);
	}
	out[o < size ? o : size - 1] = '\0';
}

/*
 * session-bind@openssh.com: string hostkey, string session_id, string
 * signature, bool is_forwarding. The caller's agent checks the signature
 * (it is forwarded); the filter checks what it can see: the host key is
 * one of the allowed hosts' known keys, the bind is not a forwarding one
 * (a cage forwards no agent), and the message holds nothing more.
 */
static enum agent_verdict judge_bind(struct agent_conn_state *s, struct agent_cursor *c,
				     agent_key_known_fn known, void *ctx, char *why, size_t size)
{
	const uint8_t *key, *sid, *sig;
	size_t key_len, sid_len, sig_len;
	uint8_t forwarding;
	if (agent_read_string(c, &key, &key_len) < 0 || agent_read_string(c, &sid, &sid_len) < 0 ||
	    agent_read_string(c, &sig, &sig_len) < 0 || agent_read_u8(c, &forwarding) < 0 ||
	    c->left != 0) {
		snprintf(why, size, "a malformed session-bind");
		return AGENT_REFUSE;
	}
	if (sid_len == 0 || sid_len > AGENT_SESSION_ID_MAX) {
		snprintf(why, size, "a session-bind with a session identifier of %zu bytes",
			 sid_len);
		return AGENT_REFUSE;
	}
	if (forwarding) {
		snprintf(why, size, "a session-bind for agent forwarding");
		return AGENT_REFUSE;
	}
	if (!known(ctx, key, key_len)) {
		snprintf(why, size,
			 "a session-bind to a host key no allowed host has in known_hosts");
		return AGENT_REFUSE;
	}
	if (s->bound) {
		/* One session per connection: a second bind would move the signatures elsewhere. */
		snprintf(why, size, "a second session-bind on one connection");
		return AGENT_REFUSE;
	}
	s->bind_pending = true;
	memcpy(s->pending_id, sid, sid_len);
	s->pending_id_len = sid_len;
	return AGENT_FORWARD;
}

/*
 * sign-request: string key blob, string data, uint32 flags. An SSH user
 * authentication signs data that begins with the session identifier as
 * a string: only that session's is let through.
 */
static enum agent_verdict judge_sign(const struct agent_conn_state *s, struct agent_cursor *c,
				     char *why, size_t size)
{
	const uint8_t *key, *data;
	size_t key_len, data_len;
	uint32_t flags;
	if (agent_read_string(c, &key, &key_len) < 0 ||
	    agent_read_string(c, &data, &data_len) < 0 || agent_read_u32(c, &flags) < 0 ||
	    c->left != 0) {
		snprintf(why, size, "a malformed sign-request");
		return AGENT_REFUSE;
	}
	if (!s->bound) {
		snprintf(why, size,
			 "a sign-request on a connection bound to no session of an allowed host");
		return AGENT_REFUSE;
	}
	struct agent_cursor d = {data, data_len};
	const uint8_t *sid;
	size_t sid_len;
	if (agent_read_string(&d, &sid, &sid_len) < 0 || sid_len != s->session_id_len ||
	    memcmp(sid, s->session_id, sid_len) != 0) {
		snprintf(why, size,
			 "a sign-request over data of another session than the bound one");
		return AGENT_REFUSE;
	}
	return AGENT_FORWARD;
}

enum agent_verdict agent_judge(struct agent_conn_state *s, const uint8_t *msg, size_t len,
			       agent_key_known_fn known, void *known_ctx, char *why, size_t size)
{
	struct agent_cursor c = {msg, len};
	uint8_t type;
	why[0] = '\0';
	if (agent_read_u8(&c, &type) < 0) {
		snprintf(why, size, "an empty request");
		return AGENT_REFUSE;
	}
	if (s->bind_pending) {
		/* The client waits for each answer; one that does not is refused. */
		snprintf(why, size, "a %s sent before the agent answered the session-bind",
			 agent_type_name(type));
		return AGENT_REFUSE;
	}
	switch (type) {
	case AGENT_REQUEST_IDENTITIES:
		if (c.left != 0) {
			snprintf(why, size, "a malformed request-identities");
			return AGENT_REFUSE;
		}
		if (!s->bound) {
			snprintf(
			    why, size,
			    "a key listing on a connection bound to no session of an allowed host");
			return AGENT_REFUSE;
		}
		return AGENT_FORWARD;
	case AGENT_SIGN_REQUEST:
		return judge_sign(s, &c, why, size);
	case AGENT_EXTENSION: {
		const uint8_t *name;
		size_t name_len;
		if (agent_read_string(&c, &name, &name_len) < 0) {
			snprintf(why, size, "a malformed extension request");
			return AGENT_REFUSE;
		}
		if (name_len == sizeof session_bind - 1 &&
		    memcmp(name, session_bind, name_len) == 0)
			return judge_bind(s, &c, known, known_ctx, why, size);
		char printable[96];
		name_escape(name, name_len < 64 ? name_len : 64, printable, sizeof printable);
		snprintf(why, size, "the extension \"%s\"", printable);
		return AGENT_REFUSE;
	}
	default:
		snprintf(why, size, "%s (message type %u)", agent_type_name(type), type);
		return AGENT_REFUSE;
	}
}

void agent_answered(struct agent_conn_state *s, const uint8_t *msg, size_t len)
{
	if (!s->bind_pending)
		return;
	s->bind_pending = false;
	if (len == 1 && msg[0] == AGENT_SUCCESS) {
		s->bound = true;
		memcpy(s->session_id, s->pending_id, s->pending_id_len);
		s->session_id_len = s->pending_id_len;
	}
}
