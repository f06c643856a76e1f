/*
 * Tier T2: POSIX semaphores of the run's own in the host's /dev/shm.
 *
 * Python's multiprocessing makes its locks with sem_open, which glibc
 * makes in /dev/shm: a file under a temporary name (sem.XXXXXX, made
 * with O_EXCL), linked to the semaphore's name (sem.mp-XXXXXXXX, random),
 * both names removed soon after. /dev/shm holds every program's segments
 * of the user, so it is granted nothing (docs/proc.md), and tier T2 has
 * no mount to lay one of the run's own over it. The broker makes these
 * files for the run instead, and lets it link and remove only files it
 * made for it, by identity: each is held open, so its inode
 * cannot be freed and its number given to another program's file while
 * the run may still name it. Names are limited to glibc's temporary ones
 * and multiprocessing's own, so that no name a host program would use is
 * taken; whatever of the run's is left when the run ends is removed.
 *
 * Everything else in /dev/shm is left to Landlock, which refuses it.
 */
#include "broker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "broker_internal.h"
#include "broker_io.h"

/* The run's files at once: a pool makes a few; more is refused (EMFILE). */
#define SHM_OWN_MAX 64
/* Names per file: the temporary one and the semaphore's. */
#define SHM_NAMES 2
#define SHM_NAME_MAX 32

struct shm_own {
	int pin; /* the file held open, or -1: a free slot */
	dev_t dev;
	ino_t ino;
	char names[SHM_NAMES][SHM_NAME_MAX]; /* "" where none */
};

struct broker_shm {
	int dir; /* O_PATH of /dev/shm */
	struct shm_own own[SHM_OWN_MAX];
};

static bool name_chars(const char *s, size_t n, bool underscore)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  (underscore && c == '_');
		if (!ok)
			return false;
	}
	return true;
}

/* glibc's temporary name: "sem." and six letters or digits. */
static bool temporary_name(const char *name)
{
	return strncmp(name, "sem.", 4) == 0 && strlen(name) == 10 && name_chars(name + 4, 6, false);
}

/* multiprocessing's: "sem.mp-" and eight of [a-z0-9_] (tempfile's letters). */
static bool semaphore_name(const char *name)
{
	return strncmp(name, "sem.mp-", 7) == 0 && strlen(name) == 15 &&
	       name_chars(name + 7, 8, true);
}

/* The name in /dev/shm that path names: only "/dev/shm/NAME", spelled so. */
static const char *shm_name(const char *path)
{
	if (strncmp(path, "/dev/shm/", 9) != 0)
		return NULL;
	const char *name = path + 9;
	return temporary_name(name) || semaphore_name(name) ? name : NULL;
}

int broker_shm_on(struct broker *b)
{
	struct statfs fs;
	struct broker_shm *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->dir = open("/dev/shm", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* A host without a tmpfs there has no semaphores to share: nothing is brokered. */
	if (s->dir < 0 || fstatfs(s->dir, &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
		if (s->dir >= 0)
			close(s->dir);
		free(s);
		return 0;
	}
	for (size_t i = 0; i < SHM_OWN_MAX; i++)
		s->own[i].pin = -1;
	b->shm = s;
	return 0;
}

/* The run's file name is now, or NULL. */
static struct shm_own *own_of(struct broker_shm *s, const char *name)
{
	struct stat st;
	if (fstatat(s->dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return NULL;
	for (size_t i = 0; i < SHM_OWN_MAX; i++)
		if (s->own[i].pin >= 0 && s->own[i].dev == st.st_dev && s->own[i].ino == st.st_ino)
			return &s->own[i];
	return NULL;
}

static void own_forget_name(struct shm_own *o, const char *name)
{
	bool left = false;
	for (size_t i = 0; i < SHM_NAMES; i++) {
		if (strcmp(o->names[i], name) == 0)
			o->names[i][0] = '\0';
		left = left || o->names[i][0];
	}
	if (!left) {
		close(o->pin);
		o->pin = -1;
	}
}

/* Make name for the caller: a new file only (O_EXCL), pinned and noted. */
static int shm_create(struct broker_shm *s, const char *name, int flags, mode_t mode,
		      pid_t tid)
{
	struct shm_own *o = NULL;
	for (size_t i = 0; i < SHM_OWN_MAX && !o; i++)
		if (s->own[i].pin < 0)
			o = &s->own[i];
	if (!o)
		return -EMFILE;
	int fd = openat(s->dir, name,
			(flags & (O_ACCMODE | O_NONBLOCK)) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			mode & 0666 & ~broker_umask(tid));
	if (fd < 0)
		return -errno;
	struct stat st;
	/* The file made, held by a descriptor of its own (never found again by name). */
	int pin = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (pin < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (pin >= 0)
			close(pin);
		(void)unlinkat(s->dir, name, 0);
		close(fd);
		return -e;
	}
	*o = (struct shm_own){.pin = pin, .dev = st.st_dev, .ino = st.st_ino};
	snprintf(o->names[0], sizeof o->names[0], "%s", name);
	return fd;
}

/* An open of one of the names: made new, or the run's own reopened. */
static bool shm_open_call(struct broker *b, int listener, const struct seccomp_notif *n,
			  const char *name, int flags, mode_t mode)
{
	struct broker_shm *s = b->shm;
	pid_t tid = (pid_t)n->pid;
	int fd;
	if (flags & (O_PATH | O_DIRECTORY | O_TRUNC | (O_TMPFILE & ~O_DIRECTORY)))
		return false;
	struct shm_own *o = own_of(s, name);
	if (!o && faccessat(s->dir, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return false; /* another program's: Landlock refuses it */
	/* The name was read from a thread that may be gone, its id another's. */
	if (!broker_id_valid(listener, n->id))
		return true;
	if (o && (flags & O_CREAT) && (flags & O_EXCL)) {
		fd = -EEXIST;
	} else if (o) {
		fd = openat(s->dir, name, (flags & (O_ACCMODE | O_NONBLOCK)) | O_NOFOLLOW | O_CLOEXEC);
		fd = fd < 0 ? -errno : fd;
	} else if (flags & O_CREAT) {
		fd = shm_create(s, name, flags, mode, tid);
	} else {
		fd = -ENOENT;
	}
	if (fd >= 0 && o) {
		struct stat st;
		if (fstat(fd, &st) != 0 || st.st_ino != o->ino || st.st_dev != o->dev) {
			close(fd);
			fd = -EACCES;
		}
	}
	broker_answer_opened(listener, n->id, fd, (flags & O_CLOEXEC) != 0);
	return true;
}

/*
 * link(old, new): the run's own file, under a new name of its own kind.
 * 1: not the run's own. Nothing is done once the caller is gone (valid).
 */
static int shm_link(struct broker_shm *s, const char *old, const char *new, int listener,
		    uint64_t id)
{
	struct shm_own *o = own_of(s, old);
	if (!o || !semaphore_name(new))
		return 1;
	if (!broker_id_valid(listener, id))
		return -ESRCH;
	size_t slot = SHM_NAMES;
	for (size_t i = 0; i < SHM_NAMES; i++)
		if (!o->names[i][0])
			slot = i;
	if (slot == SHM_NAMES)
		return -EMLINK;
	if (linkat(s->dir, old, s->dir, new, 0) != 0)
		return -errno;
	snprintf(o->names[slot], sizeof o->names[slot], "%s", new);
	return 0;
}

static int shm_unlink(struct broker_shm *s, const char *name, int listener, uint64_t id)
{
	struct shm_own *o = own_of(s, name);
	if (!o)
		return 1;
	if (!broker_id_valid(listener, id))
		return -ESRCH;
	if (unlinkat(s->dir, name, 0) != 0)
		return -errno;
	own_forget_name(o, name);
	return 0;
}

/* Copy the string argument index of n; false when unreadable. */
static bool arg_path(const struct seccomp_notif *n, int index, char *out, size_t size)
{
	return broker_read_string((pid_t)n->pid, n->data.args[index], out, size) == 0;
}

bool broker_shm_answer(struct broker *b, int listener, const struct seccomp_notif *n,
		       const char *call)
{
	if (!b || !b->shm || !call)
		return false;
	const __u64 *a = n->data.args;
	int at_fdcwd = (int)AT_FDCWD;
	const char *name, *name2;
	int rc = 1;
	if (strcmp(call, "open") == 0 || strcmp(call, "openat") == 0) {
		bool plain = call[4] == '\0';
		if ((!plain && (int)(uint32_t)a[0] != at_fdcwd) ||
		    !arg_path(n, plain ? 0 : 1, b->path, sizeof b->path) || !(name = shm_name(b->path)))
			return false;
		return shm_open_call(b, listener, n, name, (int)(uint32_t)a[plain ? 1 : 2],
				     (mode_t)a[plain ? 2 : 3]);
	}
	if (strcmp(call, "link") == 0 || strcmp(call, "linkat") == 0) {
		bool plain = call[4] == '\0';
		if (!plain && ((int)(uint32_t)a[0] != at_fdcwd || (int)(uint32_t)a[2] != at_fdcwd ||
			       (uint32_t)a[4] != 0))
			return false;
		if (!arg_path(n, plain ? 0 : 1, b->path, sizeof b->path) ||
		    !arg_path(n, plain ? 1 : 3, b->path2, sizeof b->path2) ||
		    !(name = shm_name(b->path)) || !(name2 = shm_name(b->path2)))
			return false;
		rc = shm_link(b->shm, name, name2, listener, n->id);
	} else if (strcmp(call, "unlink") == 0 || strcmp(call, "unlinkat") == 0) {
		bool plain = call[6] == '\0';
		if ((!plain && ((int)(uint32_t)a[0] != at_fdcwd || (uint32_t)a[2] != 0)) ||
		    !arg_path(n, plain ? 0 : 1, b->path, sizeof b->path) || !(name = shm_name(b->path)))
			return false;
		rc = shm_unlink(b->shm, name, listener, n->id);
	} else {
		return false;
	}
	if (rc > 0)
		return false; /* not the run's own: Landlock judges it */
	if (broker_id_valid(listener, n->id))
		broker_answer_result(listener, n->id, -rc);
	return true;
}

void broker_shm_end(struct broker *b)
{
	struct broker_shm *s = b ? b->shm : NULL;
	if (!s)
		return;
	/* What the run left: each name removed only while it is still the run's file. */
	for (size_t i = 0; i < SHM_OWN_MAX; i++) {
		struct shm_own *o = &s->own[i];
		for (size_t k = 0; o->pin >= 0 && k < SHM_NAMES; k++) {
			struct stat st;
			if (o->names[k][0] &&
			    fstatat(s->dir, o->names[k], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_dev == o->dev && st.st_ino == o->ino)
				(void)unlinkat(s->dir, o->names[k], 0);
		}
		if (o->pin >= 0)
			close(o->pin);
		o->pin = -1;
	}
	close(s->dir);
	free(s);
	b->shm = NULL;
}
