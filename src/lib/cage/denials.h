/*
 * Explaining refusals: what the cage was refused, which rule or class
 * refused it, and the flag that would allow it. The supervisor observes
 * the calls that name paths (observe.c), judges each against the rules the
 * cage was compiled from (the policy's grants and the locations of the
 * classes), and keeps the distinct refusals (a bounded store) to print
 * once the run has ended.
 *
 * Nothing here decides anything: Landlock, the masks and the filter do.
 * A judgement can be wrong only in what it prints (the cage chose the
 * paths it named, and may change its memory after we read it).
 */
#ifndef PROCAGE_DENIALS_H
#define PROCAGE_DENIALS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procage.h"

enum denial_op {
	DENIAL_READ,
	DENIAL_WRITE,  /* an existing file changed or truncated */
	DENIAL_CREATE, /* an entry made: file, directory, link, rename target */
	DENIAL_REMOVE, /* an entry removed, or renamed away */
	DENIAL_EXEC,
};

struct denial_grant {
	char *path;		    /* canonical */
	enum procage_access access; /* PROCAGE_READ or PROCAGE_WRITE */
};

struct denial_location {
	char *path;		  /* canonical */
	enum procage_access deny; /* PROCAGE_HIDE or PROCAGE_PROTECT */
	int cls;		  /* enum class_id, -1: the policy's own rule, or CAGE_PATH_ALIAS */
};

/* The rules a run's refusals are judged by: its own copy. */
struct denial_rules {
	struct denial_grant *grants;
	size_t n_grants;
	struct denial_location *locations;
	size_t n_locations;
	char *home; /* written as ~ in the flags; or NULL */
	enum procage_network network;
	/*
	 * A root caller's T1 run sees /etc id-mapped (root_private.h): what
	 * others may not read there is hidden without being listed.
	 */
	bool root_private_idmapped;
	/* The trust-handoff class holds: changes where git runs or reads are observed. */
	bool trust_handoff;
	/* T1: the run's read-only view of its cgroup lies at /sys/fs/cgroup. */
	bool cgroup_view;
	/*
	 * T2 with own_proc: a process reads its own /proc/self files through
	 * the broker, and no other process's entries (docs/proc.md).
	 */
	bool proc_own_only;
	/*
	 * T2: the directories entry grants leave without a rule (a hidden
	 * path below) and the policy does not let the broker list.
	 */
	char **unlistable;
	size_t n_unlistable;
};

/* One refusal explained: every field plain text, not yet escaped. */
struct denial {
	char op[16];	   /* "write", "read", "connect", ... */
	char subject[512]; /* the path or the host */
	/* "not granted", "hidden", "read-only", "network is off", a git key refused */
	char reason[192];
	/* "grants", a class's name, "policy", "network", "proxy", "shared-memory",
	 * "devices", "disks", "terminals", "lifetime", "read-grant",
	 * "home", "listing", "kernel-settings" */
	char rule[32];
	/*
	 * What makes refusals the same line: the location of a class or
	 * rule (every path below /proc is one), the flag for ungranted paths
	 * (every file made in ~/.npm is one); "" for op and subject.
	 */
	char group[4200];
	char flag[4200]; /* what would allow it ("--write ~/.npm"), or "" */
	/* For a suggested write grant: the class locations it would still hold, or "". */
	char held[256];
};

struct procage_cage;
struct cage_paths;
/* The rules of cage c, from its resolved paths, in c->denial_rules. */
int denial_rules_from_paths(struct procage_cage *c, const struct cage_paths *paths,
			    struct procage_error *err);
int denial_rules_add_grant(struct denial_rules *r, const char *path, enum procage_access access);
int denial_rules_add_location(struct denial_rules *r, const char *path, enum procage_access deny,
			      int cls);
/* path, a directory the run cannot list (listing-shows-hidden-names not accepted). */
int denial_rules_add_unlistable(struct denial_rules *r, const char *path);
/* A copy of src (its lists and strings); NULL when out of memory. */
struct denial_rules *denial_rules_copy(const struct denial_rules *src);
void denial_rules_free(struct denial_rules *r);

/*
 * Would op on path (absolute, canonical as far as the caller could make it)
 * be refused by the rules? If so, fill *out and return true.
 */
bool denial_judge_path(const struct denial_rules *r, enum denial_op op, const char *path,
		       struct denial *out);
/* A refused IP socket (network off): udp says it is a datagram socket (DNS). */
void denial_judge_socket(const struct denial_rules *r, bool udp, struct denial *out);
/* A refused setsid (the session lifetime locks the run's session). */
void denial_judge_session(struct denial *out);
/* The name of an op, as printed. */
const char *denial_op_name(enum denial_op op);

/*
 * The distinct refusals of a run. At most DENIAL_STORE_KEPT are kept; past
 * that only a count grows, so a cage naming endless paths costs no memory.
 */
#define DENIAL_STORE_KEPT 64

struct denial_store {
	pthread_mutex_t lock;
	/*
	 * Each allocated when first seen: a denial is several kilobytes,
	 * and a run that is refused nothing should not pay for 64 of them.
	 */
	struct denial *items[DENIAL_STORE_KEPT];
	uint64_t counts[DENIAL_STORE_KEPT];
	size_t n;
	uint64_t more; /* refusals not kept (new ones past the bound) */
	int json_fd;   /* a JSON line per distinct refusal as it is first seen; or -1. Not owned */
};

void denial_store_init(struct denial_store *s, int json_fd);
void denial_store_destroy(struct denial_store *s);
void denial_store_add(struct denial_store *s, const struct denial *d);
/*
 * The refusals as lines ("write /x: not granted (add --write /x)"), names
 * escaped, NULL-terminated, and a last line counting those not kept; NULL
 * in *out when there were none.
 */
int denial_store_lines(struct denial_store *s, char ***out);
/* The same line for one refusal, in buf. */
void denial_line(const struct denial *d, char *buf, size_t size);

#endif
