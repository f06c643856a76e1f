/*
 * Unit tests: upper_access (changes/upper_access.c) reads back what a run
 * left in its upper layer with its owner's permissions taken away, and
 * never changes anything but the entry itself.
 *
 * - A directory of mode 000 holding a file: opened and walked (the file
 *   opened through it), then its mode is 000 again; a file of mode 000 is
 *   read and keeps its mode. As uid 65534 where the test runs as root,
 *   whose reads never need the widening.
 * - A name that is a symbolic link to a directory or file of the host
 *   (what a run still going can swap in while procage changes show reads
 *   its change set): refused, and the target's mode untouched. The
 *   control: a chmod by name (fchmodat, what the first version did)
 *   changes the target, so the check sees a change when there is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "caged.h"
#include "changes/upper_access.h"
#include "scratch.h"
#include "tap.h"

#define NOBODY 65534

static char *top;

static mode_t mode_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void at(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", top, name);
}

/* Run by the owner of the entries (uid 65534 under root): 0 when all held. */
static int closed_entries_read(int dir)
{
	int failures = 0;
	int fd = upper_dir_open(dir, "closed", 0);
	failures += fd < 0;
	if (fd >= 0) {
		int in = openat(fd, "f", O_RDONLY | O_CLOEXEC);
		char buf[8] = "";
		failures += in < 0 || read(in, buf, sizeof buf) != 2 || memcmp(buf, "x\n", 2) != 0;
		if (in >= 0)
			close(in);
		upper_dir_done(fd, 0);
		close(fd);
	}
	struct stat st;
	failures += fstatat(dir, "closed", &st, 0) != 0 || (st.st_mode & 07777) != 0;
	int file = upper_file_open(dir, "shut", O_RDONLY, 0);
	char buf[8] = "";
	failures += file < 0 || read(file, buf, sizeof buf) != 2 || memcmp(buf, "y\n", 2) != 0;
	if (file >= 0)
		close(file);
	failures += fstatat(dir, "shut", &st, 0) != 0 || (st.st_mode & 07777) != 0;
	return failures;
}

static void closed_modes(void)
{
	char path[PATH_MAX];
	at(path, sizeof path, "closed");
	bool made = mkdir(path, 0700) == 0;
	at(path, sizeof path, "closed/f");
	made = made && caged_write_file(path, "x\n") == 0;
	at(path, sizeof path, "shut");
	made = made && caged_write_file(path, "y\n") == 0;
	if (geteuid() == 0)
		made = made && chown(top, NOBODY, NOBODY) == 0 &&
		       lchown(path, NOBODY, NOBODY) == 0 &&
		       (at(path, sizeof path, "closed"), lchown(path, NOBODY, NOBODY) == 0) &&
		       (at(path, sizeof path, "closed/f"), lchown(path, NOBODY, NOBODY) == 0);
	at(path, sizeof path, "closed");
	made = made && chmod(path, 0) == 0;
	at(path, sizeof path, "shut");
	made = made && chmod(path, 0) == 0;
	if (!tap_ok(made, "a directory and a file of mode 000, with a file in the directory"))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		int dir = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
				       setresuid(NOBODY, NOBODY, NOBODY) != 0))
			_exit(100);
		_exit(dir < 0 ? 101 : closed_entries_read(dir));
	}
	int status = -1;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "their owner (uid %d) walks the directory and reads the file, and both are mode "
	       "000 again (status %d)",
	       geteuid() == 0 ? NOBODY : (int)geteuid(), status);
	at(path, sizeof path, "closed");
	(void)chmod(path, 0700);
	at(path, sizeof path, "shut");
	(void)chmod(path, 0600);
}

static void links_never_followed(void)
{
	char victim_dir[PATH_MAX], victim_file[PATH_MAX], link_dir[PATH_MAX], link_file[PATH_MAX];
	at(victim_dir, sizeof victim_dir, "host-dir");
	at(victim_file, sizeof victim_file, "host-file");
	at(link_dir, sizeof link_dir, "swapped-dir");
	at(link_file, sizeof link_file, "swapped-file");
	bool made = mkdir(victim_dir, 0755) == 0 && chmod(victim_dir, 0755) == 0 &&
		    caged_write_file(victim_file, "host\n") == 0 && chmod(victim_file, 0644) == 0 &&
		    symlink(victim_dir, link_dir) == 0 && symlink(victim_file, link_file) == 0;
	if (!tap_ok(made, "a host directory and file, and links to them where entries were"))
		return;
	int dir = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A directory the run left 0077: widening it would give the target 0777. */
	int fd = upper_dir_open(dir, "swapped-dir", 0077);
	tap_ok(fd < 0, "a link where a closed directory was is refused (%d)", fd);
	if (fd >= 0)
		close(fd);
	tap_ok(mode_of(victim_dir) == 0755, "the linked directory keeps its mode (%04o)",
	       mode_of(victim_dir));
	fd = upper_file_open(dir, "swapped-file", O_RDONLY, 0044);
	if (fd >= 0)
		close(fd);
	tap_ok(mode_of(victim_file) == 0644, "the linked file keeps its mode (%04o)",
	       mode_of(victim_file));
	/* Control: a chmod by name goes through the link. */
	bool followed = fchmodat(dir, "swapped-dir", 0750, 0) == 0 && mode_of(victim_dir) == 0750;
	tap_ok(followed, "control: a chmod by name changes the linked directory (%04o)",
	       mode_of(victim_dir));
	close(dir);
}

int main(void)
{
	top = scratch_dir("upper-access");
	if (!tap_ok(top != NULL, "a temporary directory"))
		return tap_done();
	/* Others may enter it: the owner of the entries may be uid 65534. */
	(void)chmod(top, 0755);
	closed_modes();
	links_never_followed();
	caged_remove_tree(top);
	free(top);
	return tap_done();
}
