/*
 * Kernel interfaces that step around the cage: io_uring, raw and netlink
 * sockets, new namespaces, bpf, ptrace, mounts; truncation without
 * write access.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef NETLINK_SOCK_DIAG
#define NETLINK_SOCK_DIAG 4
#endif
#ifndef NETLINK_AUDIT
#define NETLINK_AUDIT 9
#endif

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
		diag("  how: %s", r.summary);
	r = run_uncaged_argv(ws, NULL, c->args);
	control_or_skip(t, "r28", c->rule, &r, c->what);
}

void r28_filter_bypassing_interfaces_are_refused(const struct tier *t)
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
	if (!check_role(t, ROLE_SETUP, caged_proc_wait_for(target, "ready\n", 10000), NULL,
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

void r31_files_outside_the_writable_paths_cannot_be_truncated(const struct tier *t)
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

/* ---- R-29 ------------------------------------------------------------- */

struct r29_case {
	const char *what, *control_what;
	enum host_rule rule;
	bool ns_fd; /* the test's own network namespace is passed as descriptor 3 */
	const char *cage[12];
	const char *control[12];
};

void r29_nested_user_namespaces_and_mount_changes_are_refused(const struct tier *t)
{
	static const char secret[] = "r29: under the mask\n";
	static const char settings[] = "r29: read-only settings\n";
	char hidden[PATH_MAX], key[PATH_MAX], locked[PATH_MAX], src[PATH_MAX], mnt[PATH_MAX];
	int ns = -1;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r29");
	if (!ws || cage_refused_here(t, ws, "r29"))
		goto out;
	if (!path_join(t, hidden, ws->rw, "hidden") || !path_join(t, key, hidden, "key") ||
	    !path_join(t, locked, ws->rw, "locked.conf") || !path_join(t, src, ws->rw, "src") ||
	    !path_join(t, mnt, ws->rw, "mnt") ||
	    !fixture(t,
		     put_file(key, secret) && put_file(locked, settings) && make_dirs(src) &&
			 make_dirs(mnt),
		     "r29: fixtures in %s", ws->rw) ||
	    !policy_rule(t, ws, "r29", hidden, PROCAGE_HIDE) ||
	    !policy_rule(t, ws, "r29", locked, PROCAGE_PROTECT) ||
	    !fixture(t, (ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) >= 0,
		     "r29: the test's network namespace is opened: %s", strerror(errno)))
		goto out;

	char net_type[16];
	snprintf(net_type, sizeof net_type, "%d", CLONE_NEWNET);
	const struct r29_case cases[] = {
	    {"a nested user namespace with mounts of its own, used to unmount the hidden mask",
	     "a user namespace with mounts of its own, mounting a tmpfs",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"private-mounts", "then", "umount", hidden, "then", "read-file", key},
	     {"private-mounts", "then", "mount-tmpfs", mnt}},
	    {"unshare(CLONE_NEWUSER)",
	     "unshare(CLONE_NEWUSER)",
	     HOST_USERNS,
	     false,
	     {"unshare-user"},
	     {"unshare-user"}},
	    {"unshare(CLONE_NEWNS)",
	     "unshare(CLONE_NEWNS) in namespaces of its own",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"unshare-mount"},
	     {"private-mounts", "then", "unshare-mount"}},
	    {"unmounting the hidden mask",
	     "unmounting a mount of its own",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"umount", hidden, "then", "read-file", key},
	     {"private-mounts", "then", "bind-mount", src, mnt, "then", "umount", mnt}},
	    {"a bind mount over the hidden directory",
	     "a bind mount in namespaces of its own",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"bind-mount", src, hidden, "then", "read-file", key},
	     {"private-mounts", "then", "bind-mount", src, mnt}},
	    {"remounting the protected file writable",
	     "a writable bind remount of its own mount",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"remount-rw", locked, "then", "write-file", locked, "r29: changed\n"},
	     {"private-mounts", "then", "bind-mount", src, mnt, "then", "remount-rw", mnt}},
	    {"mount_setattr clearing read-only on the protected file",
	     "mount_setattr on its own mount",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"mount-setattr-rw", locked, "then", "write-file", locked, "r29: changed\n"},
	     {"private-mounts", "then", "bind-mount", src, mnt, "then", "mount-setattr-rw", mnt}},
	    {"open_tree and move_mount over the hidden directory",
	     "open_tree and move_mount in namespaces of its own",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"open-tree", src, hidden, "then", "read-file", key},
	     {"private-mounts", "then", "open-tree", src, mnt}},
	    {"fsopen, fsmount and move_mount of a new tmpfs over the hidden directory",
	     "fsopen, fsmount and move_mount in namespaces of its own",
	     HOST_PRIVATE_MOUNTS,
	     false,
	     {"fsopen-tmpfs", hidden},
	     {"private-mounts", "then", "fsopen-tmpfs", mnt}},
	    {"setns into the caller's network namespace",
	     "setns into its own network namespace",
	     HOST_MOUNT,
	     true,
	     {"setns", "3", net_type},
	     {"setns", "3", net_type}},
	};
	struct procage_fd_map map = {ns, 3};
	struct caged_opts with_ns = {.fds = &map, .n_fds = 1};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct r29_case *c = &cases[i];
		/*
		 * Without the sandbox (PROCAGE_TEST_SANDBOX_OFF) the "caged" probe
		 * runs as the test does, maybe as root: its mounts then go into a
		 * namespace of its own, never the host's.
		 */
		const char *args[16] = {"private-mounts", "then"};
		for (size_t k = 0; k < 12 && c->cage[k]; k++)
			args[k + 2] = c->cage[k];
		bool mounts = c->rule == HOST_PRIVATE_MOUNTS;
		r = run_caged_argv(ws, c->ns_fd ? &with_ns : NULL,
				   caged_sandbox_off() && mounts ? args : c->cage);
		check(t,
		      refused(&r) && !strstr(r.out, "r29:") && file_is(locked, settings) &&
			  file_is(key, secret),
		      &r, "r29: %s is refused in the cage, and the masks hold", c->what);
		r = run_uncaged_argv(ws, c->ns_fd ? &with_ns : NULL, c->control);
		control_or_skip(t, "r29", c->rule, &r, c->control_what);
		put_file(locked, settings);
	}
	r = run_caged(ws, NULL, "read-file", locked, NULL);
	check(t, did_it(&r) && strcmp(r.out, settings) == 0, &r,
	      "r29: control: the protected file stays readable in the cage");
out:
	if (ns >= 0)
		close(ns);
	caged_ws_free(ws);
}
