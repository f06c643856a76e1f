/*
 * The cage's seccomp programs, made at build time: src/gen/seccomp_gen.c
 * builds them with libseccomp from src/gen/seccomp_rules.c and writes
 * $(BUILD)/gen/seccomp_programs.c, which defines the table below. The
 * library only picks one, so it neither links nor runs libseccomp.
 */
#ifndef PROCAGE_SECCOMP_PROGRAMS_H
#define PROCAGE_SECCOMP_PROGRAMS_H

#include <linux/filter.h>
#include <stddef.h>

#include "seccomp.h"

struct seccomp_generated_program {
	const struct sock_filter *filter;
	unsigned short len;
};

/*
 * One program per variant that a cage can ask for (seccomp_program_exists),
 * indexed by the options' bits:
 *   bit 0  network_on      IP sockets and NETLINK_ROUTE allowed
 *   bit 1  report          refusals reported (USER_NOTIF), not EPERM
 *   bit 2  unix_sockets    socket(AF_UNIX) allowed
 *   bit 3  lock_sessions   setsid refused
 *   bit 4  own_ipc_namespace  SysV IPC allowed
 *   bit 5  broker          entry calls and writing opens sent to the broker
 *   bit 6  broker_metadata chmod, chown and utimes calls sent to the broker
 *   bit 7  broker_listing  opens of a directory (and openat2) sent to the broker
 *   bit 8  observe         path calls shown to the supervisor, refusals too
 *   bit 9  net_broker      connect, bind, listen and sends with an address
 *                          sent to the broker
 *   bit 10 broker_reads    every open (reading ones too) sent to the broker
 */
#define SECCOMP_PROGRAM_NETWORK_ON 1u
#define SECCOMP_PROGRAM_REPORT 2u
#define SECCOMP_PROGRAM_UNIX_SOCKETS 4u
#define SECCOMP_PROGRAM_LOCK_SESSIONS 8u
#define SECCOMP_PROGRAM_OWN_IPC_NAMESPACE 16u
#define SECCOMP_PROGRAM_BROKER 32u
#define SECCOMP_PROGRAM_BROKER_METADATA 64u
#define SECCOMP_PROGRAM_BROKER_LISTING 128u
#define SECCOMP_PROGRAM_OBSERVE 256u
#define SECCOMP_PROGRAM_NET_BROKER 512u
#define SECCOMP_PROGRAM_BROKER_READS 1024u
#define SECCOMP_N_PROGRAMS 2048

static inline size_t seccomp_program_index(const struct seccomp_options *opts)
{
	return (opts->network_on ? SECCOMP_PROGRAM_NETWORK_ON : 0u) |
	       (opts->report ? SECCOMP_PROGRAM_REPORT : 0u) |
	       (opts->unix_sockets ? SECCOMP_PROGRAM_UNIX_SOCKETS : 0u) |
	       (opts->lock_sessions ? SECCOMP_PROGRAM_LOCK_SESSIONS : 0u) |
	       (opts->own_ipc_namespace ? SECCOMP_PROGRAM_OWN_IPC_NAMESPACE : 0u) |
	       (opts->broker ? SECCOMP_PROGRAM_BROKER : 0u) |
	       (opts->broker_metadata ? SECCOMP_PROGRAM_BROKER_METADATA : 0u) |
	       (opts->broker_listing ? SECCOMP_PROGRAM_BROKER_LISTING : 0u) |
	       (opts->observe ? SECCOMP_PROGRAM_OBSERVE : 0u) |
	       (opts->net_broker ? SECCOMP_PROGRAM_NET_BROKER : 0u) |
	       (opts->broker_reads ? SECCOMP_PROGRAM_BROKER_READS : 0u);
}

static inline struct seccomp_options seccomp_program_options(size_t index)
{
	return (struct seccomp_options){
		.network_on = index & SECCOMP_PROGRAM_NETWORK_ON,
		.report = index & SECCOMP_PROGRAM_REPORT,
		.unix_sockets = index & SECCOMP_PROGRAM_UNIX_SOCKETS,
		.lock_sessions = index & SECCOMP_PROGRAM_LOCK_SESSIONS,
		.own_ipc_namespace = index & SECCOMP_PROGRAM_OWN_IPC_NAMESPACE,
		.broker = index & SECCOMP_PROGRAM_BROKER,
		.broker_metadata = index & SECCOMP_PROGRAM_BROKER_METADATA,
		.broker_listing = index & SECCOMP_PROGRAM_BROKER_LISTING,
		.observe = index & SECCOMP_PROGRAM_OBSERVE,
		.net_broker = index & SECCOMP_PROGRAM_NET_BROKER,
		.broker_reads = index & SECCOMP_PROGRAM_BROKER_READS,
	};
}

/*
 * Is there a program for this index? Only for the combinations a cage can
 * ask for, so that each new option does not double the table. A run with
 * an IPC namespace of its own is tier T1's: its broker makes entries only
 * (mounts hold metadata, its network has a namespace, its listings are
 * granted), and judges the network calls where the policy names sockets
 * and the network is not on. A T2 run that brokers entries, listings or
 * network calls has a supervisor answering notifications, so it brokers
 * metadata too (cage.c). Reading opens are brokered only there too (tier T2's
 * /proc/self). The others are left empty in the table and refused by
 * seccomp_program_build.
 */
static inline bool seccomp_program_exists(size_t index)
{
	struct seccomp_options o = seccomp_program_options(index);
	bool brokers = o.broker || o.broker_listing || o.net_broker || o.broker_reads;
	if (o.own_ipc_namespace)
		return !o.broker_metadata && !o.broker_listing && !o.broker_reads &&
		       (!o.net_broker || o.unix_sockets);
	return o.broker_metadata || !brokers;
}

extern const struct seccomp_generated_program seccomp_generated_programs[SECCOMP_N_PROGRAMS];

/*
 * Refused calls by name: audit arch, number as the filter sees it, and the
 * errno a supervisor answers a reported refusal with. The calls the broker
 * variants send to the broker have err 0.
 */
struct seccomp_call_name {
	unsigned arch;
	int nr;
	const char *name;
	int err;
};

extern const struct seccomp_call_name seccomp_call_names[];
extern const unsigned seccomp_n_call_names;

/*
 * The open flags that send open and openat to the broker (any of them
 * set): an observed open without them is only looked at.
 */
extern const unsigned seccomp_broker_open_flag_mask;

#endif
