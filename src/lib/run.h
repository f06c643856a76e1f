/* A run: one spawn of a cage, supervised by the parent. */
#ifndef PROCAGE_RUN_H
#define PROCAGE_RUN_H

#include <stdbool.h>
#include <sys/types.h>

struct procage_run {
	pid_t pid;
	int pidfd; /* never signals a reused pid */
	bool reaped;
	int status;
	char *tmpdir; /* removed when the run ends */
};

#endif
