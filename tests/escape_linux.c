/*
 * The Linux escape canaries. Each canary spawns the probe (tests/probe.c)
 * in a real cage on the running kernel, attempts one escape, and asserts
 * the refusal from outside; next to it a control shows the same operation
 * succeeding where the policy (or the absence of a cage) allows it, so that
 * no refusal is an assertion on nothing. Run with PROCAGE_TEST_SANDBOX_OFF=1
 * every canary assertion must fail while the controls pass.
 *
 * Test names carry the host's tier and the user: "T2/uid 65534: r21: ...".
 * With PROCAGE_EXPECT_TIER=T1 or T2 the measured tier is asserted, so a
 * wrapper that fails to make tier T2 (tests/without_userns) is caught.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caged.h"
#include "procage.h"
#include "tap.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef NETLINK_SOCK_DIAG
#define NETLINK_SOCK_DIAG 4
#endif
#ifndef NETLINK_AUDIT
#define NETLINK_AUDIT 9
#endif

/* Where the suite runs: the host's tier and the user, for test names. */
struct tier {
	char name[64];
	struct procage_host_facts facts;
	bool cages_refused; /* this host refuses every cage: canaries assert that */
	char refusal[600];
};

/* ---- reporting -------------------------------------------------------- */

static void result_diag(const struct caged_result *r)
{
	tap_diag("  got: %s", r->summary);
	if (r->out[0])
		tap_diag("  stdout: %.300s", r->out);
}

/* One assertion named "<tier>: <name>"; on failure, what the probe did. */
static bool __attribute__((format(printf, 4, 5)))
check(const struct tier *t, bool ok, const struct caged_result *r, const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	tap_ok(ok, "%s: %s", t->name, name);
	if (!ok && r)
		result_diag(r);
	return ok;
}

static bool refused(const struct caged_result *r)
{
	return caged_exited_with(r, PROBE_REFUSED);
}

static bool did_it(const struct caged_result *r)
{
	return caged_exited_with(r, PROBE_DID_IT);
}

static struct caged_ws *workspace(const struct tier *t, const char *id)
{
	struct caged_ws *ws = caged_ws_new();
	if (!ws)
		check(t, false, NULL, "%s: the test workspace could be made", id);
	return ws;
}

/*
 * On a host that refuses every cage (no Landlock, or an ABI too old to deny
 * truncation) a canary asserts just that: the cage is refused and no child
 * runs.
 */
static bool cage_refused_here(const struct tier *t, struct caged_ws *ws, const char *id)
{
	if (!t->cages_refused)
		return false;
	struct caged_result r = run_caged(ws, NULL, "print", "the probe ran", NULL);
	check(t, r.how == CAGED_NOT_STARTED && !strstr(r.out, "the probe ran"), &r,
	      "%s: this host cannot enforce the cage, and it is refused before any child runs (%s)",
	      id, t->refusal);
	return true;
}

/* ---- host facts for controls ----------------------------------------- */

static long sysctl_value(const char *path)
{
	char buf[64];
	if (caged_read_file(path, buf, sizeof buf) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static bool has_capability(int cap)
{
	char buf[4096];
	if (caged_read_file("/proc/self/status", buf, sizeof buf) < 0)
		return false;
	const char *line = strstr(buf, "\nCapEff:");
	if (!line)
		return false;
	unsigned long long eff = strtoull(line + 8, NULL, 16);
	return (eff >> cap) & 1;
}

enum { CAP_SYS_PTRACE_NR = 19, CAP_NET_RAW_NR = 13, CAP_SYS_ADMIN_NR = 21, CAP_BPF_NR = 39 };

/*
 * Why the host itself refuses an operation to this process, or NULL when it
 * should allow it. A control refused for a reason given here is a loud,
 * counted skip; refused for no known reason it is a failure.
 */
enum host_rule {
	HOST_IO_URING,
	HOST_FAMILY, /* a socket family or protocol the kernel may lack */
	HOST_NET_RAW,
	HOST_USERNS,
	HOST_BPF,
	HOST_PTRACE,
	HOST_MOUNT,
};

static const char *host_refuses(const struct tier *t, enum host_rule rule,
				const struct caged_result *control, char *why, size_t size)
{
	long v;
	switch (rule) {
	case HOST_IO_URING:
		v = sysctl_value("/proc/sys/kernel/io_uring_disabled");
		if (v == 2 || (v == 1 && !has_capability(CAP_SYS_ADMIN_NR))) {
			snprintf(why, size, "kernel.io_uring_disabled=%ld", v);
			return why;
		}
		return NULL;
	case HOST_FAMILY:
		if (strstr(control->err, "EAFNOSUPPORT") ||
		    strstr(control->err, "EPROTONOSUPPORT")) {
			snprintf(why, size, "this kernel lacks the family or protocol");
			return why;
		}
		return NULL;
	case HOST_NET_RAW:
		if (!has_capability(CAP_NET_RAW_NR)) {
			snprintf(why, size, "it needs CAP_NET_RAW, which uid %u does not hold",
				 (unsigned)geteuid());
			return why;
		}
		return NULL;
	case HOST_USERNS:
		if (!t->facts.userns_create) {
			snprintf(why, size,
				 "this host makes no user namespace for this process (tier %s, %s)",
				 procage_tier_name(t->facts.tier), strerror(t->facts.userns_errno));
			return why;
		}
		return NULL;
	case HOST_BPF:
		v = sysctl_value("/proc/sys/kernel/unprivileged_bpf_disabled");
		if (v != 0 && !has_capability(CAP_BPF_NR) && !has_capability(CAP_SYS_ADMIN_NR)) {
			snprintf(why, size,
				 "kernel.unprivileged_bpf_disabled=%ld and uid %u holds neither "
				 "CAP_BPF nor CAP_SYS_ADMIN",
				 v, (unsigned)geteuid());
			return why;
		}
		return NULL;
	case HOST_PTRACE:
		v = sysctl_value("/proc/sys/kernel/yama/ptrace_scope");
		if (v == 3 || (v == 2 && !has_capability(CAP_SYS_PTRACE_NR))) {
			snprintf(why, size, "kernel.yama.ptrace_scope=%ld", v);
			return why;
		}
		return NULL;
	case HOST_MOUNT:
		if (!has_capability(CAP_SYS_ADMIN_NR)) {
			snprintf(why, size,
				 "mounting needs CAP_SYS_ADMIN, which uid %u does not hold",
				 (unsigned)geteuid());
			return why;
		}
		return NULL;
	}
	return NULL;
}

/*
 * A control the host may not allow: it passes when the operation succeeds
 * without the cage, is a loud skip when the host refuses it for a known
 * reason (and then the refusal in the cage proves nothing about the cage),
 * and fails otherwise.
 */
static void control_or_skip(const struct tier *t, enum host_rule rule, const struct caged_result *r,
			    const char *what)
{
	char why[256];
	if (did_it(r)) {
		check(t, true, r, "r28: control: without the cage, %s succeeds", what);
		return;
	}
	if (refused(r) && host_refuses(t, rule, r, why, sizeof why)) {
		tap_skip(
		    "%s: r28: control: CANNOT RUN HERE: %s is refused without the cage too, "
		    "since %s (%s); the refusal in the cage is therefore not evidence of the cage "
		    "on this host",
		    t->name, what, why, r->summary);
		return;
	}
	check(t, false, r, "r28: control: without the cage, %s succeeds", what);
}

/* ---- R-21 ------------------------------------------------------------- */

static void r21_an_inherited_descriptor_does_not_reach_the_child(const struct tier *t)
{
	static const char secret[] = "r21: reachable only through a descriptor\n";
	char path[PATH_MAX + 32], num[16], high_num[16], mapped_num[16];
	struct caged_ws *ws = workspace(t, "r21");
	if (!ws || cage_refused_here(t, ws, "r21"))
		goto out;

	/* Outside every grant: a descriptor is the only way to it. */
	snprintf(path, sizeof path, "%s/r21-secret", ws->root);
	if (caged_write_file(path, secret) < 0) {
		check(t, false, NULL, "r21: fixture %s written", path);
		goto out;
	}
	int fd = open(path, O_RDONLY);	    /* no O_CLOEXEC, on purpose */
	int high = fcntl(fd, F_DUPFD, 100); /* a high number too, no O_CLOEXEC either */
	snprintf(num, sizeof num, "%d", fd);
	snprintf(high_num, sizeof high_num, "%d", high);

	struct caged_result r = run_caged(ws, NULL, "read-fd", num, NULL);
	check(t, refused(&r) && !strstr(r.out, "r21:"), &r,
	      "r21: descriptor %d, left open without O_CLOEXEC, is closed in the cage", fd);
	r = run_caged(ws, NULL, "read-fd", high_num, NULL);
	check(t, refused(&r) && !strstr(r.out, "r21:"), &r,
	      "r21: descriptor %d (a high number) is closed in the cage", high);
	r = run_caged(ws, NULL, "read-file", path, NULL);
	check(t, refused(&r), &r, "r21: the file behind it cannot be opened by path in the cage");

	r = run_uncaged(ws, NULL, "read-fd", num, NULL);
	check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
	      "r21: control: without the cage the probe inherits descriptor %d and reads the file",
	      fd);

	int mapped = fd == 7 ? 8 : 7;
	snprintf(mapped_num, sizeof mapped_num, "%d", mapped);
	struct procage_fd_map map = {fd, mapped};
	struct caged_opts o = {.fds = &map, .n_fds = 1};
	r = run_caged(ws, &o, "read-fd", mapped_num, NULL);
	check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
	      "r21: control: passed through the spawn's fd map as %d, the caged probe reads the "
	      "right content",
	      mapped);
	r = run_caged(ws, &o, "read-fd", mapped_num, "then", "read-fd", num, NULL);
	check(t, refused(&r) && strcmp(r.out, secret) == 0, &r,
	      "r21: with it passed as %d, its original number %d stays closed in the cage", mapped,
	      fd);
	close(fd);
	close(high);
out:
	caged_ws_free(ws);
}

/* ---- R-24 ------------------------------------------------------------- */

static const char *const r24_secrets[][2] = {
    {"GITHUB_TOKEN", "ghp_r24canaryGithubToken"},
    {"AWS_SECRET_ACCESS_KEY", "r24canaryAwsSecretAccessKey"},
    {"SSH_AUTH_SOCK", "/tmp/ssh-r24canary/agent.1"},
    {"NPM_TOKEN", "npm_r24canaryNpmToken"},
    {"MY_API_KEY", "r24canaryMyApiKey"},
    {"DB_PASSWORD", "r24canaryDbPassword"},
};
#define R24_N_SECRETS (sizeof r24_secrets / sizeof *r24_secrets)

static void r24_secret_variables_do_not_reach_the_child(const struct tier *t)
{
	static const char ordinary_value[] = "r24-an-ordinary-value";
	char entries[R24_N_SECRETS + 3][512];
	char *env[R24_N_SECRETS + 4];
	size_t n = 0;
	struct caged_ws *ws = workspace(t, "r24");
	if (!ws || cage_refused_here(t, ws, "r24"))
		goto out;

	const char *path = getenv("PATH");
	snprintf(entries[n++], sizeof entries[0], "PATH=%s", path ? path : "/usr/bin:/bin");
	snprintf(entries[n++], sizeof entries[0], "R24_ORDINARY=%s", ordinary_value);
	for (size_t i = 0; i < R24_N_SECRETS; i++)
		snprintf(entries[n++], sizeof entries[0], "%s=%s", r24_secrets[i][0],
			 r24_secrets[i][1]);
	for (size_t i = 0; i < n; i++)
		env[i] = entries[i];
	env[n] = NULL;
	struct caged_opts o = {.env = env};

	for (size_t i = 0; i < R24_N_SECRETS; i++) {
		const char *name = r24_secrets[i][0], *value = r24_secrets[i][1];
		struct caged_result r = run_caged(ws, &o, "env-has", name, NULL);
		check(t, refused(&r) && !strstr(r.out, value), &r,
		      "r24: %s in the spawn's environment does not reach the child", name);
		r = run_uncaged(ws, &o, "env-has", name, NULL);
		check(t, did_it(&r) && strcmp(r.out, value) == 0, &r,
		      "r24: control: without the cage %s reaches the probe", name);
	}

	struct caged_result r = run_caged(ws, &o, "env-list", NULL);
	bool leaked = false;
	for (size_t i = 0; i < R24_N_SECRETS; i++)
		leaked |= strstr(r.out, r24_secrets[i][1]) != NULL;
	check(t, did_it(&r) && !leaked, &r,
	      "r24: no secret value appears anywhere in the child's environment");

	/*
	 * The filter must judge the whole name: a long one (longer than any
	 * fixed buffer a filter might copy it into) ending in _TOKEN is a secret
	 * too.
	 */
	char long_name[320], long_entry[400];
	snprintf(long_name, sizeof long_name, "R24_%0300d_TOKEN", 0);
	snprintf(long_entry, sizeof long_entry, "%s=%s", long_name, r24_secrets[0][1]);
	char *long_env[] = {entries[0], long_entry, NULL};
	struct caged_opts long_opts = {.env = long_env};
	r = run_caged(ws, &long_opts, "env-has", long_name, NULL);
	check(t, refused(&r), &r,
	      "r24: a secret variable with a %zu-character name (R24_000..._TOKEN) does not reach "
	      "the child",
	      strlen(long_name));
	r = run_uncaged(ws, &long_opts, "env-has", long_name, NULL);
	check(t, did_it(&r) && strcmp(r.out, r24_secrets[0][1]) == 0, &r,
	      "r24: control: without the cage the long-named secret reaches the probe");

	r = run_caged(ws, &o, "env-has", "R24_ORDINARY", NULL);
	check(t, did_it(&r) && strcmp(r.out, ordinary_value) == 0, &r,
	      "r24: control: an ordinary variable reaches the caged probe unchanged");

	struct procage_error err;
	if (procage_policy_env_pass(ws->policy, "GITHUB_TOKEN", &err) < 0) {
		check(t, false, NULL, "r24: procage_policy_env_pass(GITHUB_TOKEN): %s",
		      err.message);
		goto out;
	}
	r = run_caged(ws, &o, "env-has", "GITHUB_TOKEN", NULL);
	check(t, did_it(&r) && strcmp(r.out, r24_secrets[0][1]) == 0, &r,
	      "r24: control: GITHUB_TOKEN passed by name with procage_policy_env_pass reaches "
	      "the caged probe");
	r = run_caged(ws, &o, "env-has", "NPM_TOKEN", NULL);
	check(t, refused(&r), &r, "r24: passing GITHUB_TOKEN by name lets no other secret through");
out:
	caged_ws_free(ws);
}

/* ---- R-10 ------------------------------------------------------------- */

static void r10_runs_do_not_share_temporary_files(const struct tier *t)
{
	static const char secret[] = "r10: run A's private file";
	char name[64], a_file[PATH_MAX + 64], shared_file[PATH_MAX + 64], a_tmp[PATH_MAX];
	char name_arg[96], b_tmp[4][PATH_MAX];
	int hold[2] = {-1, -1};
	struct caged_ws *ws = workspace(t, "r10");
	if (!ws || cage_refused_here(t, ws, "r10"))
		goto out;
	memset(b_tmp, 0, sizeof b_tmp);

	snprintf(name, sizeof name, "procage-r10-%d", (int)getpid());
	snprintf(name_arg, sizeof name_arg, "$TMPDIR/%s", name);
	snprintf(shared_file, sizeof shared_file, "%s/procage-r10-shared-%d", ws->base,
		 (int)getpid());
	if (pipe2(hold, O_CLOEXEC) != 0) {
		check(t, false, NULL, "r10: pipe: %s", strerror(errno));
		goto out;
	}

	/* Run A: writes in its TMPDIR, says so, stays alive until we let go. */
	struct procage_fd_map a_map = {hold[0], 3};
	struct caged_opts a_opts = {.fds = &a_map, .n_fds = 1};
	struct caged_proc *a =
	    start_caged(ws, &a_opts, "write-file", name_arg, secret, "then", "print", "ready",
			"then", "wait-on-fd", "3", "then", "read-file", name_arg, NULL);
	close(hold[0]);
	hold[0] = -1;
	snprintf(a_tmp, sizeof a_tmp, "%s", caged_proc_tmpdir(a));
	snprintf(a_file, sizeof a_file, "%s/%s", a_tmp, name);
	if (!check(t, caged_proc_wait_for(a, "ready\n", 10000), NULL,
		   "r10: run A wrote %s and is waiting", a_file)) {
		close(hold[1]);
		hold[1] = -1;
		struct caged_result ra = caged_proc_finish(a);
		result_diag(&ra);
		goto out;
	}

	/* Runs B, while A lives. */
	struct caged_result r = run_caged(ws, NULL, "read-file", a_file, NULL);
	snprintf(b_tmp[0], sizeof b_tmp[0], "%s", r.tmpdir);
	check(t, refused(&r) && !strstr(r.out, secret), &r,
	      "r10: a concurrent run B cannot read run A's file in A's private TMPDIR");
	r = run_caged(ws, NULL, "list-dir", a_tmp, NULL);
	snprintf(b_tmp[1], sizeof b_tmp[1], "%s", r.tmpdir);
	check(t, refused(&r) && !strstr(r.out, name), &r,
	      "r10: a concurrent run B cannot list run A's private TMPDIR");
	r = run_caged(ws, NULL, "write-file", shared_file, "from run B", NULL);
	snprintf(b_tmp[2], sizeof b_tmp[2], "%s", r.tmpdir);
	check(t, refused(&r) && !caged_path_exists(shared_file), &r,
	      "r10: run B cannot write into the shared temporary directory %s", ws->base);
	unlink(shared_file);

	char own_arg[96], own_file[PATH_MAX + 64];
	snprintf(own_arg, sizeof own_arg, "$TMPDIR/procage-r10-own-%d", (int)getpid());
	r = run_caged(ws, NULL, "write-file", own_arg, "run B's own", "then", "read-file", own_arg,
		      NULL);
	snprintf(b_tmp[3], sizeof b_tmp[3], "%s", r.tmpdir);
	/* Without the cage (PROCAGE_TEST_SANDBOX_OFF) it went to the shared directory. */
	snprintf(own_file, sizeof own_file, "%s/procage-r10-own-%d", r.tmpdir, (int)getpid());
	unlink(own_file);
	check(t, did_it(&r) && strcmp(r.out, "run B's own") == 0, &r,
	      "r10: control: run B writes and reads back a file in its own private TMPDIR");
	check(t,
	      a_tmp[0] && b_tmp[3][0] && strcmp(a_tmp, b_tmp[3]) != 0 &&
		  strcmp(a_tmp, ws->base) != 0 && strcmp(b_tmp[3], ws->base) != 0,
	      NULL, "r10: runs A and B have TMPDIRs of their own (A %s, B %s), not the shared %s",
	      a_tmp, b_tmp[3], ws->base);

	r = run_uncaged(ws, NULL, "read-file", a_file, NULL);
	check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
	      "r10: control: without a cage the same user reads run A's file");
	r = run_uncaged(ws, NULL, "write-file", shared_file, "uncaged", NULL);
	check(t, did_it(&r) && caged_path_exists(shared_file), &r,
	      "r10: control: without a cage the same user writes into %s", ws->base);
	unlink(shared_file);

	/* Let A go on: it reads its own file back and ends. */
	close(hold[1]);
	hold[1] = -1;
	struct caged_result ra = caged_proc_finish(a);
	char expect[256];
	snprintf(expect, sizeof expect, "ready\n%s", secret);
	check(t, did_it(&ra) && strcmp(ra.out, expect) == 0, &ra,
	      "r10: control: run A reads its own file back after B's attempts");

	check(t, a_tmp[0] && !caged_path_exists(a_tmp), NULL,
	      "r10: run A's private TMPDIR %s is gone after the run", a_tmp);
	bool b_gone = true;
	for (int i = 0; i < 4; i++)
		b_gone &= b_tmp[i][0] && !caged_path_exists(b_tmp[i]);
	check(t, b_gone, NULL,
	      "r10: the private TMPDIRs of the B runs are gone after them (%s ...)", b_tmp[0]);
	/* Without the cage (PROCAGE_TEST_SANDBOX_OFF) A wrote in the shared directory. */
	unlink(a_file);
out:
	for (int i = 0; i < 2; i++)
		if (hold[i] >= 0)
			close(hold[i]);
	caged_ws_free(ws);
}

/* ---- R-28 ------------------------------------------------------------- */

struct r28_case {
	const char *what;
	enum host_rule rule;
	const char *args[6];
};

static void r28_one(const struct tier *t, struct caged_ws *ws, const struct r28_case *c)
{
	struct caged_result r = run_caged_argv(ws, NULL, c->args);
	if (check(t, refused(&r), &r, "r28: %s is refused in the cage", c->what))
		tap_diag("  how: %s", r.summary);
	r = run_uncaged_argv(ws, NULL, c->args);
	control_or_skip(t, c->rule, &r, c->what);
}

static void r28_filter_bypassing_interfaces_are_refused(const struct tier *t)
{
	char sock[6][3][16], mnt[PATH_MAX + 8], pid[16];
	int hold[2] = {-1, -1};
	struct caged_proc *target = NULL;
	struct caged_ws *ws = workspace(t, "r28");
	if (!ws || cage_refused_here(t, ws, "r28"))
		goto out;

	static const int sockets[6][3] = {
	    {AF_VSOCK, SOCK_STREAM, 0},
	    {AF_PACKET, SOCK_RAW, 0},
	    {AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG},
	    {AF_NETLINK, SOCK_RAW, NETLINK_AUDIT},
	    {AF_INET, SOCK_RAW, IPPROTO_ICMP},
	    {AF_INET6, SOCK_RAW, IPPROTO_ICMPV6},
	};
	for (int i = 0; i < 6; i++)
		for (int k = 0; k < 3; k++)
			snprintf(sock[i][k], sizeof sock[i][k], "%d", sockets[i][k]);
	snprintf(mnt, sizeof mnt, "%s/mnt", ws->rw);
	mkdir(mnt, 0755);

	/* A process outside the cage for ptrace to aim at; it lets anyone attach (Yama). */
	if (pipe2(hold, O_CLOEXEC) != 0) {
		check(t, false, NULL, "r28: pipe: %s", strerror(errno));
		goto out;
	}
	struct procage_fd_map hold_map = {hold[0], 3};
	struct caged_opts hold_opts = {.fds = &hold_map, .n_fds = 1};
	target = start_uncaged(ws, &hold_opts, "allow-ptracer", "then", "print", "ready", "then",
			       "wait-on-fd", "3", NULL);
	close(hold[0]);
	hold[0] = -1;
	if (!check(t, caged_proc_wait_for(target, "ready\n", 10000), NULL,
		   "r28: a target process for ptrace is running outside the cage"))
		goto out;
	snprintf(pid, sizeof pid, "%d", (int)caged_proc_pid(target));

	const struct r28_case cases[] = {
	    {"io_uring_setup", HOST_IO_URING, {"io-uring"}},
	    {"an AF_VSOCK socket", HOST_FAMILY, {"socket", sock[0][0], sock[0][1], sock[0][2]}},
	    {"an AF_PACKET socket", HOST_NET_RAW, {"socket", sock[1][0], sock[1][1], sock[1][2]}},
	    {"an AF_NETLINK NETLINK_SOCK_DIAG socket",
	     HOST_FAMILY,
	     {"socket", sock[2][0], sock[2][1], sock[2][2]}},
	    {"an AF_NETLINK NETLINK_AUDIT socket",
	     HOST_FAMILY,
	     {"socket", sock[3][0], sock[3][1], sock[3][2]}},
	    {"an AF_INET SOCK_RAW socket",
	     HOST_NET_RAW,
	     {"socket", sock[4][0], sock[4][1], sock[4][2]}},
	    {"an AF_INET6 SOCK_RAW socket",
	     HOST_NET_RAW,
	     {"socket", sock[5][0], sock[5][1], sock[5][2]}},
	    {"unshare(CLONE_NEWUSER)", HOST_USERNS, {"unshare-user"}},
	    {"clone(CLONE_NEWUSER)", HOST_USERNS, {"clone-newuser"}},
	    {"clone3(CLONE_NEWUSER)", HOST_USERNS, {"clone3-newuser"}},
	    {"bpf(BPF_MAP_CREATE)", HOST_BPF, {"bpf"}},
	    {"ptrace(PTRACE_TRACEME)", HOST_PTRACE, {"ptrace-traceme"}},
	    {"ptrace(PTRACE_ATTACH) of a process outside the cage",
	     HOST_PTRACE,
	     {"ptrace-attach", pid}},
	    {"mounting a tmpfs", HOST_MOUNT, {"mount-tmpfs", mnt}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		r28_one(t, ws, &cases[i]);
out:
	if (hold[1] >= 0)
		close(hold[1]);
	if (hold[0] >= 0)
		close(hold[0]);
	if (target) {
		struct caged_result r = caged_proc_finish(target);
		if (!did_it(&r))
			result_diag(&r);
	}
	caged_ws_free(ws);
}

/* ---- R-31 ------------------------------------------------------------- */

static bool file_is(const char *path, const char *content)
{
	char buf[256];
	return caged_read_file(path, buf, sizeof buf) == 0 && strcmp(buf, content) == 0;
}

static void r31_files_outside_the_writable_paths_cannot_be_truncated(const struct tier *t)
{
	static const char content[] = "r31: this content must survive\n";
	static const char *const variants[][2] = {
	    {"truncate-path", "truncate(path)"},
	    {"open-trunc", "open(O_RDONLY|O_TRUNC)"},
	    {"ftruncate-rw", "open(O_RDWR) and ftruncate"},
	};
	char ro_file[PATH_MAX + 32], rw_file[PATH_MAX + 32];
	struct caged_ws *ws = workspace(t, "r31");
	if (!ws || cage_refused_here(t, ws, "r31"))
		goto out;
	snprintf(ro_file, sizeof ro_file, "%s/r31-keep", ws->ro);
	snprintf(rw_file, sizeof rw_file, "%s/r31-scratch", ws->rw);

	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		const char *action = variants[i][0], *what = variants[i][1];
		caged_write_file(ro_file, content);
		struct caged_result r = run_caged(ws, NULL, action, ro_file, NULL);
		check(t, refused(&r), &r,
		      "r31: %s of a file in a readable-only directory is refused", what);
		check(t, file_is(ro_file, content), NULL,
		      "r31: the readable-only file keeps its content after %s in the cage", what);

		caged_write_file(rw_file, content);
		r = run_caged(ws, NULL, action, rw_file, NULL);
		check(t, did_it(&r) && file_is(rw_file, ""), &r,
		      "r31: control: %s empties a file in the writable workspace from the cage",
		      what);

		caged_write_file(ro_file, content);
		r = run_uncaged(ws, NULL, action, ro_file, NULL);
		check(t, did_it(&r) && file_is(ro_file, ""), &r,
		      "r31: control: without the cage %s empties the readable-only file", what);
	}

out:
	caged_ws_free(ws);
}

/* ---- main ------------------------------------------------------------- */

static void facts_diag(const struct procage_host_facts *f)
{
	char status[4096];
	tap_diag("kernel %s, tier %s", f->kernel_release, procage_tier_name(f->tier));
	tap_diag("landlock ABI %d%s%s, in lsm list: %s", f->landlock_abi,
		 f->landlock_abi ? "" : ", unavailable: ",
		 f->landlock_abi ? "" : strerror(f->landlock_errno),
		 f->landlock_in_lsm_list ? "yes" : "no (or securityfs not mounted)");
	tap_diag("seccomp filter: %s, user notification: %s", f->seccomp_filter ? "yes" : "no",
		 f->seccomp_user_notif ? "yes" : "no");
	tap_diag("user namespace: create %s, mount %s%s%s%s", f->userns_create ? "yes" : "no",
		 f->userns_mount ? "yes" : "no", f->userns_errno ? " (" : "",
		 f->userns_errno ? strerror(f->userns_errno) : "", f->userns_errno ? ")" : "");
	if (f->apparmor_restricts_userns)
		tap_diag("AppArmor restricts unprivileged user namespaces");
	tap_diag("uid %u gid %u euid %u egid %u", (unsigned)getuid(), (unsigned)getgid(),
		 (unsigned)geteuid(), (unsigned)getegid());
	if (caged_read_file("/proc/self/status", status, sizeof status) == 0) {
		const char *keys[] = {"NoNewPrivs:", "Seccomp:", "CapEff:"};
		for (size_t i = 0; i < 3; i++) {
			const char *p = strstr(status, keys[i]);
			if (p)
				tap_diag("%.*s", (int)strcspn(p, "\n"), p);
		}
	}
	tap_diag("probe: %s", caged_probe_path());
}

int main(int argc, char **argv)
{
	struct tier t;
	struct procage_error err;

	memset(&t, 0, sizeof t);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (caged_init(argv[0]) < 0) {
		tap_ok(false, "the probe is found next to the suite or at $PROCAGE_PROBE");
		return tap_done();
	}
	if (procage_host_facts(&t.facts, &err) < 0) {
		tap_ok(false, "host facts: %s", err.message);
		return tap_done();
	}
	snprintf(t.name, sizeof t.name, "%s/uid %u", procage_tier_name(t.facts.tier),
		 (unsigned)geteuid());
	facts_diag(&t.facts);
	if (caged_sandbox_off())
		tap_diag("!!! PROCAGE_TEST_SANDBOX_OFF=1: caged runs are NOT caged; every canary "
			 "assertion must fail in this run !!!");

	const char *expect = getenv("PROCAGE_EXPECT_TIER");
	if (expect && expect[0])
		tap_ok(strcmp(procage_tier_name(t.facts.tier), expect) == 0,
		       "%s: the host measures tier %s, as PROCAGE_EXPECT_TIER expects", t.name,
		       expect);

	/* Does this host cage at all? If not, each canary asserts the refusal. */
	struct caged_ws *ws = caged_ws_new();
	if (!ws) {
		tap_ok(false, "%s: a test workspace can be made", t.name);
		return tap_done();
	}
	struct procage_cage *cage = NULL;
	if (procage_cage_new(ws->policy, &cage, &err) < 0) {
		t.cages_refused = true;
		snprintf(t.refusal, sizeof t.refusal, "%s", err.message);
		tap_diag("every cage is refused on this host: %s", err.message);
	} else {
		tap_diag("cages on this host are enforced at tier %s",
			 procage_tier_name(procage_cage_tier(cage)));
	}
	procage_cage_free(cage);
	caged_ws_free(ws);

	r21_an_inherited_descriptor_does_not_reach_the_child(&t);
	r24_secret_variables_do_not_reach_the_child(&t);
	r10_runs_do_not_share_temporary_files(&t);
	r28_filter_bypassing_interfaces_are_refused(&t);
	r31_files_outside_the_writable_paths_cannot_be_truncated(&t);
	return tap_done();
}
