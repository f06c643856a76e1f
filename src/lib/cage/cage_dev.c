/*
 * What of /dev a tier T1 run has of its own (cage.h): shared memory and
 * pseudo-terminals, each laid over the host's in the run's mount namespace
 * unless a grant of the caller's reaches it.
 */
#include "cage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "denials.h"
#include "host/host.h"
#include "paths.h"
#include "policy/classes.h"

/* Does a grant lie at, in or above path? */
static bool granted_around(const struct procage_cage *c, const char *path)
{
	return cage_grant_containing(c, path) || cage_grant_within(c, path);
}

/*
 * POSIX shared memory and semaphores (shm_open, sem_open: Python's
 * multiprocessing, Chromium, PulseAudio clients) are files in /dev/shm,
 * one directory for every program of the user: granting it would hand the
 * run the segments of the user's other programs to read and write. Tier
 * T1 lays a tmpfs of the run's own over it, as over the temporary
 * directory. A grant at, in or around it is the caller's choice of the
 * host's directory, which the tmpfs would hide or change: then nothing is
 * laid (nor where the temporary directory is there already).
 */
int cage_choose_shm(struct procage_cage *c, struct procage_error *err)
{
	struct stat st;
	if (!c->tmp_mounted)
		return 0;
	char *shm = realpath(CAGE_SHM_DIR, NULL);
	if (!shm) {
		if (errno == ENOMEM)
			return error_set(err, -ENOMEM, "out of memory");
		return 0; /* none on this host: nothing to share */
	}
	if (stat(shm, &st) != 0 || !S_ISDIR(st.st_mode) || granted_around(c, shm) ||
	    path_within(shm, c->tmp_base) || path_within(c->tmp_base, shm)) {
		free(shm);
		return 0;
	}
	c->shm_mount = shm;
	return 0;
}

bool cage_shm_brokerable(const struct procage_cage *c)
{
	struct stat st;
	if (!c->policy->private_tmp || lstat(CAGE_SHM_DIR, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	return !granted_around(c, CAGE_SHM_DIR);
}

/*
 * Pseudo-terminals (openpty: Python's pty, script, expect, terminal
 * emulators in tests) come from /dev/ptmx into /dev/pts, where the host's
 * hold every terminal of the user, whose input a run could read: no
 * default grant reaches them. Tier T1 mounts a devpts instance of the
 * run's own over /dev/pts, with its ptmx over /dev/ptmx (where that is a
 * device, not a link into /dev/pts), so that the run makes and uses
 * terminals of its own and sees none of the host's. A grant at, in or
 * around either is the caller's choice of the host's.
 */
void cage_choose_pts(struct procage_cage *c)
{
	struct stat pts, ptmx;
	if (c->tier != PROCAGE_TIER_T1 || lstat(CAGE_PTS_DIR, &pts) != 0 || !S_ISDIR(pts.st_mode) ||
	    lstat(CAGE_PTMX, &ptmx) != 0 || granted_around(c, CAGE_PTS_DIR) ||
	    granted_around(c, CAGE_PTMX))
		return;
	if (S_ISCHR(ptmx.st_mode))
		c->pts_private = CAGE_PTS_WITH_PTMX;
	else if (S_ISLNK(ptmx.st_mode))
		c->pts_private = CAGE_PTS_ONLY;
}

/*
 * Tier T2 has no devpts of the run's own: /dev/ptmx is granted, so that
 * the run makes new pseudo-terminals (each a new pair in the host's
 * /dev/pts), and the broker opens for it the terminal end of a pair whose
 * master it holds, never another /dev/pts entry (watch/broker_pty.c). Only
 * where a supervisor answers, /dev/ptmx is a device, and no grant of the
 * caller's is at, in or around /dev/pts or /dev/ptmx.
 */
int cage_pty_grants(struct procage_cage *c, struct procage_error *err)
{
	struct stat pts, ptmx;
	c->broker_pty = false;
	if (c->tier != PROCAGE_TIER_T2 || !host_facts_get()->seccomp_user_notif ||
	    lstat(CAGE_PTS_DIR, &pts) != 0 || !S_ISDIR(pts.st_mode) ||
	    lstat(CAGE_PTMX, &ptmx) != 0 || !S_ISCHR(ptmx.st_mode) ||
	    granted_around(c, CAGE_PTS_DIR) || granted_around(c, CAGE_PTMX))
		return 0;
	char path[] = CAGE_PTMX;
	struct cage_path grant = { .path = path, .access = PROCAGE_WRITE, .cls = -1 };
	int rc = cage_add_grant(c, &grant, err);
	if (rc == 0 && c->denial_rules &&
	    denial_rules_add_grant(c->denial_rules, CAGE_PTMX, PROCAGE_WRITE) < 0)
		rc = error_set(err, -ENOMEM, "out of memory");
	if (rc < 0)
		return error_prefix(err, rc, "granting %s for the run's own terminals: ", CAGE_PTMX);
	c->broker_pty = true;
	return 0;
}
