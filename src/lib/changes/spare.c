/* The spare change set (spare.h). */
#include "spare.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "base/dir_entries.h"
#include "base/string_list.h"
#include "base/syscalls.h"
#include "store.h"
#include "upper_access.h"

/* Does the directory at fd (closed here) hold only names among allowed (NULL-ended), none if empty? */
static bool holds_only(int fd, const char *const *allowed)
{
	struct dir_entries *d = fd >= 0 ? malloc(sizeof *d) : NULL;
	struct dir_entry e;
	int got = -1;
	if (d) {
		dir_entries_begin(d, fd);
		while ((got = dir_entries_next(d, &e)) == 1) {
			bool known = false;
			for (const char *const *a = allowed; a && *a && !known; a++)
				known = strcmp(e.name, *a) == 0;
			if (!known)
				break;
		}
	}
	free(d);
	if (fd >= 0)
		close(fd);
	return got == 0;
}

static int dir_at(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * name in tree, empty and the caller's; the work directory also of mode
 * 0700. The upper directory is the root the next run sees of its tree:
 * the spawn gives it the tree root's mode (overlays.c), and one owned by
 * another (a root caller's tree of someone else) is not kept.
 */
static bool layer_as_made(int tree, const char *name, bool any_mode)
{
	struct stat st;
	int fd = dir_at(tree, name);
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_gid != getegid() ||
			(!any_mode && (st.st_mode & 07777) != 0700))) {
		close(fd);
		return false;
	}
	return holds_only(fd, NULL);
}

/* Set (open at set_fd) has one tree, 0, whose upper and work directories are as made. */
static bool skeleton_empty(int set_fd)
{
	static const char *const set_names[] = { "0", "trees", "started", NULL };
	static const char *const tree_names[] = { "upper", "work", NULL };
	int tree = dir_at(set_fd, "0");
	bool whole = tree >= 0 && holds_only(dup(set_fd), set_names) &&
		     holds_only(dup(tree), tree_names) && layer_as_made(tree, "upper", true) &&
		     layer_as_made(tree, "work", false);
	if (tree >= 0)
		close(tree);
	return whole;
}

bool changes_spare_take(int store_fd, const char *id)
{
	if (renameat2(store_fd, CHANGES_SPARE, store_fd, id, RENAME_NOREPLACE) != 0)
		return false;
	int set_fd = dir_at(store_fd, id);
	bool whole = set_fd >= 0 && skeleton_empty(set_fd);
	if (set_fd >= 0)
		close(set_fd);
	if (!whole)
		(void)changes_remove_tree(store_fd, id);
	return whole;
}

/*
 * overlayfs's own directory in the work directory goes: it makes it anew
 * at each mount, and refuses one holding the mark of a volatile mount.
 * What a volatile mount leaves is taken away by name, deepest first;
 * anything else there, or a directory the caller may not write in (the
 * mount leaves them without permissions), by the walk.
 */
static int overlay_work_remove(int work)
{
	static const char *const chain[] = { "work", "incompat", "volatile" };
	int dirs[4] = { work, -1, -1, -1 }, depth = 0;
	bool gone = true;
	/* Down by descriptor, no link followed; then the mark and each directory, deepest first. */
	while (depth < 3 && (dirs[depth + 1] = dir_at(dirs[depth], chain[depth])) >= 0)
		depth++;
	if (depth < 3 && errno != ENOENT)
		gone = false;
	if (depth == 3 && unlinkat(dirs[3], "dirty", 0) != 0 && errno != ENOENT)
		gone = false;
	for (int i = depth; i > 0; i--) {
		close(dirs[i]);
		if (gone && unlinkat(dirs[i - 1], chain[i - 1], AT_REMOVEDIR) != 0)
			gone = false;
	}
	return gone ? 0 : changes_remove_tree(work, "work");
}

/*
 * overlayfs's directory in the work directory moved into the store's
 * trash, named id, where changes_trash_empty removes it later: the three
 * directories a volatile mount leaves cost about 0.8 ms to remove here
 * (ext4, mounted with discard), at the end of every overlay run. Nothing
 * there (no mount was made in it) is done with too.
 */
static int overlay_work_set_aside(int store_fd, int work, const char *id)
{
	struct stat st;
	if (fstatat(work, "work", &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	/*
	 * Moved to another directory, a directory's ".." changes, which needs
	 * its owner's write permission: overlayfs leaves it without any.
	 */
	int fd = upper_dir_open(work, "work", st.st_mode);
	if (fd < 0)
		return fd;
	close(fd);
	if (mkdirat(store_fd, CHANGES_TRASH, 0700) != 0 && errno != EEXIST)
		return -errno;
	int trash = dir_at(store_fd, CHANGES_TRASH);
	if (trash < 0)
		return -errno;
	int rc = renameat2(work, "work", trash, id, RENAME_NOREPLACE) == 0 || errno == ENOENT
			 ? 0
			 : -errno;
	close(trash);
	return rc;
}

void changes_trash_empty(int store_fd)
{
	int trash = dir_at(store_fd, CHANGES_TRASH);
	struct dir_entries *d = trash >= 0 ? malloc(sizeof *d) : NULL;
	char **names = NULL;
	size_t n = 0;
	struct dir_entry e;
	if (d) {
		dir_entries_begin(d, trash);
		while (dir_entries_next(d, &e) == 1 && string_list_append(&names, &n, e.name) == 0)
			;
		free(d);
	}
	/* Listed first: removing entries while the listing goes on may skip some. */
	for (size_t i = 0; i < n; i++)
		(void)changes_remove_tree(trash, names[i]);
	procage_strings_free(names);
	if (trash >= 0)
		close(trash);
}

void changes_set_retire(int store_fd, const char *id)
{
	int set_fd = dir_at(store_fd, id), tree = set_fd >= 0 ? dir_at(set_fd, "0") : -1;
	int work = tree >= 0 ? dir_at(tree, "work") : -1;
	bool kept = work >= 0 &&
		    (overlay_work_set_aside(store_fd, work, id) == 0 ||
		     overlay_work_remove(work) == 0) &&
		    skeleton_empty(set_fd) &&
		    renameat2(store_fd, id, store_fd, CHANGES_SPARE, RENAME_NOREPLACE) == 0;
	if (work >= 0)
		close(work);
	if (tree >= 0)
		close(tree);
	if (set_fd >= 0)
		close(set_fd);
	if (!kept)
		(void)changes_remove_tree(store_fd, id);
}

void changes_store_trash_empty(void)
{
	char store[PATH_MAX];
	struct procage_error err;
	int fd;
	if (changes_store_open(store, sizeof store, &fd, &err) == 0) {
		changes_trash_empty(fd);
		close(fd);
	}
}
