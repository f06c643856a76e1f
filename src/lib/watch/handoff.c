/*
 * The end-of-run trust-handoff report: what a run did that a later
 * git on the host would trust and that no mask could prevent. Before the
 * spawn the repositories of the writable trees are known: the cage's own
 * discovery when the cage was made for this run (its first, with the same
 * trees and home: handoff.h), else found again (repositories.c, the same
 * bounded discovery); after the run they are found again, and the report
 * names every repository and gitfile that is new, every gitfile rewritten,
 * and every location that was absent when the run began (a commondir,
 * config.worktree, an include target, a hooksPath directory) and now
 * exists, and every program made on the caller's search path ahead of a
 * command of the same name (handoff_path.h). Nothing changed, nothing said.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#include "cage/cage.h"
#include "policy/classes.h"
#include "base/error.h"
#include "discover/handoff_snapshot.h"
#include "handoff.h"
#include "handoff_observed.h"
#include "discover/handoff_path.h"
#include "discover/git_reach.h"
#include "policy/path_rule.h"
#include "discover/repositories.h"
#include "common/text_escape.h"
#include "base/string_list.h"

struct procage_handoff {
	char **trees; /* canonical writable trees */
	size_t n_trees;
	char *home;
	bool waived; /* trust-handoff waived: nothing to report */
	struct repositories before;
	/* The git directories runs were seen writing (handoff_observed.h), and how many more. */
	char **observed;
	uint64_t observed_more;
	uint64_t observed_unseen; /* calls the observer could not look at */
	struct search_path search; /* $PATH's directories inside the trees */
	/* Where git's discovery led, before the run, from the trees, work trees and cwd. */
	struct reach_points reach;
};

PROCAGE_API int procage_cage_handoff_change(const struct procage_cage *cage)
{
	return cage ? (int)cage->policy->handoff_change : PROCAGE_HANDOFF_CHANGE_REPORT;
}

PROCAGE_API void procage_handoff_free(struct procage_handoff *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_trees; i++)
		free(h->trees[i]);
	free(h->trees);
	free(h->home);
	repositories_free(&h->before);
	procage_strings_free(h->observed);
	search_path_free(&h->search);
	reach_points_free(&h->reach);
	free(h);
}

static int handoff_find(const struct procage_handoff *h, struct repositories *out,
			struct procage_error *err)
{
	return repositories_find((const char *const *)h->trees, h->n_trees, h->home, 0, out, err);
}

static bool listed(char *const *list, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], path) == 0)
			return true;
	return false;
}

/*
 * The cage's discovery, taken once, if it was made with this report's
 * trees and home and no run of the cage has started since.
 */
static bool snapshot_take(const struct procage_cage *cage, struct procage_handoff *h)
{
	struct handoff_snapshot *s = cage->handoff_snapshot;
	if (!s || s->n_trees != h->n_trees ||
	    (s->home || h->home ? !s->home || !h->home || strcmp(s->home, h->home) != 0 : false))
		return false;
	for (size_t i = 0; i < h->n_trees; i++)
		if (!listed(s->trees, s->n_trees, h->trees[i]) ||
		    !listed(h->trees, h->n_trees, s->trees[i]))
			return false;
	if (atomic_exchange(&s->taken, true))
		return false;
	h->before = s->found;
	memset(&s->found, 0, sizeof s->found);
	return true;
}

/*
 * The directories whose discovery is compared after the run (git_reach.h):
 * each writable tree's root, each work tree found below one, and the
 * caller's working directory when a tree holds it (where its next git
 * runs). A bounded set, known without a walk: a ".git" or a store made
 * deeper, away from them, is found by the end-of-run discovery (to its
 * depth) or by the run's observed calls (explain on).
 */
static int reach_record(struct procage_handoff *h)
{
	int rc = 0;
	char cwd[PATH_MAX];
	for (size_t i = 0; rc == 0 && i < h->n_trees; i++)
		rc = reach_points_add(&h->reach, h->trees[i]);
	for (size_t i = 0; rc == 0 && i < h->before.n_worktrees; i++)
		rc = reach_points_add(&h->reach, h->before.worktrees[i]);
	char *canonical = getcwd(cwd, sizeof cwd) ? realpath(cwd, NULL) : NULL;
	for (size_t i = 0; rc == 0 && canonical && i < h->n_trees; i++)
		if (path_within(canonical, h->trees[i])) {
			rc = reach_points_add(&h->reach, canonical);
			break;
		}
	free(canonical);
	return rc;
}

PROCAGE_API int procage_handoff_begin(const struct procage_cage *cage, struct procage_handoff **out,
				      struct procage_error *err)
{
	error_clear(err);
	if (!cage || !out)
		return error_set(err, -EINVAL, "no cage or no place for the report given");
	struct procage_handoff *h = calloc(1, sizeof *h);
	if (!h || !(h->trees = calloc(cage->policy->n_paths + 1, sizeof *h->trees))) {
		free(h);
		return error_set(err, -ENOMEM, "out of memory");
	}
	const char *home = policy_home(cage->policy);
	if (home && !(h->home = strdup(home))) {
		procage_handoff_free(h);
		return error_set(err, -ENOMEM, "out of memory");
	}
	h->waived = cage->policy->waived_classes & (1u << CLASS_TRUST_HANDOFF);
	for (size_t i = 0; !h->waived && i < cage->policy->n_paths; i++) {
		char *canonical;
		if (cage->policy->paths[i].access != PROCAGE_WRITE ||
		    !(canonical = realpath(cage->policy->paths[i].path, NULL)))
			continue;
		h->trees[h->n_trees++] = canonical;
	}
	int rc = snapshot_take(cage, h) ? 0 : handoff_find(h, &h->before, err);
	if (rc < 0)
		rc = error_prefix(err, rc, "finding the repositories before the run: ");
	/* The caller's own $PATH: the one its next commands are found in. */
	if (rc == 0 && !h->waived &&
	    (search_path_snapshot(getenv("PATH"), h->trees, h->n_trees, &h->search) < 0 ||
	     reach_record(h) < 0))
		rc = error_set(err, -ENOMEM, "out of memory");
	if (rc < 0) {
		procage_handoff_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

struct findings {
	char **list;
	size_t n;
};

/* Names are the cage's choice: quoted as a shell reads them back, one finding one line. */
struct quoted {
	char *a, *b, *c;
};

static bool quote(struct quoted *q, const char *a, const char *b, const char *c)
{
	q->a = escape_shell_dup(a);
	q->b = b ? escape_shell_dup(b) : NULL;
	q->c = c ? escape_shell_dup(c) : NULL;
	return q->a && (q->b || !b) && (q->c || !c);
}

static void quoted_free(struct quoted *q)
{
	free(q->a);
	free(q->b);
	free(q->c);
}

/* Take text (NULL: out of memory) into the findings. */
static int finding_add(struct findings *f, char *text, int printed)
{
	return string_list_take(&f->list, &f->n, printed >= 0 ? text : NULL);
}

static bool store_known(const struct repositories *r, const char *store)
{
	for (size_t i = 0; i < r->n_stores; i++)
		if (strcmp(r->stores[i], store) == 0)
			return true;
	return false;
}

/*
 * A linked worktree's git directory made by git worktree add in a store
 * known before the run (STORE/worktrees/ID): its commondir names that
 * store ("../..", as git writes it and the broker makes it), and it holds
 * no config, config.worktree or hooks of its own. git in its work tree
 * then runs and reads only the store's, which were held: nothing to name.
 */
static bool linked_store_held(const struct repositories *before, const char *store)
{
	char common[PATH_MAX], path[PATH_MAX], text[16];
	static const char *const own[] = {"config", "config.worktree", "hooks"};
	struct stat st;
	const char *slash = strrchr(store, '/');
	size_t len = slash ? (size_t)(slash - store) : 0;
	if (len < sizeof "/worktrees" || len >= sizeof common ||
	    strncmp(store + len - (sizeof "/worktrees" - 1), "/worktrees",
		    sizeof "/worktrees" - 1) != 0)
		return false;
	memcpy(common, store, len - (sizeof "/worktrees" - 1));
	common[len - (sizeof "/worktrees" - 1)] = '\0';
	if (!store_known(before, common))
		return false;
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if (snprintf(path, sizeof path, "%s/%s", store, own[i]) >= (int)sizeof path ||
		    lstat(path, &st) == 0 || errno != ENOENT)
			return false;
	if (snprintf(path, sizeof path, "%s/commondir", store) >= (int)sizeof path)
		return false;
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	return strcmp(text, "../..\n") == 0 || strcmp(text, "../..") == 0;
}

static const struct repo_gitfile *gitfile_known(const struct repositories *r, const char *path)
{
	for (size_t i = 0; i < r->n_gitfiles; i++)
		if (strcmp(r->gitfiles[i].path, path) == 0)
			return &r->gitfiles[i];
	return NULL;
}

static int gitfile_compare(const struct repositories *before, const struct repo_gitfile *now,
			   struct findings *f)
{
	const struct repo_gitfile *was = gitfile_known(before, now->path);
	struct quoted q;
	char *text = NULL;
	int printed = 0;
	if (was && strcmp(was->target, now->target) == 0)
		return 0;
	/* A new linked worktree's, naming its held git directory. */
	char *target = was ? NULL : realpath(now->target, NULL);
	bool held = target && linked_store_held(before, target);
	free(target);
	if (held)
		return 0;
	if (!quote(&q, now->path, now->target, was ? was->target : NULL))
		printed = -1;
	else if (!was)
		printed = asprintf(&text, "new gitfile: %s (gitdir: %s)", q.a, q.b);
	else
		printed =
		    asprintf(&text, "gitfile rewritten: %s (gitdir: %s, was %s)", q.a, q.b, q.c);
	quoted_free(&q);
	return finding_add(f, text, printed);
}

static int compare(const struct repositories *before, const struct repositories *after,
		   struct findings *f)
{
	int rc = 0;
	struct quoted q;
	char *text = NULL;
	for (size_t i = 0; rc == 0 && i < after->n_stores; i++) {
		if (store_known(before, after->stores[i]) ||
		    linked_store_held(before, after->stores[i]))
			continue;
		int printed = quote(&q, after->stores[i], NULL, NULL)
				  ? asprintf(&text,
					     "new repository: %s (git on the host runs its hooks "
					     "and reads its config)",
					     q.a)
				  : -1;
		quoted_free(&q);
		rc = finding_add(f, text, printed);
	}
	for (size_t i = 0; rc == 0 && i < after->n_gitfiles; i++)
		rc = gitfile_compare(before, &after->gitfiles[i], f);
	/* A protected symbolic link no mount could hold, replaced or retargeted. */
	for (size_t i = 0; rc == 0 && i < before->n_links; i++) {
		char now[PATH_MAX];
		const struct repo_link *l = &before->links[i];
		ssize_t n = readlink(l->path, now, sizeof now - 1);
		if (n >= 0) {
			now[n] = '\0';
			if (strcmp(now, l->target) == 0)
				continue;
		}
		int printed = quote(&q, l->path, l->target, NULL)
				  ? asprintf(&text,
					     "replaced where git reads or runs: %s (was a symbolic "
					     "link to %s)",
					     q.a, q.b)
				  : -1;
		quoted_free(&q);
		rc = finding_add(f, text, printed);
	}
	/* What was absent at the start, and is there now: no mask could hold it. */
	for (size_t i = 0; rc == 0 && i < before->n_protect; i++) {
		struct stat st;
		if (!before->protect[i].absent || lstat(before->protect[i].path, &st) != 0)
			continue;
		int printed = quote(&q, before->protect[i].path, NULL, NULL)
				  ? asprintf(&text, "created where git reads or runs: %s", q.a)
				  : -1;
		quoted_free(&q);
		rc = finding_add(f, text, printed);
	}
	return rc;
}

int handoff_add_observed(struct procage_handoff *h, const struct handoff_observed *observed,
			 struct procage_error *err)
{
	char **seen = NULL;
	uint64_t more = 0, unseen = 0;
	if (h->waived)
		return 0;
	/* The store is only read here; its lock is the store's own. */
	if (handoff_observed_list((struct handoff_observed *)observed, &seen, &more, &unseen) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	size_t n = 0, m = 0;
	while (h->observed && h->observed[n])
		n++;
	while (seen[m])
		m++;
	char **all = realloc(h->observed, (n + m + 1) * sizeof *all);
	if (!all) {
		procage_strings_free(seen);
		return error_set(err, -ENOMEM, "out of memory");
	}
	memcpy(all + n, seen, (m + 1) * sizeof *all);
	free(seen);
	h->observed = all;
	h->observed_more += more;
	h->observed_unseen += unseen;
	return 0;
}

/*
 * The git directories runs were seen writing that are still there and
 * that discovery did not find before or after the run (deeper than its
 * bound): nothing protected them, and no walk names them.
 */
static int observed_compare(const struct procage_handoff *h, const struct repositories *after,
			    char *const *reach_named, struct findings *f)
{
	int rc = 0;
	struct quoted q;
	char *text = NULL;
	for (size_t i = 0; rc == 0 && h->observed && h->observed[i]; i++) {
		const char *g = h->observed[i];
		struct stat st;
		bool named = false; /* by an earlier run added to the report */
		for (size_t j = 0; j < i && !named; j++)
			named = strcmp(h->observed[j], g) == 0;
		for (size_t j = 0; reach_named[j] && !named; j++)
			named = strcmp(reach_named[j], g) == 0;
		if (named || lstat(g, &st) != 0 || store_known(after, g) ||
		    store_known(&h->before, g) || gitfile_known(after, g) ||
		    gitfile_known(&h->before, g))
			continue;
		int printed = quote(&q, g, NULL, NULL)
				  ? asprintf(&text,
					     "written where git runs or reads: %s (its hooks or "
					     "config, or the repository itself, made or changed by "
					     "the run deeper than procage looks for repositories: "
					     "nothing protected it)",
					     q.a)
				  : -1;
		quoted_free(&q);
		rc = finding_add(f, text, printed);
	}
	if (rc == 0 && h->observed_more) {
		int printed = asprintf(&text,
				       "written where git runs or reads: %llu more changes, in git "
				       "directories not named (the run wrote in too many)",
				       (unsigned long long)h->observed_more);
		rc = finding_add(f, text, printed);
	}
	if (rc == 0 && h->observed_unseen) {
		int printed = asprintf(&text,
				       "not looked at: %llu of the run's calls that may write files, "
				       "made by a process procage could not read (made non-dumpable, "
				       "or running a program it may not read): a repository they "
				       "wrote deeper than procage looks for repositories would not be "
				       "named",
				       (unsigned long long)h->observed_unseen);
		rc = finding_add(f, text, printed);
	}
	return rc;
}

/* Take the directory of path (its last component cut) into the candidates. */
static int candidate_parent(char ***list, size_t *n, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash > path ? (size_t)(slash - path) : 1) : NULL;
	if (!slash)
		return 0;
	int rc = dir ? string_list_add_once(list, n, dir) : -ENOMEM;
	free(dir);
	return rc;
}

static bool named_dot_git(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && strcmp(slash + 1, ".git") == 0;
}

/*
 * The directories a ".git" or a store appeared in, beside the recorded
 * ones: work trees and gitfiles found new by the end-of-run discovery,
 * stores found new outside any ".git" (bare layouts), and the git
 * directories the run was seen making or writing, at any depth.
 */
static int reach_candidates(const struct procage_handoff *h, const struct repositories *after,
			    char ***list, size_t *n)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < after->n_worktrees; i++)
		if (!listed(h->before.worktrees, h->before.n_worktrees, after->worktrees[i]))
			rc = string_list_add_once(list, n, after->worktrees[i]);
	for (size_t i = 0; rc == 0 && i < after->n_gitfiles; i++)
		if (!gitfile_known(&h->before, after->gitfiles[i].path))
			rc = candidate_parent(list, n, after->gitfiles[i].path);
	for (size_t i = 0; rc == 0 && i < after->n_stores; i++) {
		const char *s = after->stores[i];
		if (!store_known(&h->before, s) && !strstr(s, "/.git/") && !named_dot_git(s))
			rc = string_list_add_once(list, n, s);
	}
	for (size_t i = 0; rc == 0 && h->observed && h->observed[i]; i++)
		rc = named_dot_git(h->observed[i]) ? candidate_parent(list, n, h->observed[i])
						   : string_list_add_once(list, n, h->observed[i]);
	return rc;
}

/*
 * Each directory of a work tree from which git's discovery now leads to
 * another git directory than before the run (git_reach.h); the git
 * directories named in *named, whose observed lines would say less.
 */
static int reach_findings(const struct procage_handoff *h, const struct repositories *after,
			  struct findings *f, char ***named)
{
	char **candidates = NULL, **lines = NULL;
	size_t n = 0;
	int rc = reach_candidates(h, after, &candidates, &n);
	if (rc == 0)
		rc = reach_points_compare(&h->reach, candidates, n, &lines, named);
	for (size_t i = 0; i < n; i++)
		free(candidates[i]);
	free(candidates);
	for (size_t i = 0; rc == 0 && lines[i]; i++) {
		rc = finding_add(f, lines[i], 0);
		lines[i] = NULL; /* the findings' from here */
		if (rc < 0)
			for (size_t j = i + 1; lines[j]; j++)
				free(lines[j]);
	}
	free(lines);
	return rc;
}

/* Programs made on the caller's search path ahead of a command (handoff_path.h). */
static int search_path_findings(const struct procage_handoff *h, struct findings *f)
{
	char **lines;
	int rc = search_path_compare(&h->search, &lines);
	for (size_t i = 0; rc == 0 && lines[i]; i++) {
		rc = finding_add(f, lines[i], 0);
		lines[i] = NULL; /* the findings' from here */
		if (rc < 0)
			for (size_t j = i + 1; lines[j]; j++)
				free(lines[j]);
	}
	free(lines);
	return rc;
}

PROCAGE_API int procage_handoff_end(struct procage_handoff *h, char ***findings,
				    struct procage_error *err)
{
	struct findings f = {calloc(1, sizeof(char *)), 0};
	struct repositories after;
	error_clear(err);
	if (!h || !findings || !f.list) {
		free(f.list);
		return error_set(err, -EINVAL, "no report or no place for the findings given");
	}
	int rc = handoff_find(h, &after, err);
	if (rc < 0)
		rc = error_prefix(err, rc, "finding the repositories after the run: ");
	if (rc == 0) {
		char **reach_named = NULL;
		if ((rc = compare(&h->before, &after, &f)) < 0 ||
		    (!h->waived && (rc = reach_findings(h, &after, &f, &reach_named)) < 0) ||
		    (rc = observed_compare(h, &after, reach_named ? reach_named : (char *[]){NULL},
					   &f)) < 0 ||
		    (rc = search_path_findings(h, &f)) < 0)
			error_set(err, rc, "out of memory");
		procage_strings_free(reach_named);
		repositories_free(&after);
	}
	if (rc < 0) {
		procage_strings_free(f.list);
		return rc;
	}
	*findings = f.list;
	return 0;
}
