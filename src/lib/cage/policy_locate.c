/*
 * Where a policy read from a file said what the cage refuses. The reader
 * names the place of its own errors; the refusals found later, when the
 * cage is made on this host (a proxy with no allowed host, a mask that
 * needs an approximation, a limit the host cannot hold), name it here, so
 * every error about a file's content reads "FILE:LINE:COLUMN: ...".
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "paths.h"
#include "policy/policy.h"

static const struct policy_position nowhere = {0, 0};

struct policy_position policy_key_position(const struct procage_policy *p, const char *key)
{
	for (size_t i = 0; i < POLICY_KEYS_MAX && policy_json_key(i); i++)
		if (strcmp(policy_json_key(i), key) == 0)
			return p->key_pos[i];
	return nowhere;
}

struct policy_position policy_path_position(const struct procage_policy *p, const char *path)
{
	const struct policy_path_rule *grant = NULL;
	for (size_t i = 0; path && i < p->n_paths; i++) {
		const struct policy_path_rule *r = &p->paths[i];
		if (strcmp(r->path, path) == 0 && r->pos.line)
			return r->pos;
		/* The narrowest written grant that holds the path. */
		bool grants = r->access == PROCAGE_READ || r->access == PROCAGE_WRITE;
		if (grants && r->pos.line && path_within(path, r->path) &&
		    (!grant || strlen(r->path) > strlen(grant->path)))
			grant = r;
	}
	return grant ? grant->pos : policy_key_position(p, "paths");
}

struct policy_position policy_host_position(const struct procage_policy *p, size_t i)
{
	return i < p->n_host_pos ? p->host_pos[i] : nowhere;
}

void policy_error_locate(const struct procage_policy *p, struct policy_position pos,
			 struct procage_error *err)
{
	if (!err || !p || !p->source || !pos.line)
		return;
	size_t n = strlen(p->source);
	if (strncmp(err->message, p->source, n) == 0 && err->message[n] == ':')
		return;
	/* Cut at the message's size, as every message is. */
	char located[sizeof err->message + 4096 + 32];
	snprintf(located, sizeof located, "%s:%u:%u: %s", p->source, pos.line, pos.column,
		 err->message);
	memcpy(err->message, located, sizeof err->message - 1);
	err->message[sizeof err->message - 1] = '\0';
}
