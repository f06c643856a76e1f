/*
 * What a rule's spelling passes through (rule_links.h). A run can replace
 * a directory of its workspace with a symbolic link to the home, /etc or
 * /usr/local/bin; the next run given that directory as a grant (by a
 * harness, a project file, a policy file) would follow the link and hold
 * the target. Every check of the cage is made on the target, so the
 * conflicts the policy finds between spellings are found here again
 * between targets, and a grant through a link lying inside a writable
 * tree of the same policy is refused: the policy cannot tell that link
 * from one a run made. Links outside every writable tree (/bin -> usr/bin,
 * a user's ~/src -> /data/src) are followed, their targets checked.
 */
#include "rule_links.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/string_list.h"
#include "policy/path_rule.h"

/* The kernel's limit on links followed in one walk. */
#define WALK_MAX_LINKS 40

void path_walk_free(struct path_walk *w)
{
	for (size_t i = 0; i < w->n_links; i++)
		free(w->links[i]);
	free(w->links);
	free(w->target);
	memset(w, 0, sizeof *w);
}

static int walk_link_add(struct path_walk *w, const char *location)
{
	char *copy = strdup(location);
	char **grown = copy ? realloc(w->links, (w->n_links + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	w->links = grown;
	grown[w->n_links++] = copy;
	return 0;
}

/*
 * One component of the walk: resolved (canonical, "" for the root) grows
 * by name, or, where name is a link, the link's text is put in front of
 * the rest still to walk (rest, from *at).
 */
static int walk_step(struct path_walk *w, char *resolved, const char *name, char *rest,
		     size_t rest_size, size_t *at, int *follows)
{
	char candidate[PATH_MAX], text[PATH_MAX], next[2 * PATH_MAX];
	struct stat st;
	if (strcmp(name, "..") == 0) {
		char *slash = strrchr(resolved, '/');
		if (slash)
			*slash = '\0';
		return 0;
	}
	if (snprintf(candidate, sizeof candidate, "%s/%s", resolved, name) >= (int)sizeof candidate)
		return -ENAMETOOLONG;
	if (lstat(candidate, &st) != 0)
		return -errno;
	if (!S_ISLNK(st.st_mode)) {
		if (rest[*at] && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
		memcpy(resolved, candidate, strlen(candidate) + 1);
		return 0;
	}
	if (++*follows > WALK_MAX_LINKS)
		return -ELOOP;
	ssize_t len = readlink(candidate, text, sizeof text - 1);
	if (len < 0)
		return -errno;
	text[len] = '\0';
	if (snprintf(next, sizeof next, "%s/%s", text, rest + *at) >= (int)rest_size)
		return -ENAMETOOLONG;
	memcpy(rest, next, strlen(next) + 1);
	*at = 0;
	if (text[0] == '/')
		resolved[0] = '\0';
	return walk_link_add(w, candidate);
}

int path_walk(const char *path, struct path_walk *out)
{
	char resolved[PATH_MAX] = "", rest[2 * PATH_MAX], name[NAME_MAX + 1];
	size_t at = 0;
	int follows = 0, rc = 0;
	memset(out, 0, sizeof *out);
	if (path[0] != '/')
		return -EINVAL;
	if (snprintf(rest, sizeof rest, "%s", path) >= (int)sizeof rest)
		return -ENAMETOOLONG;
	while (rc == 0 && rest[at]) {
		size_t n = strcspn(rest + at, "/");
		if (n > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(name, rest + at, n);
		name[n] = '\0';
		at += n;
		at += rest[at] == '/';
		if (n && strcmp(name, ".") != 0)
			rc = walk_step(out, resolved, name, rest, sizeof rest, &at, &follows);
	}
	if (rc == 0 && !(out->target = strdup(resolved[0] ? resolved : "/")))
		rc = -ENOMEM;
	if (rc < 0)
		path_walk_free(out);
	return rc;
}

/* The command's flag for a rule of this access, as messages offer it. */
static const char *rule_flag(enum procage_access access)
{
	switch (access) {
	case PROCAGE_READ:
		return "--read";
	case PROCAGE_WRITE:
		return "--write";
	case PROCAGE_PROTECT:
		return "--protect";
	case PROCAGE_HIDE:
		return "--hide";
	default:
		return "--socket";
	}
}

/*
 * As procage_policy_allow judges two rules for one spelling: the same
 * access, or reading what an earlier rule writes, is one rule; anything
 * else conflicts.
 */
static int target_conflicts(const struct procage_policy *p, char *const *canon,
			    struct procage_error *err)
{
	for (size_t j = 0; j < p->n_paths; j++)
		for (size_t i = 0; i < j; i++) {
			const struct policy_path_rule *a = &p->paths[i], *b = &p->paths[j];
			if (strcmp(canon[i], canon[j]) != 0 || a->access == b->access ||
			    (a->access == PROCAGE_WRITE && b->access == PROCAGE_READ))
				continue;
			return error_set(
			    err, -EINVAL,
			    "conflicting rules for %s: %s %s and %s %s both resolve to it",
			    canon[i], policy_access_name(a->access), a->path,
			    policy_access_name(b->access), b->path);
		}
	return 0;
}

/* The write rule whose tree holds path, or -1. */
static ssize_t writable_tree_of(const struct procage_policy *p, char *const *canon,
				const char *path)
{
	for (size_t j = 0; j < p->n_paths; j++)
		if (p->paths[j].access == PROCAGE_WRITE && path_within(path, canon[j]))
			return (ssize_t)j;
	return -1;
}

static bool is_grant(enum procage_access a)
{
	return a == PROCAGE_READ || a == PROCAGE_WRITE || a == PROCAGE_CONNECT;
}

/*
 * Does another rule, spelled through no planted link, grant rule i's
 * target as much? Then the link gives nothing the policy does not.
 */
static bool granted_anyway(const struct procage_policy *p, char *const *canon, const bool *planted,
			   size_t i)
{
	enum procage_access want = p->paths[i].access;
	if (want == PROCAGE_CONNECT)
		return false;
	for (size_t j = 0; j < p->n_paths; j++) {
		enum procage_access has = p->paths[j].access;
		if (j == i || planted[j] || !path_within(canon[i], canon[j]))
			continue;
		if (has == PROCAGE_WRITE || (want == PROCAGE_READ && has == PROCAGE_READ))
			return true;
	}
	return false;
}

/* Rule i's first link that lies in a writable tree (its tree in *tree), or NULL. */
static const char *planted_link(const struct procage_policy *p, char *const *canon,
				const struct path_walk *w, ssize_t *tree)
{
	for (size_t k = 0; k < w->n_links; k++)
		if ((*tree = writable_tree_of(p, canon, w->links[k])) >= 0)
			return w->links[k];
	return NULL;
}

static int planted_refusal(const struct procage_policy *p, char *const *canon, size_t i,
			   const char *link, ssize_t tree, struct procage_error *err)
{
	const struct policy_path_rule *r = &p->paths[i];
	char *to = realpath(link, NULL);
	error_set(err, -EPERM,
		  "the %s rule for %s passes through the symbolic link %s (to %s), which lies "
		  "inside the write grant %s, where a run could have made it; if %s is meant, "
		  "spell it in the rule (%s %s)",
		  policy_access_name(r->access), r->path, link, to ? to : canon[i], canon[tree],
		  canon[i], rule_flag(r->access), canon[i]);
	free(to);
	return -EPERM;
}

int rule_links_judge(const struct procage_policy *p, char *const *canon, struct procage_error *err)
{
	int rc = 0;
	bool *planted = calloc(p->n_paths + 1, sizeof *planted);
	struct path_walk *walks = planted ? calloc(p->n_paths + 1, sizeof *walks) : NULL;
	if (!walks)
		rc = error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < p->n_paths; i++) {
		ssize_t tree;
		if (!is_grant(p->paths[i].access))
			continue;
		/* realpath found it a moment ago: a walk that fails now was raced. */
		if ((rc = path_walk(p->paths[i].path, &walks[i])) < 0)
			rc = error_set(err, rc, "%s rule for %s: %s",
				       policy_access_name(p->paths[i].access), p->paths[i].path,
				       strerror(-rc));
		else
			planted[i] = planted_link(p, canon, &walks[i], &tree) != NULL;
	}
	for (size_t i = 0; rc == 0 && i < p->n_paths; i++) {
		ssize_t tree;
		const char *link = planted[i] ? planted_link(p, canon, &walks[i], &tree) : NULL;
		if (link && !granted_anyway(p, canon, planted, i))
			rc = planted_refusal(p, canon, i, link, tree, err);
	}
	/* A planted link first: its refusal says more than the conflict it leads to. */
	if (rc == 0)
		rc = target_conflicts(p, canon, err);
	for (size_t i = 0; walks && i < p->n_paths; i++)
		path_walk_free(&walks[i]);
	free(walks);
	free(planted);
	return rc;
}

/* "--write /w/ws/out -> /root (through the link /w/ws/out)" */
static int resolution_line(const struct policy_path_rule *r, const char *target, char **out)
{
	struct path_walk w;
	char *line = NULL, *longer = NULL;
	int rc = path_walk(r->path, &w);
	if (asprintf(&line, "%s %s -> %s", rule_flag(r->access), r->path, target) < 0)
		line = NULL;
	for (size_t k = 0; rc == 0 && line && k < w.n_links; k++) {
		if (asprintf(&longer, "%s%s%s", line,
			     k == 0
				 ? (w.n_links == 1 ? " (through the link " : " (through the links ")
				 : ", ",
			     w.links[k]) < 0)
			longer = NULL;
		free(line);
		line = longer;
	}
	if (rc == 0 && line && w.n_links) {
		if (asprintf(&longer, "%s)", line) < 0)
			longer = NULL;
		free(line);
		line = longer;
	}
	if (rc == 0)
		path_walk_free(&w);
	*out = line;
	return line ? 0 : -ENOMEM;
}

PROCAGE_API int procage_policy_resolutions(const struct procage_policy *p, char ***lines,
					   struct procage_error *err)
{
	char **list = NULL;
	size_t n = 0;
	int rc = 0;
	error_clear(err);
	if (!p || !lines)
		return error_set(err, -EINVAL, "no policy or no place for the lines");
	for (size_t i = 0; rc == 0 && i < p->n_paths; i++) {
		char *target = realpath(p->paths[i].path, NULL), *line = NULL;
		/* A rule that does not resolve is the cage's to refuse, naming it. */
		if (target && strcmp(target, p->paths[i].path) != 0) {
			rc = resolution_line(&p->paths[i], target, &line);
			if (rc == 0)
				rc = string_list_take(&list, &n, line);
		}
		free(target);
	}
	if (rc == 0 && !list && !(list = calloc(1, sizeof *list)))
		rc = -ENOMEM;
	if (rc < 0) {
		for (size_t i = 0; list && list[i]; i++)
			free(list[i]);
		free(list);
		return error_set(err, -ENOMEM, "out of memory");
	}
	*lines = list;
	return 0;
}
