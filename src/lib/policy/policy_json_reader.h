/*
 * Shared by the parts of the JSON policy reader: policy_json.c (the top
 * level and the entry points), policy_json_keys.c and policy_json_limits.c
 * (the sections), policy_json_reader.c (the tools below). Internal to the
 * library: nothing here is part of its interface.
 */
#ifndef PROCAGE_POLICY_JSON_READER_H
#define PROCAGE_POLICY_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/json.h"
#include "procage.h"

struct reader {
	const char *name; /* what messages call the input */
	struct procage_policy *policy;
	struct procage_error *err;
};

/* ---- messages --------------------------------------------------------- */

/*
 * Copy src into dst for a message, at most max_src bytes of it, control
 * characters escaped. Returns true if src was cut.
 */
bool escape_for_message(char *dst, size_t size, const char *src, size_t max_src, bool quoted);

/* A string from the input, quoted and shortened for a message. */
struct quoted {
	char text[272]; /* room for 60 bytes escaped four times over */
};

const char *quote(struct quoted *q, const char *s);

/* "NAME:LINE:COLUMN: what" in r->err; each returns code. */
int __attribute__((format(printf, 5, 6)))
fail_at(struct reader *r, unsigned line, unsigned column, int code, const char *fmt, ...);
int __attribute__((format(printf, 4, 5)))
fail_value(struct reader *r, const struct json_value *v, int code, const char *fmt, ...);
/* A setter refused a value: its message, at the position of that value. */
int fail_setter(struct reader *r, unsigned line, unsigned column, int code,
		const struct procage_error *inner);
/* 0 if v is of type want, else an error naming what. */
int expect_type(struct reader *r, const struct json_value *v, enum json_type want,
		const char *what);

/* ---- objects with a fixed set of keys --------------------------------- */

struct key_reader {
	const char *key;
	int (*read)(struct reader *r, const struct json_member *m, int arg);
	int arg;
};

#define N_KEYS(table) (sizeof(table) / sizeof((table)[0]))

/* An error for m's key, which is not among keys (listed in the message). */
int unknown_key(struct reader *r, const struct json_member *m, const char *where,
		const struct key_reader *keys, size_t n_keys);
/* Each member in document order, by its key's reader; other keys are errors. */
int read_members(struct reader *r, const struct json_value *object, const char *where,
		 const struct key_reader *keys, size_t n_keys);
/* An array of names, each handed to a setter that checks it. */
int read_name_list(struct reader *r, const struct json_member *m, const char *what,
		   int (*setter)(struct procage_policy *, const char *, struct procage_error *));

/* ---- the sections, by top-level key (policy_json_keys.c, _limits.c) ---- */

int read_paths(struct reader *r, const struct json_member *m, int unused);
int read_network(struct reader *r, const struct json_member *m, int unused);
int read_private_tmp(struct reader *r, const struct json_member *m, int unused);
int read_own_proc(struct reader *r, const struct json_member *m, int unused);
int read_changes(struct reader *r, const struct json_member *m, int unused);
int read_env(struct reader *r, const struct json_member *m, int unused);
int read_allow_hosts(struct reader *r, const struct json_member *m, int unused);
int read_allow_ssh(struct reader *r, const struct json_member *m, int unused);
int read_accept(struct reader *r, const struct json_member *m, int unused);
int read_publish(struct reader *r, const struct json_member *m, int unused);
int read_waive(struct reader *r, const struct json_member *m, int unused);
int read_limits(struct reader *r, const struct json_member *m, int unused);
int read_hardlinks(struct reader *r, const struct json_member *m, int unused);
int read_handoff_change(struct reader *r, const struct json_member *m, int unused);
int read_reports(struct reader *r, const struct json_member *m, int unused);
int read_lifetime(struct reader *r, const struct json_member *m, int unused);
int read_terminal(struct reader *r, const struct json_member *m, int unused);

#endif
