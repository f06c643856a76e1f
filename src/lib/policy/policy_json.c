/*
 * Reading a policy from JSON (schema: docs/policy.md).
 *
 * The tree from json.c carries a position for every value, so each problem
 * is reported as "NAME:LINE:COLUMN: what is wrong", pointing at the value or
 * key at fault. The policy is built with the public setters only: the JSON
 * form can express nothing a C caller could not, and every check a setter
 * makes holds here too. A setter's own message is kept and prefixed with the
 * position of the value that was passed to it.
 *
 * On any error the half-built policy is freed: the caller gets a whole
 * policy or none.
 *
 * This file holds the top level and the entry points; the reader's tools
 * are in policy_json_reader.c (policy_json_reader.h), its sections in
 * policy_json_keys.c and policy_json_limits.c.
 */
#include "procage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "common/json.h"
#include "policy.h"
#include "policy_json_reader.h"

/* ---- the whole policy ------------------------------------------------- */

/* The version was checked, and the home read, before anything else. */
static int read_nothing(struct reader *r, const struct json_member *m, int unused)
{
	return 0;
}

/* "home" and "tmp_base": a directory, or null for the caller's environment. */
static int read_directory(struct reader *r, const struct json_member *m, int is_home)
{
	struct procage_error inner;
	char what[16];
	snprintf(what, sizeof what, "\"%s\"", m->key);
	if (m->value->type == JSON_NULL)
		return 0;
	int rc = expect_type(r, m->value, JSON_STRING, what);
	if (rc < 0)
		return rc;
	rc = (is_home ? procage_policy_set_home : procage_policy_set_tmp_base)(
		r->policy, m->value->u.string, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

/*
 * Only version 1 exists. A file written for a later version is refused as a
 * whole rather than read in part, since the part we skipped could be the
 * one that restricts.
 */
static int read_version(struct reader *r, const struct json_member *m, int unused)
{
	uint64_t version;
	int rc = expect_type(r, m->value, JSON_NUMBER, "\"version\"");

	if (rc < 0)
		return rc;
	if (json_number_to_u64(m->value, &version) < 0 || version != 1)
		return fail_value(r, m->value, -EINVAL,
				  "unsupported \"version\" %.40s; this reader knows version 1 only",
				  m->value->u.number);
	return 0;
}
static const struct key_reader top_keys[] = {
	{ "version", read_nothing, 0 },      { "paths", read_paths, 0 },
	{ "network", read_network, 0 },      { "env", read_env, 0 },
	{ "private_tmp", read_private_tmp, 0 }, { "own_proc", read_own_proc, 0 },
	{ "changes", read_changes, 0 },
	{ "limits", read_limits, 0 },
	{ "allow_hosts", read_allow_hosts, 0 },
	{ "allow_ssh", read_allow_ssh, 0 },
	{ "publish", read_publish, 0 },
	{ "accept", read_accept, 0 },        { "waive", read_waive, 0 },
	{ "hardlinks", read_hardlinks, 0 },  { "reports", read_reports, 0 },
	{ "lifetime", read_lifetime, 0 },    { "terminal", read_terminal, 0 },
	{ "home", read_nothing, 0 },         { "tmp_base", read_directory, 0 },
	{ "on_handoff_change", read_handoff_change, 0 },
};

const char *policy_json_key(size_t i)
{
	return i < N_KEYS(top_keys) ? top_keys[i].key : NULL;
}

/*
 * Where each top-level key and each allowlist entry was written, for the
 * refusals found later, when the cage is made (policy_locate.c).
 */
static int positions_record(struct reader *r, const struct json_value *root)
{
	struct procage_policy *p = r->policy;
	_Static_assert(N_KEYS(top_keys) <= POLICY_KEYS_MAX, "room for every key's position");
	if (!(p->source = strdup(r->name)))
		return error_set(r->err, -ENOMEM, "%s: out of memory", r->name);
	for (size_t i = 0; i < root->u.object.count; i++) {
		const struct json_member *m = &root->u.object.members[i];
		for (size_t k = 0; k < N_KEYS(top_keys); k++)
			if (strcmp(top_keys[k].key, m->key) == 0)
				p->key_pos[k] = (struct policy_position){ m->line, m->column };
	}
	const struct json_member *hosts = json_object_find(root, "allow_hosts");
	size_t n = hosts ? hosts->value->u.array.count : 0;
	if (n == 0)
		return 0;
	if (!(p->host_pos = calloc(n, sizeof *p->host_pos)))
		return error_set(r->err, -ENOMEM, "%s: out of memory", r->name);
	for (size_t i = 0; i < n; i++) {
		const struct json_value *item = hosts->value->u.array.items[i];
		p->host_pos[i] = (struct policy_position){ item->line, item->column };
	}
	p->n_host_pos = n;
	return 0;
}

static int read_policy(struct reader *r, const struct json_value *root)
{
	const struct json_member *version = json_object_find(root, "version");
	const struct json_member *home = json_object_find(root, "home");
	int rc;

	if (root->type != JSON_OBJECT)
		return fail_value(r, root, -EINVAL, "a policy must be an object, not %s",
				  json_type_name(root->type));
	if (version && (rc = read_version(r, version, 0)) < 0)
		return rc;
	/* Before the paths, whose "~/" it names. */
	if (home && (rc = read_directory(r, home, 1)) < 0)
		return rc;
	rc = read_members(r, root, "at the top level", top_keys, N_KEYS(top_keys));
	return rc < 0 ? rc : positions_record(r, root);
}

static int policy_from_json(const char *text, size_t len, const char *name,
			    struct procage_policy **out, struct procage_error *err)
{
	struct reader r = { name, NULL, err };
	struct json_value *root;
	struct json_error syntax;
	char shown[sizeof syntax.message];

	int rc = json_parse(text, len, &root, &syntax);
	if (rc < 0) {
		escape_for_message(shown, sizeof shown, syntax.message, SIZE_MAX, false);
		return error_set(err, rc, "%s:%u:%u: %s", name, syntax.line, syntax.column, shown);
	}
	r.policy = procage_policy_new();
	rc = r.policy ? read_policy(&r, root) : error_set(err, -ENOMEM, "%s: out of memory", name);
	json_free(root);
	if (rc < 0) {
		procage_policy_free(r.policy);
		return rc;
	}
	error_clear(err);
	*out = r.policy;
	return 0;
}

/* The file's bytes, up to one past the size limit: enough for the parser to refuse it. */
static int read_policy_file(const char *path, char **text, size_t *len,
			    struct procage_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t used = 0, capacity = 0;
	char *buf = NULL;

	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "%s: cannot open the policy file", path);
	for (;;) {
		if (used == capacity) {
			if (capacity > JSON_MAX_INPUT)
				break;
			size_t grown = capacity ? capacity * 2 : 16384;
			if (grown > JSON_MAX_INPUT + 1)
				grown = JSON_MAX_INPUT + 1;
			char *bigger = realloc(buf, grown);
			if (!bigger) {
				free(buf);
				close(fd);
				return error_set(err, -ENOMEM, "%s: out of memory", path);
			}
			buf = bigger;
			capacity = grown;
		}
		ssize_t n = read(fd, buf + used, capacity - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			free(buf);
			close(fd);
			return error_set_sys(err, saved, PROCAGE_STEP_NONE,
					     "%s: cannot read the policy file", path);
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	*text = buf;
	*len = used;
	return 0;
}

PROCAGE_API int procage_policy_from_json_file(const char *path, struct procage_policy **out,
					      struct procage_error *err)
{
	char *text = NULL;
	size_t len = 0;

	error_clear(err);
	if (out)
		*out = NULL;
	if (!path || !out)
		return error_set(err, -EINVAL, "no policy file or no place for the policy given");
	int rc = read_policy_file(path, &text, &len, err);
	if (rc < 0)
		return rc;
	rc = policy_from_json(text, len, path, out, err);
	free(text);
	return rc;
}

PROCAGE_API int procage_policy_from_json_text(const char *text, const char *name,
					      struct procage_policy **out,
					      struct procage_error *err)
{
	error_clear(err);
	if (out)
		*out = NULL;
	if (!text || !out)
		return error_set(err, -EINVAL, "no policy text or no place for the policy given");
	if (!name)
		name = "<policy>";
	/* Looking one byte past the limit is enough for the parser to refuse it. */
	return policy_from_json(text, strnlen(text, JSON_MAX_INPUT + 1), name, out, err);
}
