/* The probe's actions: descriptors, environment and files. */
#include "probe.h"

#include <sys/xattr.h>

/* ---- descriptors and environment -------------------------------------- */

int do_read_fd(char **args)
{
	long fd;
	if (!parse_int(args[0], &fd) || fd < 0 || fd > 1 << 20)
		return usage_error("bad descriptor number", args[0]);
	if (fcntl((int)fd, F_GETFD) < 0)
		return failed(REFUSE_FD, "fcntl", args[0]);
	/* pread: the description may be shared, so its offset is left alone. */
	if (copy_to_stdout((int)fd, true) != 0)
		return failed(REFUSE_FD, "read", args[0]);
	return PROBE_DID_IT;
}

int do_env_has(char **args)
{
	const char *v = getenv(args[0]);
	if (!v) {
		fprintf(stderr, "probe: env-has %s: absent\n", args[0]);
		return PROBE_REFUSED;
	}
	printf("%s", v);
	return PROBE_DID_IT;
}

int do_env_list(char **args)
{
	for (char **e = environ; e && *e; e++)
		printf("%s\n", *e);
	return PROBE_DID_IT;
}

/* ---- files ------------------------------------------------------------ */

int do_read_file(char **args)
{
	int fd = open(args[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc =
	    copy_to_stdout(fd, false) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "read", args[0]);
	close(fd);
	return rc;
}

/*
 * One read of at most a page, without waiting: enough to show a file can
 * be read, and safe on /proc/kcore (the size of memory) and /proc/kmsg
 * (a read that waits for the kernel's next message).
 */
int do_read_head(char **args)
{
	char buf[4096];
	int fd = open(args[0], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	ssize_t n = read(fd, buf, sizeof buf);
	int rc = n >= 0 || errno == EAGAIN ? PROBE_DID_IT : failed(REFUSE_FILE, "read", args[0]);
	close(fd);
	if (n > 0)
		printf("%zd bytes\n", n);
	return rc;
}

/* Opening for writing is the attempt: nothing is written (a sysrq key would act). */
int do_open_write(char **args)
{
	int fd = open(args[0], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open(O_WRONLY)", args[0]);
	close(fd);
	return PROBE_DID_IT;
}

int do_write_file(char **args)
{
	int fd = open(args[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	size_t len = strlen(args[1]);
	ssize_t n = write(fd, args[1], len);
	if (n != (ssize_t)len) {
		int rc = failed(REFUSE_FILE, "write", args[0]);
		close(fd);
		return rc;
	}
	return close(fd) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "close", args[0]);
}

int do_truncate_path(char **args)
{
	return truncate(args[0], 0) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "truncate", args[0]);
}

int do_open_trunc(char **args)
{
	int fd = open(args[0], O_RDONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open(O_RDONLY|O_TRUNC)", args[0]);
	close(fd);
	return PROBE_DID_IT;
}

static int do_ftruncate(const char *path, int flags, enum refusal_set set)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, flags == O_RDONLY ? "open(O_RDONLY)" : "open(O_RDWR)",
			      path);
	int rc = ftruncate(fd, 0) == 0 ? PROBE_DID_IT : failed(set, "ftruncate", path);
	close(fd);
	return rc;
}

int do_ftruncate_ro(char **args)
{
	return do_ftruncate(args[0], O_RDONLY, REFUSE_FTRUNCATE_RO);
}

int do_ftruncate_rw(char **args)
{
	return do_ftruncate(args[0], O_RDWR, REFUSE_FILE);
}

/*
 * list-dir PATH [NAME...]: with names, only those the listing holds: a
 * directory the host fills (/tmp, /proc) may list more than the caller's
 * buffer keeps, and a name cut off must not read as absent.
 */
static bool list_wanted(char **names, const char *name)
{
	if (!names[0])
		return true;
	for (size_t i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

int do_list_dir(char **args)
{
	DIR *d = opendir(args[0]);
	if (!d)
		return failed(REFUSE_FILE, "opendir", args[0]);
	errno = 0;
	for (struct dirent *e; (e = readdir(d)); errno = 0)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    list_wanted(args + 1, e->d_name))
			printf("%s\n", e->d_name);
	int rc = errno ? failed(REFUSE_FILE, "readdir", args[0]) : PROBE_DID_IT;
	closedir(d);
	return rc;
}

/* rename FROM TO, link FROM TO, symlink TARGET PATH, unlink PATH, mkdir PATH */
int do_path_call(char **args)
{
	const char *a = action_name;
	int rc = strcmp(a, "rename") == 0    ? rename(args[0], args[1])
		 : strcmp(a, "link") == 0    ? link(args[0], args[1])
		 : strcmp(a, "symlink") == 0 ? symlink(args[0], args[1])
		 : strcmp(a, "unlink") == 0  ? unlink(args[0])
					     : mkdir(args[0], 0755);
	return rc == 0 ? PROBE_DID_IT : failed(REFUSE_MOVE, a, args[0]);
}

/*
 * flink FROM TO: a second name for a file through a descriptor of it
 * (linkat with AT_EMPTY_PATH), not through its path. Since Linux 6.10 the
 * opener of a file may do this without CAP_DAC_READ_SEARCH; before, the
 * kernel ignores the flag and fails with ENOENT (the control tells which).
 */
int do_flink(char **args)
{
	int fd = open(args[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc = linkat(fd, "", AT_FDCWD, args[1], AT_EMPTY_PATH) == 0
		     ? PROBE_DID_IT
		     : failed(REFUSE_MOVE, "linkat", args[0]);
	close(fd);
	return rc;
}

/*
 * Metadata: set-times PATH (atime and mtime to 2001-09-09), chown-self PATH
 * (to the probe's own uid and gid, which an owner may do: still a change of
 * the inode), set-xattr PATH (user.probe; the filter answers EOPNOTSUPP,
 * which is its refusal). chmod and fchmod-ro are in targets.c.
 */
int do_metadata(char **args)
{
	const char *a = action_name;
	int rc;
	if (strcmp(a, "set-xattr") == 0) {
		rc = setxattr(args[0], "user.probe", "x", 1, 0);
		if (rc != 0 && errno == EOPNOTSUPP) {
			fprintf(stderr, "probe: %s %s: refused by setxattr: EOPNOTSUPP\n", a, args[0]);
			return PROBE_REFUSED;
		}
	} else if (strcmp(a, "set-times") == 0) {
		const struct timespec times[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
		rc = utimensat(AT_FDCWD, args[0], times, 0);
	} else {
		rc = chown(args[0], getuid(), getgid());
	}
	return rc == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, a, args[0]);
}
