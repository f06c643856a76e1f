/* What a spawn and exec mode (exec.c) share: the preparation in the caller. */
#ifndef PROCAGE_SPAWN_H
#define PROCAGE_SPAWN_H

#include "hardlinks_gate.h"
#include "changes/store.h"
#include "plan/plan.h"

/* Everything a spawn owns until it hands over to the run. */
struct spawn_state {
	char *tmpdir;             /* chosen here, made and removed by the reaper */
	const char *tmpdir_name;  /* its last component, in tmpdir */
	char *cgroup_dir; /* the run's cgroup (limits of the whole run), or NULL */
	char **env;
	char *exec_path;
	int status_read;
	int status_write;
	int report_fd; /* the report file, until the supervision takes it; -1: none */
	/* Tier T2 proxy-only: the proxy's listener on 127.0.0.1 (if proxy_port). */
	int proxy_listener;
	uint16_t proxy_port;
	struct plan plan;
	struct publish_relay *publish; /* published ports: the host's listeners, or NULL */
	char changes_id[CHANGES_ID_MAX]; /* changes as an overlay: the run's change set */
	/*
	 * procage_spawn: the hard-link check runs beside the setup and the
	 * target waits for its verdict (hardlinks_gate.h); exec mode checks
	 * first, having no second process to wait in.
	 */
	bool gate_wanted;
	struct hardlinks_gate gate;
};

/* Check and copy the caller's options (size-versioned). */
int spawn_opts_copy(const struct procage_spawn_opts *opts, struct procage_spawn_opts *o,
		    struct procage_error *err);
/*
 * The hard-link check, the private temporary directory, the environment,
 * the command's path, the status pipe and the plan.
 */
int spawn_prepare(const struct procage_cage *cage, const struct procage_spawn_opts *o,
		  struct spawn_state *s, struct procage_error *err);
void spawn_state_release(struct spawn_state *s);
/* A failed step's record as an error naming the step, and what it was at. */
int failure_to_error(const struct child_failure *f, const struct plan *plan,
		     struct procage_error *err);

#endif
