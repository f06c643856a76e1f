/*
 * Unit tests: why a host is tier T2, judged from recorded hosts. Each case
 * lays the files a real host of that kind has (sysctls, securityfs, the
 * process's status and AppArmor label) in a directory of its own and reads
 * them back as the command does on a live host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "host/userns_hint.h"

static char top[] = "/tmp/procage-hint.XXXXXX";
static int case_number;

/* Write text to root/path, making the directories on the way. */
static void put(const char *root, const char *path, const char *text)
{
	char full[512];
	snprintf(full, sizeof full, "%s%s", root, path);
	for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void)mkdir(full, 0755);
		*p = '/';
	}
	if (!text) {
		(void)mkdir(full, 0755);
		return;
	}
	FILE *f = fopen(full, "we");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A fresh recorded host: its root directory, in root (at least 64 bytes). */
static void host_new(char *root, size_t size)
{
	snprintf(root, size, "%s/host%d", top, ++case_number);
	(void)mkdir(root, 0755);
	put(root, "/proc/self/status", "Name:\tprocage\nSeccomp:\t0\nSeccomp_filters:\t0\n");
	put(root, "/proc/sys/user/max_user_namespaces", "63379\n");
}

/* Ubuntu 24.04 as an unprivileged user: the restriction, AppArmor on, no profile. */
static void ubuntu_new(char *root, size_t size)
{
	host_new(root, size);
	put(root, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put(root, "/sys/kernel/security/apparmor", NULL);
	put(root, "/proc/self/attr/apparmor/current", "unconfined\n");
}

static enum userns_cause judge(const char *root, struct userns_inputs *in, char *text,
			       size_t size)
{
	userns_inputs_read(root, in);
	enum userns_cause cause = userns_cause_judge(in);
	userns_hint_format(in, cause, text, size);
	return cause;
}

static bool has(const char *text, const char *part)
{
	return strstr(text, part) != NULL;
}

static void test_ubuntu(void)
{
	char root[128], text[1024];
	struct userns_inputs in = { .userns_create = true, .userns_errno = EPERM };
	ubuntu_new(root, sizeof root);
	snprintf(in.program, sizeof in.program, "/usr/local/bin/procage");
	enum userns_cause c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_APPARMOR, "Ubuntu without the profile: AppArmor's restriction (%d)",
	       c);
	tap_ok(has(text, "kernel.apparmor_restrict_unprivileged_userns=1") &&
		       has(text, "make install") && has(text, "tier T1"),
	       "... the hint names the sysctl and the way to tier T1: %s", text);

	put(root, "/etc/apparmor.d/procage", "profile procage /opt/other/bin/procage {}\n");
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_APPARMOR_UNLOADED && has(text, "/etc/apparmor.d/procage") &&
		       has(text, "apparmor_parser -r") && has(text, "/usr/local/bin/procage"),
	       "a profile file that does not apply to this program is named as such: %s", text);

	snprintf(in.program, sizeof in.program, "/opt/harness/bin/python3");
	userns_hint_format(&in, USERNS_CAUSE_APPARMOR, text, sizeof text);
	tap_ok(has(text, "linked with libprocage") && has(text, "docs/apparmor.md") &&
		       has(text, "/opt/harness/bin/python3"),
	       "a program linked with the library is pointed to the template: %s", text);

	put(root, "/proc/self/attr/apparmor/current", "procage (unconfined)\n");
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_NO_MOUNT,
	       "confined by a profile and still unable to mount: not blamed on the restriction (%d)",
	       c);

	put(root, "/proc/self/attr/apparmor/current", "unconfined\n");
	in.root = true;
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_NO_MOUNT, "root is not subject to the restriction (%d)", c);
}

/* An older kernel: only the shared attr file holds the label. */
static void test_label_fallback(void)
{
	char root[128], text[1024];
	struct userns_inputs in = { .userns_create = true, .userns_errno = EPERM };
	host_new(root, sizeof root);
	put(root, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
	put(root, "/sys/kernel/security/apparmor", NULL);
	put(root, "/proc/self/attr/current", "bwrap (unconfined)\n");
	enum userns_cause c = judge(root, &in, text, sizeof text);
	tap_ok(in.confined_by_profile && strcmp(in.label, "bwrap (unconfined)") == 0 &&
		       c == USERNS_CAUSE_NO_MOUNT,
	       "the label is read from /proc/self/attr/current where the newer file is missing");
}

static void test_sysctls(void)
{
	char root[128], text[1024];
	struct userns_inputs in = { .userns_errno = EPERM };
	host_new(root, sizeof root);
	put(root, "/proc/sys/kernel/unprivileged_userns_clone", "0\n");
	enum userns_cause c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_USERNS_CLONE && has(text, "kernel.unprivileged_userns_clone=0") &&
		       has(text, "sysctl -w kernel.unprivileged_userns_clone=1"),
	       "Debian's switch: named with the command that lifts it: %s", text);

	host_new(root, sizeof root);
	put(root, "/proc/sys/user/max_user_namespaces", "0\n");
	in.userns_errno = ENOSPC;
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_MAX_ZERO && has(text, "user.max_user_namespaces=0"),
	       "max_user_namespaces 0: named: %s", text);

	host_new(root, sizeof root);
	put(root, "/proc/sys/user/max_user_namespaces", "12\n");
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_LIMIT_REACHED && has(text, "user.max_user_namespaces=12"),
	       "the limit reached: named with its value: %s", text);
}

static void test_container(void)
{
	char root[128], text[1024];
	struct userns_inputs in = { .userns_errno = EPERM };
	host_new(root, sizeof root);
	put(root, "/proc/self/status", "Name:\tprocage\nSeccomp:\t2\nSeccomp_filters:\t1\n");
	put(root, "/.dockerenv", "");
	enum userns_cause c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_SECCOMP && has(text, "seccomp") && has(text, "container") &&
		       has(text, "--security-opt seccomp="),
	       "a container's seccomp profile: named, with the engine's option: %s", text);

	host_new(root, sizeof root);
	in.userns_errno = EINVAL;
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_UNKNOWN && has(text, strerror(EINVAL)),
	       "no known cause: the errno is given, nothing is guessed: %s", text);

	in.userns_create = in.userns_mount = true;
	c = judge(root, &in, text, sizeof text);
	tap_ok(c == USERNS_CAUSE_NONE && text[0] == '\0', "tier T1: no hint");
}

/* The live host: the hint agrees with the tier. */
static void test_live(void)
{
	struct procage_host_facts f;
	char text[1024];
	if (!tap_ok(procage_host_facts(&f, NULL) == 0, "the host facts are measured"))
		return;
	size_t n = procage_host_tier_hint(text, sizeof text);
	if (f.tier == PROCAGE_TIER_T2)
		tap_ok(n > 0 && strlen(text) == n && has(text, "tier T2"),
		       "this host is tier T2 and says why: %s", text);
	else
		tap_ok(n == 0 && text[0] == '\0', "this host is tier %s: no hint",
		       procage_tier_name(f.tier));
}

int main(void)
{
	if (!mkdtemp(top)) {
		tap_ok(false, "a temporary directory: %s", strerror(errno));
		return tap_done();
	}
	test_ubuntu();
	test_label_fallback();
	test_sysctls();
	test_container();
	test_live();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	(void)!system(cmd);
	return tap_done();
}
