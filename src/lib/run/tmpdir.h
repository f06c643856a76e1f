/* A private temporary directory per run. */
#ifndef PROCAGE_TMPDIR_H
#define PROCAGE_TMPDIR_H

#include "procage.h"

/*
 * Choose the path of a fresh directory under base ("<base>/procage-run-"
 * and 16 random characters) without making it: the run's reaper makes it
 * (reaper.c), so that it exists only while something is there to remove
 * it. *name points into *out, at its last component.
 */
int tmpdir_choose(const char *base, char **out, const char **name, struct procage_error *err);
/*
 * Remove it and everything in it, whatever the depth, without following
 * symbolic links or crossing into other file systems, so that nothing the
 * run planted redirects the removal outside the directory. 0 (also when
 * it is gone already), or a negative errno when something was left.
 */
int tmpdir_remove(const char *path);

#endif
