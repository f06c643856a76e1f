/*
 * Unit tests: the hard-deny classes, their documentation and their
 * expansion, and the walks that find what a cage must hide.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/classes.h"
#include "discover/repository_classes.h"
#include "discover/hardlinks.h"
#include "discover/repositories.h"
#include "discover/path_aliases.h"
#include "discover/root_private.h"
#include "tap.h"
#include "run/tmpdir.h"

static char *file_read(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;
	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* Every row of the table appears in docs/classes.md under its class. */
static void test_documentation(void)
{
	char *doc = file_read("docs/classes.md");
	if (!tap_ok(doc != NULL, "docs/classes.md can be read (run from the source tree)"))
		return;
	size_t missing = 0;
	for (size_t i = 0; i < classes_row_count(); i++) {
		char what[256], line[320], heading[64];
		enum class_id cls;
		enum procage_access deny;
		classes_row_describe(i, what, sizeof what, &cls, &deny);
		snprintf(line, sizeof line, "- `%s` (%s)", what,
			 deny == PROCAGE_HIDE ? "hidden" : "read-only");
		snprintf(heading, sizeof heading, "## %s\n", class_name(cls));
		const char *section = strstr(doc, heading);
		const char *next = section ? strstr(section + 3, "\n## ") : NULL;
		const char *found = section ? strstr(section, line) : NULL;
		if (!found || (next && found > next)) {
			tap_diag("not documented under %s: %s", class_name(cls), line);
			missing++;
		}
	}
	tap_ok(missing == 0, "all %zu rows are documented under their class (%zu missing)",
	       classes_row_count(), missing);
	free(doc);
}

static char root[512];

static void make(const char *rel, bool dir)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (dir)
		mkdir(path, 0700);
	else
		close(open(path, O_CREAT | O_WRONLY, 0600));
}

/* The test's directory, canonical, in root. */
static void root_make(void)
{
	snprintf(root, sizeof root, "%s/procage-classes-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	char *canonical = mkdtemp(root) ? realpath(root, NULL) : NULL;
	if (!canonical || strlen(canonical) >= 400)
		exit(99);
	memcpy(root, canonical, strlen(canonical) + 1);
	free(canonical);
}

static const struct class_location *find(const struct class_locations *l, const char *rel)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].path, path) == 0)
			return &l->items[i];
	return NULL;
}

static void test_expand(void)
{
	static const char *const dirs[] = { "home", "home/.ssh", "home/.config", "home/.config/gh",
					    "ws", "ws/.git", "ws/.git/hooks", "ws/.git/modules",
					    "ws/.git/modules/sub", "ws/.git/modules/sub/hooks",
					    "ws/.git/modules/sub/objects", "ws/.git/modules/sub/refs",
					    "ws/deep", "ws/deep/er", "ws/deep/er/.git",
					    "ws/deep/er/.git/hooks", "run" };
	static const char *const files[] = { "home/.bashrc", "ws/.git/config", "run/bus",
					     "ws/.git/modules/sub/HEAD" };
	struct class_locations l;
	struct procage_error err;
	char home[600], runtime[600], ws[600];
	const char *trees[1] = { ws };

	root_make();
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		make(dirs[i], true);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		make(files[i], false);
	snprintf(home, sizeof home, "%s/home", root);
	snprintf(runtime, sizeof runtime, "%s/run", root);
	snprintf(ws, sizeof ws, "%s/ws", root);

	tap_ok(repository_classes_expand(0, home, runtime, trees, 1, &l, &err) == 0, "classes expand");
	const struct class_location *c = find(&l, "home/.ssh");
	tap_ok(c && c->cls == CLASS_SECRETS && c->deny == PROCAGE_HIDE, "~/.ssh is a hidden secret");
	c = find(&l, "home/.config/gh");
	tap_ok(c && c->deny == PROCAGE_HIDE, "the GitHub CLI's tokens are hidden");
	c = find(&l, "home/.bashrc");
	tap_ok(c && c->cls == CLASS_TRUST_HANDOFF && c->deny == PROCAGE_PROTECT,
	       "~/.bashrc is read-only trust-handoff");
	tap_ok(find(&l, "ws/.git/hooks") && find(&l, "ws/.git/config"),
	       "the workspace repository's hooks and config are found");
	tap_ok(find(&l, "ws/deep/er/.git/hooks") != NULL, "a nested repository's hooks are found");
	tap_ok(find(&l, "ws/.git/modules/sub/hooks") != NULL, "a submodule store's hooks are found");
	c = find(&l, "run/bus");
	tap_ok(c && c->cls == CLASS_SERVICE_HANDOFF, "the user's bus is service-handoff");
	c = find(&l, "home/.aws");
	tap_ok(c && c->absent && c->deny == PROCAGE_HIDE,
	       "a location that does not exist is listed, marked absent");
	c = find(&l, "home/.bashrc");
	tap_ok(c && !c->absent, "one that exists is not marked absent");
	class_locations_free(&l);

	unsigned waived = (1u << CLASS_SECRETS) | (1u << CLASS_TRUST_HANDOFF);
	tap_ok(repository_classes_expand(waived, home, runtime, trees, 1, &l, &err) == 0 &&
		       !find(&l, "home/.ssh") && !find(&l, "ws/.git/hooks") && find(&l, "run/bus"),
	       "waived classes drop out, the others stay");
	class_locations_free(&l);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

/*
 * The caller's XDG base directories moved out of the home: a home row
 * under ~/.config (~/.local/share, ...) is kept at the moved place too,
 * where programs outside the cage read it; a value that is not absolute
 * is ignored, as those programs ignore it.
 */
static void test_xdg_moved(void)
{
	static const char *const dirs[] = { "home", "home/.config", "home/.config/autostart",
					    "config", "config/autostart", "config/gh", "config/git",
					    "data", "data/systemd", "state" };
	static const char *const files[] = { "config/git/config", "config/unlisted" };
	static const char *const variables[] = { "XDG_CONFIG_HOME", "XDG_DATA_HOME" };
	char *saved[2];
	struct class_locations l;
	struct procage_error err;
	char home[600], config[600], data[600];

	root_make();
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		make(dirs[i], true);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		make(files[i], false);
	snprintf(home, sizeof home, "%s/home", root);
	snprintf(config, sizeof config, "%s/config", root);
	snprintf(data, sizeof data, "%s/data", root);
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(variables[i]);
		saved[i] = v ? strdup(v) : NULL;
	}
	setenv("XDG_CONFIG_HOME", config, 1);
	setenv("XDG_DATA_HOME", data, 1);
	tap_ok(classes_expand(0, home, NULL, &l, &err) == 0, "classes expand");
	const struct class_location *c = find(&l, "config/autostart");
	tap_ok(c && c->cls == CLASS_PERSISTENCE && c->deny == PROCAGE_PROTECT,
	       "$XDG_CONFIG_HOME/autostart is read-only persistence");
	c = find(&l, "config/gh");
	tap_ok(c && c->cls == CLASS_SECRETS && c->deny == PROCAGE_HIDE,
	       "$XDG_CONFIG_HOME/gh (the GitHub CLI's tokens) is hidden");
	tap_ok(find(&l, "config/git") != NULL, "$XDG_CONFIG_HOME/git is kept read-only");
	tap_ok(find(&l, "data/systemd") != NULL, "$XDG_DATA_HOME/systemd is kept read-only");
	tap_ok(find(&l, "home/.config/autostart") != NULL, "~/.config/autostart is kept as well");
	tap_ok(find(&l, "config/unlisted") == NULL && find(&l, "config") == NULL,
	       "the rest of $XDG_CONFIG_HOME is not a class location");
	class_locations_free(&l);

	setenv("XDG_CONFIG_HOME", "config", 1); /* relative: invalid */
	unsetenv("XDG_DATA_HOME");
	tap_ok(classes_expand(0, home, NULL, &l, &err) == 0 &&
		       !find(&l, "config/autostart") && !find(&l, "data/systemd") &&
		       find(&l, "home/.config/autostart"),
	       "a relative $XDG_CONFIG_HOME, and an unset $XDG_DATA_HOME, add nothing");
	class_locations_free(&l);
	for (int i = 0; i < 2; i++) {
		if (saved[i])
			setenv(variables[i], saved[i], 1);
		else
			unsetenv(variables[i]);
		free(saved[i]);
	}
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

/*
 * Rows with a '*' (snap and flatpak profiles) match what exists; the home
 * itself is never read as a pattern, even when its name holds '*' or '['.
 */
static void test_patterns(void)
{
	static const char *const dirs[] = {
		"h[o]*me", "h[o]*me/snap", "h[o]*me/snap/firefox", "h[o]*me/snap/firefox/common",
		"h[o]*me/snap/firefox/common/.mozilla", "h[o]*me/snap/firefox/4242",
		"h[o]*me/snap/firefox/4242/.mozilla", "h[o]*me/.var", "h[o]*me/.var/app",
		"h[o]*me/.var/app/org.chromium.Chromium", "h[o]*me/.var/app/org.chromium.Chromium/config",
		"h[o]*me/.var/app/org.chromium.Chromium/config/chromium", "h[o]*me/.claude",
		"home", "home/snap", "home/snap/firefox", "home/snap/firefox/common",
		"home/snap/firefox/common/.mozilla",
	};
	static const char *const files[] = { "h[o]*me/.claude/.credentials.json", "h[o]*me/.env",
					     "h[o]*me/.pgpass" };
	struct class_locations l;
	struct procage_error err;
	char home[600];

	root_make();
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		make(dirs[i], true);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		make(files[i], false);
	snprintf(home, sizeof home, "%s/h[o]*me", root);
	tap_ok(classes_expand(0, home, NULL, &l, &err) == 0, "classes expand");
	const struct class_location *c = find(&l, "h[o]*me/snap/firefox/common/.mozilla");
	tap_ok(c && c->cls == CLASS_SECRETS && c->deny == PROCAGE_HIDE,
	       "a snap browser's profile (common) is a hidden secret");
	tap_ok(find(&l, "h[o]*me/snap/firefox/4242/.mozilla") != NULL,
	       "a snap browser's profile (a revision) is hidden");
	tap_ok(find(&l, "h[o]*me/.var/app/org.chromium.Chromium/config/chromium") != NULL,
	       "a flatpak browser's profile is hidden");
	tap_ok(find(&l, "h[o]*me/.claude/.credentials.json") && find(&l, "h[o]*me/.env") &&
		       find(&l, "h[o]*me/.pgpass"),
	       "agent credentials, ~/.env and ~/.pgpass are hidden");
	c = find(&l, "h[o]*me/.claude");
	tap_ok(c && c->cls == CLASS_TRUST_HANDOFF && c->deny == PROCAGE_PROTECT,
	       "the agent's settings around them stay read-only");
	tap_ok(find(&l, "home/snap/firefox/common/.mozilla") == NULL,
	       "a home whose name is a pattern matches only itself");
	class_locations_free(&l);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

/*
 * fn's result in a child allowed `spare` descriptors besides those open
 * now: 0 when it did what was expected, else its own code, or -1.
 */
static int with_descriptors(int spare, int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		int next = dup(0); /* the lowest free descriptor */
		struct rlimit limit;
		close(next);
		getrlimit(RLIMIT_NOFILE, &limit);
		limit.rlim_cur = (rlim_t)(next + spare);
		if (next < 0 || setrlimit(RLIMIT_NOFILE, &limit) != 0)
			_exit(3);
		_exit(fn());
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool make_dirs(const char *path)
{
	char part[700];
	snprintf(part, sizeof part, "%s", path);
	for (char *slash = part + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(part, 0755) != 0 && errno != EEXIST)
			return false;
		*slash = '/';
	}
	return mkdir(part, 0755) == 0 || errno == EEXIST;
}

static int private_walk_starved(void)
{
	char **paths = NULL;
	size_t n = 0;
	int rc = root_private_find(root, &paths, &n);
	return rc == -EMFILE && n == 0 ? 0 : rc == 0 ? 1 : 2;
}

static bool listed(char **paths, size_t n, const char *rel)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], path) == 0)
			return true;
	return false;
}

/*
 * The walk for what others may not read (root_private.h), on a tree of the
 * test's own: what others may not read is listed, what they may is not;
 * and with no descriptor left for the third level, the walk fails rather
 * than list only what it saw.
 */
static void test_root_private_walk(void)
{
	static const struct {
		const char *rel;
		bool dir;
		mode_t mode;
	} entries[] = { { "a", true, 0755 },	      { "a/b", true, 0755 },
			{ "a/b/secret", false, 0600 }, { "a/b/open", false, 0644 },
			{ "a/shut", true, 0711 },     { "top", false, 0640 } };
	char path[700], **paths = NULL;
	size_t n = 0;
	bool made = true;
	root_make();
	for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
		snprintf(path, sizeof path, "%s/%s", root, entries[i].rel);
		made = made && (entries[i].dir ? mkdir(path, entries[i].mode) == 0
				    : close(open(path, O_CREAT | O_WRONLY, entries[i].mode)) == 0) &&
		       chmod(path, entries[i].mode) == 0;
	}
	chmod(root, 0755);
	if (!tap_ok(made, "the walk's tree is made"))
		return;
	int rc = root_private_find(root, &paths, &n);
	tap_ok(rc == 0 && listed(paths, n, "a/b/secret") && listed(paths, n, "top") &&
		       listed(paths, n, "a/shut") && !listed(paths, n, "a/b/open") &&
		       !listed(paths, n, "a/b"),
	       "the walk lists what others may not read (two levels down too, and a directory "
	       "they may not list), and nothing they may");
	path_strings_free(paths, n);

	int status = with_descriptors(2, private_walk_starved); /* the tree and "a", not "a/b" */
	tap_ok(status == 0,
	       "with no descriptor left for a directory, the walk fails (EMFILE) instead of "
	       "listing only what it saw (child status %d)",
	       status);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

static int hardlinks_starved(void)
{
	char loc[700], **findings = NULL;
	struct procage_error err;
	snprintf(loc, sizeof loc, "%s/hidden", root);
	struct cage_path examined = { loc, PROCAGE_HIDE, CLASS_SECRETS, false, false };
	int rc = hardlinks_check(&examined, 1, NULL, 0, &findings, &err);
	procage_strings_free(findings);
	return rc == -EMFILE && strstr(err.message, "checking hard links") ? 0 : rc == 0 ? 1 : 2;
}

/*
 * The hard-link check walks the hidden locations for second names of
 * their files: a directory it cannot open for want of descriptors fails
 * the check (and so the spawn) rather than leave its files unexamined.
 */
static void test_hardlinks_walk(void)
{
	char path[700];
	root_make();
	snprintf(path, sizeof path, "%s/hidden/a/b", root);
	bool made = make_dirs(path);
	snprintf(path, sizeof path, "%s/hidden/a/b/key", root);
	made = made && close(open(path, O_CREAT | O_WRONLY, 0600)) == 0;
	if (!tap_ok(made, "the hard-link check's tree is made"))
		return;
	int status = with_descriptors(1, hardlinks_starved); /* "hidden", not "hidden/a" */
	tap_ok(status == 0,
	       "with no descriptor left for a directory of a hidden location, the hard-link "
	       "check fails (EMFILE) instead of passing it over (child status %d)",
	       status);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

static int discovery_starved(void)
{
	char ws[700];
	struct repositories found;
	struct procage_error err = { 0 };
	snprintf(ws, sizeof ws, "%s/ws", root);
	const char *trees[1] = { ws };
	int rc = repositories_find(trees, 1, NULL, 0, &found, &err);
	if (rc == 0)
		repositories_free(&found);
	return rc == -EMFILE && strstr(err.message, "finding the repositories") ? 0 : rc == 0 ? 1 : 2;
}

/*
 * Repository discovery below a writable tree: a directory it cannot open
 * for want of descriptors fails the discovery rather than leave the
 * repositories below it unprotected.
 */
static void test_discovery_walk(void)
{
	char path[700];
	root_make();
	snprintf(path, sizeof path, "%s/ws/a/.git/hooks", root);
	if (!tap_ok(make_dirs(path), "the discovery's tree is made"))
		return;
	int status = with_descriptors(1, discovery_starved); /* "ws", not "ws/a" */
	tap_ok(status == 0,
	       "with no descriptor left for a directory of a writable tree, repository "
	       "discovery fails (EMFILE) instead of passing it over (child status %d)",
	       status);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

static int links_starved(void)
{
	char hidden[700], **targets = NULL;
	size_t n = 0;
	snprintf(hidden, sizeof hidden, "%s/hidden", root);
	int rc = link_targets_in(hidden, &targets, &n);
	path_strings_free(targets, n);
	return rc == -EMFILE && n == 0 ? 0 : rc == 0 ? 1 : 2;
}

static int patterns_starved(void)
{
	char home[700];
	struct class_locations l;
	struct procage_error err = { 0 };
	snprintf(home, sizeof home, "%s/home", root);
	int rc = classes_expand(0, home, NULL, &l, &err);
	if (rc == 0)
		class_locations_free(&l);
	return rc == -EMFILE && strstr(err.message, "hard-deny classes") ? 0 : rc == 0 ? 1 : 2;
}

/*
 * The targets of links inside a hidden location, and the classes'
 * patterns (a snap browser's profile): a directory neither walk can open
 * for want of descriptors fails it, rather than leave what is below
 * unhidden.
 */
static void test_link_and_pattern_walks(void)
{
	char path[700], target[700];
	root_make();
	snprintf(path, sizeof path, "%s/hidden/a/b", root);
	bool made = make_dirs(path);
	snprintf(path, sizeof path, "%s/hidden/a/b/link", root);
	snprintf(target, sizeof target, "%s/elsewhere", root);
	made = made && symlink(target, path) == 0;
	snprintf(path, sizeof path, "%s/home/snap/firefox/common/.mozilla", root);
	made = made && make_dirs(path);
	if (!tap_ok(made, "the link and pattern walks' trees are made"))
		return;
	int status = with_descriptors(1, links_starved); /* "hidden", not "hidden/a" */
	tap_ok(status == 0,
	       "with no descriptor left for a directory of a hidden location, the search for "
	       "link targets fails (EMFILE) (child status %d)",
	       status);
	status = with_descriptors(1, patterns_starved); /* "snap", not "snap/firefox" */
	tap_ok(status == 0,
	       "with no descriptor left for a directory a class pattern must list, the "
	       "classes' expansion fails (EMFILE) (child status %d)",
	       status);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

/*
 * Locations moved by a variable of the caller's environment: each absolute
 * item of a list, a location below a directory, git's moved configuration
 * read-only; a relative item, a device, a waived class: nothing.
 */
static void test_env_moved(void)
{
	static const char *const variables[] = { "KUBECONFIG", "DOCKER_CONFIG", "HISTFILE",
						  "GIT_CONFIG_GLOBAL", "ZDOTDIR", "BASH_ENV" };
	enum { N = sizeof variables / sizeof *variables };
	char *saved[N], value[2048], path[600];
	struct class_locations l;
	struct procage_error err;

	root_make();
	make("home", true);
	make("kube", true);
	make("kube/a", false);
	make("kube/b", false);
	make("docker", true);
	make("docker/config.json", false);
	make("docker/other.json", false);
	make("gitconfig", false);
	make("zdot", true);
	make("zdot/.zshrc", false);
	make("bash_env", false);
	for (size_t i = 0; i < N; i++) {
		const char *v = getenv(variables[i]);
		saved[i] = v ? strdup(v) : NULL;
	}
	snprintf(value, sizeof value, "%s/kube/a:kube/b:%s/kube/b:%s/kube/missing", root, root,
		 root);
	setenv("KUBECONFIG", value, 1);
	snprintf(path, sizeof path, "%s/docker", root);
	setenv("DOCKER_CONFIG", path, 1);
	setenv("HISTFILE", "/dev/null", 1);
	snprintf(path, sizeof path, "%s/gitconfig", root);
	setenv("GIT_CONFIG_GLOBAL", path, 1);
	snprintf(path, sizeof path, "%s/zdot", root);
	setenv("ZDOTDIR", path, 1);
	snprintf(path, sizeof path, "%s/bash_env", root);
	setenv("BASH_ENV", path, 1);
	snprintf(path, sizeof path, "%s/home", root);
	tap_ok(classes_expand(0, path, NULL, &l, &err) == 0, "classes expand");
	const struct class_location *a = find(&l, "kube/a"), *b = find(&l, "kube/b");
	tap_ok(a && b && a->cls == CLASS_SECRETS && a->deny == PROCAGE_HIDE,
	       "each absolute item of $KUBECONFIG is hidden (the relative one is passed over)");
	const struct class_location *m = find(&l, "kube/missing");
	tap_ok(m && m->absent && m->deny == PROCAGE_HIDE,
	       "an item naming nothing is held all the same, marked absent");
	tap_ok(find(&l, "docker/config.json") && !find(&l, "docker/other.json") &&
		       !find(&l, "docker"),
	       "$DOCKER_CONFIG/config.json is hidden, the rest of $DOCKER_CONFIG is not");
	const struct class_location *g = find(&l, "gitconfig");
	tap_ok(g && g->cls == CLASS_TRUST_HANDOFF && g->deny == PROCAGE_PROTECT,
	       "$GIT_CONFIG_GLOBAL is read-only trust handoff");
	const struct class_location *z = find(&l, "zdot/.zshrc"), *e = find(&l, "bash_env");
	tap_ok(z && e && z->deny == PROCAGE_PROTECT && e->deny == PROCAGE_PROTECT &&
		       !find(&l, "zdot"),
	       "$ZDOTDIR/.zshrc and $BASH_ENV are read-only, the rest of $ZDOTDIR is not");
	bool devnull = false;
	for (size_t i = 0; i < l.n; i++)
		devnull |= strcmp(l.items[i].path, "/dev/null") == 0;
	tap_ok(!devnull, "HISTFILE=/dev/null hides no device");
	snprintf(path, sizeof path, "%s/kube/b", root);
	char *canonical = realpath(path, NULL);
	tap_ok(canonical && classes_moved_by(canonical) &&
		       strcmp(classes_moved_by(canonical), "KUBECONFIG") == 0,
	       "the variable moving a location is named");
	free(canonical);
	class_locations_free(&l);
	snprintf(path, sizeof path, "%s/home", root);
	tap_ok(classes_expand(1u << CLASS_SECRETS, path, NULL, &l, &err) == 0 &&
		       !find(&l, "kube/a") && find(&l, "gitconfig"),
	       "a waived class holds none of its moved locations");
	class_locations_free(&l);
	for (size_t i = 0; i < N; i++) {
		if (saved[i])
			setenv(variables[i], saved[i], 1);
		else
			unsetenv(variables[i]);
		free(saved[i]);
	}
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

/*
 * The workspace-config rows below each workspace root, and the work trees
 * the repositories' scan hands over as further roots.
 */
static void test_workspaces(void)
{
	static const char *const dirs[] = { "ws", "ws/.vscode", "ws/.claude", "ws/.claude/commands",
					    "ws/.cursor", "ws/sub", "ws/sub/.git", "ws/sub/.zed" };
	static const char *const files[] = { "ws/.vscode/tasks.json", "ws/.vscode/launch.json",
					     "ws/.claude/settings.json", "ws/.mcp.json",
					     "ws/.claude/notes.md" };
	struct class_locations l = { 0 };
	struct procage_error err;
	char ws[600], sub[600];
	const char *roots[2] = { ws, sub };

	root_make();
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		make(dirs[i], true);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		make(files[i], false);
	snprintf(ws, sizeof ws, "%s/ws", root);
	snprintf(sub, sizeof sub, "%s/ws/sub", root);

	tap_ok(classes_expand_workspaces(0, roots, 1, &l, &err) == 0, "workspace rows expand");
	const struct class_location *c = find(&l, "ws/.vscode/tasks.json");
	tap_ok(c && c->cls == CLASS_WORKSPACE_CONFIG && c->deny == PROCAGE_PROTECT,
	       "the workspace's .vscode/tasks.json is read-only workspace-config");
	tap_ok(find(&l, "ws/.claude/settings.json") && find(&l, "ws/.claude/commands") &&
		       find(&l, "ws/.mcp.json") && find(&l, "ws/.cursor"),
	       "agent settings, commands, MCP servers and .cursor are listed");
	tap_ok(!find(&l, "ws/.vscode/launch.json") && !find(&l, "ws/.claude/notes.md") &&
		       !find(&l, "ws/.vscode") && !find(&l, "ws/.claude"),
	       "the rest of .vscode and .claude is not");
	tap_ok(!find(&l, "ws/sub/.zed"), "a root not given holds nothing");
	class_locations_free(&l);

	tap_ok(classes_expand_workspaces(0, roots, 2, &l, &err) == 0 && find(&l, "ws/sub/.zed"),
	       "each root given holds the rows");
	class_locations_free(&l);
	tap_ok(classes_expand_workspaces(1u << CLASS_WORKSPACE_CONFIG, roots, 2, &l, &err) == 0 &&
		       l.n == 0,
	       "the waived class holds nothing");
	class_locations_free(&l);

	struct repositories found;
	const char *trees[1] = { ws };
	bool listed = false;
	tap_ok(repositories_find(trees, 1, NULL, 0, &found, &err) == 0, "repositories found");
	for (size_t i = 0; i < found.n_worktrees; i++)
		listed = listed || strcmp(found.worktrees[i], sub) == 0;
	tap_ok(listed, "the scan lists the work tree it found below the writable tree");
	repositories_free(&found);
	tap_ok(tmpdir_remove(root) == 0, "the test's directory is removed");
}

static void test_names(void)
{
	tap_ok(class_from_name("secrets") == CLASS_SECRETS &&
		       class_from_name("container-engines") == CLASS_CONTAINER_ENGINES &&
		       class_from_name("workspace-config") == CLASS_WORKSPACE_CONFIG &&
		       class_from_name("secret") == -1,
	       "class names map both ways, and a near miss is unknown");
}

int main(void)
{
	test_documentation();
	test_expand();
	test_patterns();
	test_xdg_moved();
	test_env_moved();
	test_names();
	test_workspaces();
	test_root_private_walk();
	test_hardlinks_walk();
	test_discovery_walk();
	test_link_and_pattern_walks();
	return tap_done();
}
