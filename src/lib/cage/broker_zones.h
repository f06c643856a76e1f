/*
 * The broker's zones: the directories of a write grant that
 * entry_grants_expand could only grant reading, because a denial lies
 * below them (a workspace root beside its protected .git, the .git itself
 * beside hooks and config, a home holding hidden paths, a ~/.config
 * without its systemd directory; on tier T1 only where something is
 * still missing). Landlock cannot
 * let the cage make an entry there without also letting it replace the
 * denied one, so the supervisor's broker makes entries there itself, by
 * the rules here: never a protected name, and in a git directory only
 * git's own names.
 */
#ifndef PROCAGE_BROKER_ZONES_H
#define PROCAGE_BROKER_ZONES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

struct broker_zone {
	char *path;
	int fd; /* O_PATH, opened without following a link; -1 until broker_zones_open */
	dev_t dev;
	ino_t ino;
	/* $GIT_DIR: new entries only by git's own names (broker_git_name). */
	bool git_dir;
	/*
	 * A common git directory's worktrees/: new entries only directories
	 * made by mkdir (a linked worktree's git directory each), never a
	 * link, a file or a directory renamed in.
	 */
	bool worktrees;
	/*
	 * worktrees/ID, a linked worktree's git directory (git_dir too): also
	 * gitdir and locked, and commondir, which the broker writes itself
	 * ("../..": the common directory holding it) and nobody rewrites.
	 */
	bool linked;
	/* The first components, below path, of the denials under it. */
	char **protected_names;
	size_t n_protected;
};

/*
 * A directory entry grants left without any rule because a hidden
 * location lies below it (a home holding ~/.ssh): it cannot be listed on
 * tier T2 unless the policy accepts listing-shows-hidden-names, when the
 * broker opens it for listing (names only; what lies below keeps its own
 * rules).
 */
struct broker_listing {
	char *path;
	dev_t dev;
	ino_t ino; /* 0 until broker_zones_open, and when it is gone */
};

struct broker_zones {
	struct broker_zone *zones;
	size_t n;
	struct broker_listing *listing;
	size_t n_listing;
	size_t n_made; /* zones made during the run (broker_zones_add_made) */
};

/*
 * Add the zone path (unless already there) with the first component of
 * denied, a path strictly below it, as a protected name. A denial whose
 * path does not exist counts the same.
 */
int broker_zones_add(struct broker_zones *z, const char *path, const char *denied);
/* Add path, a directory left without a rule for a hidden location below. */
int broker_zones_add_listing(struct broker_zones *z, const char *path);
/* Forget the listing directories (the approximation is not accepted). */
void broker_zones_drop_listing(struct broker_zones *z);
/*
 * Open each zone's directory (RESOLVE_NO_SYMLINKS, a directory), note its
 * identity and whether it is a git directory.
 */
int broker_zones_open(struct broker_zones *z, struct procage_error *err);
/* A copy with descriptors of its own (a run may outlive its cage). */
int broker_zones_copy(const struct broker_zones *from, struct broker_zones *to);
void broker_zones_free(struct broker_zones *z);

/* What an entry call does with a name in a zone. */
enum broker_use {
	BROKER_USE_EXISTING, /* writes or truncates an entry, or links it elsewhere */
	BROKER_USE_REMOVE,   /* removes an entry or renames it away */
	BROKER_USE_NEW,	     /* makes an entry that was not there (or replaces one) */
	BROKER_USE_MKDIR,    /* makes an empty directory */
	BROKER_USE_CREATE,   /* makes an empty regular file (open with O_CREAT) */
};

/*
 * May the cage use name, a single component, in zone z that way? 0, or
 * -EACCES: a protected name, or, in a git directory, a name that is not one
 * of git's own made, removed or renamed away.
 */
int broker_name_check(const struct broker_zone *z, const char *name, enum broker_use use);

/* Is name one git itself makes at the root of a git directory? */
bool broker_git_name(const char *name);

/*
 * A zone the broker makes during the run: a git directory's worktrees/
 * (worktrees) or a linked worktree's git directory in it (linked), made
 * by the broker's mkdir of name in the zone parent; fd (taken) is an
 * O_PATH descriptor of the new directory. At most BROKER_ZONES_MADE_MAX
 * (then -ENOSPC, fd closed).
 */
#define BROKER_ZONES_MADE_MAX 256
int broker_zones_add_made(struct broker_zones *z, const struct broker_zone *parent,
			  const char *name, int fd, bool linked);
/* A zone's directory was removed: it is no zone any more (its inode may come back). */
void broker_zones_forget(struct broker_zones *z, dev_t dev, ino_t ino);

#endif
