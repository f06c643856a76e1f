/*
 * Unit tests: canonical_path with its memo (base/canonical.c) gives what
 * realpath gives, errno included, for links absolute and relative, chains,
 * loops, "..", missing components, a file used as a directory and trailing
 * slashes; canonical_or_absent spells a missing path alike with and
 * without it; an answer the memo holds is dropped by canonical_memo_forget;
 * without a memo nothing is remembered.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/canonical.h"
#include "caged.h"
#include "tap.h"

static char top[PATH_MAX / 2];

static const char *at(const char *rest)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *out = buf[next++ % 4];
	snprintf(out, PATH_MAX, "%s/%s", top, rest);
	return out;
}

static bool fixture_make(void)
{
	FILE *f = fopen(at("d/file"), "w");
	bool ok = f && fclose(f) == 0;
	return ok && mkdir(at("d/sub"), 0700) == 0 && symlink(at("d"), at("abs")) == 0 &&
	       symlink("d/sub", at("rel")) == 0 && symlink("rel/..", at("up")) == 0 &&
	       symlink("abs", at("chain")) == 0 && symlink("loop", at("loop")) == 0 &&
	       symlink("missing", at("dangling")) == 0 && symlink("d/file/", at("slashed")) == 0 &&
	       symlink("/", at("root")) == 0;
}

/* canonical_path in a memo and realpath agree on path: result and errno. */
static bool agrees(const char *path)
{
	errno = 0;
	char *want = realpath(path, NULL);
	int want_errno = want ? 0 : errno;
	errno = 0;
	char *got = canonical_path(path);
	int got_errno = got ? 0 : errno;
	bool same = want ? got && strcmp(want, got) == 0 : !got && got_errno == want_errno;
	if (!same)
		tap_diag("%s: realpath %s (%d), canonical_path %s (%d)", path, want ? want : "NULL",
			 want_errno, got ? got : "NULL", got_errno);
	free(want);
	free(got);
	return same;
}

static void test_agreement(void)
{
	static const char *const cases[] = {
		"d", "d/file", "d/sub", "abs", "abs/sub", "abs/file", "rel", "rel/..", "up",
		"up/file", "chain/sub/../file", "loop", "loop/x", "dangling", "dangling/x",
		"missing", "missing/x", "d/file/x", "d/file/", "d/file/.", "d/file/..",
		"d/sub/", "d/sub/.", "d//sub//", "d/./sub/../file", "slashed", "root",
		"root/..", "root/etc/..", "d/sub/../../d/file",
	};
	canonical_memo_begin();
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
			tap_ok(agrees(at(cases[i])), "%s agrees with realpath (%s memo)", cases[i],
			       round ? "a warm" : "a cold");
	tap_ok(agrees("/"), "/ agrees with realpath");
	canonical_memo_end();
}

/* canonical_or_absent spells a path alike with and without a memo. */
static bool absent_agrees(const char *path)
{
	bool absent_plain = false, absent_memo = false;
	errno = 0;
	char *plain = canonical_or_absent(path, &absent_plain);
	int plain_errno = plain ? 0 : errno;
	canonical_memo_begin();
	errno = 0;
	char *memo = canonical_or_absent(path, &absent_memo);
	int memo_errno = memo ? 0 : errno;
	canonical_memo_end();
	bool same = absent_plain == absent_memo &&
		    (plain ? memo && strcmp(plain, memo) == 0 : !memo && plain_errno == memo_errno);
	if (!same)
		tap_diag("%s: plain %s (%d, absent %d), memo %s (%d, absent %d)", path,
			 plain ? plain : "NULL", plain_errno, absent_plain, memo ? memo : "NULL",
			 memo_errno, absent_memo);
	free(plain);
	free(memo);
	return same;
}

static void test_absent(void)
{
	static const char *const cases[] = {
		"missing", "missing/deeper/still", "d/missing", "abs/missing/x", "rel/missing",
		"d/file/x", "d/file/x/y", "missing/../d/file", "missing/../../x", "dangling",
		"dangling/x", "loop/x", "d/sub", "abs/file", "d/missing/",
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		tap_ok(absent_agrees(at(cases[i])), "%s is spelled alike with a memo", cases[i]);
}

/*
 * A parent asked about twice is listed, and its listing answers for its
 * children: missing ones, links (still read) and the rest, in a small
 * directory, an empty one and one too large to list.
 */
static void test_listing(void)
{
	bool made = mkdir(at("empty"), 0700) == 0 && mkdir(at("few"), 0700) == 0 &&
		    mkdir(at("few/sub"), 0700) == 0 &&
		    symlink("../d", at("few/ln")) == 0 && mkdir(at("many"), 0700) == 0 &&
		    symlink("../d", at("many/ln")) == 0;
	for (int i = 0; made && i < 600; i++) {
		char name[32];
		snprintf(name, sizeof name, "many/f%d", i);
		FILE *f = fopen(at(name), "w");
		made = f && fclose(f) == 0;
	}
	tap_ok(made, "a small and a large directory are made");
	static const char *const cases[] = {
		"few/sub", "few/ln", "few/ln/file", "few/none", "few/none/x", "few/sub/..",
		"many/f1", "many/f599", "many/ln/sub", "many/none", "many/f1/x",
		"empty/a", "empty/b", "empty/b/c",
	};
	canonical_memo_begin();
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
			tap_ok(agrees(at(cases[i])), "%s agrees with realpath (listed, %s memo)",
			       cases[i], round ? "a warm" : "a cold");
			tap_ok(absent_agrees(at(cases[i])), "%s is spelled alike (listed)", cases[i]);
		}
	canonical_memo_end();
}

/* What the memo holds stays until forgotten; without a memo the tree is read each time. */
static void test_memo_lifetime(void)
{
	canonical_memo_begin();
	char *before = canonical_path(at("later"));
	bool was_missing = !before && errno == ENOENT;
	bool made = mkdir(at("later"), 0700) == 0;
	char *held = canonical_path(at("later"));
	tap_ok(was_missing && made && !held, "a memo keeps its answer for a path made since");
	canonical_memo_forget();
	char *fresh = canonical_path(at("later"));
	tap_ok(fresh && strcmp(fresh, at("later")) == 0, "forgotten, the path is read again");
	canonical_memo_end();
	rmdir(at("later"));
	char *outside = canonical_path(at("later"));
	tap_ok(!outside && errno == ENOENT, "without a memo each call reads the tree");
	free(before);
	free(held);
	free(fresh);
	free(outside);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char real[PATH_MAX];
	snprintf(top, sizeof top, "%s/procage-canonical-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(top) || !realpath(top, real) || strlen(real) >= sizeof top) {
		tap_ok(false, "a temporary directory");
		return tap_done();
	}
	memcpy(top, real, strlen(real) + 1);
	bool made = mkdir(at("d"), 0700) == 0 && fixture_make();
	tap_ok(made, "the fixture in %s", top);
	if (made) {
		test_agreement();
		test_absent();
		test_listing();
		test_memo_lifetime();
	}
	caged_remove_tree(top);
	return tap_done();
}
