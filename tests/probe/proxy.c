/* The probe's actions: proxy-only networking. */
#include "probe.h"

/* ---- proxy-only networking (R-35, R-36) -------------------------------- */

/* connect-tcp6 ADDR PORT: TCP over IPv6; connect-mptcp ADDR PORT: MPTCP over IPv4. */
int do_connect_other(char **args)
{
	long port;
	if (!parse_int(args[1], &port) || port <= 0 || port > 65535)
		return usage_error("wants an address and a port, got", args[1]);
	if (strcmp(action_name, "connect-tcp6") == 0) {
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
		if (inet_pton(AF_INET6, args[0], &a.sin6_addr) != 1)
			return usage_error("not an IPv6 address:", args[0]);
		return connect_to(AF_INET6, &a, sizeof a, args[0]);
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, args[0], &a.sin_addr) != 1)
		return usage_error("not an IPv4 address:", args[0]);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 262 /* IPPROTO_MPTCP */);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket(IPPROTO_MPTCP)", args[0]);
	int rc = connect(fd, (struct sockaddr *)&a, sizeof a) == 0
		     ? PROBE_DID_IT
		     : failed(REFUSE_CONNECT, "connect", args[0]);
	close(fd);
	return rc;
}

/* C escapes in a request written on the command line: \r \n \0 \\ \xHH. */
static size_t unescape(const char *in, char *out, size_t size)
{
	size_t n = 0;
	for (const char *p = in; *p && n < size; p++) {
		if (*p != '\\' || !p[1]) {
			out[n++] = *p;
			continue;
		}
		p++;
		if (*p == 'r')
			out[n++] = '\r';
		else if (*p == 'n')
			out[n++] = '\n';
		else if (*p == '0')
			out[n++] = '\0';
		else if (*p == 'x' && p[1] && p[2]) {
			char hex[3] = {p[1], p[2], 0};
			out[n++] = (char)strtol(hex, NULL, 16);
			p += 2;
		} else
			out[n++] = *p;
	}
	return n;
}

/*
 * udp-send ADDR PORT TEXT: one datagram (IPv4 or IPv6); tfo-send ADDR PORT
 * TEXT: TCP Fast Open (sendto MSG_FASTOPEN). Whether anything arrived is
 * judged by the receiver, outside.
 */
int do_send_other(char **args)
{
	long port;
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof ss);
	if (!parse_int(args[1], &port) || port <= 0 || port > 65535)
		return usage_error("wants an address and a port, got", args[1]);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, args[0], &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		len = sizeof *a4;
	} else if (inet_pton(AF_INET6, args[0], &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		len = sizeof *a6;
	} else {
		return usage_error("not an address:", args[0]);
	}
	bool tfo = strcmp(action_name, "tfo-send") == 0;
	int fd = socket(ss.ss_family, (tfo ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_SOCKET, "socket", args[0]);
	char text[1024];
	size_t tn = unescape(args[2], text, sizeof text);
	ssize_t n = sendto(fd, text, tn, tfo ? 0x20000000 /* MSG_FASTOPEN */ : 0,
			   (struct sockaddr *)&ss, len);
	int rc = n >= 0 ? PROBE_DID_IT : failed(REFUSE_CONNECT, "sendto", args[0]);
	close(fd);
	return rc;
}

/* Read into buf until EOF, stop (if found) or a quiet 3 s; the length. */
static size_t read_some(int fd, char *buf, size_t size, size_t have, const char *stop)
{
	while (have + 1 < size) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 3000) != 1)
			break;
		ssize_t r = read(fd, buf + have, size - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = 0;
		if (stop && memmem(buf, have, stop, strlen(stop)))
			break;
	}
	buf[have] = 0;
	return have;
}

/*
 * proxy-request REQ [TUNNEL]: send REQ (C escapes read) to the proxy that
 * $HTTP_PROXY names (http://ADDR:PORT), print the answer; on a 200 with
 * TUNNEL, send that through the tunnel and print what comes back. Exit:
 * did it on 200, refused on 403 (or a refused connect), error otherwise.
 */
int do_proxy_request(char **args)
{
	const char *proxy = getenv("HTTP_PROXY");
	char host[64];
	long port;
	if (!proxy || sscanf(proxy, "http://%63[0-9.]:%ld", host, &port) != 2)
		return usage_error("HTTP_PROXY is not http://ADDR:PORT:", proxy ? proxy : "(unset)");
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return usage_error("HTTP_PROXY address:", host);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(REFUSE_CONNECT, "socket", proxy);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int rc = failed(REFUSE_CONNECT, "connect to the proxy", proxy);
		close(fd);
		return rc;
	}
	static char req[8192], resp[65536];
	size_t n = unescape(args[0], req, sizeof req);
	if (write(fd, req, n) != (ssize_t)n) {
		close(fd);
		return failed(REFUSE_CONNECT, "write", proxy);
	}
	bool tunnel = args[1] != NULL;
	size_t got = read_some(fd, resp, sizeof resp, 0, tunnel ? "\r\n\r\n" : NULL);
	int status = 0;
	(void)sscanf(resp, "HTTP/1.%*d %d", &status);
	if (status == 200 && tunnel) {
		n = unescape(args[1], req, sizeof req);
		if (write(fd, req, n) == (ssize_t)n)
			got = read_some(fd, resp, sizeof resp, got, NULL);
	}
	close(fd);
	for (size_t i = 0; i < got; i++)
		if (resp[i] == 0)
			resp[i] = ' ';
	fwrite(resp, 1, got, stdout);
	fprintf(stderr, "probe: %s: status %d\n", action_name, status);
	return status == 200 ? PROBE_DID_IT : status == 403 ? PROBE_REFUSED : PROBE_ERROR;
}
