/* Finding the program a spawn executes, before any child exists. */
#ifndef PROCAGE_COMMAND_H
#define PROCAGE_COMMAND_H

#include "procage.h"

/*
 * Resolve name as execvp would, with path_env as PATH (NULL: the default
 * search path) and relative names taken from cwd (NULL: ours). *out is
 * allocated. A name not found is -ENOENT, one found but not executable
 * -EACCES; both with step PROCAGE_STEP_EXEC and a message naming it.
 */
int command_resolve(const char *name, const char *path_env, const char *cwd, char **out,
		    struct procage_error *err);

#endif
