/*
 * A hard link made before the run gives a hidden or protected file a
 * second name, which a rule on the first name does not cover. The check
 * counts, for every file with more than one link, the names found inside
 * the hidden and protected locations and compares them with the link
 * count: only those locations are walked, never the whole disk. A hidden
 * file is judged by its names in hidden locations alone: a second name in
 * a protected (readable) location reads it.
 */
#include "hardlinks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/classes.h"
#include "base/dir_listings.h"
#include "base/error.h"
#include "common/text_escape.h"
#include "base/string_list.h"

/* Large application data, not walked (see docs/classes.md). */
static const char *const skipped_names[] = {
	".mozilla", ".thunderbird", "google-chrome", "chromium", "BraveSoftware",
	"microsoft-edge", "vivaldi",
};

/* One name of a file with more than one link, found inside the locations. */
struct linked_name {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	bool hidden; /* found in a hidden location */
	char *path;
};

struct walk {
	struct linked_name *names;
	size_t n, cap;
	char *const *exempt;
	size_t n_exempt;
	bool protected_only; /* the location is protected, not hidden */
	/* Most locations are missing, a few parents hold them: listed once (dir_listings.h). */
	struct dir_listings parents;
};

static bool skipped(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof skipped_names / sizeof *skipped_names; i++)
		if (strcmp(base, skipped_names[i]) == 0)
			return true;
	return false;
}

static bool exempt(const struct walk *w, const char *path)
{
	for (size_t i = 0; w->protected_only && i < w->n_exempt; i++)
		if (path_within(path, w->exempt[i]))
			return true;
	return false;
}

static int file_note(struct walk *w, const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct linked_name *grown = realloc(w->names, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		w->names = grown;
		w->cap = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	w->names[w->n++] = (struct linked_name){ st->st_dev, st->st_ino, st->st_nlink,
						 !w->protected_only, copy };
	return 0;
}

static int walk_tree(struct walk *w, char *path, size_t len, int depth)
{
	DIR *d = opendir(path);
	int rc = 0;
	if (!d) /* unreadable to us, or gone: not to the caged process either */
		return error_walk_passable(errno) ? 0 : -errno;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		struct stat st;
		size_t n = strlen(e->d_name);
		/*
		 * Only regular files count, and directories lead to them: the
		 * entry's type says what most others are (links, sockets),
		 * which then need no stat. DT_UNKNOWN is looked at.
		 */
		if ((e->d_type != DT_REG && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    exempt(w, path) || skipped(path))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 32)
			rc = walk_tree(w, path, len + 1 + n, depth + 1);
		else
			rc = file_note(w, path, &st);
	}
	path[len] = '\0';
	closedir(d);
	return rc;
}

static int location_walk(struct walk *w, const struct cage_path *loc, char ***list, size_t *n)
{
	char path[PATH_MAX];
	struct stat st;
	char *text = NULL;
	unsigned char type;
	if (dir_listings_find(&w->parents, loc->path, &type) == 0 || lstat(loc->path, &st) != 0 ||
	    skipped(loc->path))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		char *shown = escape_shell_word_dup(loc->path);
		int printed = shown ? asprintf(&text, "%s has become a symbolic link since the "
						      "cage was made", shown)
				    : -1;
		free(shown);
		return string_list_take(list, n, printed < 0 ? NULL : text);
	}
	w->protected_only = loc->access == PROCAGE_PROTECT;
	if (!S_ISDIR(st.st_mode))
		return exempt(w, loc->path) ? 0 : file_note(w, loc->path, &st);
	snprintf(path, sizeof path, "%s", loc->path);
	return walk_tree(w, path, strlen(path), 0);
}

static int name_compare(const void *x, const void *y)
{
	const struct linked_name *a = x, *b = y;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return strcmp(a->path, b->path);
}

/*
 * The finding names a path a run may have chosen (a repository made in the
 * workspace): quoted as a shell reads it back, as the reader may paste it
 * into rm.
 */
static int finding_names(char ***list, size_t *n, const struct linked_name *name,
			 size_t outside, const char *where)
{
	char *text = NULL, *shown = escape_shell_word_dup(name->path);
	int printed = shown ? asprintf(&text,
				       "%s has %lu names, %lu of them outside the %s (a hard "
				       "link made before the run)",
				       shown, (unsigned long)name->nlink, (unsigned long)outside,
				       where)
			    : -1;
	free(shown);
	return string_list_take(list, n, printed < 0 ? NULL : text);
}

/*
 * Names sorted by file, then path: each file's distinct names inside the
 * locations are counted (a location inside another is walked twice, and a
 * name found in a hidden walk counts as hidden) and compared with its link
 * count; a file with a hidden name must have all its names hidden.
 */
static int names_judge(struct walk *w, char ***list, size_t *n)
{
	int rc = 0;
	if (w->n)
		qsort(w->names, w->n, sizeof *w->names, name_compare);
	for (size_t i = 0; rc == 0 && i < w->n;) {
		size_t j = i, distinct = 0, hidden = 0, a_hidden_name = i;
		for (; j < w->n && w->names[j].dev == w->names[i].dev &&
		       w->names[j].ino == w->names[i].ino;) {
			size_t k = j;
			bool any_hidden = false;
			for (; k < w->n && w->names[k].dev == w->names[j].dev &&
			       w->names[k].ino == w->names[j].ino &&
			       strcmp(w->names[k].path, w->names[j].path) == 0;
			     k++)
				any_hidden |= w->names[k].hidden;
			distinct++;
			if (any_hidden && !hidden)
				a_hidden_name = j;
			hidden += any_hidden;
			j = k;
		}
		if (hidden && hidden < w->names[i].nlink)
			rc = finding_names(list, n, &w->names[a_hidden_name],
					   w->names[i].nlink - hidden, "hidden paths");
		else if (distinct < w->names[i].nlink)
			rc = finding_names(list, n, &w->names[i], w->names[i].nlink - distinct,
					   "hidden and protected paths");
		i = j;
	}
	return rc;
}

int hardlinks_check(const struct cage_path *examined, size_t n_examined, char *const *exempt_list,
		    size_t n_exempt, char ***findings, struct procage_error *err)
{
	struct walk w = { .exempt = exempt_list, .n_exempt = n_exempt };
	char **list = NULL;
	size_t n = 0;
	int rc = 0;
	/* Every location is walked on its own terms: a hidden one inside an
	 * exempt protected one is still examined. /proc holds no files of ours. */
	for (size_t i = 0; rc == 0 && i < n_examined; i++)
		if (examined[i].cls != CLASS_PROCESS_ACCESS)
			rc = location_walk(&w, &examined[i], &list, &n);
	if (rc == 0)
		rc = names_judge(&w, &list, &n);
	for (size_t i = 0; i < w.n; i++)
		free(w.names[i].path);
	free(w.names);
	dir_listings_free(&w.parents);
	if (rc == 0 && !list && !(list = calloc(1, sizeof *list)))
		rc = -ENOMEM;
	if (rc < 0) {
		procage_strings_free(list);
		return error_set(err, rc, "checking hard links: %s", strerror(-rc));
	}
	*findings = list;
	return 0;
}

int hardlinks_linked_files(const struct cage_path *locations, size_t n_locations,
			   struct hardlink_inode **out, size_t *n_out)
{
	struct walk w = { 0 };
	char **ignored = NULL; /* links in place of locations: the check's to report */
	size_t n_ignored = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n_locations; i++)
		if (locations[i].cls != CLASS_PROCESS_ACCESS)
			rc = location_walk(&w, &locations[i], &ignored, &n_ignored);
	procage_strings_free(ignored);
	dir_listings_free(&w.parents);
	struct hardlink_inode *files = rc == 0 && w.n ? calloc(w.n, sizeof *files) : NULL;
	if (rc == 0 && w.n && !files)
		rc = -ENOMEM;
	for (size_t i = 0; i < w.n; i++) {
		if (files)
			files[i] = (struct hardlink_inode){ w.names[i].dev, w.names[i].ino,
							    w.names[i].hidden };
		free(w.names[i].path);
	}
	free(w.names);
	*out = files;
	*n_out = rc == 0 ? w.n : 0;
	return rc;
}
