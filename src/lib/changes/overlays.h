/*
 * Tier T1, changes as an overlay: one spawn's overlays (overlays.c).
 */
#ifndef PROCAGE_CHANGES_OVERLAYS_H
#define PROCAGE_CHANGES_OVERLAYS_H

#include "plan/plan.h"
#include "store.h"

struct procage_cage;

/*
 * A new change set in the store for one spawn of cage: an overlay in
 * plan for each of the cage's writable trees, with its upper and work
 * directories; the set's ID in id. Refused when the store lies inside a
 * grant or a grant inside it, or a writable tree is no directory.
 */
int changes_overlays_prepare(const struct procage_cage *cage, struct plan *plan,
			     char id[CHANGES_ID_MAX], struct procage_error *err);

#endif
