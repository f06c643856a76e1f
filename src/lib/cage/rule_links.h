/*
 * The symbolic links a rule's spelling passes through. A rule binds
 * the canonical target of its spelling and is held to every check on that
 * target; what the spelling itself tells is judged here: two rules that
 * name one target, and a grant that reaches its target through a link an
 * earlier run could have made.
 */
#ifndef PROCAGE_RULE_LINKS_H
#define PROCAGE_RULE_LINKS_H

#include <stddef.h>

#include "base/error.h"
#include "policy/policy.h"

/* A path resolved as the kernel walks it, each link it met on the way. */
struct path_walk {
	char *target; /* canonical */
	char **links; /* where each link met lies, canonical, in walking order */
	size_t n_links;
};

/*
 * Walk the absolute path component by component, following links as the
 * kernel does (40 at most, "..") from the directory reached so far. 0, or
 * a negative errno (the walk's ENOENT, ENOTDIR, ELOOP; ENOMEM); on failure
 * *out holds nothing.
 */
int path_walk(const char *path, struct path_walk *out);
void path_walk_free(struct path_walk *walk);

/*
 * The policy's rules against their targets (canon[i] is the canonical
 * target of rule i): two spellings of one target that would conflict as
 * one spelling does (procage_policy_allow) are refused, and so is a grant
 * (write, read, connect) whose spelling passes through a link lying inside
 * a writable tree of the policy, unless another rule, spelled through no
 * such link, grants its target as much. Protect and hide rules only take
 * away: through any link they fall on its target.
 */
int rule_links_judge(const struct procage_policy *p, char *const *canon, struct procage_error *err);

#endif
