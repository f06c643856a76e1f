/*
 * Shared by the kernel facts (tests/kernel_facts.c runs them and holds
 * their ids; the observations live in tests/facts/, one file per concern).
 * An observation runs in a child process of its own: it may make
 * namespaces, mounts, sockets and Landlock domains, which go away with it,
 * and it writes what it saw with note(). It returns an outcome.
 */
#ifndef PROCAGE_TEST_FACTS_H
#define PROCAGE_TEST_FACTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What an observation concluded: its child's exit code. */
enum outcome {
	HOLDS = 0,    /* the fact holds */
	CHANGED = 1,  /* the kernel no longer behaves so */
	CANNOT = 2,   /* this host cannot show it; the note says why */
	BROKEN = 3,   /* the observation itself failed (a fixture) */
	RECORDED = 4, /* a behaviour that changed and is recorded, not relied on */
};

/* The host, measured once by main before any observation. */
struct facts_host {
	char release[65];
	int abi, abi_errno; /* Landlock ABI, 0 when unavailable */
	uid_t uid;
	gid_t gid;
	bool sys_admin; /* CAP_SYS_ADMIN in the initial namespaces */
	bool userns;	/* this process can make a user namespace */
	int userns_errno;
	char base[PATH_MAX]; /* the temporary directory every fact works in */
};
extern struct facts_host host;

/* ---- the note an observation sends back (common.c) ------------------ */

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note_reset(void);
const char *note_text(size_t *len);
/* The errno's name ("EPERM"), "success" for 0. */
const char *en(int e);

/* 0, or the errno of a call that returned -1. */
#define ERR(call) ((call) == -1 ? errno : 0)

/* ---- fixtures (common.c): false, with a note, on failure ------------- */

/* dir/name into out (PATH_MAX). */
bool join(char *out, const char *dir, const char *name);
/* Write dir/name with text; its path into out when not NULL. */
bool put(const char *dir, const char *name, const char *text, char *out);
/* host.base/name, made. */
bool fact_dir(const char *name, char *out);
bool sub_dir(const char *dir, const char *name, char *out);
off_t size_of(const char *path);

/* ---- namespaces (common.c) ------------------------------------------ */

/* A user namespace with EXTRA namespaces beside it, uid and gid mapped to 0; 0 or -errno. */
int enter_userns(int extra);
bool mounts_private(void);
/*
 * Namespaces of FLAGS: in a user namespace of the child's own where the
 * host makes one, else directly with CAP_SYS_ADMIN, else CANNOT. Mounts
 * are made private first.
 */
enum outcome own_namespaces(int flags);
/* HOLDS when the host makes user namespaces, else CANNOT with the reason. */
enum outcome need_userns(void);
/* HOLDS when the Landlock ABI is at least abi, else CANNOT saying why. */
enum outcome need_abi(int abi, const char *why);

/* ---- Landlock (common.c) -------------------------------------------- */

#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX /* ABI 9: pathname Unix sockets */
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16)
#endif
/* Every filesystem right of an ABI. */
uint64_t fs_rights(int abi);
int ruleset(uint64_t fs, uint64_t net, uint64_t scoped);
bool allow(int ruleset_fd, const char *path, uint64_t rights);
/* no_new_privs, then restrict the calling process; closes the ruleset. */
bool enforce(int ruleset_fd);
bool no_new_privs(void);
/* Empty the effective, permitted and inheritable sets, as the cage does. */
bool drop_capabilities(void);

/* ---- sockets (common.c); an abstract name is written "@name" --------- */

int unix_listen(const char *name);
/* 0, or the errno of socket or connect. */
int unix_connect(const char *name);
void abstract_name(char *out, size_t size, const char *what);

/* ---- the observations ------------------------------------------------ */

/* namespaces.c */
enum outcome kf_l09(void);
enum outcome kf_l10(void);
enum outcome kf_l20(void);
enum outcome kf_l22(void);
enum outcome kf_l25(void);
enum outcome kf_l28(void);
/* landlock.c */
enum outcome kf_l14_without(void);
enum outcome kf_l14_with(void);
enum outcome kf_l21(void);
enum outcome kf_l23_without(void);
enum outcome kf_l23_with(void);
enum outcome kf_l24_below9(void);
enum outcome kf_l24_abi9(void);
enum outcome kf_l26(void);
enum outcome kf_l27(void);
enum outcome kf_l29(void);
/* seccomp.c */
enum outcome kf_l15_reopen(void);
enum outcome kf_l15_getfd(void);
enum outcome kf_l15_our_filter(void);

#endif
