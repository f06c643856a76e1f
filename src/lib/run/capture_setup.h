/*
 * Transparent egress, the run's side (capture_setup.c; the proxy's side is
 * proxy/capture.h).
 */
#ifndef PROCAGE_RUN_CAPTURE_SETUP_H
#define PROCAGE_RUN_CAPTURE_SETUP_H

#include <stddef.h>

#include "plan/plan.h"

struct procage_policy;

/* A proxy-only run on T1 (plan->proxy_port set): capture, and at which ports. */
void capture_plan(const struct procage_policy *policy, struct plan *plan);
/*
 * In the run's network namespace (the reaper): the resolver's socket, then
 * one listener per captured port, into fds (PLAN_CAPTURE_PORTS + 1).
 */
int capture_sockets_make(const struct plan *plan, int *fds, size_t *n);
/* In the run's mount namespace (the reaper): its resolv.conf and hosts. */
int capture_files_lay(void);

#endif
