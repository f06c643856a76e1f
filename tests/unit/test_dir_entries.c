/*
 * Unit tests: dir_entries (base/dir_entries.c) lists what readdir lists,
 * with the same types and without "." and "..", for a directory whose
 * listing takes several reads of its buffer; an empty directory has no
 * entry; a descriptor that is no directory gives a negative errno, not an
 * empty listing that a walk would take for "nothing to hide"; a directory
 * removed while it was open ends its listing (the kernel's ENOENT: another
 * process removed it as a cage was made), unlike readdir's NULL with errno.
 */
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

#include "base/dir_entries.h"
#include "caged.h"
#include "tap.h"

/* Enough names of this length to fill the reader's buffer a few times. */
#define NAMES 1200

static char top[PATH_MAX / 2];

/* Each entry's name and type, from readdir or from dir_entries, sorted. */
struct listed {
	char name[256];
	unsigned char type;
};

static int listed_compare(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

static size_t by_readdir(const char *dir, struct listed *out, size_t cap)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || n == cap)
			continue;
		snprintf(out[n].name, sizeof out[n].name, "%s", e->d_name);
		out[n++].type = e->d_type;
	}
	if (d)
		closedir(d);
	qsort(out, n, sizeof *out, listed_compare);
	return n;
}

/* The listing through dir_entries; *rc its last result. */
static size_t by_dir_entries(const char *dir, struct listed *out, size_t cap, int *rc)
{
	static struct dir_entries d;
	struct dir_entry e;
	size_t n = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*rc = fd < 0 ? -errno : 0;
	if (fd < 0)
		return 0;
	dir_entries_begin(&d, fd);
	while ((*rc = dir_entries_next(&d, &e)) > 0 && n < cap) {
		snprintf(out[n].name, sizeof out[n].name, "%s", e.name);
		out[n++].type = e.type;
	}
	close(fd);
	qsort(out, n, sizeof *out, listed_compare);
	return n;
}

static bool fixture_make(void)
{
	char path[PATH_MAX];
	for (int i = 0; i < NAMES; i++) {
		snprintf(path, sizeof path, "%s/many/entry-with-a-long-name-%04d", top, i);
		int fd = i % 3 == 0 ? (mkdir(path, 0700) == 0 ? 0 : -1)
				    : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return false;
		if (fd > 0)
			close(fd);
	}
	snprintf(path, sizeof path, "%s/many/a-link", top);
	return symlink("entry-with-a-long-name-0001", path) == 0;
}

static void listings_agree(void)
{
	static struct listed want[NAMES + 8], got[NAMES + 8];
	char dir[PATH_MAX];
	int rc;
	snprintf(dir, sizeof dir, "%s/many", top);
	size_t n_want = by_readdir(dir, want, NAMES + 8);
	size_t n_got = by_dir_entries(dir, got, NAMES + 8, &rc);
	tap_ok(n_want == NAMES + 1, "readdir lists the %d names made", NAMES + 1);
	tap_ok(rc == 0 && n_got == n_want, "dir_entries lists as many, then ends (%zu, %d)", n_got,
	       rc);
	bool same = n_got == n_want;
	for (size_t i = 0; same && i < n_got; i++)
		same = strcmp(want[i].name, got[i].name) == 0 && want[i].type == got[i].type;
	tap_ok(same, "the same names with the same types, . and .. left out");
	bool typed = true;
	for (size_t i = 0; i < n_got; i++)
		if (strcmp(got[i].name, "a-link") == 0)
			typed = got[i].type == DT_LNK;
	tap_ok(typed, "a link's entry says it is a link");
}

static void empty_and_not_a_directory(void)
{
	static struct listed got[4];
	static struct dir_entries d;
	struct dir_entry e;
	char dir[PATH_MAX];
	int rc;
	snprintf(dir, sizeof dir, "%s/empty", top);
	size_t n = by_dir_entries(dir, got, 4, &rc);
	tap_ok(n == 0 && rc == 0, "an empty directory has no entry and ends cleanly");
	snprintf(dir, sizeof dir, "%s/many/entry-with-a-long-name-0001", top);
	int fd = open(dir, O_RDONLY | O_CLOEXEC);
	dir_entries_begin(&d, fd);
	rc = dir_entries_next(&d, &e);
	tap_ok(fd >= 0 && rc == -ENOTDIR, "a file's descriptor gives -ENOTDIR (%d)", rc);
	tap_ok(dir_entries_next(&d, &e) == rc, "and keeps giving it");
	if (fd >= 0)
		close(fd);
}

static void removed_while_open(void)
{
	static struct dir_entries d;
	struct dir_entry e;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/removed", top);
	int fd = mkdir(dir, 0700) == 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	bool removed = fd >= 0 && rmdir(dir) == 0;
	errno = 0;
	long got = removed ? syscall(SYS_getdents64, fd, (char[256]){ 0 }, 256) : 0;
	tap_ok(removed && got < 0 && errno == ENOENT,
	       "control: the kernel lists a removed directory with ENOENT (%ld, %s)", got,
	       strerror(errno));
	if (fd >= 0)
		lseek(fd, 0, SEEK_SET);
	dir_entries_begin(&d, fd);
	int rc = removed ? dir_entries_next(&d, &e) : -1;
	tap_ok(rc == 0, "dir_entries: a directory removed while open has no entry (%d)", rc);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	char path[PATH_MAX];
	snprintf(top, sizeof top, "%s/procage-dir-entries.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top)) {
		tap_ok(false, "a temporary directory");
		return tap_done();
	}
	snprintf(path, sizeof path, "%s/many", top);
	bool made = mkdir(path, 0700) == 0;
	snprintf(path, sizeof path, "%s/empty", top);
	made = made && mkdir(path, 0700) == 0 && fixture_make();
	tap_ok(made, "the fixture in %s", top);
	if (made) {
		listings_agree();
		empty_and_not_a_directory();
		removed_while_open();
	}
	caged_remove_tree(top);
	return tap_done();
}
