/* The search path in the trust-handoff report (handoff_path.h). */
#include "handoff_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/path_rule.h"
#include "procage.h"
#include "common/text_escape.h"
#include "base/string_list.h"

/* A directory holding more names is listed up to this many (a bound on memory). */
#define SEARCH_PATH_MAX_NAMES 65536

static int name_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The names in dir, sorted; a directory that cannot be read has none. */
static int names_list(const char *dir, char ***out, size_t *n_out)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir(dir);
	*out = NULL;
	*n_out = 0;
	for (struct dirent *e; d && n < SEARCH_PATH_MAX_NAMES && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof *grown);
			if (!grown)
				goto oom;
			names = grown;
		}
		if (!(names[n] = strdup(e->d_name)))
			goto oom;
		n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof *names, name_compare);
	*out = names;
	*n_out = n;
	return 0;
oom:
	closedir(d);
	names_free(names, n);
	return -ENOMEM;
}

static bool within_trees(const char *dir, char *const *trees, size_t n_trees)
{
	for (size_t i = 0; i < n_trees; i++)
		if (path_within(dir, trees[i]))
			return true;
	return false;
}

/*
 * entry made canonical: its existing part resolved, a missing rest kept as
 * spelled (a run may make the directory: node_modules/.bin before an
 * install, a .venv made in the run). NULL when no part of it resolves,
 * and for a missing entry spelled outside the trees (the other missing
 * entries of a $PATH, /usr/local/cuda/bin, cost no walk at every run).
 */
static char *entry_canonical(const char *entry, char *const *trees, size_t n_trees)
{
	char head[4096], *canonical = realpath(entry, NULL);
	if (canonical || errno != ENOENT || strlen(entry) >= sizeof head ||
	    !within_trees(entry, trees, n_trees))
		return canonical;
	strcpy(head, entry);
	for (char *slash = strrchr(head, '/'); slash && slash != head; slash = strrchr(head, '/')) {
		*slash = '\0';
		char *found = realpath(head, NULL);
		if (found) {
			char *joined = NULL;
			int n = asprintf(&joined, "%s%s", strcmp(found, "/") ? found : "",
					 entry + (slash - head));
			free(found);
			return n < 0 ? NULL : joined;
		}
		if (errno != ENOENT)
			return NULL;
	}
	return NULL;
}

int search_path_snapshot(const char *path_variable, char *const *trees, size_t n_trees,
			 struct search_path *out)
{
	memset(out, 0, sizeof *out);
	for (const char *at = path_variable; at && *at;) {
		size_t len = strcspn(at, ":");
		char entry[4096];
		char *canonical = NULL;
		/* A relative entry names a different directory in every shell: left out. */
		if (at[0] == '/' && len < sizeof entry) {
			memcpy(entry, at, len);
			entry[len] = '\0';
			canonical = entry_canonical(entry, trees, n_trees);
		}
		at += len + (at[len] == ':');
		if (!canonical)
			continue;
		char **grown = realloc(out->entries, (out->n_entries + 1) * sizeof *grown);
		if (!grown) {
			free(canonical);
			goto oom;
		}
		out->entries = grown;
		out->entries[out->n_entries++] = canonical;
		if (!within_trees(canonical, trees, n_trees))
			continue;
		struct search_path_dir *dirs = realloc(out->dirs, (out->n_dirs + 1) * sizeof *dirs);
		if (!dirs)
			goto oom;
		out->dirs = dirs;
		struct search_path_dir *d = &out->dirs[out->n_dirs];
		*d = (struct search_path_dir){NULL, out->n_entries - 1, NULL, 0};
		if (!(d->dir = strdup(canonical)) ||
		    names_list(canonical, &d->names, &d->n_names) < 0) {
			free(d->dir);
			goto oom;
		}
		out->n_dirs++;
	}
	return 0;
oom:
	search_path_free(out);
	return -ENOMEM;
}

static bool had(const struct search_path_dir *d, const char *name)
{
	return d->n_names &&
	       bsearch(&name, d->names, d->n_names, sizeof *d->names, name_compare) != NULL;
}

/* The first entry after order holding a program called name, or NULL. */
static const char *shadowed(const struct search_path *sp, size_t order, const char *name,
			    char *program, size_t size)
{
	for (size_t i = order + 1; i < sp->n_entries; i++) {
		struct stat st;
		if (strcmp(sp->entries[i], sp->entries[order]) == 0 ||
		    snprintf(program, size, "%s/%s", sp->entries[i], name) >= (int)size)
			continue;
		if (stat(program, &st) == 0 && S_ISREG(st.st_mode) && access(program, X_OK) == 0)
			return program;
	}
	return NULL;
}

static int line_add(char ***lines, size_t *n, const char *made, const char *program,
		    const char *name)
{
	char *a = escape_shell_dup(made), *b = escape_shell_dup(program),
	     *c = escape_shell_dup(name), *text = NULL;
	int printed = a && b && c ? asprintf(&text,
					     "new on the search path: %s, ahead of %s in $PATH "
					     "(the next %s typed outside the cage runs it)",
					     a, b, c)
				  : -1;
	free(a);
	free(b);
	free(c);
	return string_list_take(lines, n, printed >= 0 ? text : NULL);
}

int search_path_compare(const struct search_path *sp, char ***lines)
{
	size_t n = 0;
	int rc = 0;
	if (!(*lines = calloc(1, sizeof **lines)))
		return -ENOMEM;
	for (size_t i = 0; rc == 0 && i < sp->n_dirs; i++) {
		const struct search_path_dir *d = &sp->dirs[i];
		char **now = NULL;
		size_t n_now = 0;
		if ((rc = names_list(d->dir, &now, &n_now)) < 0)
			break;
		for (size_t j = 0; rc == 0 && j < n_now; j++) {
			char made[4352], program[4352];
			struct stat st;
			if (had(d, now[j]) ||
			    snprintf(made, sizeof made, "%s/%s", d->dir, now[j]) >=
				(int)sizeof made ||
			    stat(made, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111) ||
			    !shadowed(sp, d->order, now[j], program, sizeof program))
				continue;
			rc = line_add(lines, &n, made, program, now[j]);
		}
		names_free(now, n_now);
	}
	if (rc < 0) {
		procage_strings_free(*lines);
		*lines = NULL;
	}
	return rc;
}

void search_path_free(struct search_path *sp)
{
	for (size_t i = 0; i < sp->n_entries; i++)
		free(sp->entries[i]);
	free(sp->entries);
	for (size_t i = 0; i < sp->n_dirs; i++) {
		free(sp->dirs[i].dir);
		names_free(sp->dirs[i].names, sp->dirs[i].n_names);
	}
	free(sp->dirs);
	memset(sp, 0, sizeof *sp);
}
