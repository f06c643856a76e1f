/* A private temporary directory per run. */
#ifndef PROCAGE_TMPDIR_H
#define PROCAGE_TMPDIR_H

#include "procage.h"

/* Make a fresh 0700 directory under base. */
int tmpdir_create(const char *base, char **out, struct procage_error *err);
/*
 * Remove it and everything in it without following symbolic links or
 * crossing into other file systems, so that nothing the run planted
 * redirects the removal outside the directory.
 */
int tmpdir_remove(const char *path);

#endif
