/*
 * Finding the other names of hidden and protected locations (see
 * path_aliases.h). Identity is the inode, never the string: every alias
 * found is checked to reach the same (st_dev, st_ino) as the location.
 */
#include "path_aliases.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/string_list.h"

/* A hidden directory is walked this deep, and no further. */
#define LINK_WALK_DEPTH 16

int path_strings_add(char ***list, size_t *n, const char *s)
{
	return string_list_add_once(list, n, s);
}

void path_strings_free(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/*
 * The entry's type: the directory listing's own where the file system
 * gives one (most do), else an lstat. Returns false when the entry is gone.
 */
static bool entry_type(DIR *d, const struct dirent *e, mode_t *type)
{
	struct stat st;
	switch (e->d_type) {
	case DT_LNK:
		*type = S_IFLNK;
		return true;
	case DT_DIR:
		*type = S_IFDIR;
		return true;
	case DT_UNKNOWN:
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return false;
		*type = st.st_mode & S_IFMT;
		return true;
	default:
		*type = S_IFREG; /* neither followed nor walked */
		return true;
	}
}

/*
 * Walks the directory open as fd (taken). A directory below is opened
 * from its parent without following a link, so a directory swapped for
 * a link while the walk runs leads nowhere.
 */
static int links_walk(int fd, char *path, size_t len, int depth, char ***targets, size_t *n)
{
	DIR *d = fdopendir(fd);
	int rc = 0;
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		mode_t type;
		size_t l = strlen(e->d_name);
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    len + 1 + l >= PATH_MAX || !entry_type(d, e, &type))
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, l + 1);
		if (type == S_IFLNK) {
			char *target = realpath(path, NULL);
			/* A dangling link names nothing to hide yet. */
			if (target)
				rc = path_strings_add(targets, n, target);
			free(target);
		} else if (type == S_IFDIR && depth < LINK_WALK_DEPTH) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				rc = links_walk(sub, path, len + 1 + l, depth + 1, targets, n);
			else if (!error_walk_passable(errno))
				rc = -errno;
			/* unreadable to us, or gone: not to the caged process either */
		}
	}
	path[len] = '\0';
	closedir(d);
	return rc;
}

int link_targets_in(const char *hidden_dir, char ***targets, size_t *n)
{
	char path[PATH_MAX];
	*targets = NULL;
	*n = 0;
	/* A file, a link or nothing there: no directory to walk. */
	int fd = open(hidden_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_walk_passable(errno) ? 0 : -errno;
	snprintf(path, sizeof path, "%s", hidden_dir);
	int rc = links_walk(fd, path, strlen(path), 0, targets, n);
	if (rc < 0) {
		path_strings_free(*targets, *n);
		*targets = NULL;
		*n = 0;
	}
	return rc;
}

/* ---- mounts --------------------------------------------------------------- */

struct mount_entry {
	char *device; /* major:minor */
	char *root;   /* the mounted directory, inside its file system */
	char *point;  /* where it is mounted */
};

struct mount_table {
	struct mount_entry *items;
	size_t n;
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	if (!out)
		return NULL;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

static int mount_line_add(struct mount_table *t, char *line)
{
	char *save = NULL, *field[5];
	for (int i = 0; i < 5; i++)
		if (!(field[i] = strtok_r(i ? NULL : line, " ", &save)))
			return 0; /* not a mount line */
	struct mount_entry *grown = realloc(t->items, (t->n + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	t->items = grown;
	struct mount_entry m = {strdup(field[2]), unescape(field[3]), unescape(field[4])};
	if (!m.device || !m.root || !m.point) {
		free(m.device);
		free(m.root);
		free(m.point);
		return -ENOMEM;
	}
	t->items[t->n++] = m;
	return 0;
}

int mount_table_read(struct mount_table **out)
{
	struct mount_table *t = calloc(1, sizeof *t);
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	if (!t)
		return -ENOMEM;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		rc = -errno;
		free(t);
		return rc;
	}
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		rc = mount_line_add(t, line);
	}
	free(line);
	fclose(f);
	if (rc < 0) {
		mount_table_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void mount_table_free(struct mount_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->items[i].device);
		free(t->items[i].root);
		free(t->items[i].point);
	}
	free(t->items);
	free(t);
}

size_t mount_table_size(const struct mount_table *t)
{
	return t->n;
}

const char *mount_table_point(const struct mount_table *t, size_t i)
{
	return t->items[i].point;
}

static bool within(const char *path, const char *tree)
{
	size_t n = strlen(tree);
	if (strcmp(tree, "/") == 0)
		return true;
	return strncmp(path, tree, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* What follows tree in path ("" or "/..."); path lies within tree. */
static const char *below(const char *path, const char *tree)
{
	const char *rest = strcmp(tree, "/") == 0 ? path : path + strlen(tree);
	return strcmp(rest, "/") == 0 ? "" : rest;
}

/* The mount path lies on: the deepest mount point above it, the last mounted there. */
static const struct mount_entry *mount_of(const struct mount_table *t, const char *path)
{
	const struct mount_entry *best = NULL;
	for (size_t i = 0; i < t->n; i++)
		if (within(path, t->items[i].point) &&
		    (!best || strlen(t->items[i].point) >= strlen(best->point)))
			best = &t->items[i];
	return best;
}

/* The mount path lies on, with path's place inside its file system in inner; or NULL. */
static const struct mount_entry *mount_inner(const struct mount_table *t, const char *path,
					     char *inner, size_t size)
{
	const struct mount_entry *home = mount_of(t, path);
	if (!home || snprintf(inner, size, "%s%s", strcmp(home->root, "/") == 0 ? "" : home->root,
			      below(path, home->point)) >= (int)size)
		return NULL;
	if (!inner[0])
		snprintf(inner, size, "/");
	return home;
}

bool mount_shows_part_of(const struct mount_table *t, const char *tree)
{
	char inner[PATH_MAX];
	const struct mount_entry *home = mount_inner(t, tree, inner, sizeof inner);
	if (!home)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		const struct mount_entry *m = &t->items[i];
		if (strcmp(m->device, home->device) == 0 && within(m->root, inner) &&
		    strcmp(m->root, inner) != 0 && !within(m->point, tree))
			return true;
	}
	return false;
}

int mount_aliases_of(const struct mount_table *t, const char *path, char ***aliases, size_t *n)
{
	char inner[PATH_MAX], spelling[PATH_MAX];
	struct stat want, st;
	int rc = 0;
	*aliases = NULL;
	*n = 0;
	bool looked = false; /* path's inode, looked up at the first other spelling */
	const struct mount_entry *home = mount_inner(t, path, inner, sizeof inner);
	if (!home)
		return 0;
	for (size_t i = 0; rc == 0 && i < t->n; i++) {
		const struct mount_entry *m = &t->items[i];
		if (strcmp(m->device, home->device) != 0 || !within(inner, m->root))
			continue;
		const char *rest = below(inner, m->root);
		if (snprintf(spelling, sizeof spelling, "%s%s",
			     strcmp(m->point, "/") == 0 && rest[0] ? "" : m->point,
			     rest) >= (int)sizeof spelling)
			continue;
		if (strcmp(spelling, path) == 0)
			continue;
		if (!looked) {
			if (lstat(path, &want) != 0)
				return 0;
			looked = true;
		}
		/* Only a spelling that reaches the same inode now is an alias. */
		if (lstat(spelling, &st) == 0 && st.st_dev == want.st_dev &&
		    st.st_ino == want.st_ino)
			rc = path_strings_add(aliases, n, spelling);
	}
	return rc;
}
