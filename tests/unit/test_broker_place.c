/*
 * Unit tests of where the broker finds a call to land (watch/broker_place.c)
 * on a real directory tree of the test's own: the early look through
 * /proc/TID/cwd that lets most calls go on without a descriptor, and the
 * memory of directories found beneath ones the broker made, which must
 * forget what a rename or removal could have changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cage/broker_zones.h"
#include "run/tmpdir.h"
#include "scratch.h"
#include "tap.h"
#include "watch/broker_place.h"

static char root[4096];

static int make_dir(const char *rel)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	return mkdir(path, 0755);
}

static int make_file(const char *rel)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	return fd < 0 ? -1 : close(fd);
}

/* A state with one zone: root/ws, a workspace whose .git/config is protected. */
static bool state_make(struct broker_state *s)
{
	char ws[4200], denied[4300];
	struct procage_error err = {0};
	memset(s, 0, sizeof *s);
	snprintf(ws, sizeof ws, "%s/ws", root);
	snprintf(denied, sizeof denied, "%s/ws/.git", root);
	if (broker_zones_add(&s->zones, ws, denied) < 0 || broker_zones_open(&s->zones, &err) < 0)
		return false;
	broker_state_started(s);
	return s->zones.n == 1 && s->zones.zones[0].fd >= 0;
}

static void state_free(struct broker_state *s)
{
	broker_zones_free(&s->zones);
	free(s->created);
}

/* broker_place_resolve on a copy of path from the test's cwd: 1, 0 or negative. */
static int resolve(struct broker_state *s, const char *path, bool *in_created)
{
	char copy[4200];
	struct broker_place p;
	snprintf(copy, sizeof copy, "%s", path);
	int base = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int rc = broker_place_resolve(s, base, copy, true, &p);
	if (in_created)
		*in_created = rc > 0 && p.in_created;
	if (rc > 0)
		broker_place_release(&p);
	close(base);
	return rc;
}

/*
 * The early look says "elsewhere" only where the full resolution says
 * "not brokered": checked on each path, relative and absolute.
 */
static void test_maybe(void)
{
	struct broker_state s;
	pid_t tid = gettid();
	if (!tap_ok(state_make(&s), "a zone of the test's own"))
		return;
	char abs_ws[4300], abs_src[4300], abs_missing[4300], abs_file[4300];
	snprintf(abs_ws, sizeof abs_ws, "%s/ws/new.txt", root);
	snprintf(abs_src, sizeof abs_src, "%s/ws/src/new.c", root);
	snprintf(abs_missing, sizeof abs_missing, "%s/ws/absent/new.c", root);
	snprintf(abs_file, sizeof abs_file, "%s/ws/README/new.c", root);
	tap_ok(broker_place_maybe(&s, tid, AT_FDCWD, abs_ws), "a name in the zone may be brokered");
	tap_ok(!broker_place_maybe(&s, tid, AT_FDCWD, abs_src),
	       "a name in a directory of the zone's that existed before is elsewhere");
	tap_ok(broker_place_maybe(&s, tid, AT_FDCWD, abs_missing),
	       "a missing directory is left to the full resolution");
	tap_ok(!broker_place_maybe(&s, tid, AT_FDCWD, abs_file),
	       "a directory part that is a file is elsewhere (the kernel says ENOTDIR)");
	if (chdir(root) != 0 || chdir("ws") != 0) {
		tap_ok(false, "into the workspace");
		state_free(&s);
		return;
	}
	tap_ok(broker_place_maybe(&s, tid, AT_FDCWD, "new.txt") &&
		   broker_place_maybe(&s, tid, AT_FDCWD, "./new.txt") &&
		   broker_place_maybe(&s, tid, AT_FDCWD, "src/../new.txt"),
	       "relative names in the zone are found through /proc/TID/cwd");
	tap_ok(!broker_place_maybe(&s, tid, AT_FDCWD, "src/new.c") &&
		   !broker_place_maybe(&s, tid, AT_FDCWD, "src/new.c/"),
	       "relative names elsewhere are elsewhere, trailing slash or not");
	tap_ok(broker_place_maybe(&s, tid, AT_FDCWD, "link/new.txt"),
	       "a link in the directory part is followed to the zone");
	int dirfd = open("src", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	tap_ok(dirfd >= 0 && !broker_place_maybe(&s, tid, dirfd, "new.c") &&
		   broker_place_maybe(&s, tid, dirfd, "../new.txt"),
	       "a directory descriptor is read through /proc/TID/fd/N");
	tap_ok(broker_place_maybe(&s, tid, 9999, "new.c") && broker_place_maybe(&s, tid, -5, "x"),
	       "a descriptor that is not open is left to the full resolution (EBADF there)");
	close(dirfd);
	static const char *const paths[] = {"new.txt", "src/new.c", "link/new.txt", "absent/x",
					    "README/x", "src/../x", "/", ".", "..", "src/"};
	bool agree = true;
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		if (!broker_place_maybe(&s, tid, AT_FDCWD, paths[i]) &&
		    resolve(&s, paths[i], NULL) != 0) {
			tap_diag("elsewhere but brokered: %s", paths[i]);
			agree = false;
		}
	tap_ok(agree, "no path found elsewhere is one the full resolution would broker");
	/* A directory made in the zone: what lies below may be brokered until known. */
	tap_ok(make_dir("ws/build") == 0 && make_dir("ws/build/obj") == 0, "a made tree");
	tap_ok(!broker_place_maybe(&s, tid, AT_FDCWD, "build/obj/x.o"),
	       "below a directory the broker did not make, elsewhere");
	struct stat st;
	tap_ok(stat("build", &st) == 0 && broker_created_add(&s, st.st_dev, st.st_ino) == 0 &&
		   broker_place_maybe(&s, tid, AT_FDCWD, "build/obj/x.o"),
	       "below one it made, looked at in full");
	(void)!chdir("/");
	state_free(&s);
}

/*
 * The directories found beneath made ones: found once by the walk, then
 * remembered; forgotten when the broker renames or removes, so that a
 * directory moved out of a made tree is not taken for one still in it.
 */
static void test_beneath(void)
{
	struct broker_state s;
	struct stat st;
	bool in_created = false;
	if (!tap_ok(state_make(&s), "a zone for the made trees"))
		return;
	if (chdir(root) != 0 || chdir("ws") != 0) {
		tap_ok(false, "into the workspace");
		state_free(&s);
		return;
	}
	tap_ok(make_dir("ws/made") == 0 && make_dir("ws/made/a") == 0 &&
		   make_dir("ws/made/a/b") == 0 && stat("made", &st) == 0 &&
		   broker_created_add(&s, st.st_dev, st.st_ino) == 0,
	       "a tree the broker made in the zone");
	tap_ok(resolve(&s, "made/a/b/x", &in_created) == 1 && in_created,
	       "a name deep in it is brokered, no name rules");
	struct statx sx;
	bool births = statx(AT_FDCWD, "made/a/b", 0, STATX_BTIME, &sx) == 0 &&
		      (sx.stx_mask & STATX_BTIME);
	if (births)
		tap_ok(s.n_beneath == 1, "its directory is remembered (%zu)", s.n_beneath);
	else
		tap_skip("the file system keeps no birth times: nothing is remembered");
	tap_ok(resolve(&s, "made/a/b/y", &in_created) == 1 && in_created && s.n_beneath <= 1,
	       "found again, without a second entry");
	/* Moved to the zone's top level: no longer below anything the broker made. */
	tap_ok(rename("made/a", "moved") == 0, "a directory moved out of the made tree");
	broker_beneath_forget(&s);
	tap_ok(s.n_beneath == 0, "forgotten");
	tap_ok(resolve(&s, "moved/b/x", &in_created) == 0,
	       "below the moved directory, not brokered any more (Landlock judges it)");
	/* Removed and made again: a new directory, found by the walk, not by memory. */
	tap_ok(resolve(&s, "made/x", &in_created) == 1 && in_created, "the made tree still is");
	tap_ok(make_dir("ws/made/c") == 0 && resolve(&s, "made/c/x", &in_created) == 1 &&
		   in_created,
	       "a directory made below it is found");
	broker_created_remove(&s, st.st_dev, st.st_ino);
	tap_ok(s.n_beneath == 0, "a made directory forgotten forgets what was found below it");
	tap_ok(resolve(&s, "made/c/x", &in_created) == 0,
	       "once the broker forgets the made directory, nothing below it is brokered");
	(void)!chdir("/");
	state_free(&s);
}

int main(void)
{
	char *canonical = scratch_dir("place");
	if (!tap_ok(canonical != NULL, "a temporary directory"))
		return tap_done();
	snprintf(root, sizeof root, "%s", canonical);
	char link[4300];
	snprintf(link, sizeof link, "%s/ws/link", root);
	tap_ok(make_dir("ws") == 0 && make_dir("ws/.git") == 0 && make_dir("ws/src") == 0 &&
		   make_file("ws/README") == 0 && symlink(".", link) == 0,
	       "a workspace with a directory, a file and a link to itself");
	test_maybe();
	test_beneath();
	tap_ok(tmpdir_remove(canonical) == 0, "the test's directory is removed");
	free(canonical);
	return tap_done();
}
