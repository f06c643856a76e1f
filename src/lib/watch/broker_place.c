#include "broker_place.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/syscalls.h"

/* How far up `..` a directory is looked for in a created tree. */
#define BROKER_WALK_MAX 64

/*
 * Seconds of margin before the broker's start: the file systems stamp a
 * birth with a coarse clock, which may lag the one read here.
 */
#define BROKER_BORN_MARGIN_S 1

void broker_state_started(struct broker_state *s)
{
	struct timespec now;
	s->born_before = clock_gettime(CLOCK_REALTIME, &now) == 0
			     ? (long long)now.tv_sec - BROKER_BORN_MARGIN_S
			     : 0;
}

/* Whether sx (with STATX_BTIME asked) was born before the broker started: see dir_identity. */
static int born_before(const struct broker_state *s, const struct statx *sx)
{
	return s->born_before > 0 && (sx->stx_mask & STATX_BTIME) &&
	       sx->stx_btime.tv_sec < s->born_before;
}

/*
 * A directory's identity, and whether it was born (statx btime) before
 * the broker started: 1 born before, 0 not or not known (a file system
 * without birth times, a clock at 0), -1 unreadable.
 */
static int dir_identity(const struct broker_state *s, int fd, struct stat *st)
{
	struct statx sx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_INO | STATX_BTIME, &sx) != 0)
		return -1;
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_ino = sx.stx_ino;
	return born_before(s, &sx);
}

static const struct broker_zone *zone_of(const struct broker_state *s, const struct stat *st)
{
	for (size_t i = 0; i < s->zones.n; i++)
		if (s->zones.zones[i].dev == st->st_dev && s->zones.zones[i].ino == st->st_ino)
			return &s->zones.zones[i];
	return NULL;
}

static bool created_has(const struct broker_state *s, const struct stat *st)
{
	for (size_t i = 0; i < s->n_created; i++)
		if (s->created[i].dev == st->st_dev && s->created[i].ino == st->st_ino)
			return true;
	return false;
}

static bool device_has_zone(const struct broker_state *s, dev_t dev)
{
	for (size_t i = 0; i < s->zones.n; i++)
		if (s->zones.zones[i].dev == dev)
			return true;
	return false;
}

bool broker_created_full(const struct broker_state *s)
{
	return s->n_created >= BROKER_CREATED_MAX;
}

int broker_created_add(struct broker_state *s, dev_t dev, ino_t ino)
{
	if (broker_created_full(s))
		return -ENOSPC;
	if ((s->n_created & (s->n_created - 1)) == 0) {
		size_t room = s->n_created ? s->n_created * 2 : 16;
		struct broker_created *grown = realloc(s->created, room * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		s->created = grown;
	}
	s->created[s->n_created++] = (struct broker_created){dev, ino};
	return 0;
}

void broker_created_remove(struct broker_state *s, dev_t dev, ino_t ino)
{
	broker_beneath_forget(s);
	for (size_t i = 0; i < s->n_created; i++)
		if (s->created[i].dev == dev && s->created[i].ino == ino) {
			s->created[i] = s->created[--s->n_created];
			return;
		}
}

/*
 * Is parent beneath a directory the broker made directly in a zone? Walk
 * `..` up to the first zone; the entry of that zone the walk came through
 * must be one the broker made (an entry that was there at cage time has
 * Landlock rules of its own, and so has everything beneath it). A walk
 * that reaches the root or its bound finds nothing: not brokered.
 *
 * Nor does a walk that meets a directory born before the broker started:
 * the broker made none of those, and none comes beneath one it made but
 * inside an entry the zone had, whose rules hold there (moving a
 * directory into a made tree is the broker's, which takes it only from a
 * zone or another made tree). This spares the walk to the zone, a few
 * system calls per level, to every call in the existing tree once the
 * broker has made a directory. The answer is then CONTINUE, which grants
 * nothing: were it wrong, Landlock would refuse the call, never allow it.
 */
static const struct broker_zone *created_tree_zone(const struct broker_state *s, int parent,
						   const struct stat *parent_st)
{
	struct stat child = *parent_st, up_st;
	int cur = parent;
	const struct broker_zone *found = NULL;
	for (int depth = 0; depth < BROKER_WALK_MAX; depth++) {
		int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != parent)
			close(cur);
		cur = parent;
		if (up < 0)
			break;
		int born = dir_identity(s, up, &up_st);
		if (born < 0 || (up_st.st_dev == child.st_dev && up_st.st_ino == child.st_ino)) {
			close(up);
			break;
		}
		const struct broker_zone *z = zone_of(s, &up_st);
		if (z || born) {
			close(up);
			if (z && created_has(s, &child))
				found = z;
			break;
		}
		child = up_st;
		cur = up;
	}
	if (cur != parent)
		close(cur);
	return found;
}

/*
 * The directories found beneath made ones, remembered so that the next
 * call there does without the walk up to the zone (a few system calls
 * per level: most of a call's cost in a tree the broker made, such as a
 * build directory). What the cage could do to make an entry wrong, and
 * why it cannot:
 * - move the directory out of the made tree, or a directory above it:
 *   a rename whose source lies in a zone or a made tree, so one the
 *   broker performs (or refuses), and broker_beneath_forget runs first;
 * - remove it, and have its inode number come back as another
 *   directory elsewhere: a removal there is the broker's too (forget
 *   again), the kernel's own would be refused by Landlock (no rule
 *   grants anything below a zone), and an entry holds the birth time
 *   with the inode, which a new directory cannot share; a file system
 *   without birth times gets no entry at all;
 * - change the zones: made and forgotten only by the broker (forget).
 * Nothing else the cage does (writes, chmod, links of files, mounts,
 * which the filter refuses) changes which directory lies beneath which.
 */
void broker_beneath_forget(struct broker_state *s)
{
	s->n_beneath = 0;
	s->next_beneath = 0;
}

static const struct broker_zone *beneath_find(const struct broker_state *s,
					      const struct statx *sx)
{
	dev_t dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
	for (size_t i = 0; i < s->n_beneath; i++) {
		const struct broker_beneath *e = &s->beneath[i];
		if (e->ino == sx->stx_ino && e->dev == dev && e->born_s == sx->stx_btime.tv_sec &&
		    e->born_ns == sx->stx_btime.tv_nsec) {
			struct stat zone = {.st_dev = e->zone_dev, .st_ino = e->zone_ino};
			return zone_of(s, &zone);
		}
	}
	return NULL;
}

static void beneath_add(struct broker_state *s, const struct statx *sx,
			const struct broker_zone *z)
{
	if (!(sx->stx_mask & STATX_BTIME))
		return;
	struct broker_beneath *e = &s->beneath[s->next_beneath];
	*e = (struct broker_beneath){makedev(sx->stx_dev_major, sx->stx_dev_minor),
				     sx->stx_ino,
				     sx->stx_btime.tv_sec,
				     sx->stx_btime.tv_nsec,
				     z->dev,
				     z->ino};
	s->next_beneath = (s->next_beneath + 1) % BROKER_BENEATH_MAX;
	if (s->n_beneath < BROKER_BENEATH_MAX)
		s->n_beneath++;
}

/*
 * parent, a directory of the broker's (owned: closed here unless the
 * place keeps it; else the caller's), classified by one statx: a zone, a directory beneath one
 * the broker made, or neither.
 */
static int classify(struct broker_state *s, int parent, bool owned, struct broker_place *p)
{
	struct statx sx;
	struct stat st;
	int rc = 0;
	if (statx(parent, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT,
		  STATX_TYPE | STATX_INO | STATX_BTIME, &sx) != 0 ||
	    !(sx.stx_mask & STATX_TYPE) || !S_ISDIR(sx.stx_mode))
		goto done;
	st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st.st_ino = sx.stx_ino;
	if ((p->zone = zone_of(s, &st))) {
		/* The broker's own descriptor of the zone, opened at cage time. */
		p->dir = p->zone->fd;
		rc = 1;
		goto done;
	}
	if (!s->n_created || !device_has_zone(s, st.st_dev) || born_before(s, &sx))
		goto done;
	if (!(p->zone = beneath_find(s, &sx)) && (p->zone = created_tree_zone(s, parent, &st)))
		beneath_add(s, &sx, p->zone);
	if (p->zone) {
		p->dir = parent;
		p->owned = owned ? parent : -1;
		p->in_created = true;
		return 1;
	}
done:
	if (owned)
		close(parent);
	return rc;
}

int broker_place_resolve(struct broker_state *s, int base, char *path, bool dir_ok,
			 struct broker_place *p)
{
	*p = (struct broker_place){.dir = -1, .owned = -1};
	size_t len = strlen(path);
	bool trailing = false;
	while (len > 1 && path[len - 1] == '/') {
		path[--len] = '\0';
		trailing = true;
	}
	if (len == 0 || (trailing && !dir_ok) || strcmp(path, "/") == 0)
		return 0;
	char *slash = strrchr(path, '/');
	const char *dir = ".";
	p->name = path;
	if (slash) {
		*slash = '\0';
		dir = slash == path ? "/" : path;
		p->name = slash + 1;
	}
	/* . and .. name no new entry; the kernel answers them itself. */
	if (strcmp(p->name, ".") == 0 || strcmp(p->name, "..") == 0 || strlen(p->name) > NAME_MAX)
		return 0;
	/*
	 * Links in the directory part are followed as the broker would, but
	 * magic links (/proc/self/fd/N, /proc/PID/cwd) would be the broker's
	 * own, not the cage's: refused, and the call left to the kernel. On
	 * tier T2 the cage's root is the broker's (chroot is refused), so an
	 * absolute path means the same to both.
	 */
	if (strcmp(dir, ".") == 0 && base >= 0)
		/*
		 * A single name ("name" or "./name"): its directory is base
		 * itself (the thread's cwd or directory descriptor, taken by the
		 * broker), no second open of ".". classify checks it is a
		 * directory, as O_DIRECTORY would.
		 */
		return classify(s, base, false, p);
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_MAGICLINKS};
	int parent = sys_openat2(dir[0] == '/' ? AT_FDCWD : base, dir, &how);
	if (parent < 0)
		return 0;
	return classify(s, parent, true, p);
}

void broker_place_release(struct broker_place *p)
{
	if (p->owned >= 0)
		close(p->owned);
	p->owned = -1;
}

/*
 * Only a skip, never a grant: a call found to land elsewhere is answered
 * CONTINUE, which the kernel then judges under Landlock as it judges any
 * call broker_place_resolve finds outside the zones. Where the two
 * resolutions could differ, the statx says true: a magic link in the
 * directory part (followed here, refused by broker_place_resolve, whose
 * answer is then CONTINUE all the same), an unreadable or missing
 * directory, anything not plainly outside. What the cage changes between
 * this look and the kernel's own walk it could change as well after
 * broker_place_resolve's: Landlock refuses an entry made in a zone or a
 * made tree either way. This spares the descriptors of the cwd and of
 * the directory (an open and two closes more, four system calls of
 * eight) to most of the calls, which land elsewhere (git's objects,
 * refs and logs).
 */
bool broker_place_maybe(const struct broker_state *s, pid_t tid, int dirfd, const char *path)
{
	char where[PATH_MAX + 64];
	const char *dir;
	int dir_len = (int)broker_path_dir(path, &dir);
	int n;
	if (path[0] == '/')
		n = snprintf(where, sizeof where, "%.*s", dir_len, dir);
	else if (dirfd == AT_FDCWD)
		n = snprintf(where, sizeof where, "/proc/%d/cwd/%.*s", (int)tid, dir_len, dir);
	else if (dirfd >= 0)
		n = snprintf(where, sizeof where, "/proc/%d/fd/%d/%.*s", (int)tid, dirfd, dir_len,
			     dir);
	else
		return true;
	if (n < 0 || (size_t)n >= sizeof where)
		return true;
	struct statx sx;
	if (statx(AT_FDCWD, where, AT_STATX_SYNC_AS_STAT, STATX_TYPE | STATX_INO | STATX_BTIME,
		  &sx) != 0 ||
	    !(sx.stx_mask & STATX_TYPE))
		return true;
	if (!S_ISDIR(sx.stx_mode))
		return false;
	struct stat st = {.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor),
			  .st_ino = sx.stx_ino};
	if (zone_of(s, &st))
		return true;
	return s->n_created && device_has_zone(s, st.st_dev) && !born_before(s, &sx);
}

size_t broker_path_dir(const char *path, const char **dir)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	const char *slash = memrchr(path, '/', len);
	*dir = slash ? path : ".";
	return slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
}
