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
 */
#include "procage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "error.h"
#include "json.h"
#include "policy.h"

struct reader {
	const char *name; /* what messages call the input */
	struct procage_policy *policy;
	struct procage_error *err;
};

/* ---- messages --------------------------------------------------------- */

/*
 * Copy src into dst for a message, at most max_src bytes of it (finishing a
 * UTF-8 character that was started). Control characters, C0 and C1, become
 * escapes: a policy file may come from anyone, and what it holds must not
 * reach the user's terminal as escape sequences. Returns true if src was cut.
 */
static bool escape_for_message(char *dst, size_t size, const char *src, size_t max_src,
			       bool quoted)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t n = 0, i = 0;

	for (; s[i] && (i < max_src || (s[i] & 0xC0) == 0x80); i++) {
		char piece[8] = { (char)s[i], '\0' };
		if (s[i] < 0x20 || s[i] == 0x7f)
			snprintf(piece, sizeof piece, "\\x%02X", s[i]);
		else if (s[i] == 0xC2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F)
			snprintf(piece, sizeof piece, "\\u%04X", s[++i]);
		else if (quoted && (s[i] == '"' || s[i] == '\\'))
			snprintf(piece, sizeof piece, "\\%c", s[i]);
		size_t len = strlen(piece);
		if (n + len >= size)
			break;
		memcpy(dst + n, piece, len);
		n += len;
	}
	dst[n] = '\0';
	return s[i] != '\0';
}

/* A string from the input, quoted and shortened for a message. */
struct quoted {
	char text[272]; /* room for 60 bytes escaped four times over */
};

static const char *quote(struct quoted *q, const char *s)
{
	q->text[0] = '"';
	bool cut = escape_for_message(q->text + 1, sizeof q->text - 5, s, 60, true);
	strcat(q->text, cut ? "\"..." : "\"");
	return q->text;
}

static int __attribute__((format(printf, 5, 0)))
fail_va(struct reader *r, unsigned line, unsigned column, int code, const char *fmt, va_list ap)
{
	char what[sizeof r->err->message];

	vsnprintf(what, sizeof what, fmt, ap);
	return error_set(r->err, code, "%s:%u:%u: %s", r->name, line, column, what);
}

static int __attribute__((format(printf, 5, 6)))
fail_at(struct reader *r, unsigned line, unsigned column, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = fail_va(r, line, column, code, fmt, ap);
	va_end(ap);
	return rc;
}

static int __attribute__((format(printf, 4, 5)))
fail_value(struct reader *r, const struct json_value *v, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = fail_va(r, v->line, v->column, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* A setter refused a value: its message, at the position of that value. */
static int fail_setter(struct reader *r, unsigned line, unsigned column, int code,
		       const struct procage_error *inner)
{
	char shown[sizeof inner->message];

	escape_for_message(shown, sizeof shown, inner->message, SIZE_MAX, false);
	fail_at(r, line, column, code, "%s", shown);
	if (r->err)
		r->err->sys_errno = inner->sys_errno;
	return code;
}

static int expect_type(struct reader *r, const struct json_value *v, enum json_type want,
		       const char *what)
{
	if (v->type == want)
		return 0;
	return fail_value(r, v, -EINVAL, "%s must be %s, not %s", what, json_type_name(want),
			  json_type_name(v->type));
}

/* ---- objects with a fixed set of keys --------------------------------- */

struct key_reader {
	const char *key;
	int (*read)(struct reader *r, const struct json_member *m, int arg);
	int arg;
};

static int unknown_key(struct reader *r, const struct json_member *m, const char *where,
		       const struct key_reader *keys, size_t n_keys)
{
	char known[256] = "";
	struct quoted q;

	for (size_t i = 0; i < n_keys; i++) {
		size_t used = strlen(known);
		snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", keys[i].key);
	}
	return fail_at(r, m->line, m->column, -EINVAL, "unknown key %s %s (known: %s)",
		       quote(&q, m->key), where, known);
}

/* Each member in document order, by its key's reader; other keys are errors. */
static int read_members(struct reader *r, const struct json_value *object, const char *where,
			const struct key_reader *keys, size_t n_keys)
{
	for (size_t i = 0; i < object->u.object.count; i++) {
		const struct json_member *m = &object->u.object.members[i];
		const struct key_reader *k = NULL;
		for (size_t j = 0; j < n_keys && !k; j++)
			if (strcmp(keys[j].key, m->key) == 0)
				k = &keys[j];
		if (!k)
			return unknown_key(r, m, where, keys, n_keys);
		int rc = k->read(r, m, k->arg);
		if (rc < 0)
			return rc;
	}
	return 0;
}

#define N_KEYS(table) (sizeof(table) / sizeof((table)[0]))

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

static int read_paths(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"paths\"");

	if (rc < 0)
		return rc;
	return read_members(r, m->value, "in \"paths\"", path_keys, N_KEYS(path_keys));
}

/* ---- network, private_tmp, version ------------------------------------ */

static int read_network(struct reader *r, const struct json_member *m, int unused)
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

static int read_private_tmp(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	int rc = expect_type(r, m->value, JSON_BOOL, "\"private_tmp\"");

	if (rc < 0)
		return rc;
	rc = procage_policy_set_private_tmp(r->policy, m->value->u.boolean, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

static int read_own_proc(struct reader *r, const struct json_member *m, int unused)
{
	struct procage_error inner;
	int rc = expect_type(r, m->value, JSON_BOOL, "\"own_proc\"");

	if (rc < 0)
		return rc;
	rc = procage_policy_set_own_proc(r->policy, m->value->u.boolean, &inner);
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

/* ---- env -------------------------------------------------------------- */

/* An array of names, each handed to a setter that checks it. */
static int read_name_list(struct reader *r, const struct json_member *m, const char *what,
			  int (*setter)(struct procage_policy *, const char *,
					struct procage_error *))
{
	struct procage_error inner;
	char expected[64];
	int rc = expect_type(r, m->value, JSON_ARRAY, what);

	snprintf(expected, sizeof expected, "each entry of %s", what);
	for (size_t i = 0; rc == 0 && i < m->value->u.array.count; i++) {
		const struct json_value *item = m->value->u.array.items[i];
		rc = expect_type(r, item, JSON_STRING, expected);
		if (rc < 0)
			return rc;
		rc = setter(r->policy, item->u.string, &inner);
		if (rc < 0)
			return fail_setter(r, item->line, item->column, rc, &inner);
	}
	return rc;
}

static int read_env_pass(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"env.pass\"", procage_policy_env_pass);
}

static int read_allow_hosts(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"allow_hosts\"", procage_policy_allow_host);
}

static int read_accept(struct reader *r, const struct json_member *m, int unused)
{
	return read_name_list(r, m, "\"accept\"", procage_policy_accept);
}

static int read_waive(struct reader *r, const struct json_member *m, int unused)
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

static int read_env(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"env\"");

	if (rc < 0)
		return rc;
	return read_members(r, m->value, "in \"env\"", env_keys, N_KEYS(env_keys));
}

/* ---- limits ----------------------------------------------------------- */

/* A number of 0 or more, or "unlimited". */
static int read_limit_amount(struct reader *r, const struct json_value *v, const char *what,
			     uint64_t *out)
{
	struct quoted q;

	if (v->type == JSON_STRING && strcmp(v->u.string, "unlimited") == 0) {
		*out = RLIM_INFINITY;
		return 0;
	}
	if (v->type == JSON_STRING)
		return fail_value(r, v, -EINVAL, "%s must be a number or \"unlimited\", not %s",
				  what, quote(&q, v->u.string));
	if (v->type != JSON_NUMBER)
		return fail_value(r, v, -EINVAL, "%s must be a number or \"unlimited\", not %s",
				  what, json_type_name(v->type));
	int rc = json_number_to_u64(v, out);
	if (rc == -ERANGE)
		return fail_value(r, v, -ERANGE,
				  "%s is %.40s, above the largest limit; write \"unlimited\"", what,
				  v->u.number);
	if (rc < 0)
		return fail_value(r, v, -EINVAL,
				  "%s must be a whole number of 0 or more, not %.40s", what,
				  v->u.number);
	return 0;
}

/* {"soft": ..., "hard": ...}: both are needed, so no limit is left implied. */
static int read_soft_hard(struct reader *r, const struct json_value *v, const char *what,
			  uint64_t *soft, uint64_t *hard)
{
	static const struct key_reader keys[] = { { "soft", NULL, 0 }, { "hard", NULL, 0 } };
	char where[80], each[80];
	bool have_soft = false, have_hard = false;

	snprintf(where, sizeof where, "in %s", what);
	for (size_t i = 0; i < v->u.object.count; i++) {
		const struct json_member *m = &v->u.object.members[i];
		bool is_soft = strcmp(m->key, "soft") == 0;
		if (!is_soft && strcmp(m->key, "hard") != 0)
			return unknown_key(r, m, where, keys, N_KEYS(keys));
		snprintf(each, sizeof each, "%.*s.%s\"", (int)strlen(what) - 1, what, m->key);
		int rc = read_limit_amount(r, m->value, each, is_soft ? soft : hard);
		if (rc < 0)
			return rc;
		*(is_soft ? &have_soft : &have_hard) = true;
	}
	if (!have_soft || !have_hard)
		return fail_value(r, v, -EINVAL, "%s needs both \"soft\" and \"hard\"", what);
	return 0;
}

/* "memory" and "pids": a limit of the whole run (cgroup), one number. */
static int read_cgroup_limit(struct reader *r, const struct json_member *m,
			     enum procage_cgroup_limit limit)
{
	struct procage_error inner;
	uint64_t value;
	char what[64];
	snprintf(what, sizeof what, "\"limits.%s\"", m->key);
	/* 0 is refused, not read as "no limit": leaving the key out says that. */
	if (m->value->type != JSON_NUMBER || json_number_to_u64(m->value, &value) < 0 ||
	    value == 0)
		return fail_value(r, m->value, -EINVAL,
				  "%s is a limit of the whole run: a whole number above 0 (%s)",
				  what, limit == PROCAGE_CGROUP_MEMORY ? "bytes" : "processes");
	int rc = procage_policy_set_cgroup_limit(r->policy, limit, value, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

static int read_limit(struct reader *r, const struct json_member *m)
{
	if (strcmp(m->key, "memory") == 0)
		return read_cgroup_limit(r, m, PROCAGE_CGROUP_MEMORY);
	if (strcmp(m->key, "pids") == 0)
		return read_cgroup_limit(r, m, PROCAGE_CGROUP_PIDS);
	int resource = procage_rlimit_from_name(m->key);
	struct procage_error inner;
	uint64_t soft, hard;
	char what[64];
	struct quoted q;
	int rc;

	if (resource < 0)
		return fail_at(r, m->line, m->column, -EINVAL,
			       "unknown resource limit %s in \"limits\"", quote(&q, m->key));
	snprintf(what, sizeof what, "\"limits.%s\"", m->key);
	if (m->value->type == JSON_OBJECT) {
		rc = read_soft_hard(r, m->value, what, &soft, &hard);
	} else {
		rc = read_limit_amount(r, m->value, what, &soft);
		hard = soft;
	}
	if (rc < 0)
		return rc;
	if (soft > hard)
		return fail_value(r, m->value, -EINVAL,
				  "%s: the soft limit %llu is above the hard limit %llu", what,
				  (unsigned long long)soft, (unsigned long long)hard);
	rc = procage_policy_set_rlimit(r->policy, resource, soft, hard, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

static int read_limits(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"limits\"");

	for (size_t i = 0; rc == 0 && i < m->value->u.object.count; i++)
		rc = read_limit(r, &m->value->u.object.members[i]);
	return rc;
}

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

static int read_hardlinks(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"hardlinks\"");
	if (rc < 0)
		return rc;
	return read_members(r, m->value, "in \"hardlinks\"", hardlink_keys, N_KEYS(hardlink_keys));
}

static int read_handoff_change(struct reader *r, const struct json_member *m, int unused)
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

static int read_reports(struct reader *r, const struct json_member *m, int unused)
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

static int read_lifetime(struct reader *r, const struct json_member *m, int unused)
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

static int read_terminal(struct reader *r, const struct json_member *m, int unused)
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

static const struct key_reader top_keys[] = {
	{ "version", read_nothing, 0 },      { "paths", read_paths, 0 },
	{ "network", read_network, 0 },      { "env", read_env, 0 },
	{ "private_tmp", read_private_tmp, 0 }, { "own_proc", read_own_proc, 0 },
	{ "limits", read_limits, 0 },
	{ "allow_hosts", read_allow_hosts, 0 },
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
