/*
 * A bounded change set (procage_policy_set_changes_limit): the run's
 * upper layers lie in a tmpfs of the bound's size (plan.h), which the
 * reaper hands to the caller. When the run has ended, each tree's upper
 * layer there (INDEX/upper) is copied into the change set's own
 * (ID/INDEX/upper in the store) with everything the overlay keeps:
 * whiteouts, its user.overlay.* marks and every other attribute, hard
 * links, modes, times and, for a root caller, owners. From then on the
 * change set is like any other.
 */
#ifndef PROCAGE_CHANGES_LAYERS_H
#define PROCAGE_CHANGES_LAYERS_H

#include "base/error.h"

/*
 * Copy the upper layers in the tmpfs layers into change set id. Any
 * failure removes the change set, which would otherwise hold part of
 * what the run changed, and says so.
 */
int changes_layers_keep(const char *id, int layers, struct procage_error *err);

#endif
