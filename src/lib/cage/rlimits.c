/*
 * Resource limits a run could not set, found when the cage is made: the
 * child's setrlimit would fail after the spawn began, and `procage check`
 * would have called the policy valid.
 *
 * The kernel refuses (EPERM) a hard limit above the current one unless
 * the process holds CAP_SYS_RESOURCE in the initial user namespace. On
 * tier T1 the limits are set inside the run's own user namespace, where no
 * process holds it, root included; on tier T2 the caller's own capability
 * decides. RLIMIT_NOFILE is also bounded by fs.nr_open, for
 * everyone.
 */
#include "rlimits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/small_file.h"

/*
 * Whether the kernel lets this process raise the limit: asked of a child,
 * since a capability can be held in a user namespace that is not the
 * initial one (a container), where it does not count. The child only makes
 * the call and exits.
 */
static bool raise_allowed(int resource, uint64_t soft, uint64_t hard)
{
	struct rlimit want = {(rlim_t)soft, (rlim_t)hard};
	int status;
	pid_t pid = fork();
	if (pid == 0)
		_exit(setrlimit(resource, &want) == 0 ? 0 : 1);
	if (pid < 0)
		return false;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* fs.nr_open, or 0 when it cannot be read (the check is then left to the spawn). */
static uint64_t nr_open(void)
{
	char text[32];
	return small_file_read("/proc/sys/fs/nr_open", text, sizeof text) > 0
		       ? strtoull(text, NULL, 10)
		       : 0;
}

static void amount_format(char *out, size_t size, uint64_t value)
{
	if (value == (uint64_t)RLIM_INFINITY)
		snprintf(out, size, "unlimited");
	else
		snprintf(out, size, "%llu", (unsigned long long)value);
}

static int raise_refusal(int resource, uint64_t hard, const struct rlimit *now, int tier,
			 struct procage_error *err)
{
	char want[24], have[24];
	amount_format(want, sizeof want, hard);
	amount_format(have, sizeof have, now->rlim_max);
	return error_set(err, -EPERM,
			 "resource limit %s: the hard limit %s is above this process's own (%s), "
			 "and %s; ask for at most %s",
			 policy_rlimit_name(resource), want, have,
			 tier == PROCAGE_TIER_T1
			     ? "on tier T1 limits are set inside the run's user namespace, "
			       "where no process may raise them"
			     : "raising it needs CAP_SYS_RESOURCE",
			 have);
}

int rlimits_refusal(const struct procage_policy *policy, int tier, struct procage_error *err)
{
	for (int r = 0; r < RLIM_NLIMITS; r++) {
		const struct policy_rlimit *l = &policy->rlimits[r];
		struct rlimit now;
		if (!l->set)
			continue;
		if (getrlimit(r, &now) != 0)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE, "resource limit %s",
					     policy_rlimit_name(r));
		if (l->hard > (uint64_t)now.rlim_max &&
		    (tier == PROCAGE_TIER_T1 || !raise_allowed(r, l->soft, l->hard)))
			return raise_refusal(r, l->hard, &now, tier, err);
		uint64_t most = r == RLIMIT_NOFILE ? nr_open() : 0;
		if (most && l->hard > most) {
			char want[24];
			amount_format(want, sizeof want, l->hard);
			return error_set(err, -EPERM,
					 "resource limit nofile: the hard limit %s is above the "
					 "system's fs.nr_open (%llu), which no process may exceed",
					 want, (unsigned long long)most);
		}
	}
	return 0;
}
