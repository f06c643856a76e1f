/*
 * Repository discovery by git's rules (setup.c, path.c, config.c), bounded
 * so that its cost does not grow with the tree:
 *
 * - below each writable tree's root, directories are read to
 *   REPOSITORY_SCAN_DEPTH with getdents64 into one buffer: a ".git" entry
 *   is a repository (a directory, or a gitfile naming one), a directory
 *   whose listing holds HEAD, objects and refs is a bare one. No entry is
 *   stat'ed unless its type is unknown;
 * - above it, every ancestor's ".git" (git discovers upward);
 * - from every store, at any depth, what git's metadata links to:
 *   commondir, modules/ (nested submodules), worktrees/ and their gitdir
 *   files, the gitfiles of submodules named in .gitmodules.
 *
 * For each store, what git runs or reads is recorded to be kept
 * read-only: the hooks directory, and the one core.hooksPath names
 * wherever it points; config, config.worktree and every include target;
 * info/attributes; commondir; the gitfiles themselves. What does not exist
 * is recorded as absent (repository_config.c follows the config files).
 */
#include "repositories.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/canonical.h"
#include "base/error.h"
#include "repository_internal.h"
#include "base/syscalls.h"

/* One getdents64 call's room: a directory of ~2000 short names at once. */
#define LISTING_BUFFER_SIZE (64 * 1024)

/* How deep metadata links (commondir, modules/, worktrees/) are followed. */
#define STORE_LINK_DEPTH 16

/*
 * The most directories read under the stores' modules/ in one discovery:
 * far more than any superproject has, few enough that a tree of
 * directories made there (16 levels deep, many wide) cannot stall the
 * making of a cage. Past it the cage is refused, naming the store.
 */
#define MODULES_READ_BUDGET 4096

struct linux_dirent64 {
	ino_t d_ino;
	off_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Is path equal to or below tree (both canonical)? As paths.c's path_within. */
static bool within(const char *path, const char *tree)
{
	size_t n = strlen(tree);
	if (strcmp(tree, "/") == 0)
		return true;
	return strncmp(path, tree, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool discovery_within_trees(const struct discovery *d, const char *path)
{
	for (size_t i = 0; i < d->n_trees; i++)
		if (within(path, d->trees[i]))
			return true;
	return false;
}

static int strings_add(char ***list, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], s) == 0)
			return 0;
	char *copy = strdup(s);
	char **grown = copy ? realloc(*list, (*n + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	*list = grown;
	grown[(*n)++] = copy;
	return 1;
}

static int protect_add_canonical(struct discovery *d, const char *canonical, bool absent)
{
	struct repositories *r = d->out;
	for (size_t i = 0; i < r->n_protect; i++)
		if (strcmp(r->protect[i].path, canonical) == 0)
			return 0;
	char *copy = strdup(canonical);
	struct repo_location *grown =
	    copy ? realloc(r->protect, (r->n_protect + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	r->protect = grown;
	grown[r->n_protect++] = (struct repo_location){copy, absent};
	return 0;
}

/* A protected path that is a symbolic link: recorded with its target. */
static int link_record(struct discovery *d, const char *path)
{
	struct repositories *r = d->out;
	char target[PATH_MAX], *parent = strdup(path), *spelled = NULL;
	ssize_t n = readlink(path, target, sizeof target - 1);
	char *slash = parent ? strrchr(parent, '/') : NULL;
	if (!parent)
		return -ENOMEM;
	if (n < 0 || !slash || slash == parent) {
		free(parent);
		return 0;
	}
	target[n] = '\0';
	*slash = '\0';
	char *canonical = canonical_path(parent);
	int rc = 0;
	if (canonical && asprintf(&spelled, "%s/%s", canonical, slash + 1) < 0) {
		spelled = NULL; /* undefined after a failure */
		rc = -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && spelled && i < r->n_links; i++)
		if (strcmp(r->links[i].path, spelled) == 0) {
			free(spelled);
			spelled = NULL;
		}
	char *t = spelled ? strdup(target) : NULL;
	struct repo_link *grown = t ? realloc(r->links, (r->n_links + 1) * sizeof *grown) : NULL;
	if (spelled && !grown) {
		free(spelled);
		free(t);
		rc = -ENOMEM;
	} else if (grown) {
		r->links = grown;
		grown[r->n_links++] = (struct repo_link){spelled, t};
	}
	free(canonical);
	free(parent);
	return rc;
}

/*
 * Keep path read-only: canonical when it exists, else recorded absent
 * under its canonical parent. A path that cannot be spelled is skipped.
 */
int discovery_protect(struct discovery *d, const char *path, bool *absent_out)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		int rc = link_record(d, path);
		if (rc < 0)
			return rc;
	}
	bool absent = false;
	char *canonical = canonical_or_absent(path, &absent);
	if (absent_out)
		*absent_out = absent;
	if (!canonical)
		return errno == ENOMEM ? -ENOMEM : 0;
	int rc = protect_add_canonical(d, canonical, absent);
	free(canonical);
	return rc;
}

static int gitfile_record(struct discovery *d, const char *path, const char *target)
{
	struct repositories *r = d->out;
	for (size_t i = 0; i < r->n_gitfiles; i++)
		if (strcmp(r->gitfiles[i].path, path) == 0)
			return 0;
	char *p = strdup(path), *t = strdup(target);
	struct repo_gitfile *grown =
	    p && t ? realloc(r->gitfiles, (r->n_gitfiles + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(p);
		free(t);
		return -ENOMEM;
	}
	r->gitfiles = grown;
	grown[r->n_gitfiles++] = (struct repo_gitfile){p, t};
	return 0;
}

static int hooks_make(struct discovery *d, const char *gitdir);

static int grant_add(struct discovery *d, const char *path, bool write)
{
	struct repositories *r = d->out;
	char *canonical = realpath(path, NULL);
	if (!canonical)
		return errno == ENOMEM ? -ENOMEM : 0;
	for (size_t i = 0; i < r->n_grants; i++)
		if (strcmp(r->grants[i].path, canonical) == 0) {
			r->grants[i].write |= write;
			free(canonical);
			return 0;
		}
	struct repo_grant *grown = realloc(r->grants, (r->n_grants + 1) * sizeof *grown);
	if (!grown) {
		free(canonical);
		return -ENOMEM;
	}
	r->grants = grown;
	grown[r->n_grants++] = (struct repo_grant){canonical, write};
	return 0;
}

/* Does a writable tree lie at or below dir (a work tree entered below its root)? */
static bool tree_within(const struct discovery *d, const char *dir)
{
	for (size_t i = 0; i < d->n_trees; i++)
		if (within(d->trees[i], dir))
			return true;
	return false;
}

/*
 * Does the store belong to the work tree whose gitfile named it? A gitfile
 * is the cage's to write, so it alone proves nothing: a linked worktree's
 * git directory must name the gitfile back (its gitdir file, outside the
 * grants), and a submodule's store must lie in the .git/modules of a
 * directory holding the work tree (its superproject) and name the work
 * tree as its core.worktree (its config, outside the grants).
 */
static bool store_owns(const char *store, const char *gitfile, const char *worktree, bool linked)
{
	char path[PATH_MAX];
	if (!linked) {
		const char *modules = strstr(store, "/.git/modules/");
		if (!modules || (size_t)(modules - store) >= sizeof path)
			return false;
		memcpy(path, store, (size_t)(modules - store));
		path[modules - store] = '\0';
		char *canonical = realpath(worktree, NULL);
		bool owns = canonical && within(canonical, path[0] ? path : "/") &&
			    store_names_worktree(store, canonical);
		free(canonical);
		return owns;
	}
	if (snprintf(path, sizeof path, "%s/gitdir", store) >= (int)sizeof path)
		return false;
	char *text = file_read_small(path, NULL);
	if (!text)
		return false;
	text[strcspn(text, "\r\n")] = '\0';
	char *named = text[0] ? path_join_relative(store, text, false) : NULL;
	char *canonical = named ? realpath(named, NULL) : NULL;
	bool owns = canonical && strcmp(canonical, gitfile) == 0;
	free(text);
	free(named);
	free(canonical);
	return owns;
}

/*
 * A work tree inside (or around) a writable tree whose store lies outside
 * every one: its store is granted (a linked worktree's common directory,
 * which holds its own git directory; a submodule's store of its own), as
 * the store of a work tree granted directly is, once the store is known to
 * be the work tree's own. Its hooks, config and the rest git runs or
 * trusts stay read-only: they are among the protected locations, and a
 * grant reaching them makes them denials.
 */
static int worktree_grants(struct discovery *d, const char *store, const char *gitfile,
			   const char *worktree)
{
	char path[PATH_MAX];
	if (!worktree || discovery_within_trees(d, store) ||
	    (!discovery_within_trees(d, worktree) && !tree_within(d, worktree)) ||
	    snprintf(path, sizeof path, "%s/commondir", store) >= (int)sizeof path)
		return 0;
	char *text = file_read_small(path, NULL);
	if (!text) {
		if (errno == ENOMEM)
			return -ENOMEM;
		if (!store_owns(store, gitfile, worktree, false))
			return 0;
		/* Granted now: its hooks directory is made to be held, as in a tree. */
		int made = hooks_make(d, store);
		return made < 0 ? made : grant_add(d, store, true);
	}
	text[strcspn(text, "\r\n")] = '\0';
	char *joined = text[0] ? path_join_relative(store, text, false) : NULL;
	char *common = joined ? realpath(joined, NULL) : NULL;
	int rc = 0;
	if (common && store_owns(store, gitfile, worktree, true)) {
		if (!within(store, common))
			rc = grant_add(d, store, true);
		if (rc == 0 && !discovery_within_trees(d, common) &&
		    (rc = hooks_make(d, common)) == 0)
			rc = grant_add(d, common, true);
	}
	free(text);
	free(joined);
	free(common);
	return rc;
}

/*
 * A gitfile (".git" holding "gitdir: PATH", relative to the file's
 * directory): kept read-only itself, and its target is a store.
 */
int discovery_gitfile(struct discovery *d, const char *path, const char *worktree, int depth)
{
	char *text = file_read_small(path, NULL);
	char *canonical = realpath(path, NULL);
	int rc = 0;
	if (!text || !canonical) {
		free(text);
		free(canonical);
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	text[strcspn(text, "\r\n")] = '\0';
	const char *target = strncmp(text, "gitdir:", 7) == 0 ? text + 7 : NULL;
	while (target && (*target == ' ' || *target == '\t'))
		target++;
	rc = protect_add_canonical(d, canonical, false);
	if (rc == 0)
		rc = gitfile_record(d, canonical, target ? target : text);
	if (rc == 0 && target && target[0]) {
		char *dir = path_join_relative(canonical, target, true);
		char *store = dir ? realpath(dir, NULL) : NULL;
		if (!dir)
			rc = -ENOMEM;
		else if (store)
			rc = discovery_store(d, store, worktree, depth + 1);
		if (rc == 0 && store)
			rc = worktree_grants(d, store, canonical, worktree);
		free(dir);
		free(store);
	}
	free(text);
	free(canonical);
	return rc;
}

/* A store's own file: kept read-only, absent or not. */
static int store_file(struct discovery *d, const char *gitdir, const char *name, bool *absent)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/%s", gitdir, name) >= (int)sizeof path)
		return 0;
	return discovery_protect(d, path, absent);
}

/*
 * The hooks directory: made empty when missing in a store inside a
 * writable tree (then kept read-only: the cage cannot plant one), a
 * harmless host change documented in docs/classes.md.
 */
static int hooks_make(struct discovery *d, const char *gitdir)
{
	char path[PATH_MAX];
	struct stat st;
	if (!(d->options & REPOSITORIES_MAKE_HOOKS) ||
	    snprintf(path, sizeof path, "%s/hooks", gitdir) >= (int)sizeof path)
		return 0;
	if (lstat(path, &st) == 0 || errno != ENOENT)
		return 0;
	/*
	 * Made through a descriptor of the store opened without following a
	 * link: a component swapped for one since discovery (a run of the
	 * same tree) cannot carry the new directory, or a root caller's chown,
	 * elsewhere.
	 */
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int dir = sys_openat2(AT_FDCWD, gitdir, &how);
	int made = dir < 0 ? -1 : mkdirat(dir, "hooks", 0777), rc = 0;
	/* The store removed since it was found (ENOENT): nothing left to keep read-only. */
	if (made != 0 && errno != EEXIST && errno != ENOENT)
		rc = error_set_sys(d->err, errno, PROCAGE_STEP_NONE,
				   "making the missing hooks directory %s, to keep it read-only", path);
	/*
	 * A root caller's new directory belongs to the store's owner, as git
	 * would make it (unless it is gone again with its store: ENOENT).
	 */
	else if (made == 0 && geteuid() == 0 &&
		 (fstat(dir, &st) != 0 ||
		  (fchownat(dir, "hooks", st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) != 0 &&
		   errno != ENOENT)))
		rc = error_set_sys(d->err, errno, PROCAGE_STEP_NONE,
				   "giving the new hooks directory %s to the store's owner", path);
	if (dir >= 0)
		close(dir);
	canonical_memo_forget();
	return rc;
}

static int store_hooks(struct discovery *d, const char *gitdir)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/hooks", gitdir) >= (int)sizeof path)
		return 0;
	int rc = discovery_within_trees(d, gitdir) ? hooks_make(d, gitdir) : 0;
	return rc < 0 ? rc : discovery_protect(d, path, NULL);
}

/* commondir: the store this one shares objects, refs, hooks and config with. */
static int store_commondir(struct discovery *d, const char *gitdir, const char *worktree, int depth)
{
	char path[PATH_MAX];
	bool absent = false;
	int rc = store_file(d, gitdir, "commondir", &absent);
	if (rc < 0 || absent ||
	    snprintf(path, sizeof path, "%s/commondir", gitdir) >= (int)sizeof path)
		return rc;
	char *text = file_read_small(path, NULL);
	if (!text)
		return errno == ENOMEM ? -ENOMEM : 0;
	text[strcspn(text, "\r\n")] = '\0';
	char *joined = text[0] ? path_join_relative(gitdir, text, false) : NULL;
	char *common = joined ? realpath(joined, NULL) : NULL;
	if (common)
		rc = discovery_store(d, common, worktree, depth + 1);
	free(text);
	free(joined);
	free(common);
	return rc;
}

static bool name_is(const char *name, const char *want)
{
	return strcmp(name, want) == 0;
}

/*
 * $GIT_DIR/modules: a submodule's store, nested (names may hold '/'). A
 * directory there holding any of a store's names is taken as one: a
 * half-made store the cage completes would be used by the submodule's
 * gitfile, so its hooks and config are kept now.
 */
static int store_modules(struct discovery *d, const char *dir, int depth)
{
	struct listing l;
	int rc = listing_read_path(d, dir, &l);
	if (rc <= 0)
		return rc;
	if (++d->modules_read > MODULES_READ_BUDGET) {
		listing_free(&l);
		return error_set(d->err, -E2BIG,
				 "more than %d directories under the submodule stores, at %s: too "
				 "many to find the stores git would use; remove what is not a "
				 "submodule there, or waive the trust-handoff class",
				 MODULES_READ_BUDGET, dir);
	}
	rc = 0;
	if (l.has_head || l.has_objects || l.has_refs || l.has_hooks || l.has_config) {
		rc = discovery_store(d, dir, NULL, depth + 1);
	} else {
		char path[PATH_MAX];
		for (size_t i = 0; rc == 0 && i < l.n && depth < STORE_LINK_DEPTH; i++)
			if (l.items[i].is_dir && snprintf(path, sizeof path, "%s/%s", dir,
							  l.items[i].name) < (int)sizeof path)
				rc = store_modules(d, path, depth + 1);
	}
	listing_free(&l);
	return rc;
}

/*
 * $GIT_DIR/worktrees/NAME: a linked worktree's own git directory; its
 * gitdir file names the worktree's ".git" file, kept read-only too.
 */
static int store_worktrees(struct discovery *d, const char *gitdir, int depth)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct listing l;
	if (snprintf(dir, sizeof dir, "%s/worktrees", gitdir) >= (int)sizeof dir)
		return 0;
	int rc = listing_read_path(d, dir, &l);
	if (rc <= 0)
		return rc;
	rc = 0;
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		if (!l.items[i].is_dir ||
		    snprintf(path, sizeof path, "%s/%s", dir, l.items[i].name) >= (int)sizeof path)
			continue;
		char *worktree = NULL;
		rc = worktree_of(d, path, &worktree, depth);
		if (rc == 0)
			rc = discovery_store(d, path, worktree, depth + 1);
		free(worktree);
	}
	listing_free(&l);
	return rc;
}

int discovery_store(struct discovery *d, const char *gitdir, const char *worktree, int depth)
{
	static const char *const read_files[] = {"config", "config.worktree", "info/attributes"};
	if (depth > STORE_LINK_DEPTH)
		return 0;
	int rc = strings_add(&d->out->stores, &d->out->n_stores, gitdir);
	if (rc <= 0)
		return rc;
	rc = store_hooks(d, gitdir);
	for (size_t i = 0; rc == 0 && i < sizeof read_files / sizeof *read_files; i++)
		rc = store_file(d, gitdir, read_files[i], NULL);
	if (rc == 0)
		rc = store_commondir(d, gitdir, worktree, depth);
	if (rc == 0)
		rc = store_configs(d, gitdir, worktree);
	char modules[PATH_MAX];
	if (rc == 0 &&
	    snprintf(modules, sizeof modules, "%s/modules", gitdir) < (int)sizeof modules)
		rc = store_modules(d, modules, depth);
	if (rc == 0)
		rc = store_worktrees(d, gitdir, depth);
	if (rc == 0 && worktree)
		rc = worktree_submodules(d, worktree, depth);
	return rc;
}

void listing_mark(struct listing *l, const char *name)
{
	l->has_git |= name_is(name, ".git");
	l->has_head |= name_is(name, "HEAD");
	l->has_objects |= name_is(name, "objects");
	l->has_refs |= name_is(name, "refs");
	l->has_hooks |= name_is(name, "hooks");
	l->has_config |= name_is(name, "config");
}

int listing_add(int dir_fd, struct listing *l, const char *name, unsigned char type)
{
	bool is_dir = type == DT_DIR;
	if (type == DT_UNKNOWN) {
		/* Some file systems do not fill d_type: only then a stat. */
		struct stat st;
		is_dir =
		    fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct listing_entry *grown = realloc(l->items, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		l->items = grown;
		l->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	l->items[l->n++] = (struct listing_entry){copy, is_dir};
	listing_mark(l, name);
	return 0;
}

void listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].name);
	free(l->items);
	memset(l, 0, sizeof *l);
}

/*
 * A directory's entries, by one descriptor and getdents64 into a large
 * buffer: names and whether each is a directory, and the three names
 * that make a bare repository. Returns 1, 0 when it cannot be read, or
 * -ENOMEM.
 */
int listing_read(struct discovery *d, int fd, struct listing *l, bool names_kept)
{
	char *buffer = d->buffer;
	memset(l, 0, sizeof *l);
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buffer, d->buffer_size);
		if (got <= 0)
			return got == 0 ? 1 : (listing_free(l), 0);
		for (long off = 0; off < got;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(buffer + off);
			off += e->d_reclen;
			if (name_is(e->d_name, ".") || name_is(e->d_name, ".."))
				continue;
			if (!names_kept) {
				/* Only what the directory is: the names that make a store or a work
				 * tree. */
				listing_mark(l, e->d_name);
				continue;
			}
			if (listing_add(fd, l, e->d_name, e->d_type) < 0) {
				listing_free(l);
				return -ENOMEM;
			}
		}
	}
}

int discovery_unopened(struct discovery *d, const char *path, int e)
{
	if (error_walk_passable(e))
		return 0;
	return error_set_sys(d->err, e, PROCAGE_STEP_NONE,
			     "finding the repositories git would use: opening %s", path);
}

int listing_read_path(struct discovery *d, const char *dir, struct listing *l)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		memset(l, 0, sizeof *l);
		return discovery_unopened(d, dir, errno);
	}
	int rc = listing_read(d, fd, l, true);
	close(fd);
	return rc;
}

/* A ".git" entry of the directory at path (a store, a gitfile or a link to one). */
static int dot_git(struct discovery *d, int dir_fd, const char *path, int depth)
{
	char git[PATH_MAX];
	struct stat st;
	if (snprintf(git, sizeof git, "%s/.git", path) >= (int)sizeof git ||
	    fstatat(dir_fd, ".git", &st, 0) != 0)
		return 0;
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	if (strings_add(&d->out->worktrees, &d->out->n_worktrees, path) < 0)
		return -ENOMEM;
	if (S_ISREG(st.st_mode))
		return discovery_gitfile(d, git, path, depth);
	char *store = realpath(git, NULL);
	int rc = store ? discovery_store(d, store, path, depth) : (errno == ENOMEM ? -ENOMEM : 0);
	free(store);
	return rc;
}

/*
 * Directories the scan does not enter, as editors' workspace scans do not
 * (VS Code's git.repositoryScanIgnoredFolders): a package manager's
 * dependency tree holds no repository git would use as the workspace's,
 * and reading its thousands of packages would be most of every run's
 * start-up. A writable tree that is one is still scanned.
 */
static bool scan_skips(const char *name)
{
	return name_is(name, "node_modules");
}

/*
 * One directory of the bounded scan: a work tree (".git"), a bare
 * repository (HEAD, objects, refs: not descended into), or neither; its
 * subdirectories are read while depth < REPOSITORY_SCAN_DEPTH.
 */
static int scan_directory(struct discovery *d, int fd, char *path, size_t len, int depth)
{
	struct listing l;
	/* At the bound, subdirectories are not entered: their names are not kept. */
	int rc = listing_read(d, fd, &l, depth < REPOSITORY_SCAN_DEPTH);
	if (rc <= 0)
		return rc;
	rc = 0;
	if (l.has_git)
		rc = dot_git(d, fd, path, 0);
	if (rc == 0 && !l.has_git && l.has_head && l.has_objects && l.has_refs) {
		rc = discovery_store(d, path, NULL, 0);
		listing_free(&l);
		return rc;
	}
	for (size_t i = 0; rc == 0 && depth < REPOSITORY_SCAN_DEPTH && i < l.n; i++) {
		const char *name = l.items[i].name;
		size_t n = strlen(name);
		if (!l.items[i].is_dir || name_is(name, ".git") || scan_skips(name) ||
		    len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, name, n + 1);
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			rc = discovery_unopened(d, path, errno);
		} else {
			rc = scan_directory(d, sub, path, len + 1 + n, depth + 1);
			close(sub);
		}
		path[len] = '\0';
	}
	listing_free(&l);
	return rc;
}

static int scan_tree(struct discovery *d, const char *tree)
{
	char path[PATH_MAX];
	int fd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) /* a writable file (ENOTDIR) is not a tree */
		return discovery_unopened(d, tree, errno);
	snprintf(path, sizeof path, "%s", strcmp(tree, "/") == 0 ? "" : tree);
	int rc = scan_directory(d, fd, path, strlen(path), 0);
	close(fd);
	return rc;
}

/*
 * A device, a pipe or a socket granted (/dev/null, /dev/tty...) is
 * nothing git reads, hooks or config: the repositories around it are
 * not reached through it, and looking for them cost every run a walk up
 * from /dev for each.
 */
static bool may_be_read_by_git(const char *tree)
{
	struct stat st;
	return lstat(tree, &st) != 0 || S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) ||
	       S_ISLNK(st.st_mode);
}

int repositories_find(const char *const *trees, size_t n_trees, const char *home, unsigned options,
		      struct repositories *out, struct procage_error *err)
{
	struct discovery d = {.trees = trees,
			      .n_trees = n_trees,
			      .home = home,
			      .options = options,
			      .out = out,
			      .err = err,
			      .buffer_size = LISTING_BUFFER_SIZE};
	int rc = 0;
	memset(out, 0, sizeof *out);
	if (!(d.buffer = malloc(d.buffer_size)))
		return error_set(err, -ENOMEM, "out of memory finding the repositories");
	if (n_trees)
		rc = global_configs(&d);
	for (size_t i = 0; rc == 0 && i < n_trees; i++)
		if (may_be_read_by_git(trees[i]))
			rc = ancestors_check(&d, trees[i]);
	for (size_t i = 0; rc == 0 && i < n_trees; i++)
		rc = scan_tree(&d, trees[i]);
	free(d.buffer);
	for (size_t i = 0; i < d.n_global_hooks_paths; i++)
		free(d.global_hooks_paths[i]);
	if (rc < 0) {
		repositories_free(out);
		if (rc == -ENOMEM)
			return error_set(err, rc, "out of memory finding the repositories");
		return rc;
	}
	return 0;
}

void repositories_free(struct repositories *r)
{
	for (size_t i = 0; i < r->n_protect; i++)
		free(r->protect[i].path);
	for (size_t i = 0; i < r->n_stores; i++)
		free(r->stores[i]);
	for (size_t i = 0; i < r->n_gitfiles; i++) {
		free(r->gitfiles[i].path);
		free(r->gitfiles[i].target);
	}
	for (size_t i = 0; i < r->n_grants; i++)
		free(r->grants[i].path);
	for (size_t i = 0; i < r->n_links; i++) {
		free(r->links[i].path);
		free(r->links[i].target);
	}
	for (size_t i = 0; i < r->n_worktrees; i++)
		free(r->worktrees[i]);
	free(r->worktrees);
	free(r->links);
	free(r->protect);
	free(r->stores);
	free(r->gitfiles);
	free(r->grants);
	memset(r, 0, sizeof *r);
}
