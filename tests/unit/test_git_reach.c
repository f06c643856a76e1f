/*
 * Unit tests: where git's discovery leads from a directory, and the
 * before-and-after comparison of the trust-handoff report (git_reach.c),
 * in a directory of the test's own. git itself judges the same layouts in
 * tests/e2e/repositories.t.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover/git_reach.h"
#include "procage.h"
#include "tap.h"

static char dir[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char path[4][PATH_MAX];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, PATH_MAX, "%s%s%.*s", dir, rel[0] ? "/" : "", PATH_MAX / 4, rel);
	return p;
}

static void sh(const char *script)
{
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof cmd, "cd '%s' && { %s; }", dir, script);
	if (system(cmd) != 0)
		tap_diag("could not run: %s", script);
}

/* A minimal store at rel (HEAD, objects, refs). */
static void store(const char *rel)
{
	char script[PATH_MAX];
	snprintf(script, sizeof script,
		 "mkdir -p %s/objects %s/refs && echo 'ref: refs/heads/main' >%s/HEAD", rel, rel,
		 rel);
	sh(script);
}

/* Where discovery from rel leads, relative to the test's directory ("" for none). */
static void expect_reach(const char *rel, const char *want, const char *what)
{
	struct git_reach r;
	const char *got = "";
	if (git_reach_from(at(rel), &r) == 0 && r.found)
		got = strncmp(r.gitdir, dir, strlen(dir)) == 0 ? r.gitdir + strlen(dir) + 1
							       : r.gitdir;
	if (!tap_ok(strcmp(got, want) == 0, "%s", what))
		tap_diag("reached \"%s\", want \"%s\"", got, want);
	git_reach_free(&r);
}

static size_t compared(struct reach_points *p, char *const *candidates, size_t n, char ***lines)
{
	char **named = NULL;
	size_t count = 0;
	*lines = NULL;
	if (reach_points_compare(p, candidates, n, lines, &named) != 0)
		return (size_t)-1;
	while ((*lines)[count])
		count++;
	procage_strings_free(named);
	return count;
}

int main(void)
{
	const char *tmp =
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof dir, "%s/procage-unit-reach-XXXXXX", tmp);
	if (!tap_ok(mkdtemp(dir) != NULL, "a directory of the test's own"))
		return tap_done();
	char *real = realpath(dir, NULL);
	snprintf(dir, sizeof dir, "%s", real ? real : dir);
	free(real);

	store("w/.git");
	sh("mkdir -p w/sub/a/b w/other");
	expect_reach("w/sub/a/b", "w/.git", "discovery goes up to the work tree's .git");
	sh("mkdir -p w/sub/.git");
	expect_reach("w/sub/a", "w/.git", "an empty .git directory is passed over, as git does");
	store("w/sub/evil");
	sh("rmdir w/sub/.git && echo 'gitdir: evil' >w/sub/.git");
	expect_reach("w/sub/a", "w/sub/evil", "a gitfile leads to the store it names");
	sh("echo 'gitdir: nowhere' >w/sub/.git");
	expect_reach("w/sub/a", "", "a gitfile naming no store stops git: it leads nowhere");
	sh("echo 'gitdir:evil' >w/sub/.git");
	expect_reach("w/sub", "", "nor does one without git's exact \"gitdir: \"");
	sh("rm w/sub/.git");
	store("w/other");
	expect_reach("w/other", "w/other", "a bare layout is a store of its own");
	sh("echo garbage >w/other/HEAD");
	expect_reach("w/other", "w/.git", "a HEAD git would not take makes no store");

	/* Before and after: recorded by identity. */
	struct reach_points p = {0};
	char **lines;
	tap_ok(reach_points_add(&p, at("w")) == 0 && reach_points_add(&p, at("w/sub/a")) == 0 &&
		   reach_points_add(&p, at("w/missing")) == 0 && p.n == 2,
	       "directories are recorded, a missing one skipped");
	tap_ok(compared(&p, NULL, 0, &lines) == 0, "nothing changed, nothing said");
	procage_strings_free(lines);
	store("w/sub/a/.git");
	char *candidates[] = {(char *)at("w/sub/a/b")};
	size_t n = compared(&p, candidates, 1, &lines);
	if (!tap_ok(n == 1 && strstr(lines[0], "now leads git to") &&
			strstr(lines[0], "/w/sub/a/.git") && strstr(lines[0], "(was "),
		    "a .git made above a recorded directory is named once, with the true place"))
		tap_diag("%zu lines: %s", n, n != (size_t)-1 && n ? lines[0] : "");
	procage_strings_free(lines);
	sh("rm -rf w/sub/a/.git && mv w/.git w/old.git");
	store("w/.git");
	n = compared(&p, NULL, 0, &lines);
	tap_ok(n == 1 && strstr(lines[0], "another directory of that name"),
	       "a .git replaced under its own name is named by identity, once (%zu lines)", n);
	procage_strings_free(lines);
	reach_points_free(&p);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	tap_ok(system(cmd) == 0 && access(dir, F_OK) != 0, "the test's directory is removed");
	return tap_done();
}
