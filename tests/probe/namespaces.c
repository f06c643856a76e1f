/* The probe's actions: mounts and namespaces. */
#include "probe.h"

/* ---- mounts and namespaces (R-29) -------------------------------------- */

static bool text_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/*
 * For controls: namespaces of our own (flags), in a user namespace of our
 * own where one can be made (else as root), so that what succeeds here
 * changes nothing outside this process.
 */
static int private_namespaces(int flags, const char *what)
{
	char uid_map[64], gid_map[64];
	snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
	snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
	if (unshare(CLONE_NEWUSER | flags) == 0) {
		(void)text_write("/proc/self/setgroups", "deny");
		if (!text_write("/proc/self/uid_map", uid_map) ||
		    !text_write("/proc/self/gid_map", gid_map))
			return failed(REFUSE_NAMESPACE, "writing the id maps", "");
	} else if (unshare(flags) != 0) {
		return failed(REFUSE_NAMESPACE, what, "");
	}
	return PROBE_DID_IT;
}

int do_private_mounts(char **args)
{
	int rc = private_namespaces(CLONE_NEWNS, "unshare(CLONE_NEWNS)");
	if (rc == PROBE_DID_IT && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return failed(REFUSE_MOUNT, "mount(MS_REC|MS_PRIVATE)", "/");
	return rc;
}

int do_private_net(char **args)
{
	return private_namespaces(CLONE_NEWNET, "unshare(CLONE_NEWNET)");
}

/* Listen at PATH until the probe exits (the descriptor is kept on purpose). */
int do_listen_unix(char **args)
{
	struct sockaddr_un a;
	socklen_t len = unix_address(&a, args[0], false);
	int fd = len ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, 16) != 0)
		return failed(REFUSE_CONNECT, "listen", args[0]);
	return PROBE_DID_IT;
}

int do_unshare_mount(char **args)
{
	return unshare(CLONE_NEWNS) == 0 ? PROBE_DID_IT
					 : failed(REFUSE_NAMESPACE, "unshare(CLONE_NEWNS)", "");
}

/*
 * umount PATH, bind-mount FROM TO, remount-rw PATH (a bind remount without
 * MS_RDONLY), mount-setattr-rw PATH (clearing MOUNT_ATTR_RDONLY)
 */
int do_mount_call(char **args)
{
	const char *a = action_name;
	struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};
	int rc = strcmp(a, "umount") == 0	? umount2(args[0], MNT_DETACH)
		 : strcmp(a, "bind-mount") == 0 ? mount(args[0], args[1], NULL, MS_BIND, NULL)
		 : strcmp(a, "remount-rw") == 0
		     ? mount(NULL, args[0], NULL, MS_REMOUNT | MS_BIND, NULL)
		     : mount_setattr(AT_FDCWD, args[0], 0, &attr, sizeof attr);
	return rc == 0 ? PROBE_DID_IT : failed(REFUSE_MOUNT, a, args[1] ? args[1] : args[0]);
}

static int move_to(int tree, const char *target, const char *what)
{
	if (tree < 0)
		return failed(REFUSE_MOUNT, what, target);
	int rc = move_mount(tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) == 0
		     ? PROBE_DID_IT
		     : failed(REFUSE_MOUNT, "move_mount", target);
	close(tree);
	return rc;
}

int do_open_tree(char **args)
{
	int tree = open_tree(AT_FDCWD, args[0], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	return move_to(tree, args[1], "open_tree(OPEN_TREE_CLONE)");
}

int do_fsopen_tmpfs(char **args)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC), tree = -1;
	if (fs < 0)
		return failed(REFUSE_MOUNT, "fsopen(tmpfs)", args[0]);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		tree = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	int e = errno;
	close(fs);
	errno = e;
	return move_to(tree, args[0], "fsconfig/fsmount");
}

int do_setns(char **args)
{
	long fd, type;
	if (!parse_int(args[0], &fd) || !parse_int(args[1], &type))
		return usage_error("setns wants a descriptor and a type, got", args[0]);
	return setns((int)fd, (int)type) == 0 ? PROBE_DID_IT
					      : failed(REFUSE_MOUNT, "setns", args[0]);
}
