/*
 * A tool's cache, made with its missing parents inside the caller's own
 * home (~/.cache/pip on a home with no ~/.cache yet). The parents are made,
 * never granted: only the cache itself is, with every check of a new
 * directory (new_directory.c). A parent may lie above a class location
 * (~/.cache holds ~/.cache/huggingface/token, ~/.cargo holds ~/.cargo/bin):
 * an empty directory the cage cannot write plants nothing, and the class
 * still holds the location below it. No directory is made at or inside a
 * class location, nor at or inside a directory of the search path.
 * Outside a home the caller owns, the cache's parent must exist: a root
 * whose HOME names another user's home would leave that user directories
 * of root's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/error.h"
#include "new_directory.h"
#include "policy/policy.h"

#define CHAIN_MAX 8

/* The nearest existing ancestor of a path, and the names missing below it. */
struct chain {
	char base[PATH_MAX]; /* canonical */
	char names[CHAIN_MAX][NAME_MAX + 1];
	size_t n;
};

static bool name_plain(const char *name)
{
	return name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	       strcmp(name, ".git") != 0;
}

static int chain_find(const char *path, struct chain *c, struct procage_error *err)
{
	char copy[PATH_MAX];
	struct stat st;
	if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy)
		return error_set(err, -ENAMETOOLONG, "cache directory %.64s...: too long", path);
	c->n = 0;
	for (;;) {
		size_t len = strlen(copy);
		while (len > 1 && copy[len - 1] == '/')
			copy[--len] = '\0';
		if (lstat(copy[0] ? copy : "/", &st) == 0)
			break;
		char *slash = strrchr(copy, '/');
		if (c->n == CHAIN_MAX || strlen(slash + 1) > NAME_MAX || !name_plain(slash + 1))
			return error_set(err, -EINVAL,
					 "cache directory %s: its missing part must be at most %d "
					 "plain names (not \".\", \"..\" or \".git\")",
					 path, CHAIN_MAX);
		memmove(c->names[1], c->names[0], c->n * sizeof c->names[0]);
		snprintf(c->names[0], sizeof c->names[0], "%s", slash + 1);
		c->n++;
		*slash = '\0';
	}
	if (!realpath(copy[0] ? copy : "/", c->base) || stat(c->base, &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		return error_set(err, -ENOTDIR, "cache directory %s: %s is not a directory", path,
				 copy[0] ? copy : "/");
	return 0;
}

/* The caller's own home (canonical, owned by this user, not "/") holds base. */
static int own_home_check(const struct procage_policy *p, const char *path, const struct chain *c,
			  struct procage_error *err)
{
	const char *home = policy_home(p);
	char canonical[PATH_MAX];
	struct stat st;
	bool own = home && home[0] == '/' && realpath(home, canonical) &&
		   strcmp(canonical, "/") != 0 && stat(canonical, &st) == 0 &&
		   st.st_uid == geteuid();
	size_t n = own ? strlen(canonical) : 0;
	const char *base = c->base;
	if (own && strncmp(base, canonical, n) == 0 && (base[n] == '\0' || base[n] == '/'))
		return 0;
	return error_set(err, -ENOENT,
			 "cache directory %s: its parent %s%s%s is missing, and a cache's parents "
			 "are made only inside the home of the calling user (%s%s); make them "
			 "yourself",
			 path, strcmp(base, "/") == 0 ? "" : base, "/", c->names[0],
			 home ? home : "$HOME unset",
			 own || !home ? "" : ", not owned by this user");
}

/* Is dir at or inside the directory of the search path entry? */
static bool inside(const char *dir, const char *entry)
{
	size_t n = strlen(entry);
	while (n > 1 && entry[n - 1] == '/')
		n--;
	return strncmp(dir, entry, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* The $PATH entry dir would lie at or inside, as spelled or canonical, in out. */
static bool search_path_holds(const char *dir, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char entry[PATH_MAX], canonical[PATH_MAX];
	for (const char *e = path; e && *e; e += strcspn(e, ":"), e += *e == ':') {
		size_t len = strcspn(e, ":");
		if (e[0] != '/' || len >= sizeof entry)
			continue; /* a relative entry names no fixed directory */
		snprintf(entry, sizeof entry, "%.*s", (int)len, e);
		bool hit =
		    inside(dir, entry) || (realpath(entry, canonical) && inside(dir, canonical));
		if (hit) {
			snprintf(out, size, "%s", entry);
			return true;
		}
	}
	return false;
}

/* Every directory the chain would make: no class location, no search path. */
static int chain_check(const struct procage_policy *p, const char *path, const struct chain *c,
		       struct procage_error *err)
{
	char dir[PATH_MAX], location[PATH_MAX];
	enum class_id cls;
	size_t len = strcmp(c->base, "/") == 0 ? 0 : strlen(c->base);
	memcpy(dir, c->base, len);
	for (size_t i = 0; i < c->n; i++) {
		bool last = i + 1 == c->n;
		int w = snprintf(dir + len, sizeof dir - len, "/%s", c->names[i]);
		if (w < 0 || (size_t)w >= sizeof dir - len)
			return error_set(err, -ENAMETOOLONG, "cache directory %s: too long", path);
		len += (size_t)w;
		/* A parent is made only; the cache itself is granted too. */
		if (new_directory_class_overlap(p, dir, location, sizeof location, &cls, last))
			return error_set(err, -EPERM,
					 "cache directory %s: %s would lie %s %s, a location of "
					 "the %s class; make it yourself if it must exist, and "
					 "waive the class to grant it",
					 path, dir, new_directory_overlap_word(dir, location),
					 location, class_name(cls));
		if (search_path_holds(dir, location, sizeof location))
			return error_set(err, -EPERM,
					 "cache directory %s: %s would lie in %s, a directory of "
					 "the search path ($PATH)",
					 path, dir, location);
	}
	return 0;
}

/* Make the chain's parents (not its last name), 0700, with no link followed. */
static int chain_make_parents(const struct chain *c, const char *path, struct procage_error *err)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, c->base, &how, sizeof how);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "cache directory %s: %s", path,
				     c->base);
	how.resolve |= RESOLVE_BENEATH;
	for (size_t i = 0; i + 1 < c->n; i++) {
		/* Made by someone else meanwhile: taken if it is a directory. */
		int next = -1, e = mkdirat(fd, c->names[i], 0700) == 0 ? 0 : errno;
		if (e == 0 || e == EEXIST) {
			next = (int)syscall(SYS_openat2, fd, c->names[i], &how, sizeof how);
			e = errno;
		}
		close(fd);
		if (next < 0)
			return error_set_sys(err, e, PROCAGE_STEP_NONE,
					     "cache directory %s: making its parent %s", path,
					     c->names[i]);
		fd = next;
	}
	close(fd);
	return 0;
}

PROCAGE_API int procage_policy_allow_cache_directory(struct procage_policy *p, const char *path,
						     int check_only, struct procage_error *err)
{
	struct chain c;
	int rc = policy_path_argument_check(p, path, err);
	if (rc == 0)
		rc = chain_find(path, &c, err);
	if (rc < 0)
		return rc;
	if (c.n > 0 && (rc = chain_check(p, path, &c, err)) < 0)
		return rc;
	if (c.n <= 1) /* there, or its parent is: a new directory's case */
		return procage_policy_allow_new_directory(p, path, check_only, err);
	if ((rc = own_home_check(p, path, &c, err)) < 0)
		return rc;
	if (check_only)
		return 1;
	if ((rc = chain_make_parents(&c, path, err)) < 0)
		return rc;
	return procage_policy_allow_new_directory(p, path, false, err);
}
