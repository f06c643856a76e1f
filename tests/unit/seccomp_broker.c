/*
 * The broker variants: the entry calls and the opens that may write go to
 * the supervisor (USER_NOTIF) whatever else the variant is, and nothing
 * else changes; without the broker they stay allowed (Landlock judges).
 */
#include "watch/notify.h"
#include "seccomp_rules.h"
#include "seccomp_sim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <string.h>
#include <sys/socket.h>

#include "bpf_sim.h"
#include "kernel/seccomp.h"

static bool variant_broker(int v)
{
	return seccomp_program_options((size_t)v).broker;
}

static bool variant_listing(int v)
{
	return seccomp_program_options((size_t)v).broker_listing;
}

/*
 * brokered: by the entry broker; listed: by the listing broker (an open
 * of a directory, and openat2).
 */
static void check_both(int v, const struct abi *abi, const char *name, const uint64_t args[6],
		       bool brokered, bool listed, const char *what)
{
	long nr = abi_nr(abi, name);
	if (nr < 0)
		return;
	bool notified = (brokered && variant_broker(v)) || (listed && variant_listing(v));
	uint32_t want = notified ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;
	want = variant_answer_call(v, name, want);
	uint32_t got = run_nr(&progs[v], abi->audit_arch, nr, args);
	sim_ok(got == want, "%s, %s: %s %s (got %#x, want %#x)", variant_name(v), abi->name, name,
	       what, got, want);
}

static void check(int v, const struct abi *abi, const char *name, const uint64_t args[6],
		  bool brokered, const char *what)
{
	check_both(v, abi, name, args, brokered, strcmp(name, "openat2") == 0, what);
}

static void check_opens(int v, const struct abi *abi)
{
	static const struct {
		uint64_t flags;
		bool brokered;
		const char *what;
	} cases[] = {
	    {O_RDONLY, false, "read-only"},
	    {O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW, false, "read-only, other flags"},
	    {O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, false, "read-only, no O_DIRECTORY"},
	    {O_PATH, false, "O_PATH"},
	    {0xffffffff00000000ull, false, "upper bits only (the kernel reads an int)"},
	    {O_WRONLY, true, "O_WRONLY"},
	    {O_RDWR, true, "O_RDWR"},
	    {O_CREAT, true, "O_CREAT"},
	    {O_TRUNC, true, "O_TRUNC"},
	    {O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, true, "a lock file's flags"},
	    {O_TMPFILE | O_RDWR, true, "O_TMPFILE"},
	    {O_ACCMODE, true, "both access bits"},
	};
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		/* O_TMPFILE holds O_DIRECTORY's bit. */
		bool listed = (uint32_t)cases[i].flags & O_DIRECTORY;
		check_both(v, abi, "open", ARGS(0x1000, cases[i].flags, 0644), cases[i].brokered,
			   listed, cases[i].what);
		check_both(v, abi, "openat", ARGS((uint64_t)-100, 0x1000, cases[i].flags, 0644),
			   cases[i].brokered, listed, cases[i].what);
	}
}

static void check_net(int v, const struct abi *abi, const char *name, const uint64_t args[6],
		      bool brokered, const char *what)
{
	long nr = abi_nr(abi, name);
	if (nr < 0)
		return;
	bool net = seccomp_program_options((size_t)v).net_broker;
	uint32_t want = brokered && net ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;
	uint32_t got = run_nr(&progs[v], abi->audit_arch, nr, args);
	sim_ok(got == want, "%s%s, %s: %s %s (got %#x, want %#x)", variant_name(v),
	       net ? ", network broker" : "", abi->name, name, what, got, want);
}

/* Source routes refused in the network broker variants, other options not. */
static void check_source_routes(int v, const struct abi *abi)
{
	long nr = abi_nr(abi, "setsockopt");
	if (nr < 0)
		return;
	struct seccomp_options o = seccomp_program_options((size_t)v);
	uint32_t refusal = variant_answer(v, RET_EPERM);
	for (size_t i = 0; i < seccomp_n_net_refused_options; i++) {
		const struct seccomp_socket_option *opt = &seccomp_net_refused_options[i];
		uint32_t want = o.net_broker ? refusal : SECCOMP_RET_ALLOW;
		uint32_t got = run_nr(&progs[v], abi->audit_arch, nr,
				      ARGS(3, (uint64_t)opt->level, (uint64_t)opt->name, 0x1000, 8));
		sim_ok(got == want, "%s, %s: setsockopt(%d, %d) (got %#x, want %#x)",
		       variant_name(v), abi->name, opt->level, opt->name, got, want);
	}
	uint32_t got = run_nr(&progs[v], abi->audit_arch, nr, ARGS(3, 0, 2 /* IP_TTL */, 0x1000, 4));
	sim_ok(got == SECCOMP_RET_ALLOW, "%s, %s: setsockopt(IP_TTL) stays allowed (got %#x)",
	       variant_name(v), abi->name, got);
}

/*
 * The network broker variants: every call that sets a destination or a
 * local address goes to the supervisor, sendto only with an address;
 * the data calls without one stay the kernel's.
 */
void test_net_broker_calls(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			const struct abi *abi = &abis[a];
			for (size_t i = 0; i < seccomp_n_net_broker_calls; i++)
				check_net(v, abi, seccomp_net_broker_calls[i], ARGS(3, 0x2000, 16),
					  true, "(any arguments)");
			check_net(v, abi, "sendto", ARGS(3, 0x2000, 5, 0, 0x3000, 16), true,
				  "with an address");
			check_net(v, abi, "sendto", ARGS(3, 0x2000, 5, 0x20000000, 0x3000, 16), true,
				  "MSG_FASTOPEN with an address");
			check_net(v, abi, "sendto", ARGS(3, 0x2000, 5, 0, 0, 0), false,
				  "without an address");
			check_net(v, abi, "write", ARGS(3, 0x2000, 5), false, "(not an address call)");
			check_net(v, abi, "recvfrom", ARGS(3, 0x2000, 5, 0, 0x3000, 0x3100), false,
				  "(not an address call)");
			check_source_routes(v, abi);
			/* (x32's rules compare the low half; the kernel faults on the rest.) */
			if (abi->audit_arch == AUDIT_ARCH_X86_64 && !abi->x32)
				check_net(v, abi, "sendto",
					  ARGS(3, 0x2000, 5, 0, 0x100000000ull, 16), true,
					  "with an address in the upper half only");
		}
	static const struct {
		uint32_t arch;
		int nr;
	} rows[] = {
	    {AUDIT_ARCH_X86_64, 42},  /* connect */
	    {AUDIT_ARCH_X86_64, 49},  /* bind */
	    {AUDIT_ARCH_X86_64, 50},  /* listen */
	    {AUDIT_ARCH_X86_64, 44},  /* sendto */
	    {AUDIT_ARCH_X86_64, 46},  /* sendmsg */
	    {AUDIT_ARCH_X86_64, 307}, /* sendmmsg */
	    {AUDIT_ARCH_I386, 362},   /* connect */
	    {AUDIT_ARCH_I386, 369},   /* sendto */
	};
	for (size_t i = 0; i < N_ELEMS(rows); i++)
		sim_ok(notify_call_brokered(rows[i].arch, rows[i].nr),
		       "%#x/%d (%s) is the broker's", rows[i].arch, rows[i].nr,
		       notify_call_name(rows[i].arch, rows[i].nr));
}

/*
 * The hand-over's sendmsg, which the network broker variants let through
 * unbrokered, is refused by the filter stacked after it, on every ABI
 * (sendmsg is 370 on i386), whatever the flags' upper half; nothing else
 * changes.
 */
void test_handover_closed(void)
{
	const struct sock_fprog *p = &seccomp_handover_closed;
	const char *why = NULL;
	const uint32_t eperm = SECCOMP_RET_ERRNO | EPERM;
	sim_ok(bpf_sim_check(p->filter, p->len, &why) == 0, "the hand-over's closing filter is "
	       "well formed (%s)", why ? why : "checked");
	for (size_t a = 0; a < N_ELEMS(abis); a++) {
		const struct abi *abi = &abis[a];
		long sendmsg = abi->audit_arch == AUDIT_ARCH_I386 ? 370 : abi_nr(abi, "sendmsg");
		uint64_t upper = abi->audit_arch == AUDIT_ARCH_X86_64 && !abi->x32 ? 1ull << 32 : 0;
		static const struct {
			uint64_t flags;
			bool refused;
			const char *what;
		} cases[] = {
			{SECCOMP_HANDOVER_SEND_FLAGS, true, "the hand-over's flags"},
			{0, false, "no flags"},
			{MSG_NOSIGNAL, false, "MSG_NOSIGNAL alone"},
			{0x10 /* MSG_PROBE */, false, "MSG_PROBE alone"},
			{SECCOMP_HANDOVER_SEND_FLAGS | MSG_DONTWAIT, false, "the flags and one more"},
		};
		for (size_t i = 0; i < N_ELEMS(cases); i++) {
			uint32_t got = run_nr(p, abi->audit_arch, sendmsg, ARGS(3, 0x2000, cases[i].flags));
			sim_ok(got == (cases[i].refused ? eperm : SECCOMP_RET_ALLOW),
			       "%s: sendmsg with %s is %s after the hand-over (%#x)", abi->name,
			       cases[i].what, cases[i].refused ? "refused" : "left alone", got);
		}
		if (upper)
			sim_ok(run_nr(p, abi->audit_arch, sendmsg,
				      ARGS(3, 0x2000, SECCOMP_HANDOVER_SEND_FLAGS | upper)) == eperm,
			       "%s: the hand-over's flags with the upper half set are refused too",
			       abi->name);
		static const char *const others[] = {"sendto", "sendmmsg", "write", "recvmsg"};
		for (size_t i = 0; i < N_ELEMS(others); i++) {
			long nr = abi_nr(abi, others[i]);
			if (nr >= 0)
				sim_ok(run_nr(p, abi->audit_arch, nr,
					      ARGS(3, 0x2000, SECCOMP_HANDOVER_SEND_FLAGS,
						   SECCOMP_HANDOVER_SEND_FLAGS)) == SECCOMP_RET_ALLOW,
				       "%s: %s with the same flags is left alone", abi->name,
				       others[i]);
		}
	}
	sim_ok(run_nr(p, AUDIT_ARCH_AARCH64, 211 /* its sendmsg */,
		      ARGS(3, 0x2000, SECCOMP_HANDOVER_SEND_FLAGS)) == SECCOMP_RET_ALLOW,
	       "another audit arch is left to the first filter (which refuses it)");
}

void test_broker_calls(void)
{
	for_each_variant(v)
		for (size_t a = 0; a < N_ELEMS(abis); a++) {
			const struct abi *abi = &abis[a];
			check_opens(v, abi);
			for (size_t i = 0; i < seccomp_n_broker_calls; i++)
				check(v, abi, seccomp_broker_calls[i], ARGS(0x1000, 0x2000, 0, 0),
				      true, "(any arguments)");
			/* Calls near them that Landlock judges alone. */
			check(v, abi, "stat", ARGS(0x1000, 0x2000), false, "(not an entry call)");
			check(v, abi, "read", ARGS(0, 0x2000, 1), false, "(not an entry call)");
			check(v, abi, "fchdir", ARGS(3), false, "(not an entry call)");
		}
	/* The supervisor tells them from reported refusals by the name table. */
	static const struct {
		uint32_t arch;
		int nr;
		bool brokered;
	} rows[] = {
	    {AUDIT_ARCH_X86_64, 2, true},   /* open */
	    {AUDIT_ARCH_X86_64, 257, true}, /* openat */
	    {AUDIT_ARCH_X86_64, 437, true}, /* openat2 */
	    {AUDIT_ARCH_X86_64, 83, true},  /* mkdir */
	    {AUDIT_ARCH_X86_64, 316, true}, /* renameat2 */
	    {AUDIT_ARCH_X86_64, (int)(X32_SYSCALL_BIT | 257), true},
	    {AUDIT_ARCH_I386, 5, true},	    /* open */
	    {AUDIT_ARCH_I386, 193, true},   /* truncate64 */
	    {AUDIT_ARCH_X86_64, 92, true},  /* chown: the metadata broker's */
	    {AUDIT_ARCH_X86_64, 280, true}, /* utimensat */
	    {AUDIT_ARCH_I386, 212, true},   /* chown32 */
	    {AUDIT_ARCH_I386, 412, true},   /* utimensat_time64 */
	    /* chmod: a refusal by its row (set-id bits); the broker takes the rest by name. */
	    {AUDIT_ARCH_X86_64, 90, false},
	    {AUDIT_ARCH_X86_64, 0, false},  /* read: not in the table */
	};
	for (size_t i = 0; i < N_ELEMS(rows); i++)
		sim_ok(notify_call_brokered(rows[i].arch, rows[i].nr) == rows[i].brokered,
		       "%#x/%d (%s) is %sthe broker's", rows[i].arch, rows[i].nr,
		       notify_call_name(rows[i].arch, rows[i].nr), rows[i].brokered ? "" : "not ");
}
