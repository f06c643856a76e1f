/*
 * The policy file as procage's own input. A file inside the write grants
 * of the cage it makes could be rewritten by a run (network on, classes
 * waived, the home writable) and widen every later run. So:
 *
 *   - it is read once, by descriptor, from its canonical path with no
 *     link followed, and the cage protects that file (read-only) for the
 *     whole run;
 *   - if it lies inside a write grant, its text must be the text procage
 *     last ran with (a copy kept in procage's state directory, which must
 *     lie outside the grants): a change made outside procage's knowledge,
 *     or a file procage has not run with, is refused until the caller
 *     confirms it with --trust-policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

#define POLICY_FILE_MAX (1 << 20)

static int __attribute__((format(printf, 3, 4)))
error_message(struct procage_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	memset(err, 0, sizeof *err);
	err->code = code;
	err->step = PROCAGE_STEP_NONE;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return code;
}

static int open_no_links(int dfd, const char *path, int flags)
{
	struct open_how how = { .flags = (unsigned)flags | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof how);
}

static char *fd_read_all(int fd, size_t max)
{
	size_t n = 0, cap = 4096;
	char *text = malloc(cap);
	for (ssize_t got; text; n += (size_t)got) {
		if (n + 1 == cap) {
			char *grown = cap < max ? realloc(text, cap * 2) : NULL;
			if (!grown) {
				free(text);
				return NULL;
			}
			text = grown;
			cap *= 2;
		}
		got = read(fd, text + n, cap - 1 - n);
		if (got < 0 && errno == EINTR) {
			got = 0;
			continue;
		}
		if (got <= 0) {
			text[n] = '\0';
			return got < 0 ? (free(text), NULL) : text;
		}
	}
	return NULL;
}

int policy_file_read(const char *path, struct policy_source *src, struct procage_error *err)
{
	memset(src, 0, sizeof *src);
	src->dir_fd = -1;
	char *canonical = realpath(path, NULL);
	if (!canonical)
		return error_message(err, -errno, "reading the policy file %s: %s", path,
				     strerror(errno));
	snprintf(src->canonical, sizeof src->canonical, "%s", canonical);
	free(canonical);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", src->canonical);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	src->dir_fd = open_no_links(AT_FDCWD, dir, O_PATH | O_DIRECTORY);
	int fd = open_no_links(AT_FDCWD, src->canonical, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (src->dir_fd < 0 || fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_message(err, -EINVAL, "reading the policy file %s: %s", path,
				     fd >= 0 ? "not a regular file" : strerror(e));
	}
	src->text = fd_read_all(fd, POLICY_FILE_MAX);
	close(fd);
	if (!src->text)
		return error_message(err, -EFBIG, "reading the policy file %s: unreadable or above "
						  "1 MiB", path);
	return 0;
}

void policy_source_free(struct policy_source *src)
{
	free(src->text);
	src->text = NULL;
	if (src->dir_fd >= 0)
		close(src->dir_fd);
	src->dir_fd = -1;
}

/* $XDG_STATE_HOME/procage/policies, else ~/.local/state/procage/policies. */
static int state_dir(char *out, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	struct passwd *pw = NULL;
	if (state && state[0] == '/')
		return snprintf(out, size, "%s/procage/policies", state) < (int)size ? 0 : -1;
	if (!home || home[0] != '/')
		home = (pw = getpwuid(getuid())) ? pw->pw_dir : NULL;
	if (!home || home[0] != '/')
		return -1;
	return snprintf(out, size, "%s/.local/state/procage/policies", home) < (int)size ? 0 : -1;
}

/* mkdir -p, private; the last directory opened (O_PATH) or -1. */
static int state_dir_open(const char *dir)
{
	char part[PATH_MAX];
	snprintf(part, sizeof part, "%s", dir);
	for (char *c = part + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		(void)mkdir(part, 0700);
		*c = '/';
	}
	(void)mkdir(part, 0700);
	return open_no_links(AT_FDCWD, part, O_PATH | O_DIRECTORY);
}

/* The record's name: FNV-1a of the canonical path, in hex. */
static void record_name(const char *canonical, char *out, size_t size)
{
	uint64_t h = 1469598103934665603ull;
	for (const unsigned char *c = (const unsigned char *)canonical; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	snprintf(out, size, "%016llx.json", (unsigned long long)h);
}

/* The record: the canonical path, a newline, the text. */
static char *record_text(const struct policy_source *src)
{
	char *r = NULL;
	return asprintf(&r, "%s\n%s", src->canonical, src->text) < 0 ? NULL : r;
}

static int record_write(int dir, const char *name, const char *text)
{
	char tmp[96];
	snprintf(tmp, sizeof tmp, "%.40s.%d.new", name, (int)getpid());
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n && fsync(fd) == 0;
	close(fd);
	if (!ok || renameat(dir, tmp, dir, name) != 0) {
		int e = errno ? errno : EIO;
		(void)unlinkat(dir, tmp, 0);
		return -e;
	}
	return 0;
}

int policy_file_judge(const struct policy_source *src, const struct procage_cage *cage,
		      bool trust, char *grant, size_t grant_size, struct procage_error *err)
{
	if (procage_cage_write_grant_of(cage, src->dir_fd, grant, grant_size) != 1) {
		grant[0] = '\0';
		return 0;
	}
	char dir_path[PATH_MAX], name[64], state_grant[PATH_MAX];
	if (state_dir(dir_path, sizeof dir_path) < 0)
		return error_message(err, -ENOENT,
				     "the policy file %s lies inside the write grant %s, and procage "
				     "has no state directory (no absolute home) to tell whether a "
				     "run changed it",
				     src->canonical, grant);
	int dir = state_dir_open(dir_path);
	if (dir < 0)
		return error_message(err, -errno, "opening procage's state directory %s: %s",
				     dir_path, strerror(errno));
	int rc = 0;
	record_name(src->canonical, name, sizeof name);
	char *want = record_text(src);
	int fd = open_no_links(dir, name, O_RDONLY);
	char *had = fd >= 0 ? fd_read_all(fd, POLICY_FILE_MAX + PATH_MAX + 2) : NULL;
	if (fd >= 0)
		close(fd);
	bool state_granted =
		procage_cage_write_grant_of(cage, dir, state_grant, sizeof state_grant) == 1;
	bool same = had && want && strcmp(had, want) == 0;
	if (!want)
		rc = error_message(err, -ENOMEM, "out of memory");
	else if (!trust && !same)
		rc = error_message(err, -EPERM,
				   "the policy file %s lies inside the write grant %s, where a run "
				   "can write it, and %s: review it, then run once with "
				   "--trust-policy to confirm it",
				   src->canonical, grant,
				   had ? "it changed since procage last ran with it"
				       : "procage has not run with it before");
	else if (state_granted)
		/* A run could write the record as well as the file. */
		rc = error_message(err, -EPERM,
				   "the policy file %s lies inside the write grant %s, and so does "
				   "procage's state directory %s (inside %s): a run could change "
				   "both, so the file cannot be trusted; move the policy file out of "
				   "the write grants",
				   src->canonical, grant, dir_path, state_grant);
	else if (trust && record_write(dir, name, want) < 0)
		rc = error_message(err, -EIO, "recording the policy file %s in %s",
				   src->canonical, dir_path);
	free(want);
	free(had);
	close(dir);
	return rc;
}
