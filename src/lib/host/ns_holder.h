/*
 * A process that exists only so that namespaces made with it can be set
 * up from outside (id maps written) and opened: its maker opens what it
 * needs through /proc/PID/ns, then ends it. The namespaces outlive it
 * through those descriptors.
 *
 * The holder shares the maker's memory and descriptor table (it makes no
 * copy of either, so it never holds a descriptor the maker closes, such
 * as a pipe end whose reader waits for the end of file), has every signal
 * blocked, and waits for nothing but SIGKILL: from ns_holder_end, or as
 * its death signal when the thread that made it ends first (the whole
 * process killed). It never outlives its maker.
 */
#ifndef PROCAGE_HOST_NS_HOLDER_H
#define PROCAGE_HOST_NS_HOLDER_H

#include <sys/types.h>

struct ns_holder {
	pid_t maker; /* read by the holder: h lives until ns_holder_end */
	pid_t pid;
	int pidfd;
	void *stack;
};

/* A holder in new namespaces (CLONE_NEW* flags). 0, or -errno. */
int ns_holder_start(unsigned long namespaces, struct ns_holder *h);

/* One of its namespaces ("user", "net"), opened O_CLOEXEC; or -errno. */
int ns_holder_open(const struct ns_holder *h, const char *name);

/* Killed, waited for, its stack released. */
void ns_holder_end(struct ns_holder *h);

#endif
