/*
 * Caches of the run's own for tools whose cache in the home the cage does
 * not let them write. npm fails outright when it cannot make ~/.npm (its
 * cache and its logs), so that `npm install` of a local tarball or from a
 * local registry failed in a default cage. A cache under the home is
 * shared by every later run of the tool outside the cage, where a cage's
 * write could poison it, so it is not granted by default; the run's
 * private temporary directory holds one instead, gone with the run.
 */
#ifndef PROCAGE_PLAN_TOOL_CACHES_H
#define PROCAGE_PLAN_TOOL_CACHES_H

#include "procage.h"

/*
 * For each known tool: unless *env already names its cache, or a grant of
 * cage lets the run write the tool's cache in $HOME, name one in tmpdir
 * (the run's private temporary directory as the run sees it; NULL: none).
 */
int tool_caches_default(const struct procage_cage *cage, char ***env, const char *tmpdir,
			struct procage_error *err);

#endif
