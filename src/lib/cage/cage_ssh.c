/*
 * --allow-ssh in the cage (R-53, docs/ssh.md): the ssh directory made
 * once (proxy/ssh_setup.h), and a policy of the cage's own that carries
 * it with the mechanisms every run already has: the hosts on the proxy's
 * allowlist at their ports, the directory readable, the agent socket
 * connectable, the variables that point ssh and git at them.
 */
#include "cage.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "policy/policy.h"
#include "proxy/ssh_setup.h"

/*
 * The directory's path is written into ssh's configuration, which expands
 * %-tokens and splits on spaces, and into GIT_SSH_COMMAND, which a shell
 * reads: only a path of plain characters is taken from TMPDIR.
 */
static bool path_plain(const char *path)
{
	for (const char *c = path; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("/._-+,", *c))
			return false;
	return true;
}

/* Where the ssh directory goes: the caller's TMPDIR when usable, else /tmp. */
static const char *ssh_base(void)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	if (tmp && tmp[0] == '/' && path_plain(tmp) && stat(tmp, &st) == 0 && S_ISDIR(st.st_mode) &&
	    access(tmp, W_OK | X_OK) == 0)
		return tmp;
	return "/tmp";
}

static int ssh_policy_extend(struct procage_policy *p, const struct ssh_setup *s,
			     struct procage_error *err)
{
	char command[PATH_MAX + 16];
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->n_allow_ssh; i++)
		rc = procage_policy_allow_host(p, p->allow_ssh[i], err);
	if (rc == 0)
		rc = procage_policy_allow(p, s->dir, PROCAGE_READ, err);
	if (rc == 0 && s->agent[0])
		rc = procage_policy_allow(p, s->agent, PROCAGE_CONNECT, err);
	snprintf(command, sizeof command, "ssh -F %s", s->config);
	if (rc == 0)
		rc = procage_policy_env_set(p, "GIT_SSH_COMMAND", command, err);
	if (rc == 0)
		rc = procage_policy_env_set(p, "GIT_SSH_VARIANT", "ssh", err);
	if (rc == 0)
		rc = procage_policy_env_set(p, "PROCAGE_SSH_CONFIG", s->config, err);
	if (rc == 0 && s->bin[0] && !(p->ssh_bin = strdup(s->bin)))
		rc = error_set(err, -ENOMEM, "out of memory");
	/* Never the caller's agent: the filter's, or none. */
	if (rc == 0)
		rc = procage_policy_env_set(p, "SSH_AUTH_SOCK", s->agent, err);
	return rc;
}

int cage_ssh_prepare(const struct procage_policy *policy, struct procage_policy **extended,
		     struct ssh_setup **out, struct procage_error *err)
{
	*extended = NULL;
	*out = NULL;
	if (policy->n_allow_ssh == 0)
		return 0;
	if (policy->network != PROCAGE_NET_PROXY)
		return error_set(err, -EINVAL,
				 "--allow-ssh %s needs --net proxy: ssh reaches its hosts through "
				 "the run's proxy",
				 policy->allow_ssh[0]);
	struct ssh_setup *s;
	int rc = ssh_setup_new(policy->allow_ssh, policy->n_allow_ssh, policy_home(policy),
			       ssh_base(), getenv("SSH_AUTH_SOCK"), &s, err);
	if (rc < 0)
		return rc;
	struct procage_policy *p = policy_copy(policy);
	if (!p)
		rc = error_set(err, -ENOMEM, "out of memory");
	if (rc == 0)
		rc = ssh_policy_extend(p, s, err);
	if (rc < 0) {
		procage_policy_free(p);
		ssh_setup_unref(s);
		return rc;
	}
	*extended = p;
	*out = s;
	return 0;
}
