/*
 * Work a command begins on a thread of its own as soon as its options are
 * read, for the cage it makes next: the host's facts (a probe that makes
 * namespaces, a few milliseconds) and, for a root caller, what hiding the
 * root-only files of /etc needs (root_private.h). Meanwhile the command
 * reads its policy and resolves its classes. What it prepares is taken
 * once, by the first cage made after it; later cages do the work
 * themselves.
 */
#ifndef PROCAGE_AHEAD_H
#define PROCAGE_AHEAD_H

#include "procage.h" /* procage_prepare_ahead begins it */

/* Wait until the work begun ahead, if any, is done. */
void ahead_join(void);

#endif
