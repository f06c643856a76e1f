/* The probe's actions: transparent egress (the run's resolver and capture). */
#include "probe.h"

/* The A record of name from the DNS server at 127.0.0.53:53; 0 with no answer. */
static int dns_a(const char *name, struct in_addr *out)
{
	unsigned char q[300] = {0x51, 0x7e, 0x01, 0x00, 0x00, 0x01}, a[1500];
	size_t n = 12;
	for (const char *p = name; *p;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if (len == 0 || len > 63 || n + len + 6 > sizeof q)
			return -1;
		q[n++] = (unsigned char)len;
		memcpy(q + n, p, len);
		n += len;
		p += len + (dot ? 1 : 0);
	}
	q[n++] = 0;
	q[n++] = 0, q[n++] = 1, q[n++] = 0, q[n++] = 1; /* A, IN */
	struct sockaddr_in s = {
	    .sin_family = AF_INET, .sin_port = htons(53), .sin_addr = {htonl(0x7f000035)}};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, q, n, 0, (struct sockaddr *)&s, sizeof s) != (ssize_t)n) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct pollfd p = {fd, POLLIN, 0};
	ssize_t got = poll(&p, 1, 5000) == 1 ? recv(fd, a, sizeof a, 0) : -1;
	close(fd);
	/* The answer is the question, then one record whose last four bytes are the address. */
	if (got < (ssize_t)n + 16 || (a[3] & 0xf) != 0 || a[7] != 1)
		return 0;
	memcpy(out, a + n + 12, 4);
	return 1;
}

/*
 * dns-connect NAME PORT REQ: look NAME up at the run's resolver itself
 * (127.0.0.53, not through /etc/hosts), connect to the address it gives at
 * PORT, send REQ (C escapes read as \r \n only) and print what comes back.
 * Exit: did it when an answer came, refused when the name has no address
 * or the connection was refused or reset.
 */
int do_dns_connect(char **args)
{
	long port;
	struct sockaddr_in a = {.sin_family = AF_INET};
	char req[1024], resp[8192];
	size_t n = 0;

	if (!parse_int(args[1], &port) || port <= 0 || port > 65535)
		return usage_error("wants a name and a port, got", args[1]);
	int found = dns_a(args[0], &a.sin_addr);
	if (found < 0)
		return failed(REFUSE_CONNECT, "the DNS query", args[0]);
	if (found == 0) {
		fprintf(stderr, "probe: %s: %s has no address\n", action_name, args[0]);
		return PROBE_REFUSED;
	}
	a.sin_port = htons((uint16_t)port);
	printf("address %s\n", inet_ntoa(a.sin_addr));
	for (const char *p = args[2]; *p && n + 1 < sizeof req; p++) {
		if (p[0] == '\\' && (p[1] == 'r' || p[1] == 'n')) {
			req[n++] = p[1] == 'r' ? '\r' : '\n';
			p++;
		} else {
			req[n++] = *p;
		}
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    write(fd, req, n) != (ssize_t)n) {
		int rc = failed(REFUSE_CONNECT, "connect", args[0]);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	size_t have = 0;
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 5000) != 1)
			break;
		ssize_t r = read(fd, resp + have, sizeof resp - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		if (have + 1 == sizeof resp)
			break;
	}
	close(fd);
	resp[have] = 0;
	fputs(resp, stdout);
	return have ? PROBE_DID_IT : PROBE_REFUSED;
}
