/*
 * Unit tests: a profile's cache made with its missing parents inside the
 * caller's own home (procage_policy_allow_cache_directory), never at or in
 * a class location or a directory of the search path. The home is a
 * temporary directory of the test's own.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "tap.h"

static char home[PATH_MAX];

static bool absent(const char *rel)
{
	char path[PATH_MAX * 2];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", home, rel);
	return lstat(path, &st) != 0 && errno == ENOENT;
}

static bool made(const char *rel)
{
	char path[PATH_MAX * 2];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", home, rel);
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 &&
	       st.st_uid == geteuid();
}

/* The cache at home/rel for a policy of this home: the call's result. */
static int cache(const char *rel, int check_only, struct procage_error *err)
{
	char path[PATH_MAX * 2];
	struct procage_policy *p = procage_policy_new();
	snprintf(path, sizeof path, "%s/%s", home, rel);
	int rc = procage_policy_set_home(p, home, err);
	if (rc == 0)
		rc = procage_policy_allow_cache_directory(p, path, check_only, err);
	if (rc == 0 && !check_only && procage_policy_access(p, path) != PROCAGE_WRITE)
		rc = -EFAULT; /* made but not granted */
	procage_policy_free(p);
	return rc;
}

static void test_parents_made(void)
{
	struct procage_error err;
	int rc = cache(".cache/pip", 1, &err);
	tap_ok(rc == 1 && absent(".cache"), "a dry check says it would be made and makes nothing");
	rc = cache(".cache/pip", 0, &err);
	tap_ok(rc == 0 && made(".cache") && made(".cache/pip"),
	       "~/.cache/pip with no ~/.cache: both made, 0700, the caller's, and granted (%d %s)",
	       rc, rc ? err.message : "");
	rc = cache(".cargo/registry", 0, &err);
	tap_ok(rc == 0 && made(".cargo/registry") && absent(".cargo/bin"),
	       "~/.cargo above ~/.cargo/bin is made (not granted), ~/.cargo/bin is not");
	rc = cache("a/b/c", 0, &err);
	tap_ok(rc == 0 && made("a") && made("a/b") && made("a/b/c"), "a chain of parents is made");
	tap_ok(cache(".cache/pip", 0, &err) == 0, "an existing cache is granted again");
}

static void test_refused(void)
{
	struct procage_error err;
	int rc = cache("go", 0, &err);
	tap_ok(rc == -EPERM && strstr(err.message, "above") && strstr(err.message, "go/bin") &&
		   absent("go"),
	       "a cache above a class location is refused: %s", err.message);
	rc = cache(".config/autostart/x", 0, &err);
	tap_ok(rc == -EPERM && strstr(err.message, "autostart") && absent(".config"),
	       "a parent at a class location is refused, and nothing is made: %s", err.message);
	rc = cache("x/../y/z", 0, &err);
	tap_ok(rc == -EINVAL && absent("y"), "a missing '..' is refused: %s", err.message);

	char bin[PATH_MAX * 2], path[PATH_MAX * 3];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	snprintf(bin, sizeof bin, "%s/tools/bin", home);
	snprintf(path, sizeof path, "%s:/usr/bin", bin);
	setenv("PATH", path, 1);
	rc = cache("tools/bin/cache", 0, &err);
	tap_ok(rc == -EPERM && strstr(err.message, "search path") && absent("tools"),
	       "a directory of the search path is never made: %s", err.message);
	rc = cache("tools/cache", 0, &err);
	tap_ok(rc == 0 && made("tools/cache") && absent("tools/bin"), "beside it is fine (%d %s)",
	       rc, rc ? err.message : "");
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);

	if (geteuid() == 0 && chown(home, 65534, 65534) == 0) {
		rc = cache(".npm-like/sub", 0, &err);
		tap_ok(rc == -ENOENT && strstr(err.message, "not owned") && absent(".npm-like"),
		       "in a home not the caller's, parents are not made: %s", err.message);
		rc = cache(".npm-like", 0, &err);
		tap_ok(rc == 0 && made(".npm-like"),
		       "under its existing parent, a cache is made as --write-new would");
		tap_ok(chown(home, 0, 0) == 0, "the home is root's again");
	} else {
		tap_skip("not root: a home of another user is not tried");
	}
}

int main(void)
{
	char tmpl[] = "/tmp/procage-cache-test.XXXXXX";
	if (!mkdtemp(tmpl) || !realpath(tmpl, home))
		return 1;
	test_parents_made();
	test_refused();
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	if (system(cmd) != 0)
		tap_ok(false, "the temporary home is removed");
	return tap_done();
}
