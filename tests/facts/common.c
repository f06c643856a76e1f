/* Helpers shared by the kernel facts: notes, fixtures, namespaces, Landlock, sockets. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "caged.h"
#include "facts.h"
#include "base/syscalls.h"

struct facts_host host;

/* ---- the note an observing child sends back ---------------------------- */

static char note_buf[2048];
static size_t note_len;

void note(const char *fmt, ...)
{
	va_list ap;
	if (note_len >= sizeof note_buf - 1)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(note_buf + note_len, sizeof note_buf - note_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		note_len += (size_t)n < sizeof note_buf - note_len ? (size_t)n
								   : sizeof note_buf - 1 - note_len;
}

/* The errno's name, "success" for 0. */
const char *en(int e)
{
	if (e == 0)
		return "success";
	const char *name = strerrorname_np(e);
	return name ? name : "an unnamed errno";
}

/* dir/name in out (PATH_MAX); false, with a note, when it does not fit. */
bool join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
	if (n > 0 && n < PATH_MAX)
		return true;
	note("the path %s/%s is too long", dir, name);
	return false;
}

void note_reset(void)
{
	note_len = 0;
	note_buf[0] = '\0';
}

const char *note_text(size_t *len)
{
	*len = note_len;
	return note_buf;
}

/* ---- fixtures ----------------------------------------------------------- */

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -(n < 0 ? e : EIO);
}

bool put(const char *dir, const char *name, const char *text, char *out)
{
	char path[PATH_MAX];
	if (!join(path, dir, name))
		return false;
	if (out)
		memcpy(out, path, strlen(path) + 1);
	if (caged_write_file(path, text) == 0)
		return true;
	note("writing %s: %s", path, en(errno));
	return false;
}

/* base/NAME, made; its path in out. */
bool fact_dir(const char *name, char *out)
{
	if (!join(out, host.base, name))
		return false;
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		note("mkdir %s: %s", out, en(errno));
		return false;
	}
	return true;
}

bool sub_dir(const char *dir, const char *name, char *out)
{
	if (!join(out, dir, name))
		return false;
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		note("mkdir %s: %s", out, en(errno));
		return false;
	}
	return true;
}

off_t size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * A user namespace of the caller's own, with EXTRA namespaces beside it,
 * its uid and gid mapped to 0 inside. 0 or -errno.
 */
int enter_userns(int extra)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWUSER | extra) != 0)
		return -errno;
	int rc = write_text("/proc/self/setgroups", "deny");
	if (rc < 0 && rc != -ENOENT)
		return rc;
	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
	if ((rc = write_text("/proc/self/uid_map", map)) < 0)
		return rc;
	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
	return write_text("/proc/self/gid_map", map);
}

bool mounts_private(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		return true;
	note("making the mounts private: %s", en(errno));
	return false;
}

/*
 * Namespaces of FLAGS for the observing child: inside a user namespace of
 * its own where this host makes one, else directly with CAP_SYS_ADMIN.
 * Mounts are made private before anything is mounted.
 */
enum outcome own_namespaces(int flags)
{
	int rc;
	if (host.userns) {
		if ((rc = enter_userns(flags)) < 0) {
			note("a user namespace with namespaces of its own: %s", en(-rc));
			return BROKEN;
		}
	} else if (host.sys_admin) {
		if (unshare(flags) != 0) {
			note("unshare(0x%x) with CAP_SYS_ADMIN: %s", (unsigned)flags, en(errno));
			return BROKEN;
		}
	} else {
		note("this host makes no user namespace for uid %u (%s) and it lacks "
		     "CAP_SYS_ADMIN, so it has no namespaces of its own to observe this in",
		     (unsigned)host.uid, en(host.userns_errno));
		return CANNOT;
	}
	if ((flags & CLONE_NEWNS) && !mounts_private())
		return BROKEN;
	return HOLDS;
}

enum outcome need_userns(void)
{
	if (host.userns)
		return HOLDS;
	note("this host makes no user namespace for uid %u: unshare(CLONE_NEWUSER) gives %s",
	     (unsigned)host.uid, en(host.userns_errno));
	return CANNOT;
}

enum outcome need_abi(int abi, const char *why)
{
	if (host.abi >= abi)
		return HOLDS;
	if (host.abi < 1)
		note("Landlock is unavailable here (%s)", en(host.abi_errno));
	else
		note("Landlock ABI %d is below %d%s%s", host.abi, abi, why[0] ? ", " : "", why);
	return CANNOT;
}

/* Every filesystem right Landlock ABI abi knows. */
uint64_t fs_rights(int abi)
{
	uint64_t r = 0;
	if (abi >= 1)
		r |= (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* bits 0..12 */
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (abi >= 9)
		r |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	return r;
}

int ruleset(uint64_t fs, uint64_t net, uint64_t scoped)
{
	struct landlock_ruleset_attr_v6 attr = {fs, net, scoped};
	int fd = sys_landlock_create_ruleset(&attr, sizeof attr, 0);
	if (fd < 0)
		note("landlock_create_ruleset(fs 0x%llx, net 0x%llx, scoped 0x%llx): %s",
		     (unsigned long long)fs, (unsigned long long)net, (unsigned long long)scoped,
		     en(errno));
	return fd;
}

bool allow(int rs, const char *path, uint64_t rights)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct landlock_path_beneath_attr_packed rule = {rights, fd};
	bool ok = fd >= 0 && sys_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
	if (!ok)
		note("a Landlock rule for %s: %s", path, en(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

bool enforce(int rs)
{
	bool ok =
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && sys_landlock_restrict_self(rs, 0) == 0;
	if (!ok)
		note("landlock_restrict_self: %s", en(errno));
	close(rs);
	return ok;
}

bool no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		return true;
	note("PR_SET_NO_NEW_PRIVS: %s", en(errno));
	return false;
}

/* Unix sockets: an abstract name is "@name", anything else a path. */
static socklen_t unix_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	size_t len = strlen(name);
	if (len >= sizeof a->sun_path)
		len = sizeof a->sun_path - 1;
	memcpy(a->sun_path, name, len);
	if (name[0] == '@')
		a->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (name[0] != '@'));
}

int unix_listen(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = unix_addr(&a, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, 4) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* 0, or the errno of the socket or connect call. */
int unix_connect(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = unix_addr(&a, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	int e = ERR(connect(fd, (struct sockaddr *)&a, len));
	close(fd);
	return e;
}

void abstract_name(char *out, size_t size, const char *what)
{
	snprintf(out, size, "@procage-kf-%s-%d-%ld", what, (int)getpid(), random());
}

bool drop_capabilities(void)
{
	struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &header, data) == 0)
		return true;
	note("dropping every capability: %s", en(errno));
	return false;
}
