/* procage learn: the proxy hosts a run was refused (learn_hosts.c). */
#ifndef PROCAGE_CLI_LEARN_HOSTS_H
#define PROCAGE_CLI_LEARN_HOSTS_H

#include <stddef.h>

enum learn_host {
	LEARN_HOST_NONE,   /* not a proxy refusal */
	LEARN_HOST_GRANT,  /* learn entry as an --allow-host */
	LEARN_HOST_REVIEW, /* left to the caller: note says why, with the flag */
};

/*
 * One explained line of a run: whether it is a host the proxy refused,
 * and then the --allow-host entry (in entry) or, when the host is not
 * learned silently, the line to show the caller (in note).
 */
enum learn_host learn_host_of(const char *line, char *entry, size_t esize, char *note,
			      size_t nsize);

#endif
