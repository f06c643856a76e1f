/*
 * Tier T2: the run's own processes, shown to ps and top by the supervisor
 * (docs/proc.md, R-55 in THREAT_MODEL.md).
 *
 * Without a PID namespace the host's /proc lists every process of the
 * host, and Landlock can only grant it whole. So an open of /proc itself
 * is answered with a descriptor of a directory the supervisor makes for
 * that open: one empty directory per process of the run (proc_member.h),
 * named by its number, and nothing else. ps and top then read each
 * process's entries by path, /proc/N/stat and the like, which the broker
 * opens for the caller when N is the run's and the entry is one of a short
 * list whose contents the kernel judges by the reader, not by the opener.
 *
 * Where the listings live: a directory made with mkdtemp (mode 0700) in
 * the cage's base for private temporary directories, at the run's first
 * listing, checked to lie outside every grant of the cage by the inodes
 * of its ancestors, the way Landlock judges it. The run can neither open it nor anything in it by
 * path or through the descriptor it is given (a listing is opened for
 * reading only; making, removing or opening below it needs rights
 * Landlock does not give there). Each open of /proc gets a fresh listing;
 * the oldest are removed as new ones are made, all of them at the end.
 */
#include "broker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broker_internal.h"
#include "broker_io.h"
#include "base/syscalls.h"
#include "kernel/landlock.h"
#include "proc_member.h"

/* Listings kept at once: a tool may read one while the next is made. */
#define LISTINGS_KEPT 8
/* Processes one listing shows at most (a run is not a host). */
#define LISTING_MAX 4096

/*
 * Another process's entries the broker opens, when it is the run's
 * (docs/proc.md), in its directory and in task/TID of each of its
 * threads; and the listing of its task directory (its threads' numbers).
 */
static const char *const member_files[] = {"stat", "status", "statm", "cmdline"};

/* A grant's inode, as the cage pinned it. */
struct granted {
	dev_t dev;
	ino_t ino;
};

struct broker_proc_run {
	struct proc_run_root root;
	char base[PATH_MAX]; /* where the private directory is made */
	/*
	 * The cage's grants by identity, copied at the start (the run may
	 * outlive its cage); the directory is made at the first listing, so
	 * that a run that never lists /proc pays nothing for it.
	 */
	struct granted *granted;
	size_t n_granted;
	bool tried;	    /* the directory was made, or could not be */
	char dir[PATH_MAX]; /* the private directory of the listings */
	bool made;	    /* dir exists, to be removed at the end */
	int dir_fd;
	unsigned long serial; /* listings made */
};

/* Is st the inode of a grant, or of a zone where the broker makes entries? */
static bool granted_inode(const struct stat *st, const struct broker_proc_run *r,
			  const struct broker_zones *zones)
{
	for (size_t i = 0; i < r->n_granted; i++)
		if (r->granted[i].dev == st->st_dev && r->granted[i].ino == st->st_ino)
			return true;
	for (size_t i = 0; i < zones->n; i++)
		if (zones->zones[i].dev == st->st_dev && zones->zones[i].ino == st->st_ino)
			return true;
	return false;
}

/*
 * Is the directory open at fd, or one of its ancestors, the inode of a
 * grant or a zone? Landlock judges by the inodes above a file, whatever
 * their names, and so does this.
 */
static bool below_a_grant(int fd, const struct broker_proc_run *r,
			  const struct broker_zones *zones)
{
	struct stat st, parent;
	int at = dup(fd);
	bool below = true; /* until the root is reached without a match */
	for (int depth = 0; at >= 0 && depth < 256; depth++) {
		if (fstat(at, &st) != 0 || granted_inode(&st, r, zones))
			break;
		int up = openat(at, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &parent) != 0) {
			if (up >= 0)
				close(up);
			break;
		}
		close(at);
		at = up;
		/* The root is its own parent. */
		if (parent.st_dev == st.st_dev && parent.st_ino == st.st_ino) {
			below = false;
			break;
		}
	}
	if (at >= 0)
		close(at);
	return below;
}

int broker_proc_run_on(struct broker *b, pid_t reaper, int reaper_pidfd, const char *base,
		       const struct landlock_grant *grants, size_t n_grants)
{
	if (!b || reaper <= 1 || reaper_pidfd < 0 || !base || base[0] != '/' ||
	    strlen(base) + sizeof "/procage-proc-XXXXXX" > PATH_MAX)
		return -EINVAL;
	struct broker_proc_run *r = calloc(1, sizeof *r);
	if (!r || !(r->granted = calloc(n_grants + 1, sizeof *r->granted))) {
		free(r);
		return -ENOMEM;
	}
	r->dir_fd = -1;
	r->root.reaper = reaper;
	snprintf(r->base, sizeof r->base, "%s", base);
	for (size_t i = 0; i < n_grants; i++)
		r->granted[r->n_granted++] = (struct granted){ grants[i].dev, grants[i].ino };
	r->root.pidfd = fcntl(reaper_pidfd, F_DUPFD_CLOEXEC, 0);
	b->proc_run = r;
	if (r->root.pidfd < 0) {
		int rc = -errno;
		broker_proc_run_end(b);
		return rc;
	}
	return 0;
}

/*
 * The private directory of the listings, made at the first one: 0, or a
 * negative errno (then and from then on, no listing: /proc stays
 * Landlock's to refuse).
 */
static int listing_dir_ready(struct broker *b, struct broker_proc_run *r)
{
	if (r->tried)
		return r->dir_fd >= 0 ? 0 : -ENOENT;
	r->tried = true;
	if ((size_t)snprintf(r->dir, sizeof r->dir, "%s/procage-proc-XXXXXX", r->base) >=
	    sizeof r->dir)
		return -ENAMETOOLONG;
	if (!mkdtemp(r->dir))
		return -errno;
	r->made = true;
	int fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Inside a grant the run could write there: no listing at all. */
	if (below_a_grant(fd, r, &b->state.zones)) {
		close(fd);
		return -EPERM;
	}
	r->dir_fd = fd;
	return 0;
}

/* Remove listing number serial, and every directory in it. */
static void listing_remove(struct broker_proc_run *r, unsigned long serial)
{
	char name[32];
	snprintf(name, sizeof name, "l%lu", serial);
	int fd = openat(r->dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		struct dirent *e;
		if (!d) {
			close(fd);
		} else {
			/* Made 0555 once full: writable again to its owner to empty it. */
			(void)fchmod(fd, 0700);
			while ((e = readdir(d)))
				if (e->d_name[0] != '.')
					(void)unlinkat(fd, e->d_name, AT_REMOVEDIR);
			closedir(d);
		}
	}
	(void)unlinkat(r->dir_fd, name, AT_REMOVEDIR);
}

void broker_proc_run_end(struct broker *b)
{
	struct broker_proc_run *r = b ? b->proc_run : NULL;
	if (!r)
		return;
	if (r->dir_fd >= 0) {
		for (unsigned long s = r->serial > LISTINGS_KEPT ? r->serial - LISTINGS_KEPT : 0;
		     s < r->serial; s++)
			listing_remove(r, s);
		close(r->dir_fd);
	}
	if (r->made)
		(void)rmdir(r->dir);
	if (r->root.pidfd >= 0)
		close(r->root.pidfd);
	free(r->granted);
	free(r);
	b->proc_run = NULL;
}

static int descending(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x < y) - (x > y);
}

/* The run's processes (LISTING_MAX at most) in pids, by a scan of /proc: how many, or -errno. */
static int members_find(const struct broker_proc_run *r, pid_t *pids)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return -errno;
	int n = 0;
	struct dirent *e;
	while (n < LISTING_MAX && (e = readdir(proc))) {
		if (!broker_all_digits(e->d_name))
			continue;
		int dir =
		    openat(dirfd(proc), e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir < 0)
			continue; /* gone since it was listed */
		if (proc_member(dir, &r->root))
			pids[n++] = (pid_t)strtol(e->d_name, NULL, 10);
		close(dir);
	}
	closedir(proc);
	return n;
}

/*
 * One directory in the listing open at fd for every process of the run.
 * Made from the highest number down: a tmpfs lists the newest entry
 * first, so ps shows them in order there, as in /proc. 0 or -errno.
 */
static int listing_fill(const struct broker_proc_run *r, int fd)
{
	pid_t *pids = malloc(LISTING_MAX * sizeof *pids);
	if (!pids)
		return -ENOMEM;
	int n = members_find(r, pids), rc = n < 0 ? n : 0;
	if (n > 0)
		qsort(pids, (size_t)n, sizeof *pids, descending);
	for (int i = 0; rc == 0 && i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "%d", (int)pids[i]);
		if (mkdirat(fd, name, 0555) < 0 && errno != EEXIST)
			rc = -errno;
	}
	free(pids);
	return rc;
}

/* A fresh listing of the run's processes, opened for reading with flags. */
static int listing_open(struct broker_proc_run *r, int flags)
{
	char name[32];
	if (r->serial >= LISTINGS_KEPT)
		listing_remove(r, r->serial - LISTINGS_KEPT);
	snprintf(name, sizeof name, "l%lu", r->serial++);
	if (mkdirat(r->dir_fd, name, 0700) < 0)
		return -errno;
	int fd = openat(r->dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = listing_fill(r, fd);
	/* Read-only by its bits too, once full: 0555 like /proc. */
	if (rc == 0 && fchmod(fd, 0555) < 0)
		rc = -errno;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	/* The caller's own open: its flags, for reading a directory only. */
	int out = openat(r->dir_fd, name,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | (flags & O_NONBLOCK));
	int e = errno;
	close(fd);
	return out < 0 ? -e : out;
}

bool broker_proc_run_listing(struct broker *b, int listener, uint64_t id, const char *path,
			     int flags)
{
	struct broker_proc_run *r = b ? b->proc_run : NULL;
	/* "/proc/.": "." relative to /proc (pidof changes into /proc and lists "."). */
	if (!r || (strcmp(path, "/proc") != 0 && strcmp(path, "/proc/") != 0 &&
		   strcmp(path, "/proc/.") != 0) ||
	    listing_dir_ready(b, r) < 0)
		return false;
	int fd = listing_open(r, flags);
	/* Not made (no room, say): Landlock refuses /proc as it would without the broker. */
	if (fd < 0)
		return false;
	broker_answer_opened(listener, id, fd, (flags & O_CLOEXEC) != 0);
	return true;
}

static bool member_file(const char *name)
{
	for (size_t i = 0; i < sizeof member_files / sizeof *member_files; i++)
		if (strcmp(name, member_files[i]) == 0)
			return true;
	return false;
}

bool broker_proc_member_entry(const char *path, pid_t *pid, char *rest, size_t size)
{
	char copy[128], *save = NULL;
	const char *names[5];
	size_t n = 0;
	if (strncmp(path, "/proc/", 6) != 0 || strlen(path) >= sizeof copy)
		return false;
	snprintf(copy, sizeof copy, "%s", path + 6);
	/* Doubled and trailing slashes fold away; every name is then checked by value. */
	for (char *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (n == sizeof names / sizeof *names)
			return false;
		names[n++] = t;
	}
	if (n < 2 || !broker_all_digits(names[0]))
		return false;
	long value = strtol(names[0], NULL, 10);
	if (value <= 1 || value > 0x3fffffff)
		return false;
	bool ok = (n == 2 && member_file(names[1])) || (n == 2 && strcmp(names[1], "task") == 0) ||
		  (n == 4 && strcmp(names[1], "task") == 0 && broker_all_digits(names[2]) &&
		   member_file(names[3]));
	int len = n == 4 ? snprintf(rest, size, "task/%s/%s", names[2], names[3])
			 : snprintf(rest, size, "%s", names[1]);
	if (!ok || len < 0 || (size_t)len >= size)
		return false;
	*pid = (pid_t)value;
	return true;
}

bool broker_proc_run_entry(struct broker *b, int listener, uint64_t id, const char *path, int flags)
{
	struct broker_proc_run *r = b ? b->proc_run : NULL;
	pid_t pid;
	char rest[64];
	if (!r || !broker_proc_member_entry(path, &pid, rest, sizeof rest))
		return false;
	char dir_path[32];
	snprintf(dir_path, sizeof dir_path, "/proc/%d", (int)pid);
	int dir = open(dir_path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/*
	 * Judged on the directory that is then opened below: it stays bound
	 * to the process it was opened for, whatever happens to the number.
	 * Not the run's: Landlock refuses, as it would without the broker.
	 */
	if (dir < 0 || !proc_member(dir, &r->root)) {
		if (dir >= 0)
			close(dir);
		return false;
	}
	struct open_how how = {
	    .flags =
		O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (uint64_t)(flags & (O_NONBLOCK | O_DIRECTORY)),
	    .resolve =
		RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = sys_openat2(dir, rest, &how);
	int e = errno;
	close(dir);
	broker_answer_opened(listener, id, fd < 0 ? -e : fd, (flags & O_CLOEXEC) != 0);
	return true;
}
