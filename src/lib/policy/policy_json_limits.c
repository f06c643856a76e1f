/*
 * The JSON policy reader's "limits": resource limits of each process
 * (setrlimit, a number or a soft and a hard one, or "unlimited") and the
 * limits of the whole run ("memory" and "pids", cgroup; "changes", the
 * bytes its change set may hold), by name. "memory" and "changes" also
 * take the sizes `procage run --limit memory=512M` takes, as a string
 * ("512M"); the writer always writes bytes.
 */
#include "procage.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/json.h"
#include "policy_json_reader.h"

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

/*
 * A size as a string: digits and one of K, M, G (binary, either case), as
 * --limit memory= takes it. False on anything else, or beyond 64 bits.
 */
static bool size_with_unit(const char *s, uint64_t *out)
{
	static const char units[] = "KMG";
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	const char *unit = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	if (!unit || errno || end[1])
		return false;
	unsigned shift = 10 * (unsigned)(unit - units + 1);
	if (v > (~0ULL >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* "memory" and "pids": a limit of the whole run (cgroup), one number. */
static int read_cgroup_limit(struct reader *r, const struct json_member *m,
			     enum procage_cgroup_limit limit)
{
	struct procage_error inner;
	uint64_t value;
	char what[64];
	bool memory = limit == PROCAGE_CGROUP_MEMORY;
	snprintf(what, sizeof what, "\"limits.%s\"", m->key);
	bool read = false;
	if (m->value->type == JSON_NUMBER)
		read = json_number_to_u64(m->value, &value) == 0;
	else if (memory && m->value->type == JSON_STRING)
		read = size_with_unit(m->value->u.string, &value);
	/* 0 is refused, not read as "no limit": leaving the key out says that. */
	if (!read || value == 0)
		return fail_value(
		    r, m->value, -EINVAL,
		    "%s is a limit of the whole run: a whole number above 0 (%s)", what,
		    memory ? "bytes, or a string with K, M or G: \"512M\"" : "processes");
	int rc = procage_policy_set_cgroup_limit(r->policy, limit, value, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

/* "changes": the bytes a run's change set may hold (changes as an overlay). */
static int read_changes_limit(struct reader *r, const struct json_member *m)
{
	struct procage_error inner;
	uint64_t value;
	bool read = false;
	if (m->value->type == JSON_NUMBER)
		read = json_number_to_u64(m->value, &value) == 0;
	else if (m->value->type == JSON_STRING)
		read = size_with_unit(m->value->u.string, &value);
	if (!read || value == 0)
		return fail_value(r, m->value, -EINVAL,
				  "\"limits.changes\" is the bytes a run's change set may hold: a "
				  "whole number above 0, or a string with K, M or G: \"512M\"");
	int rc = procage_policy_set_changes_limit(r->policy, value, &inner);
	return rc < 0 ? fail_setter(r, m->value->line, m->value->column, rc, &inner) : 0;
}

static int read_limit(struct reader *r, const struct json_member *m)
{
	if (strcmp(m->key, "changes") == 0)
		return read_changes_limit(r, m);
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

int read_limits(struct reader *r, const struct json_member *m, int unused)
{
	int rc = expect_type(r, m->value, JSON_OBJECT, "\"limits\"");

	for (size_t i = 0; rc == 0 && i < m->value->u.object.count; i++)
		rc = read_limit(r, &m->value->u.object.members[i]);
	return rc;
}
