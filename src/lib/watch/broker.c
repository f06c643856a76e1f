/*
 * The broker: see broker.h. One notification at a time, on the
 * supervisor's thread, with memory bounded by this structure and the
 * created table (BROKER_CREATED_MAX).
 *
 * For each call: the strings and structures the call points at are
 * copied once; the directories relative paths start from are taken as
 * the broker's own descriptors (the thread's cwd, or its dirfd through
 * pidfd_getfd); then the notification is checked to be still pending, so
 * that a thread id reused by another process meanwhile is not mistaken
 * for the caller. Only then is anything decided, on the copies alone.
 */
#include "broker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker_internal.h"
#include "broker_io.h"
#include "broker_meta.h"
#include "base/syscalls.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif

/* clang-format off */
static const struct broker_call broker_calls[] = {
	{ "open", OP_OPEN, -1, 0, -1, -1, 1, 2, -1, 0 },
	{ "openat", OP_OPEN, 0, 1, -1, -1, 2, 3, -1, 0 },
	{ "creat", OP_OPEN, -1, 0, -1, -1, -1, 1, -1, O_CREAT | O_WRONLY | O_TRUNC },
	{ "openat2", OP_OPENAT2, 0, 1, -1, -1, 2, 3, -1, 0 },
	{ "mkdir", OP_MKDIR, -1, 0, -1, -1, -1, 1, -1, 0 },
	{ "mkdirat", OP_MKDIR, 0, 1, -1, -1, -1, 2, -1, 0 },
	{ "mknod", OP_MKNOD, -1, 0, -1, -1, -1, -1, -1, 0 },
	{ "mknodat", OP_MKNOD, 0, 1, -1, -1, -1, -1, -1, 0 },
	{ "unlink", OP_UNLINK, -1, 0, -1, -1, -1, -1, -1, 0 },
	{ "unlinkat", OP_UNLINK, 0, 1, -1, -1, 2, -1, -1, 0 },
	{ "rmdir", OP_UNLINK, -1, 0, -1, -1, -1, -1, -1, AT_REMOVEDIR },
	{ "rename", OP_RENAME, -1, 0, -1, 1, -1, -1, -1, 0 },
	{ "renameat", OP_RENAME, 0, 1, 2, 3, -1, -1, -1, 0 },
	{ "renameat2", OP_RENAME, 0, 1, 2, 3, 4, -1, -1, 0 },
	{ "link", OP_LINK, -1, 0, -1, 1, -1, -1, -1, 0 },
	{ "linkat", OP_LINK, 0, 1, 2, 3, 4, -1, -1, 0 },
	{ "symlink", OP_SYMLINK, -1, 1, -1, -1, -1, -1, 0, 0 },
	{ "symlinkat", OP_SYMLINK, 1, 2, -1, -1, -1, -1, 0, 0 },
	{ "truncate", OP_TRUNCATE, -1, 0, -1, -1, -1, 1, -1, 0 },
	{ "truncate64", OP_TRUNCATE, -1, 0, -1, -1, -1, 1, -1, 0 },
};
/* clang-format on */

static const struct broker_call *call_find(const char *name)
{
	for (size_t i = 0; i < sizeof broker_calls / sizeof *broker_calls; i++)
		if (strcmp(broker_calls[i].name, name) == 0)
			return &broker_calls[i];
	return NULL;
}

bool broker_handles(const char *call)
{
	return call_find(call) != NULL || broker_meta_call(call) || broker_net_handles(call);
}

int broker_new(const struct broker_zones *zones, const struct broker_net_config *net,
	       struct broker **out)
{
	struct broker *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	if (net)
		b->net = *net;
	if ((b->net.mode != BROKER_NET_NONE || b->net.unix_paths) &&
	    !(b->net_scratch = broker_net_scratch_new())) {
		free(b);
		return -ENOMEM;
	}
	if (broker_zones_copy(zones, &b->state.zones) < 0) {
		free(b->net_scratch);
		free(b);
		return -ENOMEM;
	}
	broker_state_started(&b->state);
	*out = b;
	return 0;
}

void broker_free(struct broker *b)
{
	if (!b)
		return;
	broker_shm_end(b);
	broker_proc_run_end(b);
	broker_waits_clear(&b->net_waits);
	broker_zones_free(&b->state.zones);
	free(b->state.created);
	broker_meta_free(b);
	free(b->net_scratch);
	if (b->net.own_netns && b->net.own_netns_diag >= 0)
		close(b->net.own_netns_diag);
	free(b);
}

void broker_explain_to(struct broker *b, struct denial_store *denials)
{
	b->denials = denials;
}

/* The int the kernel reads from a register: its low 32 bits. */
static int arg_int(const struct seccomp_notif *n, int index)
{
	return (int)(uint32_t)n->data.args[index];
}

static int64_t truncate_length(const struct request *rq)
{
	const __u64 *a = rq->n->data.args;
	if (rq->n->data.arch != AUDIT_ARCH_I386)
		return (int64_t)a[1];
	if (strcmp(rq->call->name, "truncate64") == 0)
		return (int64_t)((a[1] & 0xffffffffu) | (a[2] << 32));
	return (int32_t)a[1];
}

/* Is path's directory spelled as the last one found in a zone (broker_internal.h)? */
static bool same_place_as_last(const struct broker *b, pid_t tid, int dirfd, const char *path)
{
	const char *dir;
	size_t len = broker_path_dir(path, &dir);
	return len == b->last_place.len && tid == b->last_place.tid &&
	       dirfd == b->last_place.dirfd && memcmp(dir, b->last_place.dir, len) == 0;
}

/* Copy what the call points at, and take the directories its paths start from. */
static int request_read(struct broker *b, struct request *rq)
{
	const struct broker_call *c = rq->call;
	const struct seccomp_notif *n = rq->n;
	int rc = broker_read_string(rq->tid, n->data.args[c->path], b->path, sizeof b->path);
	if (rc == 0 && c->path2 >= 0)
		rc = broker_read_string(rq->tid, n->data.args[c->path2], b->path2, sizeof b->path2);
	if (rc == 0 && c->target >= 0)
		rc = broker_read_string(rq->tid, n->data.args[c->target], b->target,
					sizeof b->target);
	/*
	 * Unreadable (a bad pointer, a name too long, a process that made
	 * itself non-dumpable): the broker performs nothing, and the kernel
	 * answers the call under Landlock.
	 */
	if (rc < 0)
		return 1;
	rq->flags = c->flags >= 0 ? arg_int(n, c->flags) : c->fixed_flags;
	rq->mode = c->mode >= 0 ? (mode_t)arg_int(n, c->mode) : 0;
	if (c->op == OP_OPENAT2) {
		/* A larger open_how (a later kernel's) is left to the kernel. */
		if (n->data.args[3] != sizeof rq->how)
			return 1;
		if (broker_read_memory(rq->tid, n->data.args[2], &rq->how, sizeof rq->how) < 0)
			return 1;
		if (rq->how.resolve || rq->how.flags > 0xffffffffu)
			return 1;
		rq->flags = (int)rq->how.flags;
		rq->mode = (mode_t)rq->how.mode;
	}
	if (c->op == OP_TRUNCATE)
		rq->length = truncate_length(rq);
	enum request_need need = rq->need = broker_request_need(b, rq);
	if (need == NEED_NOTHING)
		return 0;
	int dirfd = c->dirfd >= 0 ? arg_int(n, c->dirfd) : AT_FDCWD;
	int dirfd2 = c->dirfd2 >= 0 ? arg_int(n, c->dirfd2) : AT_FDCWD;
	/* Most calls land outside the zones: one statx each says so, no descriptor taken. */
	rq->dirfd = dirfd;
	if (need == NEED_PLACE) {
		rq->elsewhere = !same_place_as_last(b, rq->tid, dirfd, b->path) &&
				!broker_place_maybe(&b->state, rq->tid, dirfd, b->path);
		rq->elsewhere2 =
		    c->path2 >= 0 && !broker_place_maybe(&b->state, rq->tid, dirfd2, b->path2);
	}
	if (!rq->elsewhere && b->path[0] != '/') {
		rq->base = broker_dir_fd(rq->tid, dirfd);
		if (rq->base < 0)
			return rq->base == -EBADF ? -EBADF : 1;
	}
	if (c->path2 >= 0 && !rq->elsewhere2 && b->path2[0] != '/') {
		rq->base2 = broker_dir_fd(rq->tid, dirfd2);
		if (rq->base2 < 0)
			return rq->base2 == -EBADF ? -EBADF : 1;
	}
	return 0;
}

/*
 * Is the answer CONTINUE whatever the broker checks next? A call that
 * needs nothing of it, or whose every name lands outside the zones.
 */
static bool request_continues(const struct request *rq)
{
	return rq->need == NEED_NOTHING ||
	       (rq->need == NEED_PLACE && rq->elsewhere && (rq->call->path2 < 0 || rq->elsewhere2));
}

int broker_poll_fds(const struct broker *b, struct pollfd *fds, long long *deadline)
{
	return broker_waits_fds(&b->net_waits, fds, deadline);
}

void broker_poll_resume(struct broker *b, int listener, const struct pollfd *fds, int n)
{
	broker_waits_resume(&b->net_waits, listener, fds, n);
}

void broker_answer(struct broker *b, int listener, const struct seccomp_notif *n, const char *call)
{
	if (broker_net_handles(call)) {
		broker_net_answer(&b->net, b->net_scratch, &b->net_waits, listener, n, call);
		return;
	}
	struct request rq = {.call = call_find(call),
			     .n = n,
			     .tid = (pid_t)n->pid,
			     .listener = listener,
			     .base = -1,
			     .base2 = -1};
	struct outcome o = {OUT_CONTINUE, 0, -1, false};
	if (broker_meta_call(call)) {
		broker_meta_answer(b, listener, n, call);
		return;
	}
	int rc = rq.call ? request_read(b, &rq) : 1;
	/*
	 * CONTINUE performs and grants nothing: it needs no check that the
	 * caller still waits (a call whose thread is gone is answered to
	 * nobody, the kernel refusing the id), one ioctl less for most calls.
	 */
	if (rc == 1 || (rc == 0 && request_continues(&rq))) {
		broker_answer_continue(listener, n->id);
		goto release;
	}
	/* A thread gone (and its id maybe another's now): nothing read is used. */
	if (!broker_id_valid(listener, n->id))
		goto release;
	if (rc < 0)
		o = (struct outcome){OUT_RESULT, -rc, -1, false};
	else if (rc == 0)
		o = broker_perform(b, &rq);
	switch (o.kind) {
	case OUT_CONTINUE:
		/* Only for calls the broker does not perform: Landlock judges them. */
		broker_answer_continue(listener, n->id);
		break;
	case OUT_RESULT:
		broker_answer_result(listener, n->id, o.err);
		break;
	case OUT_FD:
		broker_answer_fd(listener, n->id, o.fd, o.cloexec);
		o.fd = -1;
		break;
	}
release:
	if (o.fd >= 0)
		close(o.fd);
	if (rq.base >= 0)
		close(rq.base);
	if (rq.base2 >= 0)
		close(rq.base2);
}
