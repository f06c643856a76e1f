/*
 * Why this host is tier T2 (see userns_hint.h). Every input is a small
 * file read once; nothing here changes the host.
 */
#include "userns_hint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"
#include "base/small_file.h"

/* The first line of root/path into buf; false if it cannot be read. */
static bool file_first_line(const char *root, const char *path, char *buf, size_t size)
{
	char full[512];
	if ((size_t)snprintf(full, sizeof full, "%s%s", root, path) >= sizeof full)
		return false;
	if (small_file_read(full, buf, size) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

static long file_number(const char *root, const char *path)
{
	char buf[32], *end;
	if (!file_first_line(root, path, buf, sizeof buf))
		return -1;
	long v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

static bool path_exists(const char *root, const char *path)
{
	char full[512];
	struct stat st;
	return (size_t)snprintf(full, sizeof full, "%s%s", root, path) < sizeof full &&
	       lstat(full, &st) == 0;
}

/* The "Seccomp:" field of the status file: 0 none, 1 strict, 2 filter. */
static int seccomp_mode_read(const char *root)
{
	char full[512], line[256];
	int mode = -1;
	if ((size_t)snprintf(full, sizeof full, "%s/proc/self/status", root) >= sizeof full)
		return -1;
	FILE *f = fopen(full, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Seccomp:", 8) == 0) {
			mode = atoi(line + 8);
			break;
		}
	fclose(f);
	return mode;
}

/*
 * The AppArmor label of this process: "unconfined", or a profile's name
 * followed by its mode ("procage (unconfined)"). Newer kernels have a
 * directory per security module; older ones only the shared file.
 */
static void label_read(const char *root, struct userns_inputs *in)
{
	in->label[0] = '\0';
	if (!file_first_line(root, "/proc/self/attr/apparmor/current", in->label, sizeof in->label))
		(void)file_first_line(root, "/proc/self/attr/current", in->label, sizeof in->label);
	in->confined_by_profile = in->label[0] && strcmp(in->label, "unconfined") != 0;
}

void userns_inputs_read(const char *root, struct userns_inputs *in)
{
	in->apparmor_restrict =
		(int)file_number(root, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	in->unprivileged_userns_clone =
		(int)file_number(root, "/proc/sys/kernel/unprivileged_userns_clone");
	in->max_user_namespaces = file_number(root, "/proc/sys/user/max_user_namespaces");
	in->seccomp_mode = seccomp_mode_read(root);
	in->apparmor_enabled = path_exists(root, "/sys/kernel/security/apparmor");
	if (in->apparmor_enabled)
		label_read(root, in);
	else {
		in->label[0] = '\0';
		in->confined_by_profile = false;
	}
	in->profile_file = path_exists(root, USERNS_HINT_PROFILE_DIR "/procage");
	in->container = path_exists(root, "/.dockerenv") || path_exists(root, "/run/.containerenv");
	if (!root[0]) {
		ssize_t n = readlink("/proc/self/exe", in->program, sizeof in->program - 1);
		in->program[n > 0 ? n : 0] = '\0';
	}
}

/*
 * AppArmor's restriction applies to processes without CAP_SYS_ADMIN in the
 * initial user namespace and without a profile that allows userns: the
 * namespace is made (or, on some releases, refused) and then has no
 * capability, so the mount probe fails.
 */
static bool apparmor_explains(const struct userns_inputs *in)
{
	return in->apparmor_restrict == 1 && in->apparmor_enabled && !in->root &&
	       !in->confined_by_profile;
}

enum userns_cause userns_cause_judge(const struct userns_inputs *in)
{
	if (in->userns_mount)
		return USERNS_CAUSE_NONE;
	if (in->max_user_namespaces == 0)
		return USERNS_CAUSE_MAX_ZERO;
	if (!in->userns_create && in->unprivileged_userns_clone == 0 && !in->root)
		return USERNS_CAUSE_USERNS_CLONE;
	if (!in->userns_create && in->userns_errno == ENOSPC)
		return USERNS_CAUSE_LIMIT_REACHED;
	if (apparmor_explains(in))
		return in->profile_file ? USERNS_CAUSE_APPARMOR_UNLOADED : USERNS_CAUSE_APPARMOR;
	if (in->seccomp_mode == 2 && (in->userns_errno == EPERM || in->userns_errno == EACCES))
		return USERNS_CAUSE_SECCOMP;
	if (in->userns_create)
		return USERNS_CAUSE_NO_MOUNT;
	return USERNS_CAUSE_UNKNOWN;
}

static const char *program_or_this(const struct userns_inputs *in)
{
	return in->program[0] ? in->program : "this program";
}

/* The installed command, as opposed to another program linked with the library. */
static bool program_is_command(const struct userns_inputs *in)
{
	const char *slash = strrchr(in->program, '/');
	return strcmp(slash ? slash + 1 : in->program, "procage") == 0;
}

static void apparmor_hint(const struct userns_inputs *in, enum userns_cause cause, char *buf,
			  size_t size)
{
	const char *why = "AppArmor restricts user namespaces for programs without a profile "
			  "(kernel.apparmor_restrict_unprivileged_userns=1), so this host is tier T2";
	if (!program_is_command(in))
		snprintf(buf, size,
			 "%s for %s; a program linked with libprocage needs a profile of its own "
			 "that allows userns (docs/apparmor.md has a template), loaded with "
			 "`sudo apparmor_parser -r PROFILE`, to get tier T1",
			 why, program_or_this(in));
	else if (cause == USERNS_CAUSE_APPARMOR_UNLOADED)
		snprintf(buf, size,
			 "%s: procage's profile " USERNS_HINT_PROFILE_DIR "/procage does not apply "
			 "to %s (it is not loaded, or it names the path of another installation): "
			 "load it with `sudo apparmor_parser -r " USERNS_HINT_PROFILE_DIR
			 "/procage`, or install with the PREFIX this program runs from, to get tier T1",
			 why, program_or_this(in));
	else
		snprintf(buf, size,
			 "%s; install procage's profile with `make install` (or `sudo "
			 "apparmor_parser -r " USERNS_HINT_PROFILE_DIR "/procage` once it is "
			 "there) to get tier T1",
			 why);
}

void userns_hint_format(const struct userns_inputs *in, enum userns_cause cause, char *buf,
			size_t size)
{
	const char *err = in->userns_errno ? strerror(in->userns_errno) : "refused";
	switch (cause) {
	case USERNS_CAUSE_NONE:
		snprintf(buf, size, "%s", "");
		break;
	case USERNS_CAUSE_APPARMOR:
	case USERNS_CAUSE_APPARMOR_UNLOADED:
		apparmor_hint(in, cause, buf, size);
		break;
	case USERNS_CAUSE_USERNS_CLONE:
		snprintf(buf, size,
			 "user namespaces are switched off for unprivileged users "
			 "(kernel.unprivileged_userns_clone=0), so this host is tier T2; "
			 "`sudo sysctl -w kernel.unprivileged_userns_clone=1` gives tier T1");
		break;
	case USERNS_CAUSE_MAX_ZERO:
		snprintf(buf, size,
			 "user namespaces are switched off (user.max_user_namespaces=0), so this "
			 "host is tier T2; `sudo sysctl -w user.max_user_namespaces=15000` gives "
			 "tier T1");
		break;
	case USERNS_CAUSE_LIMIT_REACHED:
		snprintf(buf, size,
			 "no more user namespaces can be made here (%s: the limit "
			 "user.max_user_namespaces=%ld is reached, or 32 levels of nesting), so "
			 "this host is tier T2",
			 err, in->max_user_namespaces);
		break;
	case USERNS_CAUSE_SECCOMP:
		snprintf(buf, size,
			 "this process runs under a seccomp filter%s that refuses what user "
			 "namespaces need (%s), as container engines' default profiles do, so this "
			 "host is tier T2; a container started with a seccomp profile that allows "
			 "unshare/clone of a user namespace and mount inside it (Docker and Podman: "
			 "--security-opt seccomp=PROFILE) gets tier T1",
			 in->container ? " (this is a container)" : "", err);
		break;
	case USERNS_CAUSE_NO_MOUNT:
		snprintf(buf, size,
			 "a user namespace can be made here but mounting inside it is refused (%s), "
			 "so this host is tier T2",
			 err);
		break;
	case USERNS_CAUSE_UNKNOWN:
	default:
		snprintf(buf, size, "user namespaces cannot be used here (%s), so this host is tier T2",
			 err);
		break;
	}
}

PROCAGE_API size_t procage_host_tier_hint(char *buf, size_t size)
{
	const struct procage_host_facts *f = host_facts_get();
	struct userns_inputs in = {
		.userns_create = f->userns_create,
		.userns_mount = f->userns_mount,
		.userns_errno = f->userns_errno,
		.root = geteuid() == 0,
	};
	char text[1024];

	if (f->tier != PROCAGE_TIER_T2) {
		text[0] = '\0';
	} else {
		userns_inputs_read("", &in);
		userns_hint_format(&in, userns_cause_judge(&in), text, sizeof text);
	}
	if (size)
		snprintf(buf, size, "%s", text);
	return strlen(text);
}
