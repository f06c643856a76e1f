/*
 * The hand-written parts of the cage's seccomp program:
 *
 *   prologue   ld nr; clear the x32 bit; below 393 (every call libseccomp
 *	        names, bar the i386 ones) -> libseccomp's program (3
 *	        instructions run for those: the kernel pre-evaluates the
 *	        program for every call number at install, so every step here
 *	        costs); i386's direct SysV calls (393-402, unless
 *	        own_ipc_namespace) -> CHECK386; a call libseccomp cannot
 *	        name -> CHECK (EPERM) or CHECK_NOTSUP (EOPNOTSUPP); else ->
 *	        libseccomp's program
 *	CHECK, CHECK_NOTSUP: ld arch; x86_64 or i386 -> its refusal, else ->
 *	        libseccomp's program, which kills any other arch
 *	CHECK386: ld arch; i386 -> REFUSE, else -> libseccomp's program
 *   libseccomp's program, its marker returns turned into jumps to:
 *   PERSONALITY: ld low 32 bits of arg 0; 0xffffffff -> ALLOW; any refused
 *	        bit -> REFUSE; -> ALLOW
 *   UNSHARE, CLONE: ld low 32 bits of arg 0; any namespace flag -> REFUSE;
 *	        -> ALLOW
 *   MODE_A1, MODE_A2 (chmod, fchmod; fchmodat, fchmodat2): ld low 32
 *	        bits of the mode; set-id or sticky bit -> REFUSE; -> ALLOW, or
 *	        with broker_metadata -> NOTIFY (the broker judges the target)
 *   SOCKET:    family (upper bits -> REFUSE) one of the allowed -> ALLOW, or
 *	        IP or NETLINK for their type and protocol tests; -> REFUSE.
 *	        No family allowed: SOCKET is REFUSE itself, no instruction
 *   SOCKETPAIR: family (upper bits -> REFUSE) AF_UNIX -> ALLOW; -> REFUSE.
 *	        Without unix_sockets, AF_UNIX goes on to the type's low 4
 *	        bits: one of the pair types -> ALLOW; -> REFUSE
 *   ALLOW: ret ALLOW;  NOTIFY: ret USER_NOTIF (broker_metadata only);
 *   REFUSE: ret the refusal
 *
 * The numbers of calls libseccomp cannot name are shared by all three
 * ABIs (x32 adds its bit, cleared here); i386's direct SysV calls are
 * numbers x86_64 and x32 never had. Only the low 32 bits of arguments
 * are compared: all the kernel reads of personality's int and of a mode,
 * and unshare and clone refuse upper bits with EINVAL anyway. Jumps are
 * written to labels and resolved at the end; classic BPF jumps only go
 * forward.
 */
#include "seccomp_handwritten.h"

#include <seccomp.h>

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "base/error.h"
#include "seccomp_rules.h"

#define X32_SYSCALL_BIT 0x40000000u
/* Halves of a 64-bit argument, little-endian x86. On i386 the upper half is 0. */
#define ARG_LOW(i) (offsetof(struct seccomp_data, args[i]))
#define ARG_HIGH(i) (offsetof(struct seccomp_data, args[i]) + 4)
#define ARG0_LOW ARG_LOW(0)

enum label {
	L_NEXT, /* the next instruction: no jump */
	L_CHECK,
	L_CHECK_NOTSUP,
	L_CHECK386,
	L_PERSONALITY,
	L_UNSHARE,
	L_CLONE,
	L_MODE_A1,
	L_MODE_A2,
	L_SOCKET,
	L_SOCKETPAIR,
	L_IP,	   /* socket: an IP family */
	L_NETLINK, /* socket: AF_NETLINK */
	L_ALLOW,
	L_NOTIFY, /* to the broker (broker_metadata) */
	L_REFUSE,
	L_REFUSE_NOTSUP,
	L_END, /* right after the block */
	L__COUNT
};

/* The calls handed to blocks; each marker is its own. */
const struct seccomp_handoff seccomp_handoffs[] = {
	{ "personality", SCMP_ACT_TRACE(0xfa01), L_PERSONALITY },
	{ "unshare", SCMP_ACT_TRACE(0xfa02), L_UNSHARE },
	{ "clone", SCMP_ACT_TRACE(0xfa03), L_CLONE },
	{ "socket", SCMP_ACT_TRACE(0xfa04), L_SOCKET },
	{ "socketpair", SCMP_ACT_TRACE(0xfa05), L_SOCKETPAIR },
	/* Set-id and sticky bits: Landlock does not check chmod at all. */
	{ "chmod", SCMP_ACT_TRACE(0xfa06), L_MODE_A1 },
	{ "fchmod", SCMP_ACT_TRACE(0xfa07), L_MODE_A1 },
	{ "fchmodat", SCMP_ACT_TRACE(0xfa08), L_MODE_A2 },
	{ "fchmodat2", SCMP_ACT_TRACE(0xfa09), L_MODE_A2 },
};
const size_t seccomp_n_handoffs = sizeof seccomp_handoffs / sizeof seccomp_handoffs[0];

#define BLOCK_ROOM (SECCOMP_PROLOGUE_MAX > SECCOMP_BLOCKS_MAX ? SECCOMP_PROLOGUE_MAX \
							       : SECCOMP_BLOCKS_MAX)

struct block {
	struct sock_filter insn[BLOCK_ROOM];
	uint8_t jt[BLOCK_ROOM], jf[BLOCK_ROOM]; /* labels */
	int at[L__COUNT];			/* -1: not placed */
	size_t n;
};

static void block_init(struct block *b)
{
	b->n = 0;
	for (int l = 0; l < L__COUNT; l++)
		b->at[l] = -1;
}

static void emit(struct block *b, uint16_t code, uint32_t k, enum label jt, enum label jf)
{
	if (b->n < BLOCK_ROOM) {
		b->insn[b->n] = (struct sock_filter)BPF_STMT(code, k);
		b->jt[b->n] = (uint8_t)jt;
		b->jf[b->n] = (uint8_t)jf;
	}
	b->n++;
}

static void load(struct block *b, uint32_t offset)
{
	emit(b, BPF_LD | BPF_W | BPF_ABS, offset, L_NEXT, L_NEXT);
}

static void jump_if(struct block *b, uint16_t op, uint32_t k, enum label jt, enum label jf)
{
	emit(b, BPF_JMP | op | BPF_K, k, jt, jf);
}

static void place(struct block *b, enum label l)
{
	b->at[l] = (int)b->n;
}

/* Turn labels into relative offsets; every jump must land after itself. */
static int resolve(struct block *b, size_t room, struct procage_error *err)
{
	if (b->n > room)
		return error_set(err, -E2BIG, "seccomp blocks: %zu instructions, room for %zu",
				 b->n, room);
	place(b, L_END);
	for (size_t i = 0; i < b->n; i++) {
		struct sock_filter *in = &b->insn[i];
		if (BPF_CLASS(in->code) != BPF_JMP)
			continue;
		uint8_t *offsets[2] = { &in->jt, &in->jf };
		for (int t = 0; t < 2; t++) {
			enum label l = t ? b->jf[i] : b->jt[i];
			int to = l == L_NEXT ? (int)i + 1 : b->at[l];
			if (to <= (int)i || to - (int)i - 1 > 255)
				return error_set(err, -EINVAL,
						 "seccomp blocks: jump %zu to label %d unplaced or "
						 "out of reach",
						 i, l);
			*offsets[t] = (uint8_t)(to - (int)i - 1);
		}
	}
	return 0;
}

static uint32_t refusal_with(const struct seccomp_options *opts, int e)
{
	return (opts->report || opts->observe) && seccomp_errno_reported(e) ? SECCOMP_RET_USER_NOTIF
							 : SECCOMP_RET_ERRNO | (uint32_t)e;
}

static uint32_t refusal(const struct seccomp_options *opts)
{
	return refusal_with(opts, EPERM);
}

/* The arch check in front of a refusal: x86_64 (and x32) and i386. */
static void check_arch(struct block *b, enum label at, enum label refuse)
{
	place(b, at);
	load(b, offsetof(struct seccomp_data, arch));
	jump_if(b, BPF_JEQ, AUDIT_ARCH_X86_64, refuse, L_NEXT);
	jump_if(b, BPF_JEQ, AUDIT_ARCH_I386, refuse, L_END);
}

int seccomp_prologue_write(const struct seccomp_options *opts, struct sock_filter *out,
			   struct procage_error *err)
{
	struct block b;
	block_init(&b);
	load(&b, offsetof(struct seccomp_data, nr));
	emit(&b, BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT, L_NEXT, L_NEXT);
	jump_if(&b, BPF_JGE, SECCOMP_I386_SYSV_FIRST, L_NEXT, L_END);
	if (!opts->own_ipc_namespace)
		jump_if(&b, BPF_JGT, SECCOMP_I386_SYSV_LAST, L_NEXT, L_CHECK386);
	for (size_t i = 0; i < seccomp_n_refused_new_calls; i++) {
		const struct seccomp_new_call *c = &seccomp_refused_new_calls[i];
		if (c->err != EPERM && c->err != EOPNOTSUPP)
			return error_set(err, -EINVAL, "seccomp prologue: %s: only EPERM or "
						       "EOPNOTSUPP",
					 c->name);
		/* Below it the prologue has already gone on to libseccomp's program. */
		if (c->nr < SECCOMP_I386_SYSV_FIRST)
			return error_set(err, -EINVAL, "seccomp prologue: %s: number %u below %d",
					 c->name, c->nr, SECCOMP_I386_SYSV_FIRST);
		jump_if(&b, BPF_JEQ, c->nr, c->err == EPERM ? L_CHECK : L_CHECK_NOTSUP,
			i + 1 == seccomp_n_refused_new_calls ? L_END : L_NEXT);
	}
	check_arch(&b, L_CHECK, L_REFUSE);
	check_arch(&b, L_CHECK_NOTSUP, L_REFUSE_NOTSUP);
	if (!opts->own_ipc_namespace) {
		place(&b, L_CHECK386);
		load(&b, offsetof(struct seccomp_data, arch));
		jump_if(&b, BPF_JEQ, AUDIT_ARCH_I386, L_REFUSE, L_END);
	}
	place(&b, L_REFUSE);
	emit(&b, BPF_RET | BPF_K, refusal(opts), L_NEXT, L_NEXT);
	place(&b, L_REFUSE_NOTSUP);
	emit(&b, BPF_RET | BPF_K, refusal_with(opts, EOPNOTSUPP), L_NEXT, L_NEXT);
	int rc = resolve(&b, SECCOMP_PROLOGUE_MAX, err);
	if (rc < 0)
		return rc;
	memcpy(out, b.insn, b.n * sizeof *out);
	return (int)b.n;
}

/*
 * Upper bits on an argument the kernel reads as an int make it a value the
 * rules do not know: refused, as libseccomp's 64-bit comparisons did. Then
 * the low half is loaded.
 */
static void load_int_arg(struct block *b, unsigned int arg)
{
	load(b, ARG_HIGH(arg));
	jump_if(b, BPF_JEQ, 0, L_NEXT, L_REFUSE);
	load(b, ARG_LOW(arg));
}

/*
 * socket(family, type, protocol): the allowed families, IP ones without
 * the refused types and protocol, netlink with NETLINK_ROUTE only. The
 * type is compared on its low 4 bits (SOCK_NONBLOCK and SOCK_CLOEXEC live
 * above), the protocol on the 32 bits the kernel reads.
 */
static void write_socket_blocks(struct block *b, const struct seccomp_options *opts)
{
	int families[AF_MAX], n = 0;
	for (int f = 0; f < AF_MAX; f++)
		if (seccomp_family_allowed(f, opts->network_on, opts->unix_sockets))
			families[n++] = f;
	/* Nothing to test (the default cage: network and Unix sockets off):
	 * write_blocks places L_SOCKET on the refusal. */
	if (n > 0) {
		place(b, L_SOCKET);
		load_int_arg(b, 0);
	}
	for (int i = 0; i < n; i++) {
		int f = families[i];
		enum label to = f == AF_INET || f == AF_INET6 ? L_IP
				: f == AF_NETLINK	      ? L_NETLINK
							      : L_ALLOW;
		jump_if(b, BPF_JEQ, (uint32_t)f, to, i + 1 == n ? L_REFUSE : L_NEXT);
	}
	if (opts->network_on) {
		place(b, L_IP);
		load(b, ARG_LOW(1));
		emit(b, BPF_ALU | BPF_AND | BPF_K, 0xf, L_NEXT, L_NEXT);
		for (size_t i = 0; i < seccomp_n_refused_ip_types; i++)
			jump_if(b, BPF_JEQ, (uint32_t)seccomp_refused_ip_types[i], L_REFUSE, L_NEXT);
		load(b, ARG_LOW(2));
		if (opts->net_broker) {
			/*
			 * Only the transports whose every destination passes
			 * through the calls the broker judges: SCTP, for one,
			 * connects and binds through socket options.
			 */
			for (size_t i = 0; i < seccomp_n_net_broker_protocols; i++)
				jump_if(b, BPF_JEQ, (uint32_t)seccomp_net_broker_protocols[i], L_ALLOW,
					i + 1 == seccomp_n_net_broker_protocols ? L_REFUSE : L_NEXT);
		} else {
			jump_if(b, BPF_JEQ, SECCOMP_REFUSED_IP_PROTOCOL, L_REFUSE, L_ALLOW);
		}
		place(b, L_NETLINK);
		load_int_arg(b, 2);
		jump_if(b, BPF_JEQ, NETLINK_ROUTE, L_ALLOW, L_REFUSE);
	}
	/*
	 * Only AF_UNIX makes socket pairs worth having. Where socket(AF_UNIX)
	 * is refused, so are pairs but of seccomp_pair_types (stream and
	 * seqpacket): a datagram pair could send to any datagram socket it
	 * names. The type is compared on its low 4 bits, as in socket.
	 */
	place(b, L_SOCKETPAIR);
	load_int_arg(b, 0);
	if (opts->unix_sockets) {
		jump_if(b, BPF_JEQ, AF_UNIX, L_ALLOW, L_REFUSE);
		return;
	}
	jump_if(b, BPF_JEQ, AF_UNIX, L_NEXT, L_REFUSE);
	load(b, ARG_LOW(1));
	emit(b, BPF_ALU | BPF_AND | BPF_K, 0xf, L_NEXT, L_NEXT);
	for (size_t i = 0; i < seccomp_n_pair_types; i++)
		jump_if(b, BPF_JEQ, (uint32_t)seccomp_pair_types[i], L_ALLOW,
			i + 1 == seccomp_n_pair_types ? L_REFUSE : L_NEXT);
}

/* The blocks the marker returns jump to, and their two returns. */
static void write_blocks(struct block *b, const struct seccomp_options *opts)
{
	uint32_t unshare_flags = 0, clone_flags = 0;
	for (size_t i = 0; i < seccomp_n_namespace_flags; i++) {
		unshare_flags |= (uint32_t)seccomp_namespace_flags[i];
		/* CLONE_NEWTIME's bit is clone's exit signal: not a namespace there. */
		if (seccomp_namespace_flags[i] != CLONE_NEWTIME)
			clone_flags |= (uint32_t)seccomp_namespace_flags[i];
	}
	place(b, L_PERSONALITY);
	load(b, ARG0_LOW);
	jump_if(b, BPF_JEQ, SECCOMP_PERSONALITY_QUERY, L_ALLOW, L_NEXT);
	jump_if(b, BPF_JSET, SECCOMP_PERSONALITY_REFUSED, L_REFUSE, L_ALLOW);
	place(b, L_UNSHARE);
	load(b, ARG0_LOW);
	jump_if(b, BPF_JSET, unshare_flags, L_REFUSE, L_ALLOW);
	place(b, L_CLONE);
	load(b, ARG0_LOW);
	jump_if(b, BPF_JSET, clone_flags, L_REFUSE, L_ALLOW);
	/* A mode the filter lets through is still the broker's to judge (where). */
	enum label mode_ok = opts->broker_metadata ? L_NOTIFY : L_ALLOW;
	place(b, L_MODE_A1);
	load(b, ARG_LOW(1));
	jump_if(b, BPF_JSET, SECCOMP_MODE_REFUSED, L_REFUSE, mode_ok);
	place(b, L_MODE_A2);
	load(b, ARG_LOW(2));
	jump_if(b, BPF_JSET, SECCOMP_MODE_REFUSED, L_REFUSE, mode_ok);
	write_socket_blocks(b, opts);
	place(b, L_ALLOW);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, L_NEXT, L_NEXT);
	if (opts->broker_metadata) {
		place(b, L_NOTIFY);
		emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, L_NEXT, L_NEXT);
	}
	place(b, L_REFUSE);
	if (b->at[L_SOCKET] < 0)
		place(b, L_SOCKET);
	emit(b, BPF_RET | BPF_K, refusal(opts), L_NEXT, L_NEXT);
}

int seccomp_blocks_link(const struct seccomp_options *opts, struct sock_filter *prog,
			size_t from, size_t *len, struct procage_error *err)
{
	struct block b;
	block_init(&b);
	write_blocks(&b, opts);
	int rc = resolve(&b, SECCOMP_BLOCKS_MAX, err);
	if (rc < 0)
		return rc;
	size_t end = *len;
	for (size_t h = 0; h < seccomp_n_handoffs; h++) {
		int at = b.at[seccomp_handoffs[h].block];
		if (at < 0)
			return error_set(err, -EINVAL, "seccomp blocks: the block of %s is missing",
					 seccomp_handoffs[h].name);
		size_t block = end + (size_t)at, found = 0;
		for (size_t i = from; i < end; i++) {
			if (prog[i].code != (BPF_RET | BPF_K) || prog[i].k != seccomp_handoffs[h].marker)
				continue;
			prog[i] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
							       (uint32_t)(block - i - 1));
			found++;
		}
		/* Not found: libseccomp dropped the rule, and the call would be allowed. */
		if (!found)
			return error_set(err, -EINVAL, "seccomp blocks: no rule of libseccomp's "
						       "leads to the block of %s",
					 seccomp_handoffs[h].name);
	}
	memcpy(prog + end, b.insn, b.n * sizeof *prog);
	*len = end + b.n;
	return 0;
}
