/*
 * The id maps of every user namespace procage makes: the caller's uid and
 * gid mapped to themselves, one line each, as /proc/PID/uid_map and
 * gid_map take them. Formatted once, in the parent; written by the
 * namespace's own process (the reaper, exec mode) or from outside it (the
 * namespaces made ahead, ns_ahead.h).
 */
#ifndef PROCAGE_ID_MAPS_H
#define PROCAGE_ID_MAPS_H

#include <sys/types.h>

struct id_maps {
	char uid_map[32], gid_map[32];
	int uid_map_len, gid_map_len;
};

/* The caller's own uid and gid, mapped to themselves. */
void id_maps_own(struct id_maps *maps);

/*
 * Deny setgroups (an unprivileged gid map needs it), then write the maps
 * of pid's user namespace (0: the calling process's). System calls only,
 * no allocation. 0 or a negative errno.
 */
int id_maps_write(const struct id_maps *maps, pid_t pid);

#endif
