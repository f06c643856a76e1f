/* Caches of the run's own for tools the cage gives none (tool_caches.h). */
#include "tool_caches.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "cage/cage.h"
#include "env.h"

static const struct tool_cache {
	const char *variable; /* the tool's setting for its cache */
	const char *in_home;  /* where it keeps it by default, below $HOME */
	const char *in_tmp;   /* the run's own, below its TMPDIR */
} tool_caches[] = {
    {"npm_config_cache", ".npm", "npm-cache"},
};

/* Can the run write the tool's cache in home? Judged on the canonical path, as grants are. */
static bool home_cache_granted(const struct procage_cage *cage, const char *home,
			       const char *in_home)
{
	char spelled[PATH_MAX], real[PATH_MAX];
	if (snprintf(spelled, sizeof spelled, "%s/%s", home, in_home) >= (int)sizeof spelled)
		return false;
	if (realpath(spelled, real))
		return cage_grant_writes(cage, real);
	/* Missing: it would be made in the home, as the home's grants allow. */
	char home_real[PATH_MAX];
	if (!realpath(home, home_real) ||
	    snprintf(real, sizeof real, "%s/%s", home_real, in_home) >= (int)sizeof real)
		return false;
	return cage_grant_writes(cage, real);
}

int tool_caches_default(const struct procage_cage *cage, char ***env, const char *tmpdir,
			struct procage_error *err)
{
	const char *home = env_lookup(*env, "HOME");
	if (!tmpdir)
		return 0;
	for (size_t i = 0; i < sizeof tool_caches / sizeof *tool_caches; i++) {
		const struct tool_cache *t = &tool_caches[i];
		char value[PATH_MAX];
		if (home && home[0] == '/' && home_cache_granted(cage, home, t->in_home))
			continue;
		if (snprintf(value, sizeof value, "%s/%s", tmpdir, t->in_tmp) >= (int)sizeof value)
			continue; /* a TMPDIR that long leaves the tool as it was */
		if (env_add_default(env, t->variable, value) < 0)
			return error_set(err, -ENOMEM, "out of memory naming %s's cache",
					 t->variable);
	}
	return 0;
}
