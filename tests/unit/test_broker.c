/*
 * Unit tests of the broker's rules: git's own names, the protected names
 * and the zones entry_grants_expand finds around denials. The broker at
 * work, against a real cage, is tested by tests/escape/broker.c and
 * tests/e2e/git_t2.t.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage/broker_zones.h"
#include "cage/entry_grants.h"
#include "tap.h"
#include "run/tmpdir.h"

static void test_git_names(void)
{
	static const char *const yes[] = {
	    "HEAD",
	    "HEAD.lock",
	    "ORIG_HEAD",
	    "FETCH_HEAD",
	    "MERGE_HEAD",
	    "CHERRY_PICK_HEAD",
	    "index",
	    "index.lock",
	    "packed-refs",
	    "packed-refs.lock", "packed-refs.new",
	    "COMMIT_EDITMSG",
	    "index.stash.4242",
	    "index.stash.4242.lock",
	    "next-index-77.lock",
	    "sharedindex.0123abcd",
	    "logs",
	    "refs",
	    "objects",
	    "rebase-merge",
	    "sequencer",
	    "gc.pid",
	    "gc.log.lock",
	    "BISECT_LOG",
	    "AUTO_MERGE",
	    "lfs",
	    "shallow.lock",
	    "description",
	    "config.lock",
	    "config.worktree.lock",
	};
	static const char *const no[] = {
	    "config",	    "config.lock.lock", "config.worktree",
	    "commondir",    "hooks",	   "hooks.lock",
	    "info",	    "modules",	   "worktrees",
	    "evil",	    "_HEAD",	   "HEAD.lock.lock",
	    "index.stash.", "gitdir",	   ".lock",
	    "HEADx",	    "xindex",	   "",
	};
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		tap_ok(broker_git_name(yes[i]), "git makes \"%s\" in its directory", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		tap_ok(!broker_git_name(no[i]),
		       "\"%s\" is not a name the cage may add to a git "
		       "directory",
		       no[i]);
}

static void test_name_check(void)
{
	struct broker_zones z = {0};
	tap_ok(broker_zones_add(&z, "/w", "/w/.git/hooks") == 0 &&
		   broker_zones_add(&z, "/w", "/w/.git/config") == 0 &&
		   broker_zones_add(&z, "/w/.git", "/w/.git/hooks") == 0 &&
		   broker_zones_add(&z, "/w/.git", "/w/.git/config") == 0 &&
		   broker_zones_add(&z, "/w/.git", "/w/.git/commondir") == 0,
	       "zones added");
	tap_ok(z.n == 2 && z.zones[0].n_protected == 1 && z.zones[1].n_protected == 3,
	       "two zones, one name protected in the workspace, three in .git (got %zu zones)",
	       z.n);
	struct broker_zone *w = &z.zones[0], *g = &z.zones[1];
	g->git_dir = true;
	tap_ok(broker_name_check(w, ".git", BROKER_USE_EXISTING) == -EACCES &&
		   broker_name_check(w, ".git", BROKER_USE_NEW) == -EACCES,
	       "the workspace's .git is neither replaced nor removed nor renamed");
	tap_ok(broker_name_check(w, "NEW.md", BROKER_USE_NEW) == 0 &&
		   broker_name_check(w, "evil", BROKER_USE_NEW) == 0,
	       "any other name may be made in the workspace");
	tap_ok(broker_name_check(g, "hooks", BROKER_USE_EXISTING) == -EACCES &&
		   broker_name_check(g, "config", BROKER_USE_NEW) == -EACCES &&
		   broker_name_check(g, "commondir", BROKER_USE_NEW) == -EACCES,
	       "hooks, config and commondir (absent) are protected in .git");
	tap_ok(broker_name_check(g, "index.lock", BROKER_USE_NEW) == 0 &&
		   broker_name_check(g, "index", BROKER_USE_EXISTING) == 0,
	       "git's lock files are made and its index replaced");
	tap_ok(broker_name_check(g, "evil", BROKER_USE_NEW) == -EACCES &&
		   broker_name_check(g, "evil", BROKER_USE_EXISTING) == 0,
	       "a new name of its own is refused in .git; one there before may be written");
	tap_ok(broker_name_check(g, "evil", BROKER_USE_REMOVE) == -EACCES &&
		   broker_name_check(g, "index.lock", BROKER_USE_REMOVE) == 0 &&
		   broker_name_check(w, "NEW.md", BROKER_USE_REMOVE) == 0,
	       "in .git only git's own names are removed or renamed away (a symbolic hooks stays)");
	struct broker_zones copy;
	tap_ok(broker_zones_add(&z, "/", "/etc") == 0 && z.zones[2].n_protected == 1 &&
		   strcmp(z.zones[2].protected_names[0], "etc") == 0,
	       "a denial below / protects its first component");
	for (size_t i = 0; i < z.n; i++)
		z.zones[i].fd = open("/", O_PATH | O_CLOEXEC);
	tap_ok(broker_zones_copy(&z, &copy) == 0 && copy.n == 3 && copy.zones[1].git_dir &&
		   copy.zones[1].n_protected == 3 && copy.zones[1].fd >= 0 &&
		   copy.zones[1].fd != z.zones[1].fd,
	       "a copy has the rules and descriptors of its own");
	broker_zones_free(&copy);
	broker_zones_free(&z);
}

static int touch(const char *root, const char *rel, bool dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (dir)
		return mkdir(path, 0755);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	return fd < 0 ? -1 : close(fd);
}

/* A workspace holding a repository, granted writing, .git/hooks and config protected. */
static void test_expansion(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/procage-test-broker-XXXXXX", base ? base : "/tmp");
	char *canonical = mkdtemp(tmpl) ? realpath(tmpl, NULL) : NULL;
	if (!tap_ok(canonical != NULL, "a temporary workspace"))
		return;
	const char *rels[] = {".git", ".git/hooks", ".git/objects", ".git/refs", "src"};
	int rc = 0;
	for (size_t i = 0; i < 5; i++)
		rc |= touch(canonical, rels[i], true);
	rc |= touch(canonical, ".git/HEAD", false) | touch(canonical, ".git/config", false) |
	      touch(canonical, "README", false);
	tap_ok(rc == 0, "the repository is made");
	char hooks[4200], config[4200], commondir[4200], git[4200];
	snprintf(git, sizeof git, "%s/.git", canonical);
	snprintf(hooks, sizeof hooks, "%s/.git/hooks", canonical);
	snprintf(config, sizeof config, "%s/.git/config", canonical);
	snprintf(commondir, sizeof commondir, "%s/.git/commondir", canonical);
	struct cage_path grants[] = {{canonical, PROCAGE_WRITE, -1, false, false}};
	struct cage_path denials[] = {{hooks, PROCAGE_PROTECT, -1, false, false},
				      {config, PROCAGE_PROTECT, -1, false, false},
				      {commondir, PROCAGE_PROTECT, -1, false, false}};
	struct cage_paths paths = {
	    .grants = grants, .n_grants = 1, .denials = denials, .n_denials = 3};
	struct cage_path *out = NULL;
	size_t n_out = 0;
	struct broker_zones zones = {0};
	struct procage_error err = {0};
	rc = entry_grants_expand(&paths, NULL, 0, false, &out, &n_out, &zones, &err);
	tap_ok(rc == 0, "expanded (%s)", err.message);
	tap_ok(zones.n == 2 && strcmp(zones.zones[0].path, canonical) == 0 &&
		   strcmp(zones.zones[1].path, git) == 0,
	       "the zones are the workspace and its .git (got %zu)", zones.n);
	rc = broker_zones_open(&zones, &err);
	struct stat st;
	tap_ok(rc == 0 && zones.n == 2 && zones.zones[1].fd >= 0 && stat(git, &st) == 0 &&
		   st.st_ino == zones.zones[1].ino,
	       "each zone is opened and known by identity (%s)", err.message);
	tap_ok(zones.n == 2 && !zones.zones[0].git_dir && zones.zones[1].git_dir,
	       ".git is a git directory, the workspace is not");
	tap_ok(zones.n == 2 && zones.zones[1].n_protected == 3 && zones.zones[0].n_protected == 1,
	       "the absent commondir is protected like the others");
	for (size_t i = 0; i < n_out; i++)
		free(out[i].path);
	free(out);
	broker_zones_free(&zones);

	/*
	 * A protected file outside any git directory (a startup file of a home
	 * in the workspace): its directory is a zone too, protecting its name,
	 * and so is the workspace, protecting the home's.
	 */
	char bashrc[4200], home[4200];
	snprintf(bashrc, sizeof bashrc, "%s/home/.bashrc", canonical);
	snprintf(home, sizeof home, "%s/home", canonical);
	rc = touch(canonical, "home", true) | touch(canonical, "home/.bashrc", false);
	struct cage_path more[] = {{hooks, PROCAGE_PROTECT, -1, false, false},
				   {config, PROCAGE_PROTECT, -1, false, false},
				   {bashrc, PROCAGE_PROTECT, -1, false, false}};
	paths.denials = more;
	paths.n_denials = 3;
	rc |= entry_grants_expand(&paths, NULL, 0, false, &out, &n_out, &zones, &err);
	const struct broker_zone *home_zone = NULL;
	for (size_t i = 0; i < zones.n; i++)
		if (strcmp(zones.zones[i].path, home) == 0)
			home_zone = &zones.zones[i];
	tap_ok(rc == 0 && zones.n == 3 && home_zone && home_zone->n_protected == 1 &&
		       strcmp(home_zone->protected_names[0], ".bashrc") == 0,
	       "beside a protected file outside git directories, its directory is a zone "
	       "protecting its name (got %zu zones)",
	       zones.n);
	for (size_t i = 0; i < n_out; i++)
		free(out[i].path);
	free(out);
	broker_zones_free(&zones);
	tap_ok(tmpdir_remove(canonical) == 0, "the test's directory is removed");
	free(canonical);
}

int main(void)
{
	test_git_names();
	test_name_check();
	test_expansion();
	return tap_done();
}
