/*
 * The one rename onto a protected name the broker performs: git's
 * config.lock over config (and config.worktree.lock over config.worktree)
 * in a git directory that is a zone, when the change is judged harmless
 * by its content (git_config_judge.h). What lands is the broker's own
 * copy of the text it judged, never the cage's file: the cage may still
 * hold a descriptor of config.lock open for writing.
 */
#ifndef PROCAGE_BROKER_GIT_CONFIG_H
#define PROCAGE_BROKER_GIT_CONFIG_H

#include <stdbool.h>

#include "broker_place.h"
#include "cage/denials.h"

/* Is renaming from onto to (flags: the rename's) git replacing its config? */
bool broker_git_config_rename(const struct broker_place *from, const struct broker_place *to,
			      int flags);

/*
 * Judge the text of from and, when allowed, put a copy of it in place of
 * to, then remove from. 0, or the negative errno the call fails with
 * (-EACCES when refused: the refusal is added to denials, when not NULL,
 * naming the key and the file).
 */
int broker_git_config_replace(const struct broker_place *from, const struct broker_place *to,
			      struct denial_store *denials);

#endif
