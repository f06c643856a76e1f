/*
 * The probe's ways into its own /proc entries that must not lead further
 * than Landlock lets it (tier T2's broker opens some of them for it).
 */
#include "probe.h"

/* Print the file at path, opened with openat from dirfd. */
static int read_at(int dirfd, const char *path, const char *shown)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", shown);
	int rc = copy_to_stdout(fd, false) == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, "read", shown);
	close(fd);
	return rc;
}

/* DIR PATH: chdir(DIR) (Landlock judges no chdir), then read PATH. */
int do_chdir_read(char **args)
{
	if (chdir(args[0]) != 0)
		return failed(REFUSE_FILE, "chdir", args[0]);
	return read_at(AT_FDCWD, args[1], args[1]);
}

/*
 * PATH: open PATH as O_PATH (Landlock judges no O_PATH open), then read
 * it again through /proc/self/fd/N, the way a hidden file's descriptor
 * would be reopened for reading.
 */
int do_read_via_fd(char **args)
{
	char link[64];
	int fd = open(args[0], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open O_PATH", args[0]);
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	int rc = read_at(AT_FDCWD, link, link);
	close(fd);
	return rc;
}

/* DIR NAME: open DIR as a directory, then read NAME relative to it. */
int do_read_at(char **args)
{
	int dir = open(args[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc = read_at(dir, args[1], args[1]);
	close(dir);
	return rc;
}

/* NAME: read /proc/self/task/TID/NAME of the probe's own thread. */
int do_read_own_task(char **args)
{
	char path[128];
	snprintf(path, sizeof path, "/proc/self/task/%ld/%s", (long)syscall(SYS_gettid), args[0]);
	return read_at(AT_FDCWD, path, path);
}

/* The first entry of the directory open at fd, other than . and .., in name. */
static bool first_entry(int fd, char *name, size_t size)
{
	int again = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = again >= 0 ? fdopendir(again) : NULL;
	bool found = false;
	if (!d) {
		if (again >= 0)
			close(again);
		return false;
	}
	for (struct dirent *e; !found && (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			found = snprintf(name, size, "%s", e->d_name) < (int)size;
	closedir(d);
	return found;
}

/*
 * DIR: open DIR as a directory (as ps opens /proc), then try to reach
 * past what it lists through that descriptor: make a file in it, make a
 * directory in it, reopen it by ENTRY/.., climb above it by ENTRY/../..
 * (ENTRY its first entry). Did it when any of them succeeds, refused when
 * all are.
 */
int do_dir_escape(char **args)
{
	char entry[256], up[300], above[300];
	int dir = open(args[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	/* Listed before anything is made in it, so that ENTRY is one of its own. */
	bool listed = first_entry(dir, entry, sizeof entry);
	int fd = openat(dir, "probe-made", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		printf("made a file\n");
		close(fd);
		unlinkat(dir, "probe-made", 0);
		close(dir);
		return PROBE_DID_IT;
	}
	if (mkdirat(dir, "probe-dir", 0700) == 0) {
		printf("made a directory\n");
		unlinkat(dir, "probe-dir", AT_REMOVEDIR);
		close(dir);
		return PROBE_DID_IT;
	}
	if (!listed) {
		close(dir);
		return failed(REFUSE_FILE, "list", args[0]);
	}
	snprintf(up, sizeof up, "%s/..", entry);
	snprintf(above, sizeof above, "%s/../..", entry);
	const char *tries[] = {up, above};
	for (size_t i = 0; i < 2; i++) {
		fd = openat(dir, tries[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			printf("opened %s\n", tries[i]);
			close(fd);
			close(dir);
			return PROBE_DID_IT;
		}
	}
	int rc = failed(REFUSE_FILE, "openat", above);
	close(dir);
	return rc;
}

/*
 * NAME KEEP: a semaphore's file the way glibc's sem_open makes one, then
 * read back: /dev/shm/sem.XXXXXX made (O_EXCL), linked to
 * /dev/shm/sem.mp-NAME, the first name removed; the second too unless
 * KEEP is "keep".
 */
int do_sem_own(char **args)
{
	char tmp[64], name[64], text[32] = "";
	snprintf(tmp, sizeof tmp, "/dev/shm/sem.p%05d", (int)(getpid() % 100000));
	snprintf(name, sizeof name, "/dev/shm/sem.mp-%s", args[0]);
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", tmp);
	bool written = write(fd, "own-semaphore", 13) == 13;
	close(fd);
	if (!written)
		return failed(REFUSE_FILE, "write", tmp);
	if (link(tmp, name) != 0) {
		int rc = failed(REFUSE_FILE, "link", name);
		(void)unlink(tmp);
		return rc;
	}
	if (unlink(tmp) != 0)
		return failed(REFUSE_FILE, "unlink", tmp);
	fd = open(name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", name);
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n < 0)
		return failed(REFUSE_FILE, "read", name);
	printf("%s\n", text);
	if (strcmp(args[1], "keep") != 0 && unlink(name) != 0)
		return failed(REFUSE_FILE, "unlink", name);
	return PROBE_DID_IT;
}

/*
 * PATH: make a pseudo-terminal of the probe's own and hold its master,
 * then read what waits at PATH (another terminal's end), without waiting.
 */
int do_pty_hold_read(char **args)
{
	char text[256];
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return failed(REFUSE_FILE, "posix_openpt", "/dev/ptmx");
	if (grantpt(master) != 0 || unlockpt(master) != 0) {
		close(master);
		return failed(REFUSE_FILE, "unlockpt", "/dev/ptmx");
	}
	int fd = open(args[0], O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	int e = errno;
	if (fd < 0) {
		close(master);
		errno = e;
		return failed(REFUSE_FILE, "open", args[0]);
	}
	ssize_t n = read(fd, text, sizeof text - 1);
	e = errno;
	close(fd);
	close(master);
	errno = e;
	if (n < 0)
		return failed(REFUSE_FILE, "read", args[0]);
	printf("%.*s\n", (int)n, text);
	return PROBE_DID_IT;
}
