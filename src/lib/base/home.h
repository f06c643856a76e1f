/*
 * The user's home, which the hard-deny classes are laid under: a home the
 * policy names (procage_policy_set_home), $HOME and the account's home (the
 * password database) are all homes where they differ, since a program run
 * later may take any of them.
 */
#ifndef PROCAGE_HOME_H
#define PROCAGE_HOME_H

#include <limits.h>
#include <stddef.h>

#define HOMES_MAX 3

struct homes {
	char path[HOMES_MAX][PATH_MAX]; /* canonical, existing directories */
	size_t n;
	/* When n is 0: what $HOME and the account said, for a message. */
	char why[PATH_MAX + 160];
};

/*
 * Find the homes of this process's user: first (a home the policy names,
 * or NULL), $HOME and the account's; never fails (n may be 0).
 */
void homes_find(struct homes *h, const char *first);

#endif
