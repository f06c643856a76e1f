/*
 * The judgement of a config change (git_config_judge.h). A config is read
 * as the entries git would see: for each full name ("remote.origin.url"),
 * the values in the order they come, since git takes the last of a
 * single-valued key and every one of a list (remote.*.fetch). A name
 * whose values differ between the two texts is a changed key; it must be
 * on the list below, and each of its new values must pass the row's
 * check. Comments, spacing, section order and empty sections change
 * nothing git does and are not looked at.
 *
 * The list is kept short on purpose: it holds what git's own commands
 * write into a repository's config in ordinary work (git remote, git
 * branch, git checkout --track, git submodule add, git config user.*),
 * and nothing that names a program (core.fsmonitor, core.sshCommand,
 * *.uploadpack, filter.*, diff.*.textconv, merge.*.driver, alias.*,
 * credential.*, gpg.program, sequence.editor, core.editor, core.pager,
 * core.askPass, core.gitProxy), a file or directory git then reads or
 * runs from (core.hooksPath, core.worktree, core.bare, include.*,
 * includeIf.*, core.excludesFile, core.attributesFile, extensions.*), or
 * a rewriting of where git fetches from (url.*.insteadOf). Any key not
 * listed is refused, so a key git learns later is refused until it is
 * judged and added.
 */
#include "git_config_judge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/git_config.h"

/* Where a row's key sits: a section of its own, or below a named subsection. */
enum sub_rule { SUB_NONE, SUB_ANY };

struct safe_key {
	const char *section;
	enum sub_rule sub;
	const char *key;		     /* lower-case, as the reader names keys */
	bool (*value_ok)(const char *value); /* NULL: any value */
};

static bool digits(const char *value)
{
	if (!value || !*value)
		return false;
	for (; *value; value++)
		if (*value < '0' || *value > '9')
			return false;
	return true;
}

/* git's own transports, whose programs git ships; "foo://" runs git-remote-foo. */
static bool known_scheme(const char *value, size_t len)
{
	static const char *const schemes[] = {"http",	 "https",   "ssh", "git", "file",
					      "git+ssh", "ssh+git", "ftp", "ftps"};
	for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++)
		if (strlen(schemes[i]) == len && strncmp(value, schemes[i], len) == 0)
			return true;
	return false;
}

/*
 * A URL git fetches from with a program of its own: no "helper::address"
 * (ext:: runs any command, and any other name runs git-remote-NAME from the
 * search path), no "scheme://" but git's own, and no host or path that
 * begins with '-' (an option to ssh). Controls are refused with them.
 */
static bool url_ok(const char *value)
{
	/* "user@-oProxyCommand=...:path" is the same option, scp-like. */
	if (!value || !*value || value[0] == '-' || strstr(value, "::") || strstr(value, "@-"))
		return false;
	for (const char *c = value; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	const char *sep = strstr(value, "://");
	if (!sep)
		return true; /* a path, or host:path (ssh) */
	if (!known_scheme(value, (size_t)(sep - value)))
		return false;
	const char *host = sep + 3;
	const char *end = host + strcspn(host, "/");
	const char *at = memchr(host, '@', (size_t)(end - host));
	return host[0] != '-' && (!at || at[1] != '-');
}

/* submodule.*.update: git's own ways; "!command" runs the command. */
static bool update_ok(const char *value)
{
	static const char *const ways[] = {"checkout", "rebase", "merge", "none"};
	for (size_t i = 0; value && i < sizeof ways / sizeof *ways; i++)
		if (strcmp(value, ways[i]) == 0)
			return true;
	return false;
}

/* clang-format off */
static const struct safe_key safe_keys[] = {
	/* Who commits: names and addresses only (user.signingKey may name a file). */
	{ "user", SUB_NONE, "name", NULL },
	{ "user", SUB_NONE, "email", NULL },
	{ "author", SUB_NONE, "name", NULL },
	{ "author", SUB_NONE, "email", NULL },
	{ "committer", SUB_NONE, "name", NULL },
	{ "committer", SUB_NONE, "email", NULL },
	/* What git init and clone write; none names a path or a program. */
	{ "core", SUB_NONE, "repositoryformatversion", digits },
	{ "core", SUB_NONE, "filemode", NULL },
	{ "core", SUB_NONE, "logallrefupdates", NULL },
	{ "core", SUB_NONE, "ignorecase", NULL },
	{ "core", SUB_NONE, "precomposeunicode", NULL },
	{ "core", SUB_NONE, "symlinks", NULL },
	{ "core", SUB_NONE, "autocrlf", NULL },
	{ "core", SUB_NONE, "eol", NULL },
	{ "core", SUB_NONE, "safecrlf", NULL },
	{ "core", SUB_NONE, "quotepath", NULL },
	{ "core", SUB_NONE, "sparsecheckout", NULL },
	{ "core", SUB_NONE, "sparsecheckoutcone", NULL },
	{ "init", SUB_NONE, "defaultbranch", NULL },
	/* git remote: where to fetch and push, by git's own transports. */
	{ "remote", SUB_ANY, "url", url_ok },
	{ "remote", SUB_ANY, "pushurl", url_ok },
	{ "remote", SUB_ANY, "fetch", NULL },
	{ "remote", SUB_ANY, "push", NULL },
	{ "remote", SUB_ANY, "mirror", NULL },
	{ "remote", SUB_ANY, "tagopt", NULL },
	{ "remote", SUB_ANY, "prune", NULL },
	{ "remote", SUB_ANY, "prunetags", NULL },
	{ "remote", SUB_ANY, "skipdefaultupdate", NULL },
	{ "remote", SUB_ANY, "skipfetchall", NULL },
	/* git branch, checkout --track, branch -m: what a branch follows. */
	{ "branch", SUB_ANY, "remote", NULL },
	{ "branch", SUB_ANY, "pushremote", NULL },
	{ "branch", SUB_ANY, "merge", NULL },
	{ "branch", SUB_ANY, "rebase", NULL },
	{ "branch", SUB_ANY, "description", NULL },
	{ "branch", SUB_NONE, "autosetupmerge", NULL },
	{ "branch", SUB_NONE, "autosetuprebase", NULL },
	/* git submodule add and init: the submodule's URL, by git's transports. */
	{ "submodule", SUB_ANY, "url", url_ok },
	{ "submodule", SUB_ANY, "active", NULL },
	{ "submodule", SUB_ANY, "branch", NULL },
	{ "submodule", SUB_ANY, "update", update_ok },
	{ "submodule", SUB_ANY, "ignore", NULL },
	{ "submodule", SUB_ANY, "fetchrecursesubmodules", NULL },
	/* How pulls, pushes and fetches behave among git's own ways. */
	{ "pull", SUB_NONE, "rebase", NULL },
	{ "pull", SUB_NONE, "ff", NULL },
	{ "push", SUB_NONE, "default", NULL },
	{ "push", SUB_NONE, "autosetupremote", NULL },
	{ "push", SUB_NONE, "followtags", NULL },
	{ "fetch", SUB_NONE, "prune", NULL },
	{ "fetch", SUB_NONE, "prunetags", NULL },
	{ "merge", SUB_NONE, "conflictstyle", NULL },
	{ "lfs", SUB_NONE, "repositoryformatversion", digits },
};
/* clang-format on */

/* The row for name ("section[.sub].key"), or NULL. */
static const struct safe_key *safe_key_find(const char *name)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');
	if (!first)
		return NULL;
	size_t section_len = (size_t)(first - name);
	bool has_sub = last != first;
	for (size_t i = 0; i < sizeof safe_keys / sizeof *safe_keys; i++) {
		const struct safe_key *k = &safe_keys[i];
		if (strlen(k->section) == section_len &&
		    strncmp(name, k->section, section_len) == 0 && strcmp(last + 1, k->key) == 0 &&
		    has_sub == (k->sub == SUB_ANY))
			return k;
	}
	return NULL;
}

struct entry {
	char *name;
	char *value; /* NULL: a key without '=' */
	size_t seq;
};

struct entries {
	struct entry *items;
	size_t n, cap;
};

static int entry_add(const char *name, const char *value, void *ctx)
{
	struct entries *e = ctx;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 32;
		struct entry *grown = realloc(e->items, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		e->items = grown;
		e->cap = cap;
	}
	struct entry *it = &e->items[e->n];
	*it = (struct entry){strdup(name), value ? strdup(value) : NULL, e->n};
	if (!it->name || (value && !it->value)) {
		free(it->name);
		free(it->value);
		return -ENOMEM;
	}
	e->n++;
	return 0;
}

static void entries_free(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->items[i].name);
		free(e->items[i].value);
	}
	free(e->items);
}

static int entry_compare(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Read text into sorted entries: 0, -EINVAL (*line set) or -ENOMEM. */
static int entries_read(const char *text, size_t len, struct entries *e, int *line)
{
	int rc = git_config_parse(text, len, entry_add, e, line);
	if (rc == 0 && e->n)
		qsort(e->items, e->n, sizeof *e->items, entry_compare);
	return rc;
}

/* The entries of one name from *at on: their count. */
static size_t run_of(const struct entries *e, size_t at, const char *name)
{
	size_t n = 0;
	while (at + n < e->n && strcmp(e->items[at + n].name, name) == 0)
		n++;
	return n;
}

static bool values_equal(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool runs_equal(const struct entry *a, size_t na, const struct entry *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (!values_equal(a[i].value, b[i].value))
			return false;
	return true;
}

static int refuse(struct git_config_verdict *v, enum git_config_verdict_kind kind, const char *key)
{
	v->kind = kind;
	snprintf(v->key, sizeof v->key, "%s", key);
	return -EACCES;
}

/* A name whose values differ: its row, and each new value by the row's check. */
static int judge_name(const char *name, const struct entry *now, size_t n,
		      struct git_config_verdict *v)
{
	const struct safe_key *k = safe_key_find(name);
	if (!k)
		return refuse(v, GIT_CONFIG_KEY_REFUSED, name);
	for (size_t i = 0; k->value_ok && i < n; i++)
		if (!k->value_ok(now[i].value))
			return refuse(v, GIT_CONFIG_VALUE_REFUSED, name);
	return 0;
}

/* Walk both sorted lists side by side; the first refused name decides. */
static int compare(const struct entries *old, const struct entries *now,
		   struct git_config_verdict *v)
{
	size_t i = 0, j = 0;
	while (i < old->n || j < now->n) {
		int c = i >= old->n   ? 1
			: j >= now->n ? -1
				      : strcmp(old->items[i].name, now->items[j].name);
		const char *name = c <= 0 ? old->items[i].name : now->items[j].name;
		size_t ni = c <= 0 ? run_of(old, i, name) : 0;
		size_t nj = c >= 0 ? run_of(now, j, name) : 0;
		if (!runs_equal(old->items + i, ni, now->items + j, nj)) {
			int rc = judge_name(name, now->items + j, nj, v);
			if (rc < 0)
				return rc;
		}
		i += ni;
		j += nj;
	}
	return 0;
}

int git_config_judge(const char *old_text, size_t old_len, const char *new_text, size_t new_len,
		     struct git_config_verdict *v)
{
	struct entries old = {0}, now = {0};
	*v = (struct git_config_verdict){GIT_CONFIG_ALLOWED, "", 0};
	int rc = entries_read(old_text, old_len, &old, &v->line);
	if (rc == -EINVAL) {
		v->kind = GIT_CONFIG_OLD_UNREADABLE;
		rc = -EACCES;
	} else if (rc == 0 && (rc = entries_read(new_text, new_len, &now, &v->line)) == -EINVAL) {
		v->kind = GIT_CONFIG_NEW_UNREADABLE;
		rc = -EACCES;
	}
	if (rc == 0)
		rc = compare(&old, &now, v);
	entries_free(&old);
	entries_free(&now);
	return rc;
}
