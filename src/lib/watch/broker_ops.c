/*
 * The calls the broker performs. Each resolves where its names land
 * (broker_place.c); a call that lands in no zone is answered CONTINUE,
 * and the broker has granted nothing: the kernel performs it under
 * Landlock as if there were no broker. A call that lands in a zone is
 * performed here, relative to the broker's own descriptor of the
 * directory, with the final component never followed, or refused; it is
 * never handed back to the kernel, whose second reading of the cage's
 * memory and path could differ from what was checked.
 *
 * The exceptions are entries the broker does not open itself: an
 * existing directory, symbolic link, FIFO, socket or device as the final
 * component of an open or truncate is answered CONTINUE before anything
 * is performed, and the kernel follows it with the cage's rules.
 */
#include "broker_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker_git_config.h"
#include "broker_io.h"
#include "broker_refusal.h"
#include "cage/broker_zones.h"
#include "base/syscalls.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static const struct outcome out_continue = {OUT_CONTINUE, 0, -1, false};

static struct outcome out_result(int err)
{
	return (struct outcome){OUT_RESULT, err < 0 ? -err : err, -1, false};
}

/* The broker's own failure (out of memory...): the call fails, never hangs. */
static struct outcome out_failed(void)
{
	return out_result(EACCES);
}

static struct outcome out_syscall(int rc)
{
	return out_result(rc < 0 ? errno : 0);
}

static mode_t caller_umask(const struct request *rq);

/*
 * Where the call's first (second) path lands: 0 at once when the early
 * look found its directory outside the zones (broker_place_maybe), with
 * no descriptor taken for it.
 */
static int place_of(struct broker *b, struct request *rq, bool second, bool dir_ok,
		    struct broker_place *p)
{
	if (second ? rq->elsewhere2 : rq->elsewhere) {
		*p = (struct broker_place){.dir = -1, .owned = -1};
		return 0;
	}
	if (second)
		return broker_place_resolve(&b->state, rq->base2, b->path2, dir_ok, p);
	/* Noted before the resolution, which cuts the path in place. */
	const char *dir;
	size_t len = broker_path_dir(b->path, &dir);
	b->last_place.len = 0;
	if (len < sizeof b->last_place.dir)
		memcpy(b->last_place.dir, dir, len);
	int rc = broker_place_resolve(&b->state, rq->base, b->path, dir_ok, p);
	if (rc > 0 && len < sizeof b->last_place.dir) {
		b->last_place.len = len;
		b->last_place.tid = rq->tid;
		b->last_place.dirfd = rq->dirfd;
	}
	return rc;
}

/* Is use of p's name allowed? A refusal is recorded for the explanation. */
static int check_name(struct broker *b, const struct broker_place *p, enum broker_use use)
{
	int rc = p->in_created ? 0 : broker_name_check(p->zone, p->name, use);
	if (rc < 0)
		broker_refusal_record(b->denials, p, use);
	return rc;
}

/*
 * A linked worktree's commondir, new: the broker writes "../.." itself
 * (git's own text: the common directory is the one holding worktrees/),
 * and what the caller writes goes to /dev/null, so that git's own write
 * of the same text succeeds and any other lands nowhere.
 */
static struct outcome commondir_make(const struct request *rq, const struct broker_place *p)
{
	static const char text[] = "../..\n";
	mode_t mode = rq->mode & 0644 & ~caller_umask(rq);
	int fd =
	    openat(p->dir, p->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return out_syscall(-1);
	bool written = write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
	if (close(fd) != 0 || !written) {
		(void)unlinkat(p->dir, p->name, 0);
		return out_failed();
	}
	int sink = open("/dev/null", (rq->flags & O_ACCMODE) | O_CLOEXEC);
	if (sink < 0)
		return out_failed();
	return (struct outcome){OUT_FD, 0, sink, (rq->flags & O_CLOEXEC) != 0};
}

/*
 * The caller's umask, read only for a call the broker performs (reading
 * /proc/TID/status costs more than the rest of a call). The thread id is
 * checked again afterwards: had the caller died meanwhile and its id been
 * reused, the umask would be another process's. 0777 when that happened:
 * the call is answered, to nobody, with an entry no one may use.
 */
static mode_t caller_umask(const struct request *rq)
{
	mode_t mask = broker_umask(rq->tid);
	return broker_id_valid(rq->listener, rq->n->id) ? mask : 0777;
}

/*
 * Only regular files are opened or truncated by the broker: a directory
 * it opened would come with no Landlock check on its descriptor (listing
 * it), and a link, FIFO, socket or device is the kernel's to follow under
 * the cage's rules.
 */
static bool openable(mode_t mode)
{
	return S_ISREG(mode);
}

/*
 * O_PATH opens write nothing, and O_TMPFILE makes no name; both are left
 * to the kernel (Landlock grants O_TMPFILE only where a file may be made).
 */
static bool open_left_to_kernel(int flags)
{
	return (flags & O_PATH) || (flags & (O_TMPFILE & ~O_DIRECTORY));
}

/*
 * An existing entry is opened without O_CREAT, so that one removed
 * meanwhile is not made again under a name the rules would refuse. The
 * open never blocks (O_NONBLOCK: an entry swapped for a FIFO meanwhile)
 * and never follows a link; the caller's own O_NONBLOCK is restored.
 */
static struct outcome open_at_place(struct broker *b, const struct request *rq,
				    const struct broker_place *p)
{
	struct stat st;
	int flags = rq->flags;
	bool exists = fstatat(p->dir, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!exists && errno != ENOENT)
		return out_syscall(-1);
	if (exists && !openable(st.st_mode))
		return out_continue;
	if (exists && (flags & O_CREAT) && (flags & O_EXCL))
		return out_result(EEXIST);
	if (!exists && !(flags & O_CREAT))
		return out_result(ENOENT);
	int rc = check_name(b, p, exists ? BROKER_USE_EXISTING : BROKER_USE_CREATE);
	if (rc < 0)
		return out_result(rc);
	if (!exists && !p->in_created && p->zone->linked && strcmp(p->name, "commondir") == 0)
		return commondir_make(rq, p);
	if (exists)
		flags &= ~(O_CREAT | O_EXCL);
	/* Set-id bits are not given: chmod could not set them either. */
	mode_t mode = exists ? 0 : rq->mode & 0777 & ~caller_umask(rq);
	int fd =
	    openat(p->dir, p->name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
	if (fd < 0)
		return out_syscall(-1);
	if (fstat(fd, &st) != 0 || !openable(st.st_mode)) {
		close(fd);
		return out_result(EACCES);
	}
	/*
	 * F_SETFL reads only the status flags (O_APPEND, O_DIRECT,
	 * O_NOATIME...), which are the ones the file was opened with: no
	 * F_GETFL needed, one system call less per open.
	 */
	if (!(rq->flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		close(fd);
		return out_failed();
	}
	return (struct outcome){OUT_FD, 0, fd, (rq->flags & O_CLOEXEC) != 0};
}

/*
 * A directory opened for listing (listing-shows-hidden-names): when the
 * path leads to one entry grants left without a rule for a hidden path
 * below it, the broker opens it for reading and hands the descriptor
 * over. Listing it shows the names of its hidden entries; opening any of
 * them through it is still the cage's own call, which Landlock refuses.
 * Anything else is Landlock's (CONTINUE): the broker grants nothing.
 */
static struct outcome listing_open(struct broker *b, struct request *rq)
{
	const struct broker_zones *z = &b->state.zones;
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC | (rq->flags & O_NOFOLLOW),
			       .resolve = RESOLVE_NO_MAGICLINKS};
	struct stat st;
	int fd = sys_openat2(b->path[0] == '/' ? AT_FDCWD : rq->base, b->path, &how);
	if (fd < 0)
		return out_continue;
	bool listed = false;
	if (fstat(fd, &st) == 0)
		for (size_t i = 0; i < z->n_listing && !listed; i++)
			listed = z->listing[i].ino && z->listing[i].dev == st.st_dev &&
				 z->listing[i].ino == st.st_ino;
	if (!listed) {
		close(fd);
		return out_continue;
	}
	int dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | (rq->flags & O_NONBLOCK));
	close(fd);
	if (dir < 0)
		return out_syscall(-1);
	return (struct outcome){OUT_FD, 0, dir, (rq->flags & O_CLOEXEC) != 0};
}

static struct outcome op_open(struct broker *b, struct request *rq)
{
	struct broker_place p;
	if (!(rq->flags & (O_CREAT | O_WRONLY | O_RDWR | O_TRUNC))) {
		/* Reading: Landlock's, but a listing the policy lets the broker serve. */
		if ((rq->flags & O_DIRECTORY) && !(rq->flags & O_PATH) && b->state.zones.n_listing)
			return listing_open(b, rq);
		return out_continue;
	}
	if (open_left_to_kernel(rq->flags))
		return out_continue;
	int rc = place_of(b, rq, false, false, &p);
	if (rc <= 0)
		return rc < 0 ? out_failed() : out_continue;
	struct outcome o = open_at_place(b, rq, &p);
	broker_place_release(&p);
	return o;
}

/*
 * A git directory's worktrees/, and each linked worktree's git directory
 * in it, become zones of their own (broker_zones.h) rather than trees the
 * broker made, in which any name goes.
 */
static bool mkdir_makes_zone(const struct broker_place *p)
{
	return !p->in_created && (p->zone->worktrees || (p->zone->git_dir && !p->zone->linked &&
							 strcmp(p->name, "worktrees") == 0));
}

/*
 * Landlock has no rule for a directory made in a zone: what is made
 * beneath it comes to the broker, which finds it by identity, as a zone
 * or as a tree it made. On failure the directory is removed again.
 */
static int mkdir_note(struct broker *b, const struct broker_place *p)
{
	struct stat st;
	int rc;
	if (mkdir_makes_zone(p)) {
		broker_beneath_forget(&b->state);
		int fd = openat(p->dir, p->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* p->zone may move with the table: nothing of it is read after. */
		rc = fd < 0 ? -errno
			    : broker_zones_add_made(&b->state.zones, p->zone, p->name, fd,
						    p->zone->worktrees);
	} else {
		rc = fstatat(p->dir, p->name, &st, AT_SYMLINK_NOFOLLOW) != 0
			 ? -errno
			 : broker_created_add(&b->state, st.st_dev, st.st_ino);
	}
	if (rc < 0)
		(void)unlinkat(p->dir, p->name, AT_REMOVEDIR);
	return rc;
}

static struct outcome op_mkdir(struct broker *b, struct request *rq)
{
	struct broker_place p;
	int rc = place_of(b, rq, false, true, &p);
	if (rc <= 0)
		return rc < 0 ? out_failed() : out_continue;
	struct outcome o;
	if ((rc = check_name(b, &p, BROKER_USE_MKDIR)) < 0)
		o = out_result(rc);
	else if (!p.in_created && broker_created_full(&b->state))
		o = out_result(ENOSPC);
	else if (mkdirat(p.dir, p.name, rq->mode & 01777 & ~caller_umask(rq)) != 0)
		o = out_syscall(-1);
	else if (!p.in_created && (rc = mkdir_note(b, &p)) < 0)
		o = rc == -ENOSPC ? out_result(ENOSPC) : out_failed();
	else
		o = out_result(0);
	broker_place_release(&p);
	return o;
}

/* No device, FIFO or socket is made in a zone. */
static struct outcome op_mknod(struct broker *b, struct request *rq)
{
	struct broker_place p;
	int rc = place_of(b, rq, false, false, &p);
	if (rc <= 0)
		return rc < 0 ? out_failed() : out_continue;
	broker_place_release(&p);
	return out_result(EPERM);
}

static struct outcome op_unlink(struct broker *b, struct request *rq)
{
	struct broker_place p;
	struct stat st;
	if (rq->flags & ~AT_REMOVEDIR)
		return out_continue; /* EINVAL from the kernel */
	bool dir = rq->flags & AT_REMOVEDIR;
	int rc = place_of(b, rq, false, dir, &p);
	if (rc <= 0)
		return rc < 0 ? out_failed() : out_continue;
	struct outcome o;
	bool known = fstatat(p.dir, p.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (dir)
		broker_beneath_forget(&b->state); /* see broker_place.c */
	if ((rc = check_name(b, &p, BROKER_USE_REMOVE)) < 0)
		o = out_result(rc);
	else if (unlinkat(p.dir, p.name, dir ? AT_REMOVEDIR : 0) != 0)
		o = out_syscall(-1);
	else
		o = out_result(0);
	if (o.kind == OUT_RESULT && o.err == 0 && known && S_ISDIR(st.st_mode)) {
		broker_created_remove(&b->state, st.st_dev, st.st_ino);
		/* Its inode may come back as another directory: no zone any more. */
		broker_zones_forget(&b->state.zones, st.st_dev, st.st_ino);
	}
	broker_place_release(&p);
	return o;
}

/*
 * rename and link: both names must land in zones (or trees made in them)
 * or neither; across the boundary the answer is EXDEV, on which programs
 * copy instead (mv does).
 */
/*
 * git makes no symbolic link in its directory; one there (logs, rr-cache,
 * lfs pointing elsewhere) would have the host's git write where the link
 * points. None is made, moved or linked into a git directory.
 */
static bool link_into_git_dir(const struct broker_place *from, const struct broker_place *to)
{
	struct stat st;
	return to->zone->git_dir && !to->in_created &&
	       fstatat(from->dir, from->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/*
 * A zone's directory stays where it was made: worktrees/ ID moved out of
 * its git directory would take its commondir ("../..") to name another.
 */
static bool zone_moved(const struct broker *b, const struct broker_place *p)
{
	struct stat st;
	if (fstatat(p->dir, p->name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
		return false;
	for (size_t i = 0; i < b->state.zones.n; i++)
		if (b->state.zones.zones[i].dev == st.st_dev &&
		    b->state.zones.zones[i].ino == st.st_ino)
			return true;
	return false;
}

static struct outcome two_names_at(struct broker *b, const struct request *rq,
				   const struct broker_place *from, const struct broker_place *to)
{
	bool rename = rq->call->op == OP_RENAME;
	bool exchange = rename && (rq->flags & RENAME_EXCHANGE);
	if (link_into_git_dir(from, to) || (exchange && link_into_git_dir(to, from)) ||
	    (rename && zone_moved(b, from)) || (exchange && zone_moved(b, to)))
		return out_result(EACCES);
	int rc = check_name(b, from, rename ? BROKER_USE_REMOVE : BROKER_USE_EXISTING);
	if (rc == 0 && exchange)
		rc = check_name(b, from, BROKER_USE_NEW);
	if (rc == 0)
		rc = check_name(b, to, BROKER_USE_NEW);
	if (rc < 0)
		return out_result(rc);
	if (rename)
		return out_syscall(
		    renameat2(from->dir, from->name, to->dir, to->name, (unsigned int)rq->flags));
	return out_syscall(linkat(from->dir, from->name, to->dir, to->name, 0));
}

static struct outcome op_two_names(struct broker *b, struct request *rq)
{
	struct broker_place from, to;
	bool rename = rq->call->op == OP_RENAME;
	int allowed = rename ? RENAME_NOREPLACE | RENAME_EXCHANGE : AT_SYMLINK_FOLLOW;
	if (rq->flags & ~allowed)
		return out_continue; /* whiteouts, AT_EMPTY_PATH: left to Landlock */
	int rc1 = place_of(b, rq, false, rename, &from);
	int rc2 = place_of(b, rq, true, rename, &to);
	/* A directory moved may leave a made tree, or replace one: see broker_place.c. */
	if (rename && (rc1 > 0 || rc2 > 0))
		broker_beneath_forget(&b->state);
	struct outcome o;
	struct stat st;
	if (rc1 < 0 || rc2 < 0)
		o = out_failed();
	else if (rc1 == 0 && rc2 == 0)
		o = out_continue;
	else if (rc1 == 0 || rc2 == 0)
		o = out_result(EXDEV);
	else if (rename && broker_git_config_rename(&from, &to, rq->flags))
		o = out_result(broker_git_config_replace(&from, &to, b->denials)); /* by content */
	else if (!rename && (rq->flags & AT_SYMLINK_FOLLOW) &&
		 fstatat(from.dir, from.name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		o = out_result(EXDEV); /* the broker follows no link */
	else
		o = two_names_at(b, rq, &from, &to);
	if (rc1 > 0)
		broker_place_release(&from);
	if (rc2 > 0)
		broker_place_release(&to);
	return o;
}

static struct outcome op_symlink(struct broker *b, struct request *rq)
{
	struct broker_place p;
	int rc = place_of(b, rq, false, false, &p);
	if (rc <= 0)
		return rc < 0 ? out_failed() : out_continue;
	struct outcome o;
	if ((rc = check_name(b, &p, BROKER_USE_NEW)) < 0)
		o = out_result(rc);
	else if (p.zone->git_dir && !p.in_created)
		o = out_result(EACCES); /* see link_into_git_dir */
	else
		o = out_syscall(symlinkat(b->target, p.dir, p.name));
	broker_place_release(&p);
	return o;
}

static struct outcome truncate_at(struct broker *b, const struct request *rq,
				  const struct broker_place *p)
{
	struct stat st;
	if (rq->length < 0)
		return out_result(EINVAL);
	if (fstatat(p->dir, p->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return out_syscall(-1);
	if (!openable(st.st_mode))
		return out_continue;
	int rc = check_name(b, p, BROKER_USE_EXISTING);
	if (rc < 0)
		return out_result(rc);
	int fd = openat(p->dir, p->name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return out_syscall(-1);
	struct outcome o = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
			       ? out_syscall(ftruncate(fd, (off_t)rq->length))
			       : out_result(EACCES);
	close(fd);
	return o;
}

static struct outcome op_truncate(struct broker *b, struct request *rq)
{
	struct broker_place p;
	int rc = place_of(b, rq, false, false, &p);
	if (rc <= 0)
		return rc < 0 ? out_failed() : out_continue;
	struct outcome o = truncate_at(b, rq, &p);
	broker_place_release(&p);
	return o;
}

/* Must follow op_open, op_unlink and op_two_names: what they answer without a place. */
enum request_need broker_request_need(const struct broker *b, const struct request *rq)
{
	switch (rq->call->op) {
	case OP_OPEN:
	case OP_OPENAT2:
		if (!(rq->flags & (O_CREAT | O_WRONLY | O_RDWR | O_TRUNC)))
			return (rq->flags & O_DIRECTORY) && !(rq->flags & O_PATH) &&
					   b->state.zones.n_listing
				   ? NEED_BASE
				   : NEED_NOTHING;
		return open_left_to_kernel(rq->flags) ? NEED_NOTHING : NEED_PLACE;
	case OP_UNLINK:
		return rq->flags & ~AT_REMOVEDIR ? NEED_NOTHING : NEED_PLACE;
	case OP_RENAME:
		return rq->flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE) ? NEED_NOTHING : NEED_PLACE;
	case OP_LINK:
		return rq->flags & ~AT_SYMLINK_FOLLOW ? NEED_NOTHING : NEED_PLACE;
	default:
		return NEED_PLACE;
	}
}

struct outcome broker_perform(struct broker *b, struct request *rq)
{
	switch (rq->call->op) {
	case OP_OPEN:
	case OP_OPENAT2:
		return op_open(b, rq);
	case OP_MKDIR:
		return op_mkdir(b, rq);
	case OP_MKNOD:
		return op_mknod(b, rq);
	case OP_UNLINK:
		return op_unlink(b, rq);
	case OP_RENAME:
	case OP_LINK:
		return op_two_names(b, rq);
	case OP_SYMLINK:
		return op_symlink(b, rq);
	case OP_TRUNCATE:
		return op_truncate(b, rq);
	}
	return out_failed();
}
