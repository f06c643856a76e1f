/*
 * The broker variants: the entry calls and the opens that may write go to
 * the supervisor (USER_NOTIF) whatever else the variant is, and nothing
 * else changes; without the broker they stay allowed (Landlock judges).
 */
#include "notify.h"
#include "seccomp_rules.h"
#include "seccomp_sim.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <string.h>

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
