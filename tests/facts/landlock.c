/*
 * Landlock: truncation with and without the TRUNCATE right (KF-L14), MPTCP
 * against the TCP rules (KF-L21), REFER (KF-L23), pathname Unix sockets
 * below ABI 9 (KF-L24), the signal and abstract socket scopes (KF-L26,
 * KF-L27), and ptrace-mode access across a domain (KF-L29).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caged.h"
#include "facts.h"
#include "base/syscalls.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define FILE_RIGHTS                                                                                \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                              \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |                              \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* ---- KF-L14: truncation -------------------------------------------------- */

/* Without TRUNCATE handled, which is all a kernel below ABI 3 can do. */
enum outcome kf_l14_without(void)
{
	char dir[PATH_MAX], by_path[PATH_MAX], by_open[PATH_MAX];
	enum outcome o;
	if ((o = need_abi(1, "")) != HOLDS)
		return o;
	if (!fact_dir("l14-without", dir) || !put(dir, "by-path", "keep me\n", by_path) ||
	    !put(dir, "by-open", "keep me\n", by_open))
		return BROKEN;
	int rs = ruleset(fs_rights(host.abi) & ~LANDLOCK_ACCESS_FS_TRUNCATE, 0, 0);
	if (rs < 0 || !allow(rs, dir, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR) ||
	    !enforce(rs))
		return BROKEN;
	int w = ERR(open(by_path, O_WRONLY | O_CLOEXEC));
	int t = ERR(truncate(by_path, 0));
	int fd = open(by_open, O_RDONLY | O_TRUNC | O_CLOEXEC);
	int ot = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	off_t s1 = size_of(by_path), s2 = size_of(by_open);
	note("a ruleset handling every right of ABI %d but TRUNCATE, the file granted read "
	     "only: open(O_WRONLY): %s; truncate(path): %s (size now %lld); "
	     "open(O_RDONLY|O_TRUNC): %s (size now %lld). Below ABI 3 there is no TRUNCATE "
	     "right, so this is what any ruleset gives there: procage refuses such kernels",
	     host.abi, en(w), en(t), (long long)s1, en(ot), (long long)s2);
	if (w != EACCES) {
		note("; the ruleset did not even refuse writing");
		return BROKEN;
	}
	return t == 0 && ot == 0 && s1 == 0 && s2 == 0 ? HOLDS : CHANGED;
}

enum outcome kf_l14_with(void)
{
	char dir[PATH_MAX], ro[PATH_MAX], rw[PATH_MAX], ro_path[PATH_MAX], ro_open[PATH_MAX],
	    rw_path[PATH_MAX], rw_open[PATH_MAX];
	enum outcome o;
	if ((o = need_abi(3, "which has no TRUNCATE right: see the other KF-L14 observation")) !=
	    HOLDS)
		return o;
	if (!fact_dir("l14-with", dir) || !sub_dir(dir, "ro", ro) || !sub_dir(dir, "rw", rw) ||
	    !put(ro, "by-path", "keep me\n", ro_path) ||
	    !put(ro, "by-open", "keep me\n", ro_open) ||
	    !put(rw, "by-path", "scratch\n", rw_path) || !put(rw, "by-open", "scratch\n", rw_open))
		return BROKEN;
	int rs = ruleset(fs_rights(host.abi), 0, 0);
	if (rs < 0 || !allow(rs, ro, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR) ||
	    !allow(rs, rw, FILE_RIGHTS | LANDLOCK_ACCESS_FS_READ_DIR) || !enforce(rs))
		return BROKEN;
	int t = ERR(truncate(ro_path, 0));
	int fd = open(ro_open, O_RDONLY | O_TRUNC | O_CLOEXEC);
	int ot = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	int ct = ERR(truncate(rw_path, 0));
	fd = open(rw_open, O_RDONLY | O_TRUNC | O_CLOEXEC);
	int cot = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	off_t s1 = size_of(ro_path), s2 = size_of(ro_open);
	note("ABI %d, TRUNCATE handled, a file granted read only: truncate(path): %s, "
	     "open(O_RDONLY|O_TRUNC): %s, sizes %lld and %lld (8 before); control, a file "
	     "granted TRUNCATE: truncate(path): %s, open(O_RDONLY|O_TRUNC): %s",
	     host.abi, en(t), en(ot), (long long)s1, (long long)s2, en(ct), en(cot));
	if (ct != 0 || cot != 0)
		return BROKEN;
	return t == EACCES && ot == EACCES && s1 == 8 && s2 == 8 ? HOLDS : CHANGED;
}

/* ---- KF-L21: MPTCP and Landlock's TCP rules ------------------------------ */

static int tcp_connect(int proto, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return errno;
	int e = ERR(connect(fd, (struct sockaddr *)&a, sizeof a));
	close(fd);
	return e;
}

enum outcome kf_l21(void)
{
	enum outcome o;
	char enabled[16] = "";
	if ((o = need_abi(4, "which has no TCP rules")) != HOLDS)
		return o;
	int probe = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
	if (probe < 0) {
		int e = errno;
		caged_read_file("/proc/sys/net/mptcp/enabled", enabled, sizeof enabled);
		enabled[strcspn(enabled, "\n")] = '\0';
		note("this kernel makes no MPTCP socket (%s; net.mptcp.enabled: %s)", en(e),
		     enabled[0] ? enabled : "absent");
		return CANNOT;
	}
	close(probe);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 8) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &len) != 0) {
		note("a TCP listener on loopback: %s", en(errno));
		return BROKEN;
	}
	int port = ntohs(a.sin_port);
	int rs = ruleset(0, LANDLOCK_ACCESS_NET_CONNECT_TCP, 0);
	if (rs < 0 || !enforce(rs))
		return BROKEN;
	int tcp = tcp_connect(IPPROTO_TCP, port);
	int mptcp = tcp_connect(IPPROTO_MPTCP, port);
	note("a ruleset handling TCP connect with no port allowed: TCP connect to 127.0.0.1:%d: "
	     "%s; MPTCP connect to the same port: %s",
	     port, en(tcp), en(mptcp));
	if (tcp != EACCES)
		return BROKEN;
	if (mptcp == 0)
		return HOLDS;
	if (mptcp == EACCES) {
		note(" -- this kernel now applies Landlock's TCP rules to MPTCP");
		return RECORDED;
	}
	return BROKEN;
}

/* ---- KF-L23: REFER ------------------------------------------------------- */

static enum outcome kf_l23(bool grant_refer)
{
	char dir[PATH_MAX], a[PATH_MAX], b[PATH_MAX], f[PATH_MAX], g[PATH_MAX], f_in_b[PATH_MAX],
	    g_in_b[PATH_MAX], f_moved[PATH_MAX];
	enum outcome o;
	if ((o = need_abi(2, "which has no REFER right (ABI 1 refuses every move of a file to "
			     "another directory)")) != HOLDS)
		return o;
	if (!fact_dir(grant_refer ? "l23-refer" : "l23", dir) || !sub_dir(dir, "a", a) ||
	    !sub_dir(dir, "b", b) || !put(a, "f", "f", f) || !put(a, "g", "g", g))
		return BROKEN;
	if (!join(f_in_b, b, "f") || !join(g_in_b, b, "g") || !join(f_moved, a, "f-renamed"))
		return BROKEN;
	uint64_t all = fs_rights(host.abi);
	uint64_t granted = grant_refer ? all : all & ~LANDLOCK_ACCESS_FS_REFER;
	int rs = ruleset(all, 0, 0);
	if (rs < 0 || !allow(rs, a, granted) || !allow(rs, b, granted) || !enforce(rs))
		return BROKEN;
	int same = ERR(rename(f, f_moved));
	int moved = ERR(rename(same == 0 ? f_moved : f, f_in_b));
	int linked = ERR(link(g, g_in_b));
	note("two directories granted every right%s: rename within one: %s; rename into the "
	     "other: %s; link into the other: %s",
	     grant_refer ? ", REFER included" : " but REFER", en(same), en(moved), en(linked));
	if (same != 0)
		return BROKEN;
	if (grant_refer)
		return moved == 0 && linked == 0 ? HOLDS : CHANGED;
	return moved == EXDEV && linked == EXDEV ? HOLDS : CHANGED;
}

enum outcome kf_l23_without(void)
{
	return kf_l23(false);
}

enum outcome kf_l23_with(void)
{
	return kf_l23(true);
}

/* ---- KF-L24: pathname Unix sockets below ABI 9 --------------------------- */

static enum outcome kf_l24(bool resolve_unix)
{
	char dir[PATH_MAX], in[PATH_MAX], out[PATH_MAX], sock[PATH_MAX];
	enum outcome o;
	if ((o = need_abi(resolve_unix ? 9 : 1, "which has no right for it")) != HOLDS)
		return o;
	if (!fact_dir(resolve_unix ? "l24-abi9" : "l24", dir) || !sub_dir(dir, "in", in) ||
	    !sub_dir(dir, "out", out))
		return BROKEN;
	if (!join(sock, out, "daemon.sock"))
		return BROKEN;
	int lfd = unix_listen(sock);
	if (lfd < 0) {
		note("listening at %s: %s", sock, en(errno));
		return BROKEN;
	}
	uint64_t handled = fs_rights(host.abi);
	if (!resolve_unix)
		handled &= ~LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	int rs = ruleset(handled, 0, 0);
	if (rs < 0 || !allow(rs, in, handled) || !enforce(rs))
		return BROKEN;
	int list = ERR(open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	int c = unix_connect(sock);
	note("a ruleset handling every filesystem right of ABI %d%s, with a grant on %s only: "
	     "listing the socket's directory: %s; connect to %s: %s",
	     host.abi, resolve_unix ? "" : " before 9", in, en(list), sock, en(c));
	if (list != EACCES)
		return BROKEN;
	if (resolve_unix)
		return c == EACCES ? RECORDED : CHANGED;
	if (host.abi < 9)
		note(" (ABI %d: no right for it exists below ABI 9)", host.abi);
	return c == 0 ? HOLDS : CHANGED;
}

enum outcome kf_l24_below9(void)
{
	return kf_l24(false);
}

enum outcome kf_l24_abi9(void)
{
	return kf_l24(true);
}

/* ---- KF-L26, KF-L27: Landlock scopes ------------------------------------- */

enum outcome kf_l26(void)
{
	int hold[2];
	enum outcome o;
	if ((o = need_abi(6, "which has no scopes")) != HOLDS)
		return o;
	if (pipe2(hold, O_CLOEXEC) != 0)
		return BROKEN;
	pid_t outside = fork();
	if (outside == 0) {
		char c;
		alarm(20);
		close(hold[1]);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	int rs = ruleset(0, 0, LANDLOCK_SCOPE_SIGNAL);
	if (outside < 0 || rs < 0 || !enforce(rs)) {
		close(hold[1]);
		return BROKEN;
	}
	int k_out = ERR(kill(outside, 0));
	int k_parent = ERR(kill(getppid(), 0));
	int k_self = ERR(kill(getpid(), 0));
	pid_t inside = fork();
	if (inside == 0) {
		alarm(20);
		pause();
		_exit(0);
	}
	int k_in = inside > 0 ? ERR(kill(inside, SIGKILL)) : ESRCH;
	if (inside > 0)
		waitpid(inside, NULL, 0);
	close(hold[1]);
	waitpid(outside, NULL, 0);
	note("a domain scoped for signals: signal 0 to a process forked before it: %s; to the "
	     "test (its parent): %s; to itself: %s; SIGKILL to a child forked inside it: %s",
	     en(k_out), en(k_parent), en(k_self), en(k_in));
	if (k_self != 0 || k_in != 0)
		return BROKEN;
	return k_out == EPERM && k_parent == EPERM ? HOLDS : CHANGED;
}

enum outcome kf_l27(void)
{
	char outside[96], inside[96];
	enum outcome o;
	if ((o = need_abi(6, "which has no scopes")) != HOLDS)
		return o;
	abstract_name(outside, sizeof outside, "l27-outside");
	abstract_name(inside, sizeof inside, "l27-inside");
	int lfd = unix_listen(outside);
	if (lfd < 0) {
		note("listening on %s: %s", outside, en(errno));
		return BROKEN;
	}
	int before = unix_connect(outside);
	int rs = ruleset(0, 0, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET);
	if (before != 0 || rs < 0 || !enforce(rs)) {
		note("connecting before the domain: %s", en(before));
		return BROKEN;
	}
	int c_out = unix_connect(outside);
	int lin = unix_listen(inside);
	int c_in = lin < 0 ? errno : unix_connect(inside);
	note("a domain scoped for abstract sockets: connect to %s, bound before it: %s; to %s, "
	     "bound inside it: %s",
	     outside, en(c_out), inside, en(c_in));
	if (c_in != 0)
		return BROKEN;
	return c_out == EPERM ? HOLDS : CHANGED;
}

/* ---- KF-L29: ptrace-mode access across a Landlock domain ----------------- */

/*
 * /proc/PID/environ needs ptrace access to PID, which a Landlock domain
 * refuses towards processes outside it unless the caller holds
 * CAP_SYS_PTRACE (the cage holds no capability); /proc/PID/cmdline needs
 * none. This is what the approximation proc-other-processes gives away
 * (arguments) and keeps (the environment).
 */
enum outcome kf_l29(void)
{
	char cmdline[64], environ_path[64], buf[256];
	int hold[2];
	enum outcome o;
	if ((o = need_abi(1, "")) != HOLDS)
		return o;
	if (pipe2(hold, O_CLOEXEC) != 0)
		return BROKEN;
	pid_t outside = fork();
	if (outside == 0) {
		char c;
		alarm(20);
		close(hold[1]);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	snprintf(cmdline, sizeof cmdline, "/proc/%d/cmdline", (int)outside);
	snprintf(environ_path, sizeof environ_path, "/proc/%d/environ", (int)outside);
	int env_before = caged_read_file(environ_path, buf, sizeof buf);
	int rs = ruleset(LANDLOCK_ACCESS_FS_READ_FILE, 0, 0);
	bool ok =
	    outside > 0 && rs >= 0 && allow(rs, "/", LANDLOCK_ACCESS_FS_READ_FILE) && enforce(rs);
	int env_caps = ok ? caged_read_file(environ_path, buf, sizeof buf) : -EIO;
	ok = ok && drop_capabilities();
	int args = ok ? caged_read_file(cmdline, buf, sizeof buf) : -EIO;
	int env = ok ? caged_read_file(environ_path, buf, sizeof buf) : -EIO;
	close(hold[1]);
	if (outside > 0)
		waitpid(outside, NULL, 0);
	note("a process of the same user outside the domain: %s before Landlock: %s; under a "
	     "ruleset granting READ_FILE on /, with this process's capabilities: %s; with none "
	     "(as in the cage): %s: %s, %s: %s",
	     environ_path, en(-env_before), en(-env_caps), cmdline, en(-args), environ_path,
	     en(-env));
	if (!ok || env_before != 0 || args != 0)
		return BROKEN;
	return env == -EACCES || env == -EPERM ? HOLDS : CHANGED;
}
