/*
 * The store of change sets (store.h). The cage must never reach it (the
 * spawn refuses a store inside a write grant, and the run's mount
 * namespace lays an empty directory over it), and what the store holds
 * was written by the run's overlays: it is read from descriptors, no
 * link followed.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/small_file.h"
#include "base/syscalls.h"
#include "spare.h"

/* $XDG_STATE_HOME when absolute, else the home's .local/state. */
static int state_home(char *buf, size_t size, struct procage_error *err)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/procage/changes", xdg);
	else {
		if (!home || home[0] != '/') {
			struct passwd *pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home || home[0] != '/')
			return error_set(err, -ENOENT,
					 "no home for the store of change sets: set XDG_STATE_HOME");
		n = snprintf(buf, size, "%s/.local/state/procage/changes", home);
	}
	if (n < 0 || (size_t)n >= size)
		return error_set(err, -ENAMETOOLONG, "the store of change sets: path too long");
	return 0;
}

static bool own_directory(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & 077);
}

/*
 * One component below dir, made when missing (own: one of procage's own,
 * made 0700 and checked to be the caller's and closed to others).
 */
static int component_open(int dir, const char *name, bool own, const char *path,
			  struct procage_error *err)
{
	if (mkdirat(dir, name, own ? 0700 : 0755) != 0 && errno != EEXIST)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "making %s", path);
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "opening %s (a directory, no link, is expected)", path);
	struct stat st;
	if (own && (fstat(fd, &st) != 0 || !own_directory(&st))) {
		close(fd);
		return error_set(err, -EPERM,
				 "%s is not the caller's own directory closed to others (mode "
				 "0700): the store of change sets must be",
				 path);
	}
	return fd;
}

/*
 * The store as it mostly is, made before: opened whole, no link followed,
 * it and its parent procage's own. -1 otherwise, and the walk below makes
 * what is missing or says what is wrong.
 */
static int store_open_made(const char *path)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct stat st, parent;
	int fd = sys_openat2(AT_FDCWD, path, &how);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !own_directory(&st) ||
	    fstatat(fd, "..", &parent, AT_SYMLINK_NOFOLLOW) != 0 || !own_directory(&parent)) {
		close(fd);
		return -1;
	}
	return fd;
}

int changes_store_open(char *buf, size_t size, int *out, struct procage_error *err)
{
	int rc = state_home(buf, size, err);
	if (rc < 0)
		return rc;
	if ((*out = store_open_made(buf)) >= 0)
		return 0;
	/* "procage" and "changes", the last two components, are procage's own. */
	const char *own_from = buf + strlen(buf) - strlen("procage/changes");
	int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "opening /");
	char *copy = strdup(buf), *save = NULL;
	if (!copy) {
		close(dir);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (char *name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		size_t at = (size_t)(name - copy);
		char shown[PATH_MAX];
		snprintf(shown, sizeof shown, "%.*s", (int)(at + strlen(name)), buf);
		int next = component_open(dir, name, buf + at >= own_from, shown, err);
		close(dir);
		if (next < 0) {
			free(copy);
			return next;
		}
		dir = next;
	}
	free(copy);
	*out = dir;
	return 0;
}

int changes_set_create(int store_fd, char id[CHANGES_ID_MAX], int *out, struct procage_error *err)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	for (int attempt = 0; attempt < 16; attempt++) {
		unsigned char r[8];
		time_t now = time(NULL);
		struct tm tm;
		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE, "random bytes for an ID");
		gmtime_r(&now, &tm);
		size_t n = strftime(id, CHANGES_ID_MAX, "%Y%m%d-%H%M%S-", &tm);
		for (size_t i = 0; i < sizeof r; i++)
			id[n++] = letters[r[i] % (sizeof letters - 1)];
		id[n] = '\0';
		/* The spare, when one is kept, else a new directory. */
		if (attempt == 0 && changes_spare_take(store_fd, id))
			return changes_set_open(store_fd, id, out, err);
		if (mkdirat(store_fd, id, 0700) != 0) {
			if (errno == EEXIST)
				continue;
			return error_set_sys(err, errno, PROCAGE_STEP_NONE, "making change set %s", id);
		}
		return changes_set_open(store_fd, id, out, err);
	}
	return error_set(err, -EEXIST, "no free change set ID");
}

int changes_set_open(int store_fd, const char *id, int *out, struct procage_error *err)
{
	size_t len = strlen(id);
	if (len == 0 || len >= CHANGES_ID_MAX || strchr(id, '/') || id[0] == '.')
		return error_set(err, -EINVAL, "%.64s is not a change set ID", id);
	int fd = openat(store_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "change set %s", id);
	*out = fd;
	return 0;
}

/*
 * One line of "trees": "DEV INO MARKS PATH", the tree root's identity at
 * the run's start, whose marks its overlay has (user or trusted), and its
 * path on the host.
 */
static int tree_line(int set_fd, const char *line, struct changes_tree *t, size_t index,
		     struct procage_error *err)
{
	char name[24], marks[16];
	unsigned long long dev, ino;
	int at = -1;
	if (sscanf(line, "%llu %llu %15s %n", &dev, &ino, marks, &at) != 3 || at < 0 ||
	    line[at] != '/' || strlen(line + at) >= sizeof t->path ||
	    (strcmp(marks, "user") != 0 && strcmp(marks, "trusted") != 0))
		return error_set(err, -EINVAL, "a change set's trees file holds a bad line");
	snprintf(t->path, sizeof t->path, "%s", line + at);
	t->root_dev = (dev_t)dev;
	t->root_ino = (ino_t)ino;
	t->trusted_marks = strcmp(marks, "trusted") == 0;
	snprintf(name, sizeof name, "%zu", index);
	t->dir_fd = openat(set_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dir_fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "a change set's tree %s",
				     name);
	return 0;
}

int changes_trees_read(int set_fd, struct changes_tree **trees, size_t *n,
		       struct procage_error *err)
{
	char text[CHANGES_MAX_TREES * 512];
	*n = 0;
	/*
	 * On the heap: a change set mostly has one tree, and the whole array
	 * on the stack cost every run's end a page fault per 4 KiB of it.
	 */
	*trees = NULL;
	int fd = openat(set_fd, "trees", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "a change set's trees file");
	ssize_t len = read(fd, text, sizeof text - 1);
	close(fd);
	if (len < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "reading a change set's trees");
	text[len] = '\0';
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct changes_tree *grown;
		int rc = 0;
		if (*n == CHANGES_MAX_TREES)
			rc = error_set(err, -E2BIG, "a change set of too many trees");
		else if (!(grown = realloc(*trees, (*n + 1) * sizeof **trees)))
			rc = error_set(err, -ENOMEM, "out of memory");
		else
			rc = tree_line(set_fd, line, &(*trees = grown)[*n], *n, err);
		if (rc < 0) {
			changes_trees_close(*trees, *n);
			*trees = NULL;
			*n = 0;
			return rc;
		}
		(*n)++;
	}
	return 0;
}

void changes_trees_close(struct changes_tree *trees, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (trees[i].dir_fd >= 0)
			close(trees[i].dir_fd);
	free(trees);
}

int changes_boot_id(char id[CHANGES_BOOT_ID_MAX])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, id, CHANGES_BOOT_ID_MAX - 1);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return n < 0 ? -e : -EIO;
	id[n] = '\0';
	id[strcspn(id, "\n ")] = '\0';
	return id[0] ? 0 : -EIO;
}

/*
 * The overlay never synced what the run wrote (overlay_mount.c): a
 * change set made before the machine last started may hold files cut
 * short or empty, and is never read for applying.
 */
static int boot_check(const char *recorded, struct procage_error *err)
{
	char now[CHANGES_BOOT_ID_MAX];
	if (changes_boot_id(now) < 0)
		return error_set(err, -EIO, "a change set: this boot's identity is unreadable "
					    "(/proc/sys/kernel/random/boot_id)");
	if (strcmp(recorded, now) != 0)
		return error_set(err, -ESTALE,
				 "the machine has restarted since this change set's run, and "
				 "its files were never synced (they may be cut short): discard it");
	return 0;
}

int changes_started_read(int set_fd, struct timespec *t, struct procage_error *err)
{
	char text[128], boot[CHANGES_BOOT_ID_MAX];
	long long sec;
	long nsec;
	int fd = openat(set_fd, "started", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return error_set(err, -EINVAL, "a change set without its start time");
	text[n] = '\0';
	if (sscanf(text, "%lld %ld %39s", &sec, &nsec, boot) != 3)
		return error_set(err, -EINVAL, "a change set's start time is unreadable");
	int rc = boot_check(boot, err);
	if (rc < 0)
		return rc;
	t->tv_sec = (time_t)sec;
	t->tv_nsec = nsec;
	return 0;
}

int changes_set_claim(int set_fd, const char *id, int *lock_fd, struct procage_error *err)
{
	int fd = openat(set_fd, "started", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	*lock_fd = -1;
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "change set %s has no start mark", id);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		close(fd);
		return e == EWOULDBLOCK
			       ? error_set(err, -EBUSY,
					   "change set %s is in use: its run has not ended, or "
					   "another procage changes apply or discard works on it",
					   id)
			       : error_set_sys(err, e, PROCAGE_STEP_NONE, "claiming change set %s",
					       id);
	}
	*lock_fd = fd;
	return 0;
}
