/*
 * Kernel facts: behaviours of the running kernel that procage's design
 * depends on, observed here rather than assumed. Each fact has a stable id
 * (KF-L09 ... ; THREAT_MODEL.md cites them in its "Observed on" column) and
 * prints, as TAP, the kernel release and what it saw.
 *
 * - A fact that holds passes and says what was observed.
 * - A fact that no longer holds fails, loudly: the design (and the threat
 *   model) must be looked at again before this kernel is trusted.
 * - A fact this host cannot observe (no user namespace for this user, a
 *   Landlock ABI too old, a protocol the kernel lacks) is a counted skip
 *   that gives the reason.
 *
 * This file holds main, the table of facts with their ids and the
 * reporting; the observations are in tests/facts/, one file per concern.
 * Every observation runs in a child process of its own, which makes its
 * namespaces, mounts, sockets and Landlock domains there and takes them all
 * along when it exits; the files go in one temporary directory that is
 * removed at the end. A child is killed after 30 seconds; nothing loops
 * without a bound.
 *
 * scripts/run-tests runs this program on the host's tier and under
 * tests/without_userns (tier T2 for real), as root and as uid 65534. With
 * PROCAGE_EXPECT_TIER=T1 or T2 the presence or absence of user namespaces
 * is asserted first, so a wrapper that fails to take them away is caught.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caged.h"
#include "facts.h"
#include "base/syscalls.h"
#include "tap.h"

/* ---- the facts ----------------------------------------------------------- */

struct fact {
	const char *id;
	const char *claim;
	enum outcome (*observe)(void);
};

static const struct fact facts[] = {
    {"KF-L09",
     "a user namespace made inside another one can mount a tmpfs over a path and unmount "
     "it (what refusing CLONE_NEWUSER in the cage takes away)",
     kf_l09},
    {"KF-L10",
     "mounts inherited into a less privileged user and mount namespace are locked: they "
     "cannot be unmounted or made writable there, only covered",
     kf_l10},
    {"KF-L14",
     "without TRUNCATE handled (all that Landlock below ABI 3 can do), truncate(path) and "
     "open(O_TRUNC) empty a file granted read-only",
     kf_l14_without},
    {"KF-L14",
     "with Landlock ABI 3 or later and TRUNCATE handled, truncate(path) and open(O_TRUNC) "
     "of a file granted read-only are refused",
     kf_l14_with},
    {"KF-L15", "a seccomp listener cannot be reopened through /proc/PID/fd", kf_l15_reopen},
    {"KF-L15",
     "the kernel hands a copy of a listener to a process allowed to ptrace its holder "
     "(pidfd_getfd), so the cage's filter must refuse pidfd_getfd",
     kf_l15_getfd},
    {"KF-L15", "procage's seccomp filter refuses pidfd_getfd", kf_l15_our_filter},
    {"KF-L20", "abstract Unix socket names belong to one network namespace", kf_l20},
    {"KF-L21",
     "an MPTCP socket connects past a Landlock ruleset that refuses TCP connect (why the "
     "cage's filter refuses IPPROTO_MPTCP); a kernel that covers it is recorded",
     kf_l21},
    {"KF-L22",
     "clone3 passes its flags in memory: a seccomp rule on clone's and unshare's flags does "
     "not stop clone3(CLONE_NEWUSER)",
     kf_l22},
    {"KF-L23",
     "Landlock without REFER refuses renaming or linking a file into another directory "
     "with EXDEV",
     kf_l23_without},
    {"KF-L23", "Landlock with REFER granted on both directories allows the same rename and link",
     kf_l23_with},
    {"KF-L24",
     "Landlock below ABI 9 does not check connect() to a pathname Unix socket: a ruleset "
     "with no grant on its directory lets it through",
     kf_l24_below9},
    {"KF-L25",
     "renaming a directory that is a mount point fails with EBUSY; renaming one that only "
     "holds mount points succeeds and carries them along (why tier T1 pins ancestors)",
     kf_l25},
    {"KF-L26", "a Landlock domain scoped for signals cannot signal processes outside it", kf_l26},
    {"KF-L27",
     "a Landlock domain scoped for abstract sockets cannot connect to one bound outside it",
     kf_l27},
    {"KF-L28",
     "a process under a Landlock filesystem ruleset cannot mount, even with CAP_SYS_ADMIN "
     "in namespaces of its own",
     kf_l28},
    {"KF-L29",
     "a Landlock domain holding no capability cannot read /proc/PID/environ of a process "
     "outside it (ptrace access), while /proc/PID/cmdline stays readable",
     kf_l29},
};

/* With Landlock ABI 9 or later, also what RESOLVE_UNIX does. */
static const struct fact abi9_fact = {
    "KF-L24", "with Landlock ABI 9, LANDLOCK_ACCESS_FS_RESOLVE_UNIX refuses that connect",
    kf_l24_abi9};

static enum outcome observe(const struct fact *f, char *text, size_t size)
{
	int p[2];
	text[0] = '\0';
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(text, size, "pipe: %s", en(errno));
		return BROKEN;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(30);
		note_reset();
		enum outcome o = f->observe();
		size_t n_note;
		const char *text_note = note_text(&n_note);
		(void)!write(p[1], text_note, n_note);
		_exit((int)o);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		snprintf(text, size, "fork: %s", en(errno));
		return BROKEN;
	}
	size_t len = 0;
	ssize_t n;
	while (len < size - 1 && (n = read(p[0], text + len, size - 1 - len)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			len += (size_t)n;
	}
	text[len] = '\0';
	close(p[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) <= RECORDED)
		return (enum outcome)WEXITSTATUS(status);
	snprintf(text + len, size - len, "%s[the observing process ended: %s]", len ? " " : "",
		 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "with an unknown status");
	return BROKEN;
}

static void run_fact(const struct fact *f)
{
	char text[2400];
	enum outcome o = observe(f, text, sizeof text);
	switch (o) {
	case HOLDS:
		tap_ok(true, "%s: %s", f->id, f->claim);
		tap_diag("%s on %s, uid %u: observed: %s", f->id, host.release, (unsigned)host.uid,
			 text);
		break;
	case RECORDED:
		tap_ok(true, "%s: %s", f->id, f->claim);
		tap_diag(
		    "!!! %s CHANGED on %s, uid %u (recorded; the cage does not rely on the old "
		    "behaviour): %s",
		    f->id, host.release, (unsigned)host.uid, text);
		break;
	case CHANGED:
		tap_ok(false, "%s: %s", f->id, f->claim);
		tap_diag("!!! %s NO LONGER HOLDS on %s, uid %u: observed: %s", f->id, host.release,
			 (unsigned)host.uid, text);
		tap_diag("!!! procage's design relies on it: read THREAT_MODEL.md (rows observed "
			 "on %s) again before trusting this kernel",
			 f->id);
		break;
	case CANNOT:
		tap_skip("%s: CANNOT BE OBSERVED HERE (%s, uid %u): %s -- %s", f->id, host.release,
			 (unsigned)host.uid, f->claim, text);
		break;
	case BROKEN:
		tap_ok(false, "%s: %s (the observation itself failed)", f->id, f->claim);
		tap_diag("%s on %s, uid %u: %s", f->id, host.release, (unsigned)host.uid, text);
		break;
	}
}

static bool has_capability(int cap)
{
	char buf[4096];
	if (caged_read_file("/proc/self/status", buf, sizeof buf) < 0)
		return false;
	const char *line = strstr(buf, "\nCapEff:");
	return line && (strtoull(line + 8, NULL, 16) >> cap) & 1;
}

static void host_measure(void)
{
	struct utsname u;
	snprintf(host.release, sizeof host.release, "%s",
		 uname(&u) == 0 ? u.release : "(unknown release)");
	host.abi = sys_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	host.abi_errno = host.abi < 0 ? errno : 0;
	if (host.abi < 0)
		host.abi = 0;
	host.uid = geteuid();
	host.gid = getegid();
	host.sys_admin = has_capability(21);
	pid_t pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno & 0xff);
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	host.userns_errno = pid < 0 ? errno : WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
	host.userns = host.userns_errno == 0;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	srandom((unsigned)getpid());
	host_measure();
	tap_diag("kernel %s; Landlock ABI %d%s%s; uid %u gid %u; CAP_SYS_ADMIN: %s", host.release,
		 host.abi, host.abi ? "" : ", unavailable: ", host.abi ? "" : en(host.abi_errno),
		 (unsigned)host.uid, (unsigned)host.gid, host.sys_admin ? "yes" : "no");
	tap_diag("user namespaces for this process: %s",
		 host.userns ? "yes" : en(host.userns_errno));

	/*
	 * The pass's tier is pinned (scripts/run-tests): a host that offers
	 * less fails here and observes nothing, so that the facts a tier needs
	 * never turn into "cannot be observed here" skips.
	 */
	const char *expect = getenv("PROCAGE_EXPECT_TIER");
	bool as_expected = true;
	if (expect && strcmp(expect, "T2") == 0)
		as_expected = tap_ok(!host.userns,
				     "no user namespace can be made here, as tier T2 expects (%s)",
				     en(host.userns_errno));
	else if (expect && strcmp(expect, "T1") == 0)
		as_expected = tap_ok(host.userns,
				     "a user namespace can be made here, as tier T1 expects (%s)",
				     en(host.userns_errno));
	else if (expect && expect[0])
		as_expected =
		    tap_ok(false, "PROCAGE_EXPECT_TIER=%s names a tier (T1 or T2)", expect);
	if (expect && expect[0])
		as_expected &= tap_ok(host.abi > 0, "Landlock is available, as tier %s needs (%s)",
				      expect, host.abi > 0 ? "yes" : en(host.abi_errno));
	if (!as_expected)
		return tap_done();

	const char *tmp = getenv("TMPDIR");
	snprintf(host.base, sizeof host.base, "%s/procage-facts-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(host.base)) {
		tap_ok(false, "a temporary directory %s: %s", host.base, en(errno));
		return tap_done();
	}
	chmod(host.base, 0755);

	for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
		run_fact(&facts[i]);
	if (host.abi >= 9)
		run_fact(&abi9_fact);

	caged_remove_tree(host.base);
	tap_ok(!caged_path_exists(host.base), "everything the facts made under %s is gone",
	       host.base);
	return tap_done();
}
