/*
 * The path a caged process named, as the supervisor's observer judges it
 * (see observe_path.h).
 */
#include "observe_path.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool name_is_n(const char *name, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(name, word, len) == 0;
}

void observe_lexical_clean(char *path)
{
	char *out = path, *in = path;
	while (*in) {
		while (*in == '/')
			in++;
		char *end = strchrnul(in, '/');
		size_t len = (size_t)(end - in);
		if (len == 0 || (len == 1 && in[0] == '.')) {
			in = end;
			continue;
		}
		if (len == 2 && in[0] == '.' && in[1] == '.') {
			while (out > path && *--out != '/')
				;
			in = end;
			continue;
		}
		*out++ = '/';
		memmove(out, in, len);
		out += len;
		in = end;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/*
 * path[0..len) with "/" and the component name[0..n) appended, in place
 * (size bytes); false when it does not fit.
 */
static bool component_append(char *path, size_t *len, const char *name, size_t n, size_t size)
{
	if (*len + 1 + n >= size)
		return false;
	path[(*len)++] = '/';
	memcpy(path + *len, name, n);
	*len += n;
	path[*len] = '\0';
	return true;
}

/* The PID namespace of pid is ours: its /proc/NUMBER are our own. */
static bool same_pid_namespace(pid_t pid)
{
	char link[64];
	struct stat ours, its;
	snprintf(link, sizeof link, "/proc/%d/ns/pid", (int)pid);
	return stat("/proc/self/ns/pid", &ours) == 0 && stat(link, &its) == 0 &&
	       ours.st_ino == its.st_ino && ours.st_dev == its.st_dev;
}

/* Each component of rest appended to path[0..len) as spelled; false when it does not fit. */
static bool rest_append(char *path, size_t *len, const char *rest, size_t size)
{
	for (const char *c = rest; *c;) {
		while (*c == '/')
			c++;
		const char *e = strchrnul(c, '/');
		if (e > c && !component_append(path, len, c, (size_t)(e - c), size))
			return false;
		c = e;
	}
	return true;
}

/*
 * After "/proc", the component name[0..n) as the caged process pid means
 * it, written into path (size bytes) in place of "/proc": /proc/self and
 * /proc/thread-self are pid's, /proc/NUMBER is of pid's PID namespace
 * (reached through its root, whose /proc shows that namespace). False
 * when it is an ordinary component. *own_ns caches whether that namespace
 * is ours (-1: not known yet).
 */
static bool proc_component(pid_t pid, char *path, size_t *len, const char *name, size_t n,
			   size_t size, int *own_ns)
{
	if (strcmp(path, "/proc") != 0)
		return false;
	if (name_is_n(name, n, "self") || name_is_n(name, n, "thread-self")) {
		*len = (size_t)snprintf(path, size, "/proc/%d", (int)pid);
		return true;
	}
	if (strspn(name, "0123456789") < n)
		return false;
	if (*own_ns < 0)
		*own_ns = same_pid_namespace(pid);
	if (*own_ns)
		return false;
	*len = (size_t)snprintf(path, size, "/proc/%d/root/proc/%.*s", (int)pid, (int)n, name);
	return true;
}

/*
 * in (absolute) with its symbolic links followed as the kernel follows
 * them for the caged process pid, as far as the path exists (the rest is
 * kept as spelled), in out. Not realpath: here /proc/self would be the
 * supervisor, so /proc/self and /proc/thread-self (where /dev/fd and
 * /dev/stdout lead) are the caged process's, and /proc/NUMBER a process
 * of its own PID namespace; without that a link to /proc/self/fd/N, or a
 * /dev/fd/N path, would name what the supervisor holds. False when a
 * descriptor's link names no path (a pipe, a socket) or it cannot be
 * followed. The first known bytes of in are a directory as the kernel
 * spells it (a cwd read through /proc): no link there, so no lstat of
 * each of its components (most of an observed call's cost, before).
 */
static bool cage_realpath(pid_t pid, const char *in, size_t known, char *out, size_t size)
{
	char rest[2 * PATH_MAX], next[2 * PATH_MAX], target[PATH_MAX];
	size_t len = 0;
	int links = 0, own_ns = -1; /* not known yet */
	out[0] = '\0';
	if (known >= size)
		return false;
	memcpy(out, in, known);
	out[known] = '\0';
	len = known;
	snprintf(rest, sizeof rest, "%s", in + known);
	for (const char *c = rest; *c;) {
		while (*c == '/')
			c++;
		const char *end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if (n == 0 || (n == 1 && c[0] == '.')) {
			c = end;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
			out[len] = '\0';
			c = end;
			continue;
		}
		size_t before = len;
		if (!proc_component(pid, out, &len, c, n, size, &own_ns) &&
		    !component_append(out, &len, c, n, size))
			return false;
		if (len >= size)
			return false;
		struct stat st;
		if (lstat(out, &st) != 0) /* not there: the rest as spelled */
			return rest_append(out, &len, end, size);
		if (!S_ISLNK(st.st_mode)) {
			c = end;
			continue;
		}
		ssize_t t = readlink(out, target, sizeof target - 1);
		if (t <= 0 || ++links > 40)
			return false;
		target[t] = '\0';
		/* A descriptor of a pipe or socket ("pipe:[7]") names no path. */
		if (target[0] != '/' && strncmp(out, "/proc/", 6) == 0)
			return false;
		if (target[0] == '/')
			before = 0;
		len = before;
		out[len] = '\0';
		if (snprintf(next, sizeof next, "%s%s", target, end) >= (int)sizeof next)
			return false;
		memcpy(rest, next, strlen(next) + 1);
		c = rest;
	}
	if (len == 0)
		snprintf(out, size, "/");
	return true;
}

bool observe_base_path(pid_t pid, int dirfd, char *out, size_t size)
{
	char link[64];
	if (dirfd == AT_FDCWD || dirfd < 0)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
	ssize_t n = readlink(link, out, size - 1);
	if (n <= 0 || out[0] != '/')
		return false;
	out[n] = '\0';
	return true;
}

/*
 * How much of joined, the base and a name, can be taken as spelled: the
 * base as the kernel wrote it, unless it is the root (nothing to skip)
 * or lies in /proc, whose numbers and self links cage_realpath reads
 * as the caged process means them.
 */
static size_t known_prefix(const char *base)
{
	size_t len = strlen(base);
	if (len <= 1 || strncmp(base, "/proc", 5) == 0)
		return 0;
	return len;
}

bool observe_absolute_path_from(pid_t pid, const char *base, const char *name, char *out,
				size_t size)
{
	char joined[2 * PATH_MAX];
	size_t known = 0;
	if (!base || name[0] == '/') {
		snprintf(joined, sizeof joined, "%s", name);
	} else {
		if (snprintf(joined, sizeof joined, "%s/%s", base, name) >= (int)sizeof joined)
			return false;
		known = known_prefix(base);
	}
	/*
	 * Not cleaned before: ".." after a link goes up from the link's
	 * target, as the kernel takes it, not from the link.
	 */
	if (!cage_realpath(pid, joined, known, out, size))
		return false;
	/*
	 * What lies below /proc is judged as /proc, as spelled (the /proc of
	 * a process, as the supervisor reaches it, is no name of the run's).
	 */
	if (strncmp(out, "/proc/", 6) == 0 || strcmp(out, "/proc") == 0) {
		observe_lexical_clean(joined);
		size_t len = strlen(joined);
		if (len + 1 >= size)
			return false;
		memcpy(out, joined, len + 1);
	}
	return true;
}

bool observe_absolute_path(pid_t pid, int dirfd, const char *name, char *out, size_t size)
{
	char base[PATH_MAX];
	if (name[0] != '/' && !observe_base_path(pid, dirfd, base, sizeof base))
		return false;
	return observe_absolute_path_from(pid, name[0] == '/' ? NULL : base, name, out, size);
}
