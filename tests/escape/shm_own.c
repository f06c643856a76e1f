/*
 * The run's own POSIX semaphores. Tier T1 lays a /dev/shm of the
 * run's own; on tier T2 the broker makes a semaphore's files in the
 * host's /dev/shm for the run (watch/broker_shm.c). Either way the run
 * reads, writes, links and removes no file of another program there, and
 * leaves none of its own behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

#define R43_HOST_TEXT "r43-host-semaphore"

/* Refused, or on tier T1 not there at all (the run's own /dev/shm). */
static bool unreached(const struct tier *t, const struct caged_result *r)
{
	return refused(r) ||
	       (tier_is_t1(t) && r->how == CAGED_EXITED && r->code == PROBE_ERROR);
}

void r43_a_run_uses_only_its_own_semaphores(const struct tier *t)
{
	char host[64], host_tmp[64], linked[64], own[16], own_path[64];
	int id = (int)(getpid() % 10000000);
	snprintf(host, sizeof host, "/dev/shm/sem.mp-h%07d", id);
	snprintf(host_tmp, sizeof host_tmp, "/dev/shm/sem.q%05d", id % 100000);
	snprintf(linked, sizeof linked, "/dev/shm/sem.mp-l%07d", id);
	snprintf(own, sizeof own, "o%07d", id);
	snprintf(own_path, sizeof own_path, "/dev/shm/sem.mp-%s", own);
	struct caged_ws *ws = workspace(t, "r43");
	if (!ws || cage_refused_here(t, ws, "r43"))
		goto out;
	if (!fixture(t, put_file(host, R43_HOST_TEXT) && put_file(host_tmp, R43_HOST_TEXT),
		     "r43: another program's semaphore files are in /dev/shm"))
		goto out;

	struct caged_result r = run_caged(ws, NULL, "read-file", host, NULL);
	check(t, unreached(t, &r) && !strstr(r.out, R43_HOST_TEXT), &r,
	      "r43: another program's semaphore file is not read");
	/* On tier T1 the name is made anew in the run's own /dev/shm. */
	r = run_caged(ws, NULL, "write-file", host_tmp, "planted", NULL);
	check(t, (unreached(t, &r) || tier_is_t1(t)) && file_is(host_tmp, R43_HOST_TEXT), &r,
	      "r43: another program's file under a temporary name is not written");
	r = run_caged(ws, NULL, "link", host, linked, NULL);
	check(t, unreached(t, &r) && !caged_path_exists(linked), &r,
	      "r43: another program's semaphore file is not linked to a name of the run's");
	r = run_caged(ws, NULL, "unlink", host, NULL);
	check(t, unreached(t, &r) && caged_path_exists(host), &r,
	      "r43: another program's semaphore file is not removed");
	r = run_caged(ws, NULL, "sem-own", own, "keep", NULL);
	check(t, did_it(&r) && !caged_path_exists(own_path), &r,
	      "r43: a semaphore file the run made and kept is gone when the run ends");
	unlink(own_path);

	r = run_caged(ws, NULL, "sem-own", own, "remove", NULL);
	check(t, did_it(&r) && strstr(r.out, "own-semaphore") && !caged_path_exists(own_path), &r,
	      "r43: control: in the cage the probe makes, links, reads and removes its own "
	      "semaphore as sem_open does");
	/* The files as they were: without the sandbox the canaries above changed them. */
	unlink(linked);
	if (!fixture(t, put_file(host, R43_HOST_TEXT) && put_file(host_tmp, R43_HOST_TEXT),
		     "r43: the semaphore files are written again"))
		goto out;
	r = run_uncaged(ws, NULL, "read-file", host, "then", "link", host, linked, "then", "unlink",
			linked, "then", "write-file", host_tmp, R43_HOST_TEXT, NULL);
	check(t, did_it(&r) && strstr(r.out, R43_HOST_TEXT), &r,
	      "r43: control: without the cage the same user reads, links, removes and writes them");
out:
	unlink(host);
	unlink(host_tmp);
	unlink(linked);
	unlink(own_path);
	caged_ws_free(ws);
}
