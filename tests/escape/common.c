/* Helpers shared by the escape canaries: reporting, fixtures, host rules. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "tap.h"

/* ---- reporting -------------------------------------------------------- */

static const char *role_tag(enum assertion_role role)
{
	switch (role) {
	case ROLE_CONTROL:
		return "[control]";
	case ROLE_SETUP:
		return "[setup]";
	case ROLE_NEEDS_CAGE:
		return "[needs the cage]";
	case ROLE_CANARY:
		break;
	}
	return "[canary]";
}

static enum assertion_role role_of(const char *name)
{
	return strstr(name, "control:") ? ROLE_CONTROL : ROLE_CANARY;
}

/* What main asserts about the host and the suite itself is setup. */
bool ok_plain(bool ok, const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	return tap_ok(ok, "%s %s", name, role_tag(ROLE_SETUP));
}

void skip(const struct tier *t, const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	tap_skip("%s: %s", t->name, name);
}

void diag(const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	tap_diag("%s", text);
}

int escape_done(void)
{
	return tap_done();
}

void result_diag(const struct caged_result *r)
{
	tap_diag("  got: %s", r->summary);
	if (r->out[0])
		tap_diag("  stdout: %.300s", r->out);
}

/*
 * The canaries of one id ("r28") asserted since that id's last control:
 * when the control is skipped because the host itself refuses the
 * operation, those canaries are no evidence of the cage on this host, and
 * control_or_skip names them (by their TAP numbers) for the sandbox-off
 * judge.
 */
static struct {
	char id[16];
	int numbers[64];
	size_t n;
} pending;

static void pending_note(const char *name, enum assertion_role role)
{
	char id[16];
	snprintf(id, sizeof id, "%.*s", (int)strcspn(name, ": ("), name);
	if (strcmp(id, pending.id) != 0 || role == ROLE_CONTROL) {
		snprintf(pending.id, sizeof pending.id, "%s", id);
		pending.n = 0;
	}
	if (role == ROLE_CANARY && pending.n < sizeof pending.numbers / sizeof *pending.numbers)
		pending.numbers[pending.n++] = tap_count;
}

static bool check_named(const struct tier *t, enum assertion_role role, bool ok,
			const struct caged_result *r, const char *name)
{
	tap_ok(ok, "%s: %s %s", t->name, name, role_tag(role));
	pending_note(name, role);
	if (!ok && r)
		result_diag(r);
	return ok;
}

bool check(const struct tier *t, bool ok, const struct caged_result *r, const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	return check_named(t, role_of(name), ok, r, name);
}

bool check_role(const struct tier *t, enum assertion_role role, bool ok,
		const struct caged_result *r, const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	return check_named(t, role, ok, r, name);
}

bool fixture(const struct tier *t, bool ok, const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	if (ok)
		return true;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	tap_ok(false, "%s: fixture: %s %s", t->name, name, role_tag(ROLE_SETUP));
	return false;
}

bool todo_check(const struct tier *t, bool ok, const struct caged_result *r, const char *reason,
		const char *fmt, ...)
{
	char name[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	tap_count++; /* a TODO failure is not counted as one */
	printf("%sok %d - %s: %s %s # TODO %s\n", ok ? "" : "not ", tap_count, t->name, name,
	       role_tag(role_of(name)), reason);
	fflush(stdout);
	if (!ok && r)
		result_diag(r);
	return ok;
}

bool refused(const struct caged_result *r)
{
	return caged_exited_with(r, PROBE_REFUSED);
}

bool did_it(const struct caged_result *r)
{
	return caged_exited_with(r, PROBE_DID_IT);
}

bool refused_before_any_child(const struct caged_result *r)
{
	return r->how == CAGED_NOT_STARTED && r->cage_refused;
}

struct caged_ws *workspace(const struct tier *t, const char *id)
{
	struct caged_ws *ws = caged_ws_new();
	if (!ws)
		check(t, false, NULL, "%s: the test workspace could be made", id);
	return ws;
}

bool cage_refused_here(const struct tier *t, struct caged_ws *ws, const char *id)
{
	if (!t->cages_refused)
		return false;
	struct caged_result r = run_caged(ws, NULL, "print", "the probe ran", NULL);
	check(t, r.how == CAGED_NOT_STARTED && !strstr(r.out, "the probe ran"), &r,
	      "%s: this host cannot enforce the cage, and it is refused before any child runs (%s)",
	      id, t->refusal);
	return true;
}

/* ---- fixtures -------------------------------------------------------- */

bool make_dirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return false;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return false;
		*p = '/';
	}
	return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

bool put_file(const char *path, const char *text)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (!make_dirs(dir))
			return false;
	}
	return caged_write_file(path, text) == 0;
}

bool file_is(const char *path, const char *content)
{
	char buf[256];
	return caged_read_file(path, buf, sizeof buf) == 0 && strcmp(buf, content) == 0;
}

bool path_join(const struct tier *t, char *out, const char *base, const char *rest)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", base, rest);
	return fixture(t, n > 0 && n < PATH_MAX, "the path %s/%s fits in PATH_MAX", base, rest);
}

unsigned long long inode_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* ---- policy changes --------------------------------------------------- */

static const char *access_name(enum procage_access a)
{
	static const char *const names[] = {"?", "read", "write", "protect", "hide", "connect"};
	return (unsigned)a < sizeof names / sizeof *names ? names[a] : "?";
}

bool policy_rule(const struct tier *t, struct caged_ws *ws, const char *id, const char *path,
		 enum procage_access access)
{
	struct procage_error err = {0};
	int rc = procage_policy_allow(ws->policy, path, access, &err);
	return fixture(t, rc == 0, "%s: the policy takes the %s rule for %s (%s)", id,
		       access_name(access), path, err.message);
}

bool policy_accept(const struct tier *t, struct caged_ws *ws, const char *id, const char *name)
{
	struct procage_error err = {0};
	int rc = procage_policy_accept(ws->policy, name, &err);
	return fixture(t, rc == 0, "%s: the policy accepts %s (%s)", id, name, err.message);
}

bool policy_network(const struct tier *t, struct caged_ws *ws, const char *id,
		    enum procage_network mode)
{
	struct procage_error err = {0};
	int rc = procage_policy_set_network(ws->policy, mode, &err);
	return fixture(t, rc == 0, "%s: the policy takes the network mode %d (%s)", id, (int)mode,
		       err.message);
}

/* ---- host facts for controls ----------------------------------------- */

long sysctl_value(const char *path)
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

enum {
	CAP_DAC_READ_SEARCH_NR = 2,
	CAP_SYS_PTRACE_NR = 19,
	CAP_NET_RAW_NR = 13,
	CAP_SYS_ADMIN_NR = 21,
	CAP_BPF_NR = 39
};

/*
 * Why the host itself refuses an operation to this process, or NULL when it
 * should allow it. A control refused for a reason given here is a loud,
 * counted skip; refused for no known reason it is a failure.
 */
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
	case HOST_FLINK: {
		unsigned major = 0, minor = 0;
		bool old_kernel = sscanf(t->facts.kernel_release, "%u.%u", &major, &minor) == 2 &&
				  (major < 6 || (major == 6 && minor < 10));
		if (old_kernel && !has_capability(CAP_DAC_READ_SEARCH_NR)) {
			snprintf(
			    why, size,
			    "before Linux 6.10 (this is %s) it needs CAP_DAC_READ_SEARCH, which "
			    "uid %u does not hold",
			    t->facts.kernel_release, (unsigned)geteuid());
			return why;
		}
		return NULL;
	}
	case HOST_TIOCSTI:
		v = sysctl_value("/proc/sys/dev/tty/legacy_tiocsti");
		if (v == 0 && !has_capability(CAP_SYS_ADMIN_NR)) {
			snprintf(why, size, "dev.tty.legacy_tiocsti=0 and uid %u lacks CAP_SYS_ADMIN",
				 (unsigned)geteuid());
			return why;
		}
		return NULL;
	case HOST_PRIVATE_MOUNTS:
		if (!t->facts.userns_create && !has_capability(CAP_SYS_ADMIN_NR)) {
			snprintf(why, size,
				 "this host makes no user namespace for this process (%s) and uid "
				 "%u lacks CAP_SYS_ADMIN, so it has no mount namespace of its own "
				 "to try it in",
				 strerror(t->facts.userns_errno), (unsigned)geteuid());
			return why;
		}
		return NULL;
	}
	return NULL;
}

void control_or_skip(const struct tier *t, const char *id, enum host_rule rule,
		     const struct caged_result *r, const char *what)
{
	char why[512];
	if (did_it(r)) {
		check(t, true, r, "%s: control: without the cage, %s succeeds", id, what);
		return;
	}
	if (refused(r) && host_refuses(t, rule, r, why, sizeof why)) {
		if (strcmp(pending.id, id) == 0 && pending.n > 0) {
			char list[512] = "";
			size_t len = 0;
			for (size_t i = 0; i < pending.n && len < sizeof list - 16; i++)
				len += (size_t)snprintf(list + len, sizeof list - len, " %d",
							pending.numbers[i]);
			tap_diag("host refuses it too, so no evidence of the cage here:%s", list);
		}
		pending.n = 0;
		tap_skip("%s: %s: control: CANNOT RUN HERE: %s is refused without the cage too, "
			 "since %s (%s); the refusal in the cage is therefore not evidence of the "
			 "cage on this host",
			 t->name, id, what, why, r->summary);
		return;
	}
	check(t, false, r, "%s: control: without the cage, %s succeeds", id, what);
}
