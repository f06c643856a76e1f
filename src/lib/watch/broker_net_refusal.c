/* Explaining connections around the run's proxy (see broker_net_refusal.h). */
#include "broker_net_refusal.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

void broker_net_refusal_record(struct denial_store *denials, const struct sockaddr_storage *addr,
			       socklen_t len, int type)
{
	char text[INET6_ADDRSTRLEN] = "";
	unsigned port = 0;
	struct denial d;

	if (!denials)
		return;
	if (addr->ss_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
		inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
		port = ntohs(in->sin_port);
	} else if (addr->ss_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
		inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
		port = ntohs(in6->sin6_port);
	} else {
		return;
	}
	memset(&d, 0, sizeof d);
	snprintf(d.op, sizeof d.op, "%s", type == SOCK_STREAM ? "connect" : "send");
	snprintf(d.subject, sizeof d.subject, addr->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 text, port);
	/* A lookup of its own is the usual first sign: say what it is. */
	snprintf(d.reason, sizeof d.reason, "%s",
		 type != SOCK_STREAM && port == 53
		     ? "a DNS lookup of the program's own: it ignored the proxy settings "
		       "(HTTP_PROXY, HTTPS_PROXY), and on tier T2 only the run's proxy is "
		       "reached"
		     : "the program ignored the proxy settings (HTTP_PROXY, HTTPS_PROXY), and "
		       "on tier T2 only the run's proxy is reached");
	snprintf(d.rule, sizeof d.rule, "proxy");
	denial_store_add(denials, &d);
}
