/*
 * procage's own descriptor limit. A proxy-only run is served by threads
 * of this process, six descriptors per connection at once, so procage
 * raises its soft RLIMIT_NOFILE to the hard limit (with 128 it served
 * eight connections at a time, and slow clients held up the rest). The
 * command keeps the limits procage was started with, unless the policy
 * sets its own.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

#include "cli.h"

int cli_nofile_prepare(struct procage_policy *policy, struct procage_error *err)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == rl.rlim_max)
		return 0;
	if (procage_policy_get_rlimit(policy, RLIMIT_NOFILE, NULL, NULL) == -ENOENT) {
		int rc =
		    procage_policy_set_rlimit(policy, RLIMIT_NOFILE, rl.rlim_cur, rl.rlim_max, err);
		if (rc < 0)
			return rc;
	}
	rl.rlim_cur = rl.rlim_max;
	/*
	 * Raising the soft limit up to the hard one is always allowed; were
	 * it refused, the proxy would have less room, not none.
	 */
	(void)setrlimit(RLIMIT_NOFILE, &rl);
	return 0;
}
