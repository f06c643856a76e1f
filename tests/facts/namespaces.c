/*
 * Namespaces: what a nested user namespace can mount (KF-L09), which
 * inherited mounts are locked (KF-L10), abstract socket names per network
 * namespace (KF-L20), clone3's flags out of a filter's sight (KF-L22),
 * renaming mount points (KF-L25), and Landlock against mounting (KF-L28).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "facts.h"
#include "base/syscalls.h"

#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LOW offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LOW (offsetof(struct seccomp_data, args[0]) + 4)
#endif

/* ---- KF-L09: nested user namespaces mount ------------------------------ */

enum outcome kf_l09(void)
{
	char dir[PATH_MAX], target[PATH_MAX], marker[PATH_MAX];
	enum outcome o;
	int rc;
	if ((o = need_userns()) != HOLDS)
		return o;
	if (!fact_dir("l09", dir) || !sub_dir(dir, "target", target) ||
	    !put(target, "beneath", "l09", marker))
		return BROKEN;
	if ((rc = enter_userns(CLONE_NEWNS)) < 0) {
		note("the outer user namespace: %s", en(-rc));
		return BROKEN;
	}
	if (!mounts_private())
		return BROKEN;
	if ((rc = enter_userns(CLONE_NEWNS)) < 0) {
		note("a user namespace nested in the one uid %u made: %s", (unsigned)host.uid,
		     en(-rc));
		return CHANGED;
	}
	int m = ERR(mount("tmpfs", target, "tmpfs", 0, "size=64k"));
	bool covered = m == 0 && access(marker, F_OK) != 0;
	int u = m == 0 ? ERR(umount2(target, 0)) : EINVAL;
	bool back = u == 0 && access(marker, F_OK) == 0;
	note("in a user namespace nested in one made by uid %u: mount(tmpfs) over %s: %s%s; "
	     "umount: %s%s",
	     (unsigned)host.uid, target, en(m), covered ? " (the file beneath is hidden)" : "",
	     m == 0 ? en(u) : "not tried", back ? " (the file shows again)" : "");
	return covered && back ? HOLDS : CHANGED;
}

/* ---- KF-L10: inherited mounts are locked -------------------------------- */

enum outcome kf_l10(void)
{
	char dir[PATH_MAX], mask[PATH_MAX], marker[PATH_MAX], prot[PATH_MAX], file[PATH_MAX];
	enum outcome o;
	int rc;
	if ((o = need_userns()) != HOLDS)
		return o;
	if (!fact_dir("l10", dir) || !sub_dir(dir, "mask", mask) ||
	    !put(mask, "beneath", "l10", marker) || !sub_dir(dir, "prot", prot) ||
	    !put(prot, "file", "l10", file))
		return BROKEN;
	/* The cage's side: its own namespaces, a mask and a read-only bind. */
	if ((rc = enter_userns(CLONE_NEWNS)) < 0) {
		note("the cage's user namespace: %s", en(-rc));
		return BROKEN;
	}
	if (!mounts_private())
		return BROKEN;
	if (mount("tmpfs", mask, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0 ||
	    mount(prot, prot, NULL, MS_BIND, NULL) != 0 ||
	    mount(NULL, prot, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0) {
		note("the cage's mask and read-only bind: %s", en(errno));
		return BROKEN;
	}
	/* The nested, less privileged side tries to undo them. */
	if ((rc = enter_userns(CLONE_NEWNS)) < 0) {
		note("a nested user namespace (KF-L09): %s", en(-rc));
		return BROKEN;
	}
	int u = ERR(umount2(mask, 0));
	int ud = ERR(umount2(mask, MNT_DETACH));
	int rw = ERR(mount(NULL, prot, NULL, MS_REMOUNT | MS_BIND, NULL));
	int w = ERR(open(file, O_WRONLY | O_CLOEXEC));
	int over = ERR(mount("tmpfs", mask, "tmpfs", 0, "size=64k"));
	int off = over == 0 ? ERR(umount2(mask, 0)) : EINVAL;
	bool held = access(marker, F_OK) != 0;
	note("in a nested user and mount namespace: umount of the inherited mask: %s; with "
	     "MNT_DETACH: %s; remounting the inherited read-only bind writable: %s; opening a "
	     "file under it for writing: %s; mounting a tmpfs over the mask: %s; unmounting "
	     "that tmpfs: %s; the mask %s",
	     en(u), en(ud), en(rw), en(w), en(over), over == 0 ? en(off) : "not tried",
	     held ? "still hides what is beneath it" : "is gone");
	bool refused = (u == EINVAL || u == EPERM) && (ud == EINVAL || ud == EPERM) &&
		       (rw == EPERM || rw == EINVAL) && w == EROFS;
	return refused && over == 0 && off == 0 && held ? HOLDS : CHANGED;
}

/* ---- KF-L20: abstract sockets per network namespace ---------------------- */

enum outcome kf_l20(void)
{
	char name[96];
	enum outcome o;
	abstract_name(name, sizeof name, "l20");
	int fd = unix_listen(name);
	if (fd < 0) {
		note("listening on %s: %s", name, en(errno));
		return BROKEN;
	}
	int same = unix_connect(name);
	if (same != 0) {
		note("connecting to %s from its own namespace: %s", name, en(same));
		return BROKEN;
	}
	if ((o = own_namespaces(CLONE_NEWNET)) != HOLDS)
		return o;
	int other = unix_connect(name);
	int again = unix_listen(name);
	int b = again < 0 ? errno : 0;
	note("%s, listening in the test's network namespace, is reached from it; from a new "
	     "network namespace connect gives %s, and binding the same name there gives %s",
	     name, en(other), en(b));
	return other == ECONNREFUSED && b == 0 ? HOLDS : CHANGED;
}

/* ---- KF-L22: clone3's flags are out of a filter's sight ------------------- */

struct kf_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

enum outcome kf_l22(void)
{
	char before[64] = "";
	enum outcome o;
	if ((o = need_userns()) != HOLDS)
		return o;
#ifdef NATIVE_AUDIT_ARCH
	/* Refuse clone and unshare with CLONE_NEWUSER: the rule a filter can write. */
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW),
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof f / sizeof *f, f};
	if (readlink("/proc/self/ns/user", before, sizeof before - 1) <= 0) {
		note("readlink /proc/self/ns/user: %s", en(errno));
		return BROKEN;
	}
	if (!no_new_privs() || syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		note("installing the test's filter: %s", en(errno));
		return BROKEN;
	}
	long pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	int ce = pid < 0 ? errno : 0;
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	int ue = ERR(unshare(CLONE_NEWUSER));
	struct kf_clone_args args = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
	pid = syscall(__NR_clone3, &args, sizeof args);
	if (pid == 0) {
		char now[64] = "";
		ssize_t n = readlink("/proc/self/ns/user", now, sizeof now - 1);
		_exit(n > 0 && strcmp(now, before) != 0 ? 0 : 1);
	}
	int e3 = pid < 0 ? errno : 0;
	int status = 0;
	if (pid > 0)
		waitpid((pid_t)pid, &status, 0);
	bool new_ns = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	note("under a filter refusing clone and unshare when their flags hold CLONE_NEWUSER: "
	     "clone(CLONE_NEWUSER): %s; unshare(CLONE_NEWUSER): %s; clone3(CLONE_NEWUSER): %s%s",
	     en(ce), en(ue), en(e3),
	     pid > 0 ? (new_ns ? ", and its child is in a new user namespace"
			       : ", but its child is not in a new user namespace")
		     : "");
	if (ce != EPERM || ue != EPERM)
		return BROKEN;
	if (e3 == ENOSYS) {
		note(" -- clone3 is missing or refused by a filter outside this test");
		return CANNOT;
	}
	return new_ns ? HOLDS : CHANGED;
#else
	note("this test knows no audit architecture for this machine");
	return CANNOT;
#endif
}

/* ---- KF-L25: renaming mount points --------------------------------------- */

enum outcome kf_l25(void)
{
	char dir[PATH_MAX], top[PATH_MAX], mnt[PATH_MAX], pin[PATH_MAX], marker[PATH_MAX],
	    moved[PATH_MAX], mnt_away[PATH_MAX], pin_away[PATH_MAX], travelled[PATH_MAX];
	enum outcome o;
	if (!fact_dir("l25", dir) || !sub_dir(dir, "top", top) || !sub_dir(top, "mnt", mnt) ||
	    !sub_dir(top, "pin", pin))
		return BROKEN;
	if (!join(moved, dir, "top-renamed") || !join(mnt_away, dir, "mnt-renamed") ||
	    !join(pin_away, dir, "pin-renamed") || !join(travelled, moved, "mnt/on-the-tmpfs"))
		return BROKEN;
	if ((o = own_namespaces(CLONE_NEWNS)) != HOLDS)
		return o;
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0 ||
	    !put(mnt, "on-the-tmpfs", "x", marker) || mount(pin, pin, NULL, MS_BIND, NULL) != 0) {
		note("a tmpfs at %s and %s bound over itself: %s", mnt, pin, en(errno));
		return BROKEN;
	}
	int r_mnt = ERR(rename(mnt, mnt_away));
	int r_pin = ERR(rename(pin, pin_away));
	int r_top = ERR(rename(top, moved));
	bool along = r_top == 0 && access(travelled, F_OK) == 0;
	if (r_top == 0)
		(void)rename(moved, top);
	note("renaming a tmpfs mount point: %s; renaming a directory bound over itself (a pin): "
	     "%s; renaming their parent: %s%s",
	     en(r_mnt), en(r_pin), en(r_top),
	     along	  ? ", and the tmpfs moved with it"
	     : r_top == 0 ? ", but the tmpfs stayed"
			  : "");
	return r_mnt == EBUSY && r_pin == EBUSY && along ? HOLDS : CHANGED;
}

/* ---- KF-L28: a Landlock domain cannot mount ------------------------------ */

enum outcome kf_l28(void)
{
	char dir[PATH_MAX], target[PATH_MAX];
	enum outcome o;
	if ((o = need_abi(1, "")) != HOLDS)
		return o;
	if (!fact_dir("l28", dir) || !sub_dir(dir, "target", target))
		return BROKEN;
	if ((o = own_namespaces(CLONE_NEWNS)) != HOLDS)
		return o;
	int before = ERR(mount("tmpfs", target, "tmpfs", 0, "size=64k"));
	if (before == 0)
		(void)umount2(target, 0);
	int rs = ruleset(LANDLOCK_ACCESS_FS_READ_FILE, 0, 0);
	if (before != 0 || rs < 0 || !allow(rs, "/", LANDLOCK_ACCESS_FS_READ_FILE) ||
	    !enforce(rs)) {
		note("mounting in namespaces of its own before Landlock: %s", en(before));
		return BROKEN;
	}
	int m = ERR(mount("tmpfs", target, "tmpfs", 0, "size=64k"));
	int b = ERR(mount(dir, target, NULL, MS_BIND, NULL));
	note("in mount namespaces of its own: mount(tmpfs) before Landlock: success; under a "
	     "ruleset handling only READ_FILE: mount(tmpfs): %s, bind mount: %s",
	     en(m), en(b));
	return m == EPERM && b == EPERM ? HOLDS : CHANGED;
}
