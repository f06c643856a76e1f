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
