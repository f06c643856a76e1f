/*
 * agent-request MSG...: speak the SSH agent protocol to $SSH_AUTH_SOCK on
 * one connection: each MSG (C escapes: \xNN, \0) is sent as one
 * framed request and the type of the answer printed ("answer 5"). Exit:
 * did it when the last answer is not SSH_AGENT_FAILURE (5), refused when
 * it is (or the socket refuses the connect), error otherwise.
 */
#include "probe.h"

static size_t agent_unescape(const char *in, uint8_t *out, size_t size)
{
	size_t n = 0;
	for (const char *p = in; *p && n < size; p++) {
		if (*p != '\\' || !p[1]) {
			out[n++] = (uint8_t)*p;
			continue;
		}
		p++;
		if (*p == '0') {
			out[n++] = 0;
		} else if (*p == 'x' && p[1] && p[2]) {
			char hex[3] = {p[1], p[2], 0};
			out[n++] = (uint8_t)strtol(hex, NULL, 16);
			p += 2;
		} else {
			out[n++] = (uint8_t)*p;
		}
	}
	return n;
}

static bool read_exact(int fd, uint8_t *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 10000) != 1)
			return false;
		ssize_t r = read(fd, buf + got, len - got);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

int do_agent_request(char **args)
{
	const char *path = getenv("SSH_AUTH_SOCK");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!path || !path[0] || strlen(path) >= sizeof a.sun_path)
		return usage_error("SSH_AUTH_SOCK names no socket:", path ? path : "(unset)");
	memcpy(a.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "socket", path);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int rc = failed(REFUSE_CONNECT, "connect", path);
		close(fd);
		return rc;
	}
	int last = -1;
	for (; *args; args++) {
		static uint8_t msg[8192], answer[65536];
		size_t n = agent_unescape(*args, msg + 4, sizeof msg - 4);
		msg[0] = (uint8_t)(n >> 24);
		msg[1] = (uint8_t)(n >> 16);
		msg[2] = (uint8_t)(n >> 8);
		msg[3] = (uint8_t)n;
		uint8_t header[4];
		if (write(fd, msg, n + 4) != (ssize_t)(n + 4) || !read_exact(fd, header, 4)) {
			close(fd);
			return usage_error("no answer from", path);
		}
		uint32_t len = (uint32_t)header[0] << 24 | (uint32_t)header[1] << 16 |
			       (uint32_t)header[2] << 8 | header[3];
		if (len == 0 || len > sizeof answer || !read_exact(fd, answer, len)) {
			close(fd);
			return usage_error("a malformed answer from", path);
		}
		last = answer[0];
		printf("answer %d\n", last);
	}
	close(fd);
	fprintf(stderr, "probe: %s: last answer %d\n", action_name, last);
	return last == 5 ? PROBE_REFUSED : last >= 0 ? PROBE_DID_IT : PROBE_ERROR;
}
