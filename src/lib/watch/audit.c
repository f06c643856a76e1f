/*
 * The handoff audit. What a run writes may later be run or trusted
 * outside the cage: a hook, a repository's config, a startup file. Before
 * the run the trust-handoff and persistence locations under the writable
 * trees are recorded; after it they are looked for again, and every one
 * created, changed or removed is listed, symbolic links with their target,
 * for the harness to review. The repositories are found as a cage finds
 * them (repositories.c: two levels below each writable tree, above it, and
 * every store git's metadata links to), plus the files of those locations.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage/cage.h"
#include "policy/classes.h"
#include "discover/repository_classes.h"
#include "base/error.h"
#include "common/text_escape.h"
#include "base/string_list.h"

struct audit_entry {
	char *path;
	mode_t type;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *link; /* a symbolic link's target */
};

struct audit_state {
	struct audit_entry *items;
	size_t n, cap;
};

struct procage_audit {
	char **trees; /* canonical writable trees */
	char *home;   /* the cage's home, or NULL */
	size_t n_trees;
	struct audit_state before;
};

static int state_add(struct audit_state *s, const char *path, const struct stat *st)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct audit_entry *grown = realloc(s->items, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		s->items = grown;
		s->cap = cap;
	}
	struct audit_entry *e = &s->items[s->n];
	memset(e, 0, sizeof *e);
	if (!(e->path = strdup(path)))
		return -ENOMEM;
	e->type = st->st_mode & S_IFMT;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->mtime = st->st_mtim;
	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		e->link = strdup(target);
	}
	s->n++;
	return 0;
}

/* A location and, for a directory, what is inside it (bounded). */
static int location_record(struct audit_state *s, char *path, size_t len, int depth)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	int rc = state_add(s, path, &st);
	if (rc < 0 || !S_ISDIR(st.st_mode) || depth > 8)
		return rc;
	DIR *d = opendir(path);
	for (struct dirent *e; rc == 0 && d && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		rc = location_record(s, path, len + 1 + n, depth + 1);
	}
	path[len] = '\0';
	if (d)
		closedir(d);
	return rc;
}

static bool in_trees(const struct procage_audit *a, const char *path)
{
	for (size_t i = 0; i < a->n_trees; i++)
		if (path_within(path, a->trees[i]))
			return true;
	return false;
}

static int entry_compare(const void *x, const void *y)
{
	return strcmp(((const struct audit_entry *)x)->path, ((const struct audit_entry *)y)->path);
}

static int audit_scan(const struct procage_audit *a, struct audit_state *s,
		      struct procage_error *err)
{
	unsigned others = ~((1u << CLASS_TRUST_HANDOFF) | (1u << CLASS_PERSISTENCE));
	struct class_locations found;
	char path[PATH_MAX];
	int rc = repository_classes_expand(others, a->home, NULL, (const char *const *)a->trees,
					   a->n_trees, &found, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < found.n; i++) {
		if (!in_trees(a, found.items[i].path))
			continue;
		snprintf(path, sizeof path, "%s", found.items[i].path);
		rc = location_record(s, path, strlen(path), 0);
	}
	class_locations_free(&found);
	if (rc < 0)
		return error_set(err, rc, "auditing the writable trees: %s", strerror(-rc));
	if (s->n)
		qsort(s->items, s->n, sizeof *s->items, entry_compare);
	/* Nested locations are recorded twice; keep one. */
	size_t kept = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (kept && strcmp(s->items[kept - 1].path, s->items[i].path) == 0) {
			free(s->items[i].path);
			free(s->items[i].link);
			continue;
		}
		s->items[kept++] = s->items[i];
	}
	s->n = kept;
	return 0;
}

static void state_free(struct audit_state *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].path);
		free(s->items[i].link);
	}
	free(s->items);
	memset(s, 0, sizeof *s);
}

PROCAGE_API int procage_audit_begin(const struct procage_cage *cage, struct procage_audit **out,
				    struct procage_error *err)
{
	error_clear(err);
	if (!cage || !out)
		return error_set(err, -EINVAL, "no cage or no place for the audit given");
	struct procage_audit *a = calloc(1, sizeof *a);
	if (!a || !(a->trees = calloc(cage->policy->n_paths + 1, sizeof *a->trees))) {
		free(a);
		return error_set(err, -ENOMEM, "out of memory");
	}
	const char *home = policy_home(cage->policy);
	if (home && !(a->home = strdup(home))) {
		procage_audit_free(a);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < cage->policy->n_paths; i++) {
		char *canonical;
		if (cage->policy->paths[i].access != PROCAGE_WRITE ||
		    !(canonical = realpath(cage->policy->paths[i].path, NULL)))
			continue;
		a->trees[a->n_trees++] = canonical;
	}
	int rc = audit_scan(a, &a->before, err);
	if (rc < 0)
		rc = error_prefix(err, rc, "before the run: ");
	if (rc < 0) {
		procage_audit_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

static const char *type_name(mode_t type)
{
	return S_ISDIR(type) ? "directory" : S_ISLNK(type) ? "symbolic link" : "file";
}

/*
 * The names are the cage's choice: quoted and escaped, so that one finding
 * is one line and no name can end its quotes early or forge a line of
 * procage's own (the findings' "nothing changed" among them).
 */
static char *entry_describe(const char *what, const struct audit_entry *e)
{
	char *text = NULL, *path = escape_shell_dup(e->path);
	char *link = e->link ? escape_shell_dup(e->link) : NULL;
	int n = -1;
	if (path && (link || !e->link))
		n = link ? asprintf(&text, "%s: %s (a symbolic link to %s)", what, path, link)
			 : asprintf(&text, "%s: %s (a %s)", what, path, type_name(e->type));
	free(path);
	free(link);
	return n < 0 ? NULL : text;
}

static bool entry_changed(const struct audit_entry *a, const struct audit_entry *b)
{
	return a->type != b->type || a->ino != b->ino || a->size != b->size ||
	       a->mtime.tv_sec != b->mtime.tv_sec || a->mtime.tv_nsec != b->mtime.tv_nsec ||
	       (a->link && b->link && strcmp(a->link, b->link) != 0);
}

/* Merge the two sorted states into findings. */
static int states_compare(const struct audit_state *before, const struct audit_state *after,
			  char ***list, size_t *n)
{
	size_t i = 0, j = 0;
	while (i < before->n || j < after->n) {
		int order = i == before->n  ? 1
			    : j == after->n ? -1
					    : strcmp(before->items[i].path, after->items[j].path);
		char *text = NULL;
		if (order < 0)
			text = entry_describe("removed", &before->items[i++]);
		else if (order > 0)
			text = entry_describe("created", &after->items[j++]);
		/* A directory's own change is its entries', listed one by one. */
		else if (entry_changed(&before->items[i++], &after->items[j++]) &&
			 !(S_ISDIR(after->items[j - 1].type) && S_ISDIR(before->items[i - 1].type)))
			text = entry_describe("changed", &after->items[j - 1]);
		else
			continue;
		if (string_list_take(list, n, text) < 0)
			return -ENOMEM;
	}
	return 0;
}

PROCAGE_API int procage_audit_end(struct procage_audit *a, char ***findings,
				  struct procage_error *err)
{
	struct audit_state after = { 0 };
	char **list = calloc(1, sizeof *list);
	size_t n = 0;
	error_clear(err);
	if (!a || !findings || !list) {
		free(list);
		return error_set(err, -EINVAL, "no audit or no place for the findings given");
	}
	int rc = audit_scan(a, &after, err);
	if (rc < 0)
		rc = error_prefix(err, rc, "after the run: ");
	if (rc == 0 && (rc = states_compare(&a->before, &after, &list, &n)) < 0)
		error_set(err, rc, "out of memory");
	state_free(&after);
	if (rc < 0) {
		procage_strings_free(list);
		return rc;
	}
	*findings = list;
	return 0;
}

PROCAGE_API void procage_audit_free(struct procage_audit *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_trees; i++)
		free(a->trees[i]);
	free(a->trees);
	free(a->home);
	state_free(&a->before);
	free(a);
}
