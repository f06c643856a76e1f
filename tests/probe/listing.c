/*
 * Listing through the T2 broker (tests/escape/listing.c): a directory
 * opened for listing, its names printed, then an entry opened through
 * that very descriptor, and again from it as the working directory.
 */
#include "probe.h"

static int print_file(int fd)
{
	char buf[256];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return PROBE_DID_IT;
}

/* list-then-open DIR NAME: list DIR, then read NAME relative to it (openat, fchdir). */
int do_list_then_open(char **args)
{
	int fd = open(args[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int copy = dup(fd);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	if (!d) {
		close(fd);
		return failed(REFUSE_FILE, "fdopendir", args[0]);
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			printf("%s\n", e->d_name);
	closedir(d);
	int f = openat(fd, args[1], O_RDONLY | O_CLOEXEC);
	if (f >= 0) {
		close(fd);
		return print_file(f);
	}
	if (fchdir(fd) == 0 && (f = open(args[1], O_RDONLY | O_CLOEXEC)) >= 0) {
		close(fd);
		return print_file(f);
	}
	close(fd);
	return failed(REFUSE_FILE, "openat", args[1]);
}
