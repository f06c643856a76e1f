/*
 * The observer: the supervisor's look at a call that names a path, to
 * explain afterwards what Landlock or a mask refused. It reads the path the
 * caged process points at, makes it absolute from the process's cwd or
 * directory descriptor, and judges it against the run's rules
 * (denials_judge.c).
 *
 * The observer grants nothing. The supervisor answers an observed call
 * CONTINUE (or hands it to the broker), exactly as the filter without the
 * observation would have let it through: Landlock, the masks and the rest
 * of the filter still decide. What the cage changes in its memory between
 * our read and the kernel's can only make a printed line wrong, and every
 * line escapes what it names.
 */
#include "observe.h"
#include "observe_path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * Where a call names its paths: up to two (rename and link name a source
 * and a target), each as a directory descriptor argument (-1: none, the
 * cwd) and a path argument, with what the call does to it; the flags
 * argument of an open (-1: none).
 */
struct observed_path {
	int dirfd, path;
	enum denial_op op;
};

struct observed_call {
	const char *call;
	struct observed_path paths[2];
	int open_flags; /* the argument holding open flags; -2: openat2's struct; -1: none */
};

#define NONE                                                                                       \
	{                                                                                          \
		-1, -1, DENIAL_READ                                                                \
	}

static const struct observed_call observed_calls[] = {
    {"open", {{-1, 0, DENIAL_READ}, NONE}, 1},
    {"openat", {{0, 1, DENIAL_READ}, NONE}, 2},
    {"openat2", {{0, 1, DENIAL_READ}, NONE}, -2},
    {"creat", {{-1, 0, DENIAL_CREATE}, NONE}, -1},
    {"truncate", {{-1, 0, DENIAL_WRITE}, NONE}, -1},
    {"truncate64", {{-1, 0, DENIAL_WRITE}, NONE}, -1},
    {"mkdir", {{-1, 0, DENIAL_CREATE}, NONE}, -1},
    {"mkdirat", {{0, 1, DENIAL_CREATE}, NONE}, -1},
    {"mknod", {{-1, 0, DENIAL_CREATE}, NONE}, -1},
    {"mknodat", {{0, 1, DENIAL_CREATE}, NONE}, -1},
    {"unlink", {{-1, 0, DENIAL_REMOVE}, NONE}, -1},
    {"unlinkat", {{0, 1, DENIAL_REMOVE}, NONE}, -1},
    {"rmdir", {{-1, 0, DENIAL_REMOVE}, NONE}, -1},
    {"rename", {{-1, 0, DENIAL_REMOVE}, {-1, 1, DENIAL_CREATE}}, -1},
    {"renameat", {{0, 1, DENIAL_REMOVE}, {2, 3, DENIAL_CREATE}}, -1},
    {"renameat2", {{0, 1, DENIAL_REMOVE}, {2, 3, DENIAL_CREATE}}, -1},
    {"link", {{-1, 1, DENIAL_CREATE}, NONE}, -1},
    {"linkat", {{2, 3, DENIAL_CREATE}, NONE}, -1},
    {"symlink", {{-1, 1, DENIAL_CREATE}, NONE}, -1},
    {"symlinkat", {{1, 2, DENIAL_CREATE}, NONE}, -1},
};

static const struct observed_call *observed_find(const char *call)
{
	for (size_t i = 0; i < sizeof observed_calls / sizeof *observed_calls; i++)
		if (strcmp(observed_calls[i].call, call) == 0)
			return &observed_calls[i];
	return NULL;
}

bool observe_call_known(const char *call)
{
	return observed_find(call) != NULL;
}

/*
 * A NUL-terminated string of the process, page by page (a read across an
 * unmapped page fails whole). False when unreadable or too long.
 */
static bool child_read_string(pid_t pid, uint64_t address, char *out, size_t size)
{
	size_t done = 0;
	if (!address) {
		errno = EFAULT;
		return false;
	}
	while (done + 1 < size) {
		uint64_t at = address + done;
		size_t chunk = 4096 - (size_t)(at & 4095);
		if (chunk > size - 1 - done)
			chunk = size - 1 - done;
		struct iovec local = {out + done, chunk}, remote = {(void *)(uintptr_t)at, chunk};
		ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return false;
		if (memchr(out + done, '\0', (size_t)n))
			return true;
		done += (size_t)n;
	}
	errno = ENAMETOOLONG;
	return false;
}

/* What an open does, from its flags and whether the file is there. */
static enum denial_op open_op(uint64_t flags, bool exists)
{
	if (!exists && (flags & O_CREAT))
		return DENIAL_CREATE;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		return DENIAL_WRITE;
	return DENIAL_READ;
}

static bool open_flags(const struct seccomp_notif *n, const struct observed_call *c,
		       uint64_t *flags)
{
	if (c->open_flags >= 0) {
		*flags = (uint32_t)n->data.args[c->open_flags];
		return true;
	}
	if (c->open_flags == -2) {
		struct open_how how;
		struct iovec local = {&how, sizeof how.flags},
			     remote = {(void *)(uintptr_t)n->data.args[2], sizeof how.flags};
		if (process_vm_readv((pid_t)n->pid, &local, 1, &remote, 1, 0) !=
		    (ssize_t)sizeof how.flags)
			return false;
		*flags = how.flags;
		return true;
	}
	*flags = 0;
	return true;
}

/*
 * Would the kernel get as far as Landlock? A missing file (or directory
 * for a new entry) fails by itself, an existing one cannot be made again:
 * judged, they would be false alarms.
 */
static bool reaches_landlock(enum denial_op op, const char *path, bool exists)
{
	if (op == DENIAL_CREATE) {
		char parent[PATH_MAX];
		snprintf(parent, sizeof parent, "%s", path);
		char *slash = strrchr(parent, '/');
		if (slash)
			slash[slash == parent] = '\0';
		return access(parent, F_OK) == 0;
	}
	return exists;
}

/*
 * Reads nearly every program makes at start and does without when
 * refused (libselinux's probes, through coreutils, git, tar...): listed
 * after every run, they would bury the refusals that matter.
 */
static bool routine_probe(enum denial_op op, const char *path)
{
	static const char *const probes[] = {"/proc/filesystems", "/proc/mounts",
					     "/proc/self/mounts", "/proc/thread-self/mounts"};
	if (op != DENIAL_READ)
		return false;
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
		if (strcmp(path, probes[i]) == 0)
			return true;
	return false;
}

/*
 * Call n could not be looked at, for e (errno): when the supervisor may
 * not read its process and the call may write, the trust-handoff report
 * counts it. (A bad pointer or a name too long fails in the kernel too.)
 */
static void unseen_note(struct observe_context *ctx, const struct seccomp_notif *n,
			const struct observed_call *c, const struct observed_path *p, int e)
{
	if (!ctx->handoff || (e != EPERM && e != EACCES))
		return;
	if (c->open_flags >= 0 &&
	    open_op((uint32_t)n->data.args[c->open_flags], false) == DENIAL_READ)
		return;
	if (c->open_flags == -1 && p->op != DENIAL_CREATE && p->op != DENIAL_WRITE)
		return; /* a removal */
	handoff_observed_unseen(ctx->handoff);
}

/*
 * Is renaming from onto to git replacing a config with its lock file
 * (config.lock over config, config.worktree.lock over config.worktree)?
 */
static bool git_config_from_lock(const char *from, const char *to)
{
	const char *base = strrchr(to, '/');
	size_t len = strlen(to);
	return base && (strcmp(base, "/config") == 0 || strcmp(base, "/config.worktree") == 0) &&
	       strncmp(from, to, len) == 0 && strcmp(from + len, ".lock") == 0;
}

/* base (NULL: none) and name joined into path (PATH_MAX bytes); false when too long. */
static bool spelled_path(const char *base, const char *name, char *path)
{
	int n = base ? snprintf(path, PATH_MAX, "%s/%s", base, name)
		     : snprintf(path, PATH_MAX, "%s", name);
	return n > 0 && n < PATH_MAX;
}

/*
 * Judge one path of call n; a refusal is stored. When the rules let it
 * go by, its absolute path is left in path (PATH_MAX bytes) and true is
 * returned; a change is also shown to the trust-handoff observation.
 */
static bool judge_one(struct observe_context *ctx, const struct seccomp_notif *n,
		      const struct observed_call *c, const struct observed_path *p, char *path,
		      const char *lock)
{
	char name[PATH_MAX];
	struct stat st;
	struct denial d;
	uint64_t flags = 0;
	if (!child_read_string((pid_t)n->pid, n->data.args[p->path], name, sizeof name)) {
		unseen_note(ctx, n, c, p, errno);
		return false;
	}
	if (!name[0])
		return false;
	if (c->open_flags != -1 && !open_flags(n, c, &flags)) {
		unseen_note(ctx, n, c, p, errno);
		return false;
	}
	char base[PATH_MAX];
	int dirfd = p->dirfd < 0 ? AT_FDCWD : (int)n->data.args[p->dirfd];
	errno = 0;
	if (name[0] != '/' && !observe_base_path((pid_t)n->pid, dirfd, base, sizeof base)) {
		unseen_note(ctx, n, c, p, errno);
		return false;
	}
	/*
	 * Most observed calls are reads of granted files (a compiler's
	 * headers, git's objects): a path the rules allow as spelled (from
	 * the cwd or the directory descriptor, as the kernel spells it, when
	 * relative) is let be without resolving it. Only a link from a
	 * granted tree into a hidden location then goes unexplained (it is
	 * refused all the same). The observer grants nothing either way.
	 */
	if (c->open_flags != -1 && open_op(flags, true) == DENIAL_READ &&
	    spelled_path(name[0] == '/' ? NULL : base, name, path)) {
		observe_lexical_clean(path);
		if (!denial_judge_path(ctx->rules, DENIAL_READ, path, &d))
			return true;
	}
	errno = 0;
	if (!observe_absolute_path_from((pid_t)n->pid, name[0] == '/' ? NULL : base, name, path,
					PATH_MAX)) {
		unseen_note(ctx, n, c, p, errno);
		return false;
	}
	bool exists = lstat(path, &st) == 0;
	enum denial_op op = c->open_flags != -1 ? open_op(flags, exists) : p->op;
	if (op == DENIAL_CREATE && exists && strcmp(c->call, "creat") == 0)
		op = DENIAL_WRITE; /* creat truncates what is there */
	else if (op == DENIAL_CREATE && exists && p == &c->paths[0])
		return false; /* EEXIST before any right is looked at */
	if (!reaches_landlock(op, path, exists) || routine_probe(op, path))
		return false;
	if (lock && git_config_from_lock(lock, path))
		return false; /* the broker's to judge and explain */
	if (denial_judge_path(ctx->rules, op, path, &d)) {
		denial_store_add(ctx->store, &d);
		return false;
	}
	if (ctx->handoff)
		handoff_observed_change(ctx->handoff, op, path, exists);
	return true;
}

void observe_judge(struct observe_context *ctx, const struct seccomp_notif *n, const char *call)
{
	char paths[2][PATH_MAX];
	bool let[2] = {false, false};
	const struct observed_call *c = observed_find(call);
	if (!c || !ctx->rules)
		return;
	/* A plain rename (no flags) whose source the rules let by: maybe git's config. */
	bool plain = strcmp(call, "renameat2") != 0 || n->data.args[4] == 0;
	for (int i = 0; i < 2 && c->paths[i].path >= 0; i++) {
		bool config = i == 1 && let[0] && plain && ctx->git_config_brokered &&
			      strncmp(call, "rename", 6) == 0;
		let[i] = judge_one(ctx, n, c, &c->paths[i], paths[i], config ? paths[0] : NULL);
	}
	/*
	 * A rename moves what the observation kept below its source (if it
	 * succeeds: both names are kept). An exchange moves both ways.
	 */
	if (ctx->handoff && let[0] && let[1] && strncmp(call, "rename", 6) == 0) {
		handoff_observed_rename(ctx->handoff, paths[0], paths[1]);
		if (strcmp(call, "renameat2") == 0 && (n->data.args[4] & RENAME_EXCHANGE))
			handoff_observed_rename(ctx->handoff, paths[1], paths[0]);
	}
}

void observe_refused(struct observe_context *ctx, const struct seccomp_notif *n, const char *call)
{
	struct denial d;
	if (ctx->rules && strcmp(call, "setsid") == 0) {
		denial_judge_session(&d);
		denial_store_add(ctx->store, &d);
		return;
	}
	if (!ctx->rules || strcmp(call, "socket") != 0)
		return;
	uint64_t family = (uint32_t)n->data.args[0], type = (uint32_t)n->data.args[1] & 0xf;
	if (family != AF_INET && family != AF_INET6)
		return;
	if (ctx->rules->network != PROCAGE_NET_OFF)
		return;
	denial_judge_socket(ctx->rules, type == SOCK_DGRAM, &d);
	denial_store_add(ctx->store, &d);
}
