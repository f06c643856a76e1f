/*
 * The JSON policy reader's sections other than the limits
 * (policy_json_limits.c) and the top level (policy_json.c): paths, network,
 * private_tmp, own_proc, env, allow_hosts, accept, waive, hardlinks,
 * on_handoff_change, reports, lifetime and terminal. Each hands its values
 * to the public setters, which check them as they check a C caller's.
 */
#include "procage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "policy.h"
#include "policy_json_reader.h"

/* ---- paths ------------------------------------------------------------ */

/*
 * "~" and "~/..." are taken from $HOME of the calling process: the policy is
 * read by the user it protects. "~user" is refused rather than looked up, so
 * a policy never depends on the password database.
 */
static int expand_home(struct reader *r, const struct json_value *item, char **out)
{
	const char *path = item->u.string, *home = policy_home(r->policy);
	struct quoted q, q_home;

	if (path[1] != '\0' && path[1] != '/')
		return fail_value(r, item, -EINVAL,
				  "path %s names another user's home; only \"~/\" is expanded",
				  quote(&q, path));
	if (!home || !home[0])
		return fail_value(r, item, -EINVAL, "path %s needs $HOME, which is not set",
				  quote(&q, path));
	if (home[0] != '/')
		return fail_value(r, item, -EINVAL,
				  "path %s needs $HOME, but $HOME (%s) is not an absolute path",
				  quote(&q, path), quote(&q_home, home));
	size_t home_len = strlen(home);
	while (home_len > 1 && home[home_len - 1] == '/')
		home_len--;
	if (home_len == 1 && path[1] == '/') /* HOME=/ : "~/x" is "/x", not "//x" */
		home_len = 0;
	if (asprintf(out, "%.*s%s", (int)home_len, home, path + 1) < 0) {
		*out = NULL;
		return fail_value(r, item, -ENOMEM, "out of memory expanding %s", quote(&q, path));
	}
	return 0;
}

static int read_path_rule(struct reader *r, const struct json_value *item,
			  enum procage_access access)
{
	const char *path = item->u.string;
	char *expanded = NULL;
	struct procage_error inner;
	struct quoted q;
	int rc;

	if (path[0] == '\0')
		return fail_value(r, item, -EINVAL, "path is empty; rules take absolute paths");
	if (path[0] == '~') {
		rc = expand_home(r, item, &expanded);
		if (rc < 0)
			return rc;
		path = expanded;
	} else if (path[0] != '/') {
		return fail_value(r, item, -EINVAL,
				  "path %s is relative; rules take absolute paths",
				  quote(&q, path));
	}
	rc = procage_policy_allow(r->policy, path, access, &inner);
	if (rc < 0)
		fail_setter(r, item->line, item->column, rc, &inner);
	for (size_t i = 0; rc == 0 && i < r->policy->n_paths; i++) {
		struct policy_path_rule *rule = &r->policy->paths[i];
		if (strcmp(rule->path, path) == 0 && !rule->pos.line)
			rule->pos = (struct policy_position){ item->line, item->column };
	}
	free(expanded);
	return rc;
}

static int read_path_list(struct reader *r, const struct json_member *m, int access)
{
	char what[64], each[80];

	snprintf(what, sizeof what, "\"paths.%s\"", m->key);
	snprintf(each, sizeof each, "each entry of %s", what);
	int rc = expect_type(r, m->value, JSON_ARRAY, what);
	for (size_t i = 0; rc == 0 && i < m->value->u.array.count; i++) {
		const struct json_value *item = m->value->u.array.items[i];
		rc = expect_type(r, item, JSON_STRING, each);
		if (rc == 0)
			rc = read_path_rule(r, item, (enum procage_access)access);
	}
	return rc;
}

static const struct key_reader path_keys[] = {
	{ "read", read_path_list, PROCAGE_READ },
	{ "write", read_path_list, PROCAGE_WRITE },
	{ "protect", read_path_list, PROCAGE_PROTECT },
	{ "hide", read_path_list, PROCAGE_HIDE },
	{ "connect", read_path_list, PROCAGE_CONNECT },
};

int read_paths(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"paths\"");

	if (rc < 0)
		return rc;
	return read_members(r, m->value, "in \"paths\"", path_keys, N_KEYS(path_keys));
}

/* ---- network, private_tmp, own_proc ---------------------------------- */

int read_network(struct reader *r, const struct json_member *m, int unused)
{
	const struct json_value *v = m->value;
	enum procage_network mode;
	struct procage_error inner;
	struct quoted q;
	int rc = expect_type(r, v, JSON_STRING, "\"network\"");

	if (rc < 0)
		return rc;
	if (strcmp(v->u.string, "off") == 0)
		mode = PROCAGE_NET_OFF;
	else if (strcmp(v->u.string, "on") == 0)
		mode = PROCAGE_NET_ON;
	else if (strcmp(v->u.string, "proxy") == 0)
		mode = PROCAGE_NET_PROXY;
	else if (strcmp(v->u.string, "loopback") == 0)
		mode = PROCAGE_NET_LOOPBACK;
	else
		return fail_value(r, v, -EINVAL,
				  "unknown network mode %s; expected \"off\", \"on\", \"proxy\" or "
				  "\"loopback\"",
				  quote(&q, v->u.string));
	rc = procage_policy_set_network(r->policy, mode, &inner);
	return rc < 0 ? fail_setter(r, v->line, v->column, rc, &inner) : 0;
}

int read_private_tmp(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	int rc = expect_type(r, m->value, JSON_BOOL, "\"private_tmp\"");

	if (rc < 0)
		return rc;
	rc = procage_policy_set_private_tmp(r->policy, m->value->u.boolean, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

int read_own_proc(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	int rc = expect_type(r, m->value, JSON_BOOL, "\"own_proc\"");

	if (rc < 0)
		return rc;
	rc = procage_policy_set_own_proc(r->policy, m->value->u.boolean, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

/* "changes": "in-place" or "overlay" (tier T1, docs/changes.md). */
int read_changes(struct reader *r, const struct json_member *m, int unused)
{
	const struct json_value *v = m->value;
	struct procage_error inner;
	int rc = expect_type(r, v, JSON_STRING, "\"changes\"");
	if (rc < 0)
		return rc;
	if (strcmp(v->u.string, "overlay") != 0 && strcmp(v->u.string, "in-place") != 0)
		return fail_value(r, v, -EINVAL, "\"changes\" must be \"in-place\" or \"overlay\"");
	rc = procage_policy_set_changes(r->policy,
					strcmp(v->u.string, "overlay") == 0 ? PROCAGE_CHANGES_OVERLAY
									    : PROCAGE_CHANGES_IN_PLACE,
					&inner);
	return rc < 0 ? fail_setter(r, v->line, v->column, rc, &inner) : 0;
}

/* ---- env, allow_hosts, accept, waive --------------------------------- */

static int read_env_pass(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"env.pass\"", procage_policy_env_pass);
}

/* "publish": [8000, 5173], ports of the run's loopback the host reaches. */
int read_publish(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	int rc = expect_type(r, m->value, JSON_ARRAY, "\"publish\"");
	for (size_t i = 0; rc == 0 && i < m->value->u.array.count; i++) {
		const struct json_value *item = m->value->u.array.items[i];
		uint64_t port = 0;
		if (json_number_to_u64(item, &port) < 0)
			return fail_value(r, item, -EINVAL,
					  "each entry of \"publish\" must be a port number (1 to 65535)");
		if (port > 65535)
			return fail_value(r, item, -EINVAL,
					  "published port %llu is not a TCP port (1 to 65535)",
					  (unsigned long long)port);
		rc = procage_policy_publish(r->policy, (long)port, &inner);
		if (rc < 0)
			return fail_setter(r, item->line, item->column, rc, &inner);
	}
	return rc;
}

int read_allow_hosts(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"allow_hosts\"", procage_policy_allow_host);
}

int read_allow_ssh(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"allow_ssh\"", procage_policy_allow_ssh);
}

int read_accept(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"accept\"", procage_policy_accept);
}

int read_waive(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"waive\"", procage_policy_waive);
}

static int read_env_set(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	struct quoted q;
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"env.set\"");

	for (size_t i = 0; rc == 0 && i < m->value->u.object.count; i++) {
		const struct json_member *var = &m->value->u.object.members[i];
		if (var->value->type != JSON_STRING)
			return fail_value(r, var->value, -EINVAL,
					  "the value of %s in \"env.set\" must be a string, not %s",
					  quote(&q, var->key), json_type_name(var->value->type));
		rc = procage_policy_env_set(r->policy, var->key, var->value->u.string, &inner);
		if (rc < 0)
			return fail_setter(r, var->line, var->column, rc, &inner);
	}
	return rc;
}

static const struct key_reader env_keys[] = {
	{ "pass", read_env_pass, 0 },
	{ "set", read_env_set, 0 },
};

int read_env(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"env\"");

	if (rc < 0)
		return rc;
	return read_members(r, m->value, "in \"env\"", env_keys, N_KEYS(env_keys));
}

/* ---- hardlinks, on_handoff_change, reports, lifetime, terminal ------- */

static int read_hardlink_exempt(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"hardlinks.exempt\"", procage_policy_exempt_hardlinks);
}

static int read_hardlink_mode(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	const struct json_value *v = m->value;
	int rc = expect_type(r, v, JSON_STRING, "\"hardlinks.mode\"");
	if (rc < 0)
		return rc;
	if (strcmp(v->u.string, "refuse") != 0 && strcmp(v->u.string, "report") != 0)
		return fail_value(r, v, -EINVAL,
				  "unknown hard-link check mode; expected \"refuse\" or \"report\"");
	rc = procage_policy_set_hardlinks(r->policy,
					  v->u.string[2] == 'p' ? PROCAGE_HARDLINKS_REPORT
								: PROCAGE_HARDLINKS_REFUSE,
					  &inner);
	return rc < 0 ? fail_setter(r, v->line, v->column, rc, &inner) : 0;
}

static const struct key_reader hardlink_keys[] = {
	{ "mode", read_hardlink_mode, 0 },
	{ "exempt", read_hardlink_exempt, 0 },
};

int read_hardlinks(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"hardlinks\"");
	if (rc < 0)
		return rc;
	return read_members(r, m->value, "in \"hardlinks\"", hardlink_keys, N_KEYS(hardlink_keys));
}

int read_handoff_change(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	const struct json_value *v = m->value;
	int rc = expect_type(r, v, JSON_STRING, "\"on_handoff_change\"");
	if (rc < 0)
		return rc;
	if (strcmp(v->u.string, "report") != 0 && strcmp(v->u.string, "fail") != 0)
		return fail_value(r, v, -EINVAL,
				  "unknown trust-handoff change mode; expected \"report\" or \"fail\"");
	rc = procage_policy_set_handoff_change(r->policy,
					       strcmp(v->u.string, "fail") == 0
						       ? PROCAGE_HANDOFF_CHANGE_FAIL
						       : PROCAGE_HANDOFF_CHANGE_REPORT,
					       &inner);
	return rc < 0 ? fail_setter(r, v->line, v->column, rc, &inner) : 0;
}

int read_reports(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	int rc = expect_type(r, m->value, JSON_BOOL, "\"reports\"");
	if (rc < 0)
		return rc;
	rc = procage_policy_set_reports(r->policy, m->value->u.boolean, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

/* A string among names[0..n-1]: its index in *out, or an error naming them. */
static int read_choice(struct reader *r, const struct json_value *v, const char *what,
		       const char *const *names, int n, int *out)
{
	struct quoted q;
	int rc = expect_type(r, v, JSON_STRING, what);
	if (rc < 0)
		return rc;
	for (int i = 0; i < n; i++)
		if (strcmp(v->u.string, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return fail_value(r, v, -EINVAL, "unknown %s %s; expected \"%s\" or \"%s\"", what,
			  quote(&q, v->u.string), names[0], names[1]);
}

int read_lifetime(struct reader *r, const struct json_member *m, int unused)
{
	static const char *const names[] = { "session", "tree" };
	struct procage_error inner;
	int choice, rc = read_choice(r, m->value, "\"lifetime\"", names, 2, &choice);
	if (rc < 0)
		return rc;
	rc = procage_policy_set_lifetime(r->policy, choice ? PROCAGE_LIFETIME_TREE
							   : PROCAGE_LIFETIME_SESSION,
					 &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

int read_terminal(struct reader *r, const struct json_member *m, int unused)
{
	static const char *const names[] = { "inherit", "new-pty" };
	struct procage_error inner;
	int choice, rc = read_choice(r, m->value, "\"terminal\"", names, 2, &choice);
	if (rc < 0)
		return rc;
	rc = procage_policy_set_terminal(r->policy, choice ? PROCAGE_TERMINAL_NEW_PTY
							   : PROCAGE_TERMINAL_INHERIT,
					 &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}
