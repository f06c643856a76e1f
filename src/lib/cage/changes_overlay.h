/*
 * Tier T1, changes as an overlay: the cage's share (changes_overlay.c).
 */
#ifndef PROCAGE_CAGE_CHANGES_OVERLAY_H
#define PROCAGE_CAGE_CHANGES_OVERLAY_H

#include "paths.h"
#include "policy/policy.h"

/* Refuse changes as an overlay on a tier without a mount namespace. */
int cage_changes_refusal(const struct procage_policy *policy, int tier, struct procage_error *err);
/* Drop the denials an overlaid tree makes unneeded (all but existing hidden ones). */
void cage_changes_denials_filter(const struct procage_policy *policy, struct cage_paths *paths);

#endif
