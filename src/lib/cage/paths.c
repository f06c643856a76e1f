/*
 * Resolving path rules. Every rule binds the canonical target of its
 * spelling. A grant is a read or write tree; a denial is a path to
 * hide or keep read-only that lies inside a grant, either the policy's own
 * protect and hide rules or a location of a hard-deny class. A denial no
 * grant reaches needs nothing: Landlock grants nothing there. A grant that
 * reaches into a hidden path, or into a class location, contradicts the
 * policy and is refused with what would allow it.
 */
#include "paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ahead.h"
#include "policy/classes.h"
#include "base/error.h"
#include "discover/handoff_snapshot.h"
#include "base/canonical.h"
#include "base/home.h"
#include "discover/path_aliases.h"
#include "policy/path_waivers.h"
#include "workspace_roots.h"
#include "discover/repositories.h"
#include "discover/root_private.h"
#include "rule_links.h"

/*
 * Append (path, access) to a list unless it holds that pair already. The
 * long lists (examined, denials) are looked up in their index; the short
 * ones (grants, sockets: the policy's own rules) are compared in full.
 */
static int path_list_add_absent(struct cage_path **list, size_t *n, struct path_set *index,
				const char *path, enum procage_access access, int cls, bool absent)
{
	if (index && path_set_find(index, path, (int)access, NULL))
		return 0;
	for (size_t i = 0; !index && i < *n; i++)
		if (strcmp((*list)[i].path, path) == 0 && (*list)[i].access == access)
			return 0;
	char *copy = strdup(path);
	struct cage_path *grown = copy ? realloc(*list, (*n + 1) * sizeof *grown) : NULL;
	if (grown)
		*list = grown;
	if (!grown || (index && path_set_put(index, copy, (int)access, *n) < 0)) {
		free(copy);
		return -ENOMEM;
	}
	grown[(*n)++] = (struct cage_path){ copy, access, cls, absent, false };
	return 0;
}

static int path_list_add(struct cage_path **list, size_t *n, const char *path,
			 enum procage_access access, int cls)
{
	return path_list_add_absent(list, n, NULL, path, access, cls, false);
}

/* The indexes point into the lists' strings: dropped before the lists change hands. */
static void path_indexes_free(struct cage_paths *c)
{
	path_set_free(&c->examined_index);
	path_set_free(&c->denials_index);
}

/* The strongest grant containing path (WRITE over READ), or 0. */
static enum procage_access reaching_access(const struct cage_paths *c, const char *path,
					   const char **by)
{
	enum procage_access best = 0;
	for (size_t i = 0; i < c->n_grants; i++) {
		if (!path_within(path, c->grants[i].path))
			continue;
		if (!best || c->grants[i].access == PROCAGE_WRITE) {
			best = c->grants[i].access;
			*by = c->grants[i].path;
		}
	}
	return best;
}

/*
 * A grant at or below a denial contradicts it, except reading inside a
 * read-only location.
 */
static int grant_inside_refusal(const struct cage_path *g, const struct cage_path *d,
				struct procage_error *err)
{
	char origin[64];
	const char *verb = d->access == PROCAGE_HIDE ? "hides" : "keeps read-only";
	if (d->cls == CLASS_PROCESS_ACCESS)
		return error_set(err, -EPERM,
				 "the %s rule for %s reaches other processes in /proc; accept the "
				 "approximation proc-other-processes to grant it",
				 policy_access_name(g->access), g->path);
	const char *variable = d->cls >= 0 ? classes_moved_by(d->path) : NULL;
	if (variable)
		return error_set(err, -EPERM,
				 "the %s rule for %s reaches into %s, which %s %s: $%s names it; "
				 "waive the class to grant it, or set $%s elsewhere",
				 policy_access_name(g->access), g->path, d->path,
				 cage_path_origin(d, origin, sizeof origin), verb, variable, variable);
	if (d->cls >= 0)
		return error_set(err, -EPERM,
				 "the %s rule for %s reaches into %s, which %s %s; waive the class "
				 "to grant it",
				 policy_access_name(g->access), g->path, d->path,
				 cage_path_origin(d, origin, sizeof origin), verb);
	if (d->cls == CAGE_PATH_ALIAS)
		return error_set(err, -EPERM,
				 "the %s rule for %s lies inside the mount %s, %s: grant that "
				 "location under its own name",
				 policy_access_name(g->access), g->path, d->path,
				 cage_path_origin(d, origin, sizeof origin));
	return error_set(err, -EINVAL, "conflicting rules: %s %s lies inside %s %s",
			 policy_access_name(g->access), g->path, policy_access_name(d->access),
			 d->path);
}

/* Record denial d if a grant reaches it; no grant may lie inside it. */
static int denial_consider(struct cage_paths *c, const struct cage_path *d,
			   struct procage_error *err)
{
	const char *by = NULL;
	if (path_list_add_absent(&c->examined, &c->n_examined, &c->examined_index, d->path,
				 d->access, d->cls, d->absent) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n_grants; i++) {
		const struct cage_path *g = &c->grants[i];
		if (path_within(g->path, d->path) &&
		    !(d->access == PROCAGE_PROTECT && g->access == PROCAGE_READ))
			return grant_inside_refusal(g, d, err);
	}
	enum procage_access reach = reaching_access(c, d->path, &by);
	/* What is missing can be neither read nor changed: only made, through a write grant. */
	bool needed = d->access == PROCAGE_HIDE && !d->absent ? reach != 0 : reach == PROCAGE_WRITE;
	if (needed && path_list_add_absent(&c->denials, &c->n_denials, &c->denials_index, d->path,
					   d->access, d->cls, d->absent) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* The policy's own rules: grants first, then its denials. */
static int rules_resolve(const struct procage_policy *p, struct cage_paths *c,
			 struct procage_error *err)
{
	char **canon = calloc(p->n_paths + 1, sizeof *canon);
	int rc = canon ? 0 : error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < p->n_paths; i++)
		if (!(canon[i] = realpath(p->paths[i].path, NULL)))
			rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "%s rule for %s",
					   policy_access_name(p->paths[i].access),
					   p->paths[i].path);
	/* Every check below is on the targets; what the spellings pass through, here. */
	if (rc == 0)
		rc = rule_links_judge(p, canon, err);
	/*
	 * A protected path outside every grant is simply readable. A socket
	 * counts as a read grant too, so that one inside a hidden location is
	 * refused like any other grant there.
	 */
	for (size_t i = 0; rc == 0 && i < p->n_paths; i++) {
		enum procage_access a = p->paths[i].access;
		if (a != PROCAGE_HIDE &&
		    path_list_add(&c->grants, &c->n_grants, canon[i],
				  a == PROCAGE_WRITE ? PROCAGE_WRITE : PROCAGE_READ, -1) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
		if (rc == 0 && a == PROCAGE_CONNECT &&
		    path_list_add(&c->sockets, &c->n_sockets, canon[i], a, -1) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; rc == 0 && i < p->n_paths; i++) {
		enum procage_access a = p->paths[i].access;
		if (a == PROCAGE_PROTECT || a == PROCAGE_HIDE)
			rc = denial_consider(c, &(struct cage_path){ canon[i], a, -1, false, false }, err);
	}
	for (size_t i = 0; canon && i < p->n_paths; i++)
		free(canon[i]);
	free(canon);
	return rc;
}

const char *paths_runtime_directory(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (xdg && xdg[0] == '/')
		return xdg;
	snprintf(buf, size, "/run/user/%u", (unsigned)getuid());
	return buf;
}

/* Each location found, but those a waiver lifts for that one path. */
static int locations_consider(struct cage_paths *c, const struct class_locations *found,
			      struct path_waivers *waivers, struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < found->n; i++)
		if (!path_waivers_lift(waivers, found->items[i].path, (int)found->items[i].cls))
			rc = denial_consider(c,
					     &(struct cage_path){ found->items[i].path,
								  found->items[i].deny,
								  (int)found->items[i].cls,
								  found->items[i].absent, false },
					     err);
	return rc;
}

/*
 * The repositories git finds from the writable trees (repositories.h): a
 * tree that is a store is refused, a missing hooks directory is made (to
 * be kept read-only). First what git writes for a worktree or submodule
 * whose store lies outside the trees is granted, so that the store's
 * hooks and config, which those grants reach, become denials.
 */
static int repositories_resolve(const struct procage_policy *p, struct cage_paths *c,
				const char *home, struct workspace_roots *workspaces,
				struct procage_error *err)
{
	const char **writable = calloc(c->n_grants + 1, sizeof *writable);
	size_t n_writable = 0;
	struct repositories repos;
	if (!writable)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n_grants; i++)
		if (c->grants[i].access == PROCAGE_WRITE)
			writable[n_writable++] = c->grants[i].path;
	int rc = repositories_find(writable, n_writable, home,
				   REPOSITORIES_MAKE_HOOKS | REPOSITORIES_REFUSE_STORES, &repos, err);
	if (rc < 0) {
		free(writable);
		return rc;
	}
	for (size_t i = 0; rc == 0 && i < repos.n_grants; i++)
		if (path_list_add(&c->grants, &c->n_grants, repos.grants[i].path,
				  repos.grants[i].write ? PROCAGE_WRITE : PROCAGE_READ, -1) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < repos.n_protect; i++)
		rc = denial_consider(c,
				     &(struct cage_path){ repos.protect[i].path, PROCAGE_PROTECT,
							  CLASS_TRUST_HANDOFF,
							  repos.protect[i].absent, false },
				     err);
	/* Kept for the first run's end-of-run report (handoff.h); without it, it walks. */
	if (rc == 0 && !c->handoff_snapshot)
		c->handoff_snapshot = handoff_snapshot_make(writable, n_writable, home, &repos);
	free(writable);
	for (size_t i = 0; rc == 0 && i < repos.n_worktrees; i++)
		rc = workspace_roots_add(workspaces, repos.worktrees[i], err);
	repositories_free(&repos);
	return rc;
}

/*
 * The workspace-config class's bases: each write grant's root that is a
 * directory (the policy's own, before the stores repositories_resolve
 * grants) and each work tree the repositories' scan found in them.
 */
static int workspaces_resolve(struct cage_paths *c, unsigned skipped, struct workspace_roots *w,
			      struct path_waivers *waivers, struct procage_error *err)
{
	struct class_locations found = { 0 };
	int rc = classes_expand_workspaces(skipped, (const char *const *)w->roots, w->n, &found,
					   err);
	if (rc == 0)
		rc = locations_consider(c, &found, waivers, err);
	class_locations_free(&found);
	return rc;
}

static int classes_resolve(const struct procage_policy *p, struct cage_paths *c,
			   struct procage_error *err)
{
	char runtime[64];
	struct class_locations found;
	struct path_waivers waivers = { 0 };
	unsigned skipped = p->waived_classes;
	/* Accepting the /proc approximation lifts that one location. */
	if (p->accepted & (1u << APPROX_PROC_OTHER_PROCESSES))
		skipped |= 1u << CLASS_PROCESS_ACCESS;
	/*
	 * Every home: the policy's own, $HOME and the account's, where they
	 * differ. The first expansion also gives the runtime and system
	 * locations.
	 */
	struct homes homes;
	struct workspace_roots workspaces = { 0 };
	homes_find(&homes, p->home);
	size_t h = 0;
	canonical_memo_begin();
	int rc = path_waivers_resolve(p, &waivers, err);
	if (rc == 0)
		rc = workspace_roots_add_grants(&workspaces, c, err);
	if (rc == 0 && !(skipped & (1u << CLASS_TRUST_HANDOFF)))
		rc = repositories_resolve(p, c, homes.n ? homes.path[0] : NULL, &workspaces, err);
	if (rc == 0 && !(skipped & (1u << CLASS_WORKSPACE_CONFIG)))
		rc = workspaces_resolve(c, skipped, &workspaces, &waivers, err);
	workspace_roots_free(&workspaces);
	if (rc == 0)
		rc = classes_expand(skipped, homes.n ? homes.path[0] : NULL,
				    paths_runtime_directory(runtime, sizeof runtime), &found, err);
	while (rc == 0) {
		rc = locations_consider(c, &found, &waivers, err);
		class_locations_free(&found);
		if (rc < 0 || ++h >= homes.n)
			break;
		rc = classes_expand(skipped, homes.path[h], NULL, &found, err);
	}
	if (rc == 0)
		rc = path_waivers_check_used(&waivers, skipped, err);
	canonical_memo_end();
	path_waivers_free(&waivers);
	return rc;
}

/*
 * A root caller: what others may not read in /etc is hidden with the
 * secrets (root_private.h), unless that class is waived.
 */
static int root_private_resolve(const struct procage_policy *p, struct cage_paths *c,
				struct procage_error *err)
{
	char **private = NULL;
	size_t n = 0;
	int rc = 0;
	if (geteuid() != 0 || (p->waived_classes & (1u << CLASS_SECRETS)))
		return 0;
	/* What was prepared ahead is helped along, then taken, not walked again. */
	root_private_help();
	ahead_join();
	if ((rc = root_private_find(ROOT_PRIVATE_TREE, &private, &n)) < 0)
		return error_set(err, rc,
				 "looking in %s for what only root may read, to hide it from a root "
				 "caller's cage: %s",
				 ROOT_PRIVATE_TREE, strerror(-rc));
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = denial_consider(c,
				     &(struct cage_path){ private[i], PROCAGE_HIDE, CLASS_SECRETS,
							  false, false },
				     err);
	path_strings_free(private, n);
	return rc;
}

/* The hidden location path lies in already, or NULL. */
static const struct cage_path *hidden_by(const struct cage_paths *c, const char *path)
{
	for (size_t i = 0; i < c->n_examined; i++)
		if (c->examined[i].access == PROCAGE_HIDE && path_within(path, c->examined[i].path))
			return &c->examined[i];
	return NULL;
}

/* A link target that holds a grant cannot be hidden: say where the link is. */
static int link_target_refusal(const struct cage_paths *c, const char *target,
			       const struct cage_path *loc, struct procage_error *err)
{
	char origin[64];
	for (size_t i = 0; i < c->n_grants; i++)
		if (path_within(c->grants[i].path, target))
			return error_set(err, -EPERM,
					 "%s is the target of a symbolic link inside %s, which %s "
					 "hides, so it is hidden too; the %s rule for %s lies inside "
					 "it; remove the link or waive the class",
					 target, loc->path, cage_path_origin(loc, origin, sizeof origin),
					 policy_access_name(c->grants[i].access), c->grants[i].path);
	return 0;
}

/*
 * The targets of the symbolic links inside every hidden location are
 * hidden too (a program outside the cage reads them through the link).
 * The list grows while it is walked: a target directory is walked in turn.
 */
static int link_targets_resolve(struct cage_paths *c, struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < c->n_examined; i++) {
		const struct cage_path loc = c->examined[i];
		char **targets = NULL;
		size_t n = 0;
		/* A location missing now holds no link yet: nothing to open. */
		if (loc.access != PROCAGE_HIDE || loc.cls == CLASS_PROCESS_ACCESS || loc.absent)
			continue;
		if ((rc = link_targets_in(loc.path, &targets, &n)) < 0)
			return error_set(err, rc, "looking for symbolic links in %s: %s", loc.path,
					 strerror(-rc));
		for (size_t j = 0; rc == 0 && j < n; j++) {
			if (hidden_by(c, targets[j]))
				continue;
			rc = link_target_refusal(c, targets[j], &loc, err);
			if (rc == 0)
				rc = denial_consider(c, &(struct cage_path){ targets[j], PROCAGE_HIDE,
									     loc.cls, false, false },
						     err);
		}
		path_strings_free(targets, n);
	}
	return rc;
}

static bool denied(const struct cage_paths *c, const char *path, enum procage_access access)
{
	for (size_t i = 0; i < c->n_denials; i++)
		if (c->denials[i].access == access && strcmp(c->denials[i].path, path) == 0)
			return true;
	return false;
}

/*
 * Every hidden and protected location is denied under each spelling that
 * reaches it through another mount (a bind mount of the home's parent):
 * masked there too on tier T1, granted around on T2, and a grant inside
 * one is refused like a grant inside the location.
 */
static int mount_aliases_resolve(struct cage_paths *c, const struct mount_table *mounts,
				 struct procage_error *err)
{
	int rc = 0;
	size_t n_locations = c->n_examined;
	for (size_t i = 0; rc == 0 && i < n_locations; i++) {
		const struct cage_path loc = c->examined[i];
		char **aliases = NULL;
		size_t n = 0;
		if (loc.cls == CLASS_PROCESS_ACCESS)
			continue;
		if (mount_aliases_of(mounts, loc.path, &aliases, &n) < 0) {
			rc = error_set(err, -ENOMEM, "out of memory");
			break;
		}
		for (size_t j = 0; rc == 0 && j < n; j++)
			rc = denial_consider(c,
					     &(struct cage_path){ aliases[j], loc.access, loc.cls,
								  loc.absent, false },
					     err);
		/*
		 * Landlock grants follow the inode: a grant reaching one
		 * spelling reaches them all, so if one needs a mask, all do.
		 */
		bool needed = denied(c, loc.path, loc.access);
		for (size_t j = 0; !needed && j < n; j++)
			needed = denied(c, aliases[j], loc.access);
		if (rc == 0 && needed &&
		    path_list_add(&c->denials, &c->n_denials, loc.path, loc.access, loc.cls) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
		for (size_t j = 0; rc == 0 && needed && j < n; j++)
			if (path_list_add(&c->denials, &c->n_denials, aliases[j], loc.access,
					  loc.cls) < 0)
				rc = error_set(err, -ENOMEM, "out of memory");
		path_strings_free(aliases, n);
	}
	return rc;
}

/* Does a rule of the policy name path itself? */
static bool granted_as_spelled(const struct cage_paths *c, const char *path)
{
	for (size_t i = 0; i < c->n_grants; i++)
		if (strcmp(c->grants[i].path, path) == 0)
			return true;
	return false;
}

/* Does the policy let the command write path, under this spelling? */
static bool writable_as_spelled(const struct cage_paths *c, const char *path)
{
	const char *by = NULL;
	for (size_t i = 0; i < c->n_examined; i++)
		if (path_within(path, c->examined[i].path))
			return false;
	return reaching_access(c, path, &by) == PROCAGE_WRITE;
}

/*
 * A mount inside a grant whose content has another name (a bind mount of
 * /etc, of ~/.ssh/keys or of a read-only tree, in the workspace) gets no
 * more than that name does: hidden where the other name lies in a hidden
 * location, read-only where the policy does not let the command write
 * it. A grant follows the file, not the string: without this, a write
 * grant holding a bind mount of /etc lets the command write /etc.
 */
static int grant_mount_aliases_resolve(struct cage_paths *c, const struct mount_table *mounts,
				       struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < mount_table_size(mounts); i++) {
		const char *point = mount_table_point(mounts, i), *by = NULL;
		enum procage_access reach = reaching_access(c, point, &by);
		char **aliases = NULL;
		size_t n = 0;
		if (!reach || granted_as_spelled(c, point) || hidden_by(c, point))
			continue; /* outside the grants, a grant itself, or hidden already */
		if (mount_aliases_of(mounts, point, &aliases, &n) < 0)
			return error_set(err, -ENOMEM, "out of memory");
		const struct cage_path *hidden = NULL;
		bool read_only = false;
		for (size_t j = 0; j < n && !hidden; j++) {
			hidden = hidden_by(c, aliases[j]);
			read_only = read_only || !writable_as_spelled(c, aliases[j]);
		}
		if (hidden)
			rc = denial_consider(c, &(struct cage_path){ (char *)point, PROCAGE_HIDE,
								     CAGE_PATH_ALIAS, false, false },
					     err);
		else if (read_only && writable_as_spelled(c, point))
			rc = denial_consider(c, &(struct cage_path){ (char *)point, PROCAGE_PROTECT,
								     CAGE_PATH_ALIAS, false, false },
					     err);
		path_strings_free(aliases, n);
	}
	return rc;
}

static int host_mounts_resolve(struct cage_paths *c, struct procage_error *err)
{
	struct mount_table *mounts = NULL;
	int rc = mount_table_read(&mounts);
	if (rc < 0)
		return error_set(err, rc,
				 "reading /proc/self/mountinfo to find other names of the hidden "
				 "and protected locations: %s",
				 strerror(-rc));
	rc = mount_aliases_resolve(c, mounts, err);
	if (rc == 0)
		rc = grant_mount_aliases_resolve(c, mounts, err);
	mount_table_free(mounts);
	return rc;
}

static int path_compare(const void *a, const void *b)
{
	return strcmp(((const struct cage_path *)a)->path, ((const struct cage_path *)b)->path);
}

int paths_resolve_policy(const struct procage_policy *p, struct cage_paths *out,
			 struct procage_error *err)
{
	memset(out, 0, sizeof *out);
	int rc = rules_resolve(p, out, err);
	if (rc == 0)
		rc = classes_resolve(p, out, err);
	if (rc < 0)
		cage_paths_free(out);
	return rc;
}

int paths_resolve_host(const struct procage_policy *p, bool root_private_walk,
		       struct cage_paths *out, struct procage_error *err)
{
	int rc = 0;
	if (root_private_walk)
		rc = root_private_resolve(p, out, err);
	if (rc == 0)
		rc = link_targets_resolve(out, err);
	if (rc == 0)
		rc = host_mounts_resolve(out, err);
	path_indexes_free(out); /* nothing is added from here on */
	if (rc < 0) {
		cage_paths_free(out);
		return rc;
	}
	if (out->n_denials)
		qsort(out->denials, out->n_denials, sizeof *out->denials, path_compare);
	if (out->n_examined)
		qsort(out->examined, out->n_examined, sizeof *out->examined, path_compare);
	return 0;
}

int paths_resolve(const struct procage_policy *p, bool root_private_walk,
		  struct cage_paths *out, struct procage_error *err)
{
	int rc = paths_resolve_policy(p, out, err);
	return rc < 0 ? rc : paths_resolve_host(p, root_private_walk, out, err);
}

static void path_list_free(struct cage_path *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i].path);
	free(list);
}

void path_list_release_examined(struct cage_paths *c, struct cage_path **examined,
				size_t *n_examined)
{
	path_indexes_free(c);
	*examined = c->examined;
	*n_examined = c->n_examined;
	c->examined = NULL;
	c->n_examined = 0;
}

void path_list_release_sockets(struct cage_paths *c, struct cage_path **sockets,
			       size_t *n_sockets)
{
	path_indexes_free(c);
	*sockets = c->sockets;
	*n_sockets = c->n_sockets;
	c->sockets = NULL;
	c->n_sockets = 0;
}

void path_list_release_denials(struct cage_paths *c, struct cage_path **denials,
			       size_t *n_denials)
{
	path_indexes_free(c);
	if (denials) {
		*denials = c->denials;
		*n_denials = c->n_denials;
	} else {
		path_list_free(c->denials, c->n_denials);
	}
	c->denials = NULL;
	c->n_denials = 0;
}

void cage_paths_free(struct cage_paths *c)
{
	path_list_free(c->grants, c->n_grants);
	path_list_free(c->denials, c->n_denials);
	path_list_free(c->sockets, c->n_sockets);
	path_list_free(c->examined, c->n_examined);
	handoff_snapshot_free(c->handoff_snapshot);
	path_indexes_free(c);
	memset(c, 0, sizeof *c);
}
