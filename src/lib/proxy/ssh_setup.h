/*
 * A cage's ssh directory for --allow-ssh (R-53, docs/ssh.md): made once
 * when the cage is made, in the caller's temporary directory, mode 0700,
 * read-only to the run:
 *
 *   config       the ssh configuration the run's GIT_SSH_COMMAND names
 *   known_hosts  the caller's lines for the allowed hosts only
 *   connect      the ProxyCommand: a CONNECT through the run's proxy (bash)
 *   agent        the filtered agent's socket, when SSH_AUTH_SOCK is set
 *   bin/         ssh, scp and sftp: the system's, given -F config
 *
 * Shared by the cage and each of its runs' supervisions (a run may
 * outlive its cage): counted, removed when the last one lets go.
 */
#ifndef PROCAGE_PROXY_SSH_SETUP_H
#define PROCAGE_PROXY_SSH_SETUP_H

#include <limits.h>
#include <stddef.h>

#include "procage.h"
#include "known_hosts.h"

struct ssh_setup {
	int refs;
	char dir[PATH_MAX / 2]; /* room for the names below it */
	char config[PATH_MAX];
	char agent[PATH_MAX];	 /* "" without an agent */
	char bin[PATH_MAX];	 /* the wrappers' directory, "" when ssh is not installed */
	char upstream[PATH_MAX]; /* the caller's SSH_AUTH_SOCK, or "" */
	int agent_listener;	 /* -1 without an agent */
	struct known_keys keys;
};

/*
 * hosts: n canonical "host:port"; home: where ~/.ssh/known_hosts is;
 * base: the directory to make the ssh directory in; upstream: the
 * caller's SSH_AUTH_SOCK or NULL.
 */
int ssh_setup_new(char *const *hosts, size_t n, const char *home, const char *base,
		  const char *upstream, struct ssh_setup **out, struct procage_error *err);
struct ssh_setup *ssh_setup_ref(struct ssh_setup *setup);
void ssh_setup_unref(struct ssh_setup *setup);

#endif
