/* Resource limits checked against what a run can set, when the cage is made. */
#ifndef PROCAGE_RLIMITS_H
#define PROCAGE_RLIMITS_H

#include "policy/policy.h"

/*
 * 0, or -EPERM naming the first limit of the policy that a run on this
 * tier could not set (so the cage is refused before any child exists).
 */
int rlimits_refusal(const struct procage_policy *policy, int tier, struct procage_error *err);

#endif
