/*
 * Part of the seccomp unit test (see test_seccomp.c): socket and socketpair
 * in the BPF simulator on every variant and ABI. Whole matrices of family,
 * type and protocol against the rule the cage means (network, Unix sockets
 * and the network broker each change it), named cases, and the upper bits
 * of 64-bit registers, which the kernel drops and the filter must too.
 */
#include "seccomp_sim.h"

#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* What the filter should answer for socket(family, type, protocol). */
static bool socket_refused(uint32_t family, uint32_t type, uint32_t protocol, bool net_on,
			   bool unix_on, bool net_broker)
{
	if (family == AF_UNIX)
		return !unix_on;
	if (!net_on)
		return true;
	if (family == AF_NETLINK)
		return protocol != NETLINK_ROUTE;
	if (family != AF_INET && family != AF_INET6)
		return true;
	if ((type & 0xf) == SOCK_RAW || (type & 0xf) == SOCK_PACKET)
		return true;
	/* The network broker judges TCP and UDP only (SCTP connects through options). */
	if (net_broker)
		return protocol != 0 && protocol != IPPROTO_TCP && protocol != IPPROTO_UDP;
	return protocol == IPPROTO_MPTCP;
}

static void check_socket_matrix(int v, const struct abi *abi)
{
	static const uint32_t extra_families[] = { 255, 0xffff, 0x7fffffff, 0x80000000u,
						   0xffffffffu };
	static const uint32_t types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
					  SOCK_SEQPACKET, SOCK_PACKET, SOCK_RDM };
	static const uint32_t type_flags[] = { 0, SOCK_NONBLOCK, SOCK_CLOEXEC };
	static const uint32_t protocols[] = { 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
					      IPPROTO_RAW, IPPROTO_MPTCP, NETLINK_SOCK_DIAG,
					      NETLINK_XFRM, NETLINK_AUDIT, NETLINK_KOBJECT_UEVENT,
					      0x10000106 };
	long nr = abi_nr(abi, "socket");
	unsigned runs = 0, mismatches = 0;
	char first[96] = "";
	for (uint32_t f = 0; f < AF_MAX + 20 + N_ELEMS(extra_families); f++) {
		uint32_t family = f < AF_MAX + 20 ? f : extra_families[f - AF_MAX - 20];
		for (size_t t = 0; t < N_ELEMS(types) * N_ELEMS(type_flags); t++) {
			uint32_t type = types[t / N_ELEMS(type_flags)] |
					type_flags[t % N_ELEMS(type_flags)];
			for (size_t p = 0; p < N_ELEMS(protocols); p++) {
				bool refused = socket_refused(
				    family, type, protocols[p], variant_net(v), variant_unix(v),
				    seccomp_program_options((size_t)v).net_broker);
				uint32_t want = variant_answer(v, refused ? RET_EPERM
									  : SECCOMP_RET_ALLOW);
				uint32_t got = run_nr(&progs[v], abi->audit_arch, nr,
						      ARGS(family, type, protocols[p]));
				runs++;
				if (got != want && !mismatches++)
					snprintf(first, sizeof first, "(%#x, %#x, %#x) got %#x",
						 family, type, protocols[p], got);
			}
		}
	}
	sim_ok(mismatches == 0,
	       "%s, %s: socket family/type/protocol matrix, %u cases, %u mismatches %s",
	       variant_name(v), abi->name, runs, mismatches, first);
}

/*
 * What the filter should answer for socketpair(family, type, ...): AF_UNIX
 * only; with Unix sockets off, only stream and seqpacket pairs (the low 4
 * bits of the type; the flags above do not matter), never datagram ones.
 */
static bool socketpair_refused(uint32_t family, uint32_t type, bool unix_on)
{
	if (family != AF_UNIX)
		return true;
	if (unix_on)
		return false;
	return (type & 0xf) != SOCK_STREAM && (type & 0xf) != SOCK_SEQPACKET;
}

static void check_socketpair_matrix(int v, const struct abi *abi)
{
	static const uint32_t extra_families[] = { 255, 0xffff, 0x80000000u | AF_UNIX,
						   0xffffffffu };
	/* Above the low 4 bits: the two flags, and bits the kernel refuses
	 * (EINVAL) that the filter must not read as another type either. */
	static const uint32_t type_flags[] = { 0,
					       SOCK_NONBLOCK,
					       SOCK_CLOEXEC,
					       SOCK_NONBLOCK | SOCK_CLOEXEC,
					       0x10,
					       0x80000000u | SOCK_CLOEXEC };
	long nr = abi_nr(abi, "socketpair");
	unsigned runs = 0, mismatches = 0;
	char first[96] = "";
	for (uint32_t f = 0; f < AF_MAX + 20 + N_ELEMS(extra_families); f++) {
		uint32_t family = f < AF_MAX + 20 ? f : extra_families[f - AF_MAX - 20];
		for (size_t t = 0; t < 16 * N_ELEMS(type_flags); t++) {
			uint32_t type = (uint32_t)(t / N_ELEMS(type_flags)) |
					type_flags[t % N_ELEMS(type_flags)];
			for (uint32_t protocol = 0; protocol < 2; protocol++) {
				bool refused = socketpair_refused(family, type, variant_unix(v));
				uint32_t want = variant_answer(v, refused ? RET_EPERM
									  : SECCOMP_RET_ALLOW);
				uint32_t got = run_nr(&progs[v], abi->audit_arch, nr,
						      ARGS(family, type, protocol));
				runs++;
				if (got != want && !mismatches++)
					snprintf(first, sizeof first, "(%#x, %#x, %u) got %#x",
						 family, type, protocol, got);
			}
		}
	}
	sim_ok(mismatches == 0,
	       "%s, %s: socketpair family/type matrix, %u cases, %u mismatches %s",
	       variant_name(v), abi->name, runs, mismatches, first);
}

void test_socket_matrix(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			check_socket_matrix(v, &abis[a]);
			check_socketpair_matrix(v, &abis[a]);
		}
}

/*
 * 64-bit registers: the kernel reads family, type and protocol as int.
 * Upper bits on a family make it unknown to the filter: refused. On type
 * and protocol the filter compares only the low bits, as the kernel does.
 */
static void check_socket_upper_bits(int v)
{
	const struct abi *x86_64 = &abis[0];
	expect(v, x86_64, "socket", ARGS(0x100000000ull | AF_UNIX, SOCK_STREAM), RET_EPERM,
	       "(AF_UNIX | 1 << 32) refused");
	expect(v, x86_64, "socket", ARGS(0x100000000ull | AF_PACKET, SOCK_RAW), RET_EPERM,
	       "(AF_PACKET | 1 << 32) refused");
	expect(v, x86_64, "socketpair", ARGS(0x100000000ull | AF_UNIX, SOCK_STREAM), RET_EPERM,
	       "(AF_UNIX | 1 << 32) refused");
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, 0xffffffff00000000ull | SOCK_STREAM),
	       SECCOMP_RET_ALLOW, "(AF_UNIX, SOCK_STREAM | upper bits) allowed");
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, 0x100000000ull | SOCK_SEQPACKET),
	       SECCOMP_RET_ALLOW, "(AF_UNIX, SOCK_SEQPACKET | 1 << 32) allowed");
	/* Upper bits do not turn a datagram pair into another type. */
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, 0xffffffff00000000ull | SOCK_DGRAM),
	       variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM,
	       variant_unix(v) ? "(AF_UNIX, SOCK_DGRAM | upper bits) allowed (unix on)"
			       : "(AF_UNIX, SOCK_DGRAM | upper bits) refused (unix off)");
	expect(v, x86_64, "socketpair", ARGS(AF_UNIX, (uint64_t)SOCK_STREAM << 32 | SOCK_DGRAM),
	       variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM,
	       variant_unix(v) ? "(AF_UNIX, SOCK_DGRAM | SOCK_STREAM << 32) allowed (unix on)"
			       : "(AF_UNIX, SOCK_DGRAM | SOCK_STREAM << 32) refused (unix off)");
	/* On i386 every socket call through socketcall is refused. */
	expect(v, &abis[2], "socketcall", ARGS(1 /* SYS_SOCKET */), RET_EPERM,
	       "(SYS_SOCKET) refused");
	expect(v, &abis[2], "socketcall", ARGS(8 /* SYS_SOCKETPAIR */), RET_EPERM,
	       "(SYS_SOCKETPAIR) refused");
	expect(v, &abis[2], "socketcall", ARGS(3 /* SYS_CONNECT */), RET_EPERM,
	       "(SYS_CONNECT) refused");
	if (!variant_net(v))
		return;
	expect(v, x86_64, "socket", ARGS(AF_INET, 0xffffffff00000000ull | SOCK_RAW), RET_EPERM,
	       "(AF_INET, SOCK_RAW | upper bits) refused");
	expect(v, x86_64, "socket", ARGS(AF_INET, SOCK_STREAM, 0x700000000ull | IPPROTO_MPTCP),
	       RET_EPERM, "(AF_INET, mptcp | upper bits) refused");
	expect(v, x86_64, "socket", ARGS(AF_NETLINK, SOCK_RAW, 0x100000000ull), RET_EPERM,
	       "(AF_NETLINK, upper bits) refused");
}

void test_socket_cases(void)
{
	static const struct {
		const char *what;
		uint64_t family, type, protocol;
		uint32_t want_off, want_on;
	} cases[] = {
		{ "AF_INET stream", AF_INET, SOCK_STREAM, 0, RET_EPERM, SECCOMP_RET_ALLOW },
		{ "AF_INET6 dgram", AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0, RET_EPERM,
		  SECCOMP_RET_ALLOW },
		{ "AF_INET ping", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, RET_EPERM, SECCOMP_RET_ALLOW },
		{ "AF_INET raw", AF_INET, SOCK_RAW, IPPROTO_RAW, RET_EPERM, RET_EPERM },
		{ "AF_INET6 raw|cloexec", AF_INET6, SOCK_RAW | SOCK_CLOEXEC, 0, RET_EPERM,
		  RET_EPERM },
		{ "AF_INET raw|nonblock", AF_INET, SOCK_RAW | SOCK_NONBLOCK, 1, RET_EPERM,
		  RET_EPERM },
		{ "AF_INET SOCK_PACKET", AF_INET, SOCK_PACKET, 0, RET_EPERM, RET_EPERM },
		{ "AF_INET mptcp", AF_INET, SOCK_STREAM, IPPROTO_MPTCP, RET_EPERM, RET_EPERM },
		{ "AF_INET6 mptcp", AF_INET6, SOCK_STREAM, IPPROTO_MPTCP, RET_EPERM, RET_EPERM },
		{ "netlink route", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, RET_EPERM,
		  SECCOMP_RET_ALLOW },
		{ "netlink audit", AF_NETLINK, SOCK_RAW, NETLINK_AUDIT, RET_EPERM, RET_EPERM },
		{ "netlink uevent", AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT, RET_EPERM,
		  RET_EPERM },
		{ "netlink sock_diag", AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG, RET_EPERM,
		  RET_EPERM },
		{ "netlink xfrm", AF_NETLINK, SOCK_RAW, NETLINK_XFRM, RET_EPERM, RET_EPERM },
		{ "AF_PACKET", AF_PACKET, SOCK_RAW, 0x300, RET_EPERM, RET_EPERM },
		{ "AF_VSOCK", AF_VSOCK, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
		{ "AF_BLUETOOTH", AF_BLUETOOTH, SOCK_RAW, 0, RET_EPERM, RET_EPERM },
		{ "AF_ALG", AF_ALG, SOCK_SEQPACKET, 0, RET_EPERM, RET_EPERM },
		{ "AF_XDP", AF_XDP, SOCK_RAW, 0, RET_EPERM, RET_EPERM },
		{ "AF_KEY", AF_KEY, SOCK_RAW, 2, RET_EPERM, RET_EPERM },
		{ "AF_UNSPEC", AF_UNSPEC, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
		{ "AF_MAX", AF_MAX, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
		{ "AF_MAX + 1", AF_MAX + 1, SOCK_STREAM, 0, RET_EPERM, RET_EPERM },
	};
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			for (size_t i = 0; i < N_ELEMS(cases); i++) {
				uint32_t want = variant_net(v) ? cases[i].want_on : cases[i].want_off;
				/* Ping sockets: not a transport the network broker judges. */
				if (seccomp_program_options((size_t)v).net_broker &&
				    cases[i].protocol == IPPROTO_ICMP)
					want = RET_EPERM;
				expect(v, &abis[a], "socket",
				       ARGS(cases[i].family, cases[i].type, cases[i].protocol), want,
				       cases[i].what);
			}
			/* AF_UNIX follows unix_sockets alone, whatever the network. */
			expect(v, &abis[a], "socket", ARGS(AF_UNIX, SOCK_SEQPACKET, 0),
			       variant_unix(v) ? SECCOMP_RET_ALLOW : RET_EPERM,
			       variant_unix(v) ? "AF_UNIX allowed" : "AF_UNIX refused");
		}
	for_each_variant(v)
		check_socket_upper_bits(v);
}
