/*
 * Transparent egress (tier T1, network mode proxy): connections of programs
 * that ignore HTTP(S)_PROXY are captured inside the run's network namespace
 * and checked by the same allowlist as the proxy's own requests.
 *
 * The run's resolver is procage's (dns.c, on 127.0.0.53 in the namespace,
 * named by the run's /etc/resolv.conf): an allowed name gets a stand-in
 * address of its own from CAPTURE_STANDIN_NET (127.100.0.0/16, on the
 * namespace's loopback), a name not allowed gets NXDOMAIN and a refusal
 * report. A TCP connection to a stand-in address arrives at a capture
 * listener (0.0.0.0:port in the namespace, one per port the allowlist can
 * allow) and becomes a proxy connection to name:port, as a CONNECT would
 * be: the name is procage's record for that address, never anything the
 * run wrote, and the allowlist, the questions (--ask), the resolution and
 * the checks of the resolved addresses all apply as to a CONNECT.
 *
 * A connection to an address procage never handed out (a raw address, a
 * stand-in never given) is refused and reported: capture gives a run a
 * way to reach names, not addresses.
 */
#ifndef PROCAGE_PROXY_CAPTURE_H
#define PROCAGE_PROXY_CAPTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procage.h"
#include "conn.h"
#include "dest.h"

/* 127.100.0.0/16: the stand-in addresses, in host order. */
#define CAPTURE_STANDIN_NET 0x7f640000u
#define CAPTURE_STANDIN_MASK 0xffff0000u
/* Names given a stand-in address in one run; more get SERVFAIL. */
#define CAPTURE_MAX_NAMES 4096
/* Sockets handed over by the run's namespace: the resolver's and the listeners. */
#define CAPTURE_MAX_SOCKETS 17
/* An address of the namespace's lo that is not loopback (run/capture_setup.c). */
#define CAPTURE_ADDRCONFIG_ADDR 0xc6120001u /* 198.18.0.1 */
/* The resolver's address in the run's network namespace. */
#define CAPTURE_DNS_ADDR 0x7f000035u /* 127.0.0.53 */

/* The name behind each stand-in address: the loop and the resolver thread share it. */
struct capture_map {
	pthread_mutex_t lock;
	char (*names)[DEST_NAME_MAX_LEN + 1]; /* index i: address CAPTURE_STANDIN_NET + 1 + i */
	size_t n, cap;
};

/* A capture listener as the proxy's loop knows it (its tag first). */
struct capture_listener {
	struct tag tag; /* TAG_CAPTURE */
	int fd;
	uint16_t port;
};

struct capture {
	struct capture_map map;
	int dns_fd; /* UDP, 127.0.0.53:53 in the run's namespace, or -1 */
	struct capture_listener listeners[CAPTURE_MAX_SOCKETS];
	size_t n_listeners;
	int stop_fd; /* the resolver thread's: readable once stopping */
	bool dns_started;
	pthread_t dns_thread;
	struct proxy *proxy;
};

/*
 * Take over the sockets made in the run's namespace (a datagram socket is
 * the resolver's, a listening stream socket a capture listener); they are
 * closed by capture_free, also when this fails.
 */
int capture_new(const int *fds, size_t n, struct capture **out, struct procage_error *err);
void capture_free(struct capture *capture);

/* The stand-in address of name (made now if new), host order; 0: none left. */
uint32_t capture_map_address(struct capture_map *map, const char *name);
/* The name behind a stand-in address into out; false when none was handed out. */
bool capture_map_name(struct capture_map *map, uint32_t addr, char *out, size_t size);

/*
 * The ports captured for an allowlist's entries: 443 and 80 (what a name
 * entry without a port allows) and each port a "name:port" entry gives,
 * but never skip (the proxy's own), at most max. Returns how many.
 */
size_t capture_ports(const char *const *entries, size_t n, uint16_t skip, uint16_t *out,
		     size_t max);

/* The proxy's loop: start and stop the resolver thread (dns.c). */
int capture_dns_start(struct capture *capture, struct proxy *proxy, struct procage_error *err);
void capture_dns_stop(struct capture *capture);

/* Close a captured connection with a reset, so that it reads as refused. */
void capture_reset(int fd);

/* The proxy's loop: a capture listener is readable. */
void capture_accept(struct proxy *proxy, struct capture_listener *listener);

#endif
