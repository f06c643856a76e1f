/*
 * Unit tests: the git directories a run is seen writing where git runs or
 * reads (handoff_observed.c), in a directory of the test's own.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch/handoff_observed.h"
#include "procage.h"
#include "tap.h"

/* Short enough that every path made from it fits. */
static char dir[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char path[4][PATH_MAX];
	static int next;
	char *p = path[next++ % 4];
	if (snprintf(p, PATH_MAX, "%s/%.*s", dir, PATH_MAX / 4, rel) >= PATH_MAX)
		p[0] = '\0';
	return p;
}

static void make_dir(const char *rel)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", at(rel));
	if (system(cmd) != 0)
		tap_diag("could not make %s", rel);
}

static void make_file(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	else
		tap_diag("could not make %s", rel);
}

/* The kept list as one string: "a b c" with dir's prefix taken off, and the count not kept. */
static void kept(struct handoff_observed *o, char *out, size_t size, uint64_t *more)
{
	char **list = NULL;
	size_t len = strlen(dir), used = 0;
	uint64_t unseen;
	out[0] = '\0';
	if (handoff_observed_list(o, &list, more, &unseen) != 0)
		return;
	for (size_t i = 0; list[i]; i++) {
		const char *name = strncmp(list[i], dir, len) == 0 ? list[i] + len + 1 : list[i];
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "", name);
	}
	procage_strings_free(list);
}

static void expect(struct handoff_observed *o, const char *want, const char *what)
{
	char got[4096];
	uint64_t more;
	kept(o, got, sizeof got, &more);
	if (!tap_ok(strcmp(got, want) == 0, "%s", what))
		tap_diag("kept \"%s\", want \"%s\"", got, want);
}

int main(void)
{
	const char *tmp =
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof dir, "%s/procage-unit-observed-XXXXXX", tmp);
	if (!tap_ok(mkdtemp(dir) != NULL, "a directory of the test's own"))
		return tap_done();
	struct handoff_observed o;
	handoff_observed_init(&o);

	/* Below a ".git" component. */
	handoff_observed_change(&o, DENIAL_CREATE, at("w/.git"), false);
	expect(&o, "w/.git", "a .git made is kept");
	handoff_observed_change(&o, DENIAL_CREATE, at("w/.git/hooks/pre-commit"), false);
	expect(&o, "w/.git", "a hook written in it keeps it once");
	handoff_observed_change(&o, DENIAL_WRITE, at("x/.git/index"), true);
	handoff_observed_change(&o, DENIAL_CREATE, at("x/.git/objects/ab/cdef"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("x/.git/refs/heads/main"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("x/.git/HEAD"), true);
	handoff_observed_change(&o, DENIAL_CREATE, at("x/.git/configuration"), false);
	expect(&o, "w/.git",
	       "the index, objects, refs, HEAD and other names are git's own work: not kept");
	handoff_observed_change(&o, DENIAL_READ, at("x/.git/config"), true);
	handoff_observed_change(&o, DENIAL_REMOVE, at("x/.git/hooks/pre-commit"), true);
	handoff_observed_change(&o, DENIAL_EXEC, at("x/.git/hooks/pre-commit"), true);
	expect(&o, "w/.git", "reads, removals and execs are not changes");
	handoff_observed_change(&o, DENIAL_WRITE, at("x/.git/config"), true);
	handoff_observed_change(&o, DENIAL_CREATE, at("y/.git/modules/m/config"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("z/.git/worktrees/t/commondir"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("v/.git/modules/m/hooks"), false);
	expect(&o, "w/.git x/.git y/.git z/.git v/.git",
	       "config, a submodule's config, a worktree's commondir, a hooks directory: kept");
	handoff_observed_change(&o, DENIAL_CREATE, at("u/.github/hooks/x"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("u/x.git.bak/config"), false);
	expect(&o, "w/.git x/.git y/.git z/.git v/.git", "names that only look like .git are not");

	/* Stores without a ".git" component, found by what is in them. */
	handoff_observed_destroy(&o);
	handoff_observed_init(&o);
	make_dir("bare/objects");
	make_dir("bare/refs");
	make_file("bare/HEAD");
	make_dir("plain/hooks");
	handoff_observed_change(&o, DENIAL_WRITE, at("plain/config"), true);
	handoff_observed_change(&o, DENIAL_CREATE, at("plain/hooks/pre-commit"), false);
	expect(&o, "", "a config or hooks of a directory git does not take for a store: not kept");
	handoff_observed_change(&o, DENIAL_CREATE, at("bare/hooks/pre-receive"), false);
	expect(&o, "bare", "a hook of a bare repository is kept");
	make_dir("store2/objects");
	make_file("store2/HEAD");
	handoff_observed_change(&o, DENIAL_CREATE, at("store2/refs"), true);
	expect(&o, "bare", "an entry that was there already completes nothing");
	handoff_observed_change(&o, DENIAL_CREATE, at("store2/refs"), false);
	expect(&o, "bare store2", "the entry that makes a directory a store keeps it");
	make_dir("wt");
	make_file("wt/HEAD");
	make_file("wt/commondir");
	handoff_observed_change(&o, DENIAL_CREATE, at("wt/config.worktree"), false);
	expect(&o, "bare store2 wt",
	       "a worktree's git directory (HEAD and commondir) is a store too");
	make_dir("wt2");
	make_file("wt2/HEAD");
	handoff_observed_change(&o, DENIAL_CREATE, at("wt2/config.worktree"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("wt2/commondir"), false);
	expect(&o, "bare store2 wt wt2",
	       "the commondir that makes a worktree's git directory keeps it");

	/* Renames: what is kept below the source is kept below the target too. */
	handoff_observed_destroy(&o);
	handoff_observed_init(&o);
	handoff_observed_change(&o, DENIAL_CREATE, at("r/.git"), false);
	handoff_observed_change(&o, DENIAL_CREATE, at("r2/.git"), false);
	handoff_observed_rename(&o, at("r"), at("deep/a/b/r"));
	expect(&o, "r/.git r2/.git deep/a/b/r/.git", "a rename of its work tree keeps both names");
	handoff_observed_rename(&o, at("deep"), at("deeper/x"));
	expect(&o, "r/.git r2/.git deep/a/b/r/.git deeper/x/a/b/r/.git",
	       "a rename of a directory above it too");
	handoff_observed_rename(&o, at("other"), at("elsewhere"));
	expect(&o, "r/.git r2/.git deep/a/b/r/.git deeper/x/a/b/r/.git",
	       "a rename of something else adds nothing");

	/* Bounded. */
	handoff_observed_destroy(&o);
	handoff_observed_init(&o);
	for (int i = 0; i < HANDOFF_OBSERVED_KEPT + 8; i++) {
		char rel[32];
		snprintf(rel, sizeof rel, "n%d/.git", i);
		handoff_observed_change(&o, DENIAL_CREATE, at(rel), false);
		handoff_observed_change(&o, DENIAL_CREATE, at(rel), false);
	}
	char got[8192];
	uint64_t more = 0;
	kept(&o, got, sizeof got, &more);
	tap_ok(o.n == HANDOFF_OBSERVED_KEPT && more == 16,
	       "past %d only a count grows (kept %zu, %llu more)", HANDOFF_OBSERVED_KEPT, o.n,
	       (unsigned long long)more);
	handoff_observed_destroy(&o);

	/* Calls the supervisor could not look at are counted, apart from what is kept. */
	handoff_observed_init(&o);
	handoff_observed_unseen(&o);
	handoff_observed_unseen(&o);
	char **list = NULL;
	uint64_t unseen = 0;
	more = 1;
	int listed = handoff_observed_list(&o, &list, &more, &unseen);
	tap_ok(listed == 0 && list && !list[0] && more == 0 && unseen == 2,
	       "two calls not looked at are counted (%llu), and nothing is kept for them",
	       (unsigned long long)unseen);
	procage_strings_free(list);
	handoff_observed_destroy(&o);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	tap_ok(system(cmd) == 0 && access(dir, F_OK) != 0, "the test's directory is removed");
	return tap_done();
}
