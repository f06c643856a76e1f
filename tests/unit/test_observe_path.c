/*
 * Unit tests of the observer's paths (watch/observe_path.c): a relative
 * name joined to the cwd as the kernel spells it, whose components are
 * then taken as they are, resolves to what the full walk of the joined
 * path gives, links and ".." in the name included.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/tmpdir.h"
#include "scratch.h"
#include "tap.h"
#include "watch/observe_path.h"

static char root[4096];

static int make(const char *rel, const char *link_to)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (link_to)
		return symlink(link_to, path);
	return mkdir(path, 0755);
}

static void test_base(void)
{
	char base[PATH_MAX], expect[PATH_MAX * 2];
	pid_t pid = getpid();
	if (!tap_ok(chdir(root) == 0 && chdir("ws/src") == 0, "into a directory of the tree"))
		return;
	tap_ok(observe_base_path(pid, AT_FDCWD, base, sizeof base) && strlen(base) > 1 &&
		   strcmp(base + strlen(base) - 7, "/ws/src") == 0,
	       "the cwd as the kernel spells it (%s)", base);
	int fd = open("..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char from_fd[PATH_MAX];
	tap_ok(fd >= 0 && observe_base_path(pid, fd, from_fd, sizeof from_fd) &&
		   strcmp(from_fd + strlen(from_fd) - 3, "/ws") == 0,
	       "a directory descriptor's path (%s)", from_fd);
	close(fd);
	int pipes[2];
	tap_ok(pipe(pipes) == 0 && !observe_base_path(pid, pipes[0], from_fd, sizeof from_fd),
	       "a pipe names no directory");
	close(pipes[0]);
	close(pipes[1]);
	static const char *const names[] = {
	    "f.c",	    "./f.c",	     "../README",	  "../../ws/src/f.c",
	    "up/f.c",	    "up/../x",	     "abs/f.c",		  "abs/../../ws",
	    "missing/x.c",  "missing/../x",  "../link/src/f.c", "../../../../../../../..",
	    "loop/x",	    "up/up/up/f.c", ".",		  "..",
	};
	bool same = true;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char joined[PATH_MAX * 2], quick[PATH_MAX], full[PATH_MAX];
		snprintf(joined, sizeof joined, "%s/%s", base, names[i]);
		bool a = observe_absolute_path_from(pid, base, names[i], quick, sizeof quick);
		bool b = observe_absolute_path_from(pid, NULL, joined, full, sizeof full);
		if (a != b || (a && strcmp(quick, full) != 0)) {
			tap_diag("%s: from the base %s, walked in full %s", names[i],
				 a ? quick : "(none)", b ? full : "(none)");
			same = false;
		}
	}
	tap_ok(same, "every name resolves from the base as the full walk of the joined path");
	snprintf(expect, sizeof expect, "%s/ws/src/f.c", root);
	char out[PATH_MAX];
	tap_ok(observe_absolute_path(pid, AT_FDCWD, "up/../ws/src/f.c", out, sizeof out) &&
		   strcmp(out, expect) == 0,
	       "a link in the name is followed, '..' after it goes up from its target (%s)", out);
	(void)!chdir("/");
}

int main(void)
{
	char *canonical = scratch_dir("observe");
	if (!tap_ok(canonical != NULL, "a temporary directory"))
		return tap_done();
	snprintf(root, sizeof root, "%s", canonical);
	char abs_target[4200];
	snprintf(abs_target, sizeof abs_target, "%s/ws/src", root);
	tap_ok(make("ws", NULL) == 0 && make("ws/src", NULL) == 0 &&
		   make("ws/src/up", "..") == 0 && make("ws/src/abs", abs_target) == 0 &&
		   make("ws/link", ".") == 0 && make("ws/src/loop", "loop") == 0,
	       "a tree with relative, absolute and looping links");
	test_base();
	tap_ok(tmpdir_remove(canonical) == 0, "the test's directory is removed");
	free(canonical);
	return tap_done();
}
