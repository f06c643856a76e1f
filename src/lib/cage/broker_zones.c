#include "broker_zones.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "base/syscalls.h"

/*
 * The names git itself makes at the root of a git directory, from git's
 * gitrepository-layout(5) and the paths its commands write (git_path()
 * callers: sequencer, stash, commit, merge, bisect, gc, fetch, lfs). A
 * new entry in a git directory must be one of them, or one of them with
 * ".lock" after it (git's lock files), so that the cage cannot make a git
 * directory inside .git (.git/evil/{HEAD,config,objects,refs} reached
 * through a gitfile) nor any name git reads configuration or programs
 * from: commondir, hooks, config, config.worktree, info (attributes),
 * modules, worktrees are not here, and never will be.
 */
enum git_name_kind { GIT_EXACT, GIT_PREFIX, GIT_SUFFIX };

/* clang-format off */
static const struct git_name {
	enum git_name_kind kind;
	const char *text;
} git_names[] = {
	{ GIT_EXACT, "HEAD" },
	{ GIT_SUFFIX, "_HEAD" }, /* ORIG, FETCH, MERGE, CHERRY_PICK, REVERT, REBASE, BISECT */
	{ GIT_EXACT, "index" },
	{ GIT_PREFIX, "index.stash." },	 /* git stash's temporary index, by pid */
	{ GIT_PREFIX, "next-index-" },	 /* git commit PATH's temporary index */
	{ GIT_PREFIX, "sharedindex." }, /* split index */
	{ GIT_EXACT, "packed-refs" },
	{ GIT_EXACT, "packed-refs.new" }, /* git pack-refs writes it, then renames it */
	{ GIT_EXACT, "COMMIT_EDITMSG" },
	{ GIT_EXACT, "MERGE_MSG" },
	{ GIT_EXACT, "MERGE_MODE" },
	{ GIT_EXACT, "MERGE_RR" },
	{ GIT_EXACT, "MERGE_AUTOSTASH" },
	{ GIT_EXACT, "AUTO_MERGE" },
	{ GIT_EXACT, "SQUASH_MSG" },
	{ GIT_EXACT, "TAG_EDITMSG" },
	{ GIT_EXACT, "NOTES_EDITMSG" },
	{ GIT_PREFIX, "NOTES_MERGE_" },
	{ GIT_EXACT, "EDIT_DESCRIPTION" },
	{ GIT_PREFIX, "BISECT_" },
	{ GIT_EXACT, "description" },
	{ GIT_EXACT, "logs" },
	{ GIT_EXACT, "refs" },
	{ GIT_EXACT, "objects" },
	{ GIT_EXACT, "reftable" },
	{ GIT_EXACT, "rebase-merge" },
	{ GIT_EXACT, "rebase-apply" },
	{ GIT_EXACT, "sequencer" },
	{ GIT_EXACT, "rr-cache" },
	{ GIT_EXACT, "gc.pid" },
	{ GIT_EXACT, "gc.log" },
	{ GIT_EXACT, "shallow" },
	{ GIT_EXACT, "gitk.cache" },
	{ GIT_EXACT, "lfs" },
};
/* clang-format on */

static bool git_name_match(const struct git_name *g, const char *name, size_t len)
{
	size_t t = strlen(g->text);
	switch (g->kind) {
	case GIT_EXACT:
		return len == t && strncmp(name, g->text, len) == 0;
	case GIT_PREFIX:
		return len > t && strncmp(name, g->text, t) == 0;
	case GIT_SUFFIX:
		return len > t && strncmp(name + len - t, g->text, t) == 0;
	}
	return false;
}

bool broker_git_name(const char *name)
{
	size_t len = strlen(name);
	static const char lock[] = ".lock";
	/*
	 * git's lock files of its config: made, written and removed as git
	 * does; the rename onto the config is judged by the new text
	 * (watch/broker_git_config.h).
	 */
	if (strcmp(name, "config.lock") == 0 || strcmp(name, "config.worktree.lock") == 0)
		return true;
	/* Otherwise one ".lock" may follow: config.lock is not config. */
	if (len > sizeof lock - 1 && strcmp(name + len - (sizeof lock - 1), lock) == 0)
		len -= sizeof lock - 1;
	for (size_t i = 0; i < sizeof git_names / sizeof *git_names; i++)
		if (git_name_match(&git_names[i], name, len))
			return true;
	return false;
}

/*
 * A linked worktree's git directory holds, beside git's own names, the
 * files naming its work tree (gitdir) and its state (locked), and
 * commondir: the directory whose config and hooks git uses for it. That
 * one is only ever the broker's own "../.." (op_open), made afresh or
 * removed, never rewritten: so the common directory is the one holding
 * worktrees/, whose config and hooks are held.
 */
static int linked_name_check(const char *name, enum broker_use use)
{
	if (strcmp(name, "commondir") == 0)
		return use == BROKER_USE_CREATE || use == BROKER_USE_REMOVE ? 0 : -EACCES;
	if (strcmp(name, "gitdir") == 0 || strcmp(name, "locked") == 0)
		return 0;
	return 1;
}

int broker_name_check(const struct broker_zone *z, const char *name, enum broker_use use)
{
	for (size_t i = 0; i < z->n_protected; i++)
		if (strcmp(z->protected_names[i], name) == 0)
			return -EACCES;
	/* worktrees/: each entry a directory the broker made, itself a zone. */
	if (z->worktrees)
		return use == BROKER_USE_MKDIR || use == BROKER_USE_REMOVE ? 0 : -EACCES;
	int linked = z->linked ? linked_name_check(name, use) : 1;
	if (linked <= 0)
		return linked;
	if (use != BROKER_USE_EXISTING && z->git_dir && !z->linked &&
	    strcmp(name, "worktrees") == 0)
		return use == BROKER_USE_MKDIR || use == BROKER_USE_REMOVE ? 0 : -EACCES;
	/*
	 * Git makes and removes only its own names at the root of a git
	 * directory; any other entry there (a hooks directory given as a
	 * symbolic link, a tool's own file) may be written as it is, but not
	 * made, removed or swapped.
	 */
	if (use != BROKER_USE_EXISTING && z->git_dir && !broker_git_name(name))
		return -EACCES;
	return 0;
}

static struct broker_zone *zone_find(struct broker_zones *z, const char *path)
{
	for (size_t i = 0; i < z->n; i++)
		if (strcmp(z->zones[i].path, path) == 0)
			return &z->zones[i];
	return NULL;
}

static int zone_protect(struct broker_zone *zone, const char *name, size_t len)
{
	for (size_t i = 0; i < zone->n_protected; i++)
		if (strlen(zone->protected_names[i]) == len &&
		    strncmp(zone->protected_names[i], name, len) == 0)
			return 0;
	char **grown = realloc(zone->protected_names, (zone->n_protected + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	zone->protected_names = grown;
	if (!(grown[zone->n_protected] = strndup(name, len)))
		return -ENOMEM;
	zone->n_protected++;
	return 0;
}

int broker_zones_add(struct broker_zones *z, const char *path, const char *denied)
{
	size_t base = strlen(path);
	/* denied lies strictly below path: skip path and its slash ("/" has none). */
	const char *rest = denied + base + (strcmp(path, "/") != 0);
	size_t len = strcspn(rest, "/");
	if (len == 0)
		return -EINVAL;
	struct broker_zone *zone = zone_find(z, path);
	if (!zone) {
		struct broker_zone *grown = realloc(z->zones, (z->n + 1) * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		z->zones = grown;
		zone = &z->zones[z->n];
		*zone = (struct broker_zone){.path = strdup(path), .fd = -1};
		if (!zone->path)
			return -ENOMEM;
		z->n++;
	}
	return zone_protect(zone, rest, len);
}

/*
 * A bare repository or a .git: HEAD, objects and refs, as git's discovery
 * asks; or a linked worktree's git directory: HEAD and commondir.
 */
static bool is_git_dir(int fd, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash && strcmp(slash + 1, ".git") == 0)
		return true;
	struct stat st;
	/* A linked worktree's: HEAD, and commondir naming the rest. */
	if (fstatat(fd, "HEAD", &st, 0) == 0 && fstatat(fd, "commondir", &st, 0) == 0)
		return true;
	return fstatat(fd, "HEAD", &st, 0) == 0 && fstatat(fd, "objects", &st, 0) == 0 &&
	       S_ISDIR(st.st_mode) && fstatat(fd, "refs", &st, 0) == 0 && S_ISDIR(st.st_mode);
}

int broker_zones_add_listing(struct broker_zones *z, const char *path)
{
	for (size_t i = 0; i < z->n_listing; i++)
		if (strcmp(z->listing[i].path, path) == 0)
			return 0;
	struct broker_listing *grown = realloc(z->listing, (z->n_listing + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	z->listing = grown;
	if (!(grown[z->n_listing].path = strdup(path)))
		return -ENOMEM;
	grown[z->n_listing].dev = 0;
	grown[z->n_listing].ino = 0;
	z->n_listing++;
	return 0;
}

void broker_zones_drop_listing(struct broker_zones *z)
{
	for (size_t i = 0; i < z->n_listing; i++)
		free(z->listing[i].path);
	free(z->listing);
	z->listing = NULL;
	z->n_listing = 0;
}

/* Each listing directory's identity, taken without following a link. */
static void listing_open(struct broker_zones *z)
{
	for (size_t i = 0; i < z->n_listing; i++) {
		struct stat st;
		if (lstat(z->listing[i].path, &st) == 0 && S_ISDIR(st.st_mode)) {
			z->listing[i].dev = st.st_dev;
			z->listing[i].ino = st.st_ino;
		}
	}
}

static const struct broker_zone *zone_parent(const struct broker_zones *z,
					     const struct broker_zone *zone, const char *base)
{
	const char *slash = strrchr(zone->path, '/');
	if (!slash || strcmp(slash + 1, base) != 0)
		return NULL;
	size_t len = (size_t)(slash - zone->path);
	for (size_t i = 0; i < z->n; i++)
		if (strlen(z->zones[i].path) == len &&
		    strncmp(z->zones[i].path, zone->path, len) == 0)
			return &z->zones[i];
	return NULL;
}

/* A git directory's worktrees/ (that git directory a zone too). */
static bool zone_is_worktrees(const struct broker_zones *z, const struct broker_zone *zone)
{
	const struct broker_zone *parent = zone_parent(z, zone, "worktrees");
	return parent && parent->git_dir;
}

/* A git directory directly in a worktrees/ zone: a linked worktree's. */
static bool zone_in_worktrees(const struct broker_zones *z, const struct broker_zone *zone)
{
	const char *slash = strrchr(zone->path, '/');
	if (!slash || slash == zone->path)
		return false;
	size_t len = (size_t)(slash - zone->path);
	for (size_t i = 0; i < z->n; i++)
		if (strlen(z->zones[i].path) == len &&
		    strncmp(z->zones[i].path, zone->path, len) == 0)
			return zone_is_worktrees(z, &z->zones[i]);
	return false;
}

static void zone_free(struct broker_zone *zone)
{
	free(zone->path);
	if (zone->fd >= 0)
		close(zone->fd);
	for (size_t j = 0; j < zone->n_protected; j++)
		free(zone->protected_names[j]);
	free(zone->protected_names);
}

int broker_zones_open(struct broker_zones *z, struct procage_error *err)
{
	listing_open(z);
	for (size_t i = 0; i < z->n; i++) {
		struct broker_zone *zone = &z->zones[i];
		struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
		struct stat st;
		zone->fd = sys_openat2(AT_FDCWD, zone->path, &how);
		/*
		 * Removed since its directory was listed: nothing is made in it
		 * (it has no grant either), and its name stays held in the zone
		 * above it, which the same denials made.
		 */
		if (zone->fd < 0 && errno == ENOENT) {
			zone_free(zone);
			memmove(zone, zone + 1, (--z->n - i) * sizeof *zone);
			i--;
			continue;
		}
		if (zone->fd < 0 || fstat(zone->fd, &st) != 0)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE,
					     "opening %s, where the cage's new entries are made by "
					     "the supervisor",
					     zone->path);
		zone->dev = st.st_dev;
		zone->ino = st.st_ino;
		zone->git_dir = is_git_dir(zone->fd, zone->path);
	}
	/* Read once every zone is known: a worktrees/ zone's parent is a git directory zone. */
	for (size_t i = 0; i < z->n; i++) {
		struct broker_zone *zone = &z->zones[i];
		zone->worktrees = zone_is_worktrees(z, zone);
		zone->linked = zone->git_dir && zone_in_worktrees(z, zone);
	}
	return 0;
}

int broker_zones_add_made(struct broker_zones *z, const struct broker_zone *parent,
			  const char *name, int fd, bool linked)
{
	struct stat st;
	char *path;
	if (z->n_made >= BROKER_ZONES_MADE_MAX) {
		close(fd);
		return -ENOSPC;
	}
	if (fstat(fd, &st) != 0 || asprintf(&path, "%s/%s", parent->path, name) < 0) {
		close(fd);
		return -ENOMEM;
	}
	struct broker_zone *grown = realloc(z->zones, (z->n + 1) * sizeof *grown);
	if (!grown) {
		free(path);
		close(fd);
		return -ENOMEM;
	}
	z->zones = grown;
	grown[z->n++] = (struct broker_zone){.path = path,
					     .fd = fd,
					     .dev = st.st_dev,
					     .ino = st.st_ino,
					     .git_dir = linked,
					     .worktrees = !linked,
					     .linked = linked};
	z->n_made++;
	return 0;
}

void broker_zones_forget(struct broker_zones *z, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < z->n; i++)
		if (z->zones[i].dev == dev && z->zones[i].ino == ino) {
			z->zones[i].dev = 0;
			z->zones[i].ino = 0;
		}
}

int broker_zones_copy(const struct broker_zones *from, struct broker_zones *to)
{
	*to = (struct broker_zones){calloc(from->n ? from->n : 1, sizeof *to->zones), 0, NULL, 0,
				    from->n_made};
	if (!to->zones)
		return -ENOMEM;
	for (size_t i = 0; i < from->n_listing; i++) {
		if (broker_zones_add_listing(to, from->listing[i].path) < 0)
			goto fail;
		to->listing[i].dev = from->listing[i].dev;
		to->listing[i].ino = from->listing[i].ino;
	}
	for (size_t i = 0; i < from->n; i++) {
		const struct broker_zone *f = &from->zones[i];
		struct broker_zone *t = &to->zones[i];
		*t = (struct broker_zone){.path = strdup(f->path),
					  .fd = -1,
					  .dev = f->dev,
					  .ino = f->ino,
					  .git_dir = f->git_dir,
					  .worktrees = f->worktrees,
					  .linked = f->linked};
		to->n++;
		if (!t->path || (t->fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 3)) < 0)
			goto fail;
		for (size_t j = 0; j < f->n_protected; j++)
			if (zone_protect(t, f->protected_names[j], strlen(f->protected_names[j])) <
			    0)
				goto fail;
	}
	return 0;
fail:
	broker_zones_free(to);
	return -ENOMEM;
}

void broker_zones_free(struct broker_zones *z)
{
	for (size_t i = 0; i < z->n; i++)
		zone_free(&z->zones[i]);
	free(z->zones);
	z->zones = NULL;
	z->n = 0;
	z->n_made = 0;
	broker_zones_drop_listing(z);
}
