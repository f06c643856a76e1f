/* Where git's discovery leads from a directory, before and after a run (see git_reach.h). */
#include "git_reach.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/string_list.h"
#include "common/text_escape.h"

/* A small file's first bytes (HEAD, a gitfile, commondir), NUL-ended, trailing space cut. */
static bool read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return false;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return true;
}

/* git's validate_headref: a link into refs/, "ref: refs/...", or an object name. */
static bool head_valid(const char *gitdir)
{
	char path[PATH_MAX], buf[256];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/HEAD", gitdir) >= (int)sizeof path ||
	    lstat(path, &st) != 0)
		return false;
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(path, buf, sizeof buf - 1);
		return n >= 5 && strncmp(buf, "refs/", 5) == 0;
	}
	if (!S_ISREG(st.st_mode) || !read_small(path, buf, sizeof buf))
		return false;
	if (strncmp(buf, "ref:", 4) == 0) {
		const char *ref = buf + 4;
		while (isspace((unsigned char)*ref))
			ref++;
		return strncmp(ref, "refs/", 5) == 0;
	}
	size_t hex = strspn(buf, "0123456789abcdef");
	return hex == 40 || hex == 64;
}

/*
 * git's is_git_directory: HEAD valid, objects and refs in the common
 * directory (commondir's, else its own). The common directory, when
 * commondir names one, in *common (canonical; NULL otherwise).
 */
static bool is_git_directory(const char *dir, char **common)
{
	char path[PATH_MAX], text[PATH_MAX], base[PATH_MAX];
	*common = NULL;
	if (snprintf(path, sizeof path, "%s/commondir", dir) >= (int)sizeof path)
		return false;
	if (read_small(path, text, sizeof text) && text[0]) {
		if (snprintf(base, sizeof base, "%s%s%s", text[0] == '/' ? "" : dir,
			     text[0] == '/' ? "" : "/", text) >= (int)sizeof base)
			return false;
		*common = realpath(base, NULL);
		if (!*common)
			return false;
	} else {
		snprintf(base, sizeof base, "%s", dir);
	}
	const char *c = *common ? *common : base;
	bool ok = snprintf(path, sizeof path, "%s/objects", c) < (int)sizeof path &&
		  access(path, X_OK) == 0 &&
		  snprintf(path, sizeof path, "%s/refs", c) < (int)sizeof path &&
		  access(path, X_OK) == 0 && head_valid(dir);
	if (!ok) {
		free(*common);
		*common = NULL;
	}
	return ok;
}

/* dir is a store: out takes it (its canonical name and identities). 0 or -ENOMEM. */
static int reached(const char *dir, char *common, struct git_reach *out)
{
	struct stat st, cst;
	char *canonical = realpath(dir, NULL);
	if (!canonical || stat(canonical, &st) != 0 ||
	    stat(common ? common : canonical, &cst) != 0) {
		int e = errno;
		free(canonical);
		free(common);
		return e == ENOMEM ? -ENOMEM : 0; /* gone meanwhile: leads nowhere */
	}
	*out =
	    (struct git_reach){true, st.st_dev, st.st_ino, cst.st_dev, cst.st_ino, canonical, NULL};
	if (common && strcmp(common, canonical) != 0)
		out->common = common;
	else
		free(common);
	return 0;
}

/*
 * The ".git" of dir: 1 and *out filled when it leads to a store, -1 when
 * git stops there (a gitfile naming no store), 0 to go on.
 */
static int dot_git(const char *dir, struct git_reach *out, int *rc)
{
	char path[PATH_MAX], text[PATH_MAX], target[PATH_MAX];
	struct stat st;
	char *common;
	if (snprintf(path, sizeof path, "%s/.git", dir) >= (int)sizeof path || stat(path, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode)) {
		/* read_gitfile_gently: "gitdir: PATH", relative to the file's directory. */
		if (!read_small(path, text, sizeof text) || strncmp(text, "gitdir: ", 8) != 0 ||
		    !text[8])
			return -1;
		const char *named = text + 8;
		if (snprintf(target, sizeof target, "%s%s%s", named[0] == '/' ? "" : dir,
			     named[0] == '/' ? "" : "/", named) >= (int)sizeof target ||
		    !is_git_directory(target, &common))
			return -1;
		*rc = reached(target, common, out);
		return 1;
	}
	if (!is_git_directory(path, &common))
		return 0;
	*rc = reached(path, common, out);
	return 1;
}

int git_reach_from(const char *dir, struct git_reach *out)
{
	char path[PATH_MAX];
	struct stat st;
	char *common;
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path || stat(path, &st) != 0)
		return 0;
	dev_t device = st.st_dev;
	for (;;) {
		/* "/" spelled "" when names are joined to it */
		const char *here = path[0] ? path : "/";
		int found = dot_git(path, out, &rc);
		if (found)
			return found > 0 ? rc : 0;
		if (is_git_directory(here, &common))
			return reached(here, common, out);
		char *slash = strrchr(path, '/');
		if (!slash || !path[0])
			return 0;
		*slash = '\0';
		/* git stops at a mount point (GIT_DISCOVERY_ACROSS_FILESYSTEM unset) */
		if (stat(path[0] ? path : "/", &st) != 0 || st.st_dev != device)
			return 0;
	}
}

void git_reach_free(struct git_reach *r)
{
	free(r->gitdir);
	free(r->common);
	memset(r, 0, sizeof *r);
}

int reach_points_add(struct reach_points *p, const char *dir)
{
	struct stat st;
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->items[i].dir, dir) == 0)
			return 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	struct reach_point point = {strdup(dir), {0}};
	struct reach_point *grown =
	    point.dir ? realloc(p->items, (p->n + 1) * sizeof *grown) : NULL;
	int rc = grown ? git_reach_from(dir, &point.was) : -ENOMEM;
	if (grown)
		p->items = grown;
	if (rc < 0) {
		free(point.dir);
		return -ENOMEM;
	}
	p->items[p->n++] = point;
	return 0;
}

void reach_points_free(struct reach_points *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->items[i].dir);
		git_reach_free(&p->items[i].was);
	}
	free(p->items);
	memset(p, 0, sizeof *p);
}

static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The recorded directory nearest above dir (or dir itself). */
static const struct reach_point *nearest(const struct reach_points *p, const char *dir)
{
	const struct reach_point *best = NULL;
	for (size_t i = 0; i < p->n; i++)
		if (within(dir, p->items[i].dir) &&
		    (!best || strlen(p->items[i].dir) > strlen(best->dir)))
			best = &p->items[i];
	return best;
}

struct reach_lines {
	char **lines, **named, **dirs;
	size_t n_lines, n_named, n_dirs;
};

static bool same_place(const struct git_reach *a, const struct git_reach *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->common_dev == b->common_dev &&
	       a->common_ino == b->common_ino;
}

static int reach_line(struct reach_lines *out, const char *dir, const struct git_reach *was,
		      const struct git_reach *now)
{
	char *d = escape_shell_dup(dir), *g = escape_shell_dup(now->gitdir),
	     *w = escape_shell_dup(was->gitdir),
	     *c = now->common ? escape_shell_dup(now->common) : NULL;
	char *text = NULL;
	int printed = -1;
	if (d && g && w && (c || !now->common))
		printed = asprintf(
		    &text,
		    "%s now leads git to %s%s%s%s (was %s%s): git run there takes it for the "
		    "repository and runs its hooks and config",
		    d, g, c ? " (its common directory " : "", c ? c : "", c ? ")" : "", w,
		    strcmp(was->gitdir, now->gitdir) == 0 ? ", another directory of that name"
							  : "");
	free(d);
	free(g);
	free(w);
	free(c);
	int rc = string_list_take(&out->lines, &out->n_lines, printed >= 0 ? text : NULL);
	/* Named by the directory it leads from too: its ".git", or itself when bare. */
	char *dot_git = NULL;
	if (rc == 0 && asprintf(&dot_git, "%s/.git", dir) < 0)
		rc = -ENOMEM;
	if (rc == 0)
		rc = string_list_add_once(&out->named, &out->n_named, now->gitdir);
	if (rc == 0)
		rc = string_list_add_once(&out->named, &out->n_named, dot_git);
	if (rc == 0)
		rc = string_list_add_once(&out->named, &out->n_named, dir);
	free(dot_git);
	return rc;
}

/* dir, led before to was (a store), compared with where it leads now. */
static int reach_check(struct reach_lines *out, const char *dir, const struct git_reach *was)
{
	struct git_reach now;
	for (size_t i = 0; i < out->n_dirs; i++)
		if (strcmp(out->dirs[i], dir) == 0)
			return 0;
	int rc = string_list_append(&out->dirs, &out->n_dirs, dir);
	if (rc == 0 && was->found)
		rc = git_reach_from(dir, &now);
	if (rc < 0 || !was->found)
		return rc;
	/*
	 * Leading nowhere now (git fails there) runs nothing; a git directory
	 * named already (a gitfile's target, itself a bare layout) needs no
	 * second line.
	 */
	bool named = false;
	for (size_t i = 0; now.found && i < out->n_named && !named; i++)
		named = strcmp(out->named[i], now.gitdir) == 0;
	if (now.found && !named && !same_place(was, &now))
		rc = reach_line(out, dir, was, &now);
	git_reach_free(&now);
	return rc;
}

int reach_points_compare(const struct reach_points *p, char *const *candidates, size_t n_candidates,
			 char ***lines, char ***named)
{
	struct reach_lines out = {
	    calloc(1, sizeof(char *)), calloc(1, sizeof(char *)), NULL, 0, 0, 0};
	int rc = out.lines && out.named ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < p->n; i++)
		rc = reach_check(&out, p->items[i].dir, &p->items[i].was);
	for (size_t i = 0; rc == 0 && i < n_candidates; i++) {
		const struct reach_point *above = nearest(p, candidates[i]);
		if (above)
			rc = reach_check(&out, candidates[i], &above->was);
	}
	for (size_t i = 0; i < out.n_dirs; i++)
		free(out.dirs[i]);
	free(out.dirs);
	if (rc < 0) {
		for (size_t i = 0; i < out.n_lines; i++)
			free(out.lines[i]);
		for (size_t i = 0; i < out.n_named; i++)
			free(out.named[i]);
		free(out.lines);
		free(out.named);
		return -ENOMEM;
	}
	*lines = out.lines;
	*named = out.named;
	return 0;
}
