/*
 * Why a host is tier T2 rather than T1, and what would give it T1. The
 * inputs are read from files (sysctls, securityfs, procfs) under a root
 * directory, so that tests can judge recorded hosts: Ubuntu with its
 * AppArmor restriction, Debian's older sysctl, containers.
 */
#ifndef PROCAGE_USERNS_HINT_H
#define PROCAGE_USERNS_HINT_H

#include <stdbool.h>
#include <stddef.h>

#include "procage.h"

/* Where the installed profile lives, below the root of the file system. */
#define USERNS_HINT_PROFILE_DIR "/etc/apparmor.d"

enum userns_cause {
	USERNS_CAUSE_NONE,             /* tier T1: nothing to explain */
	USERNS_CAUSE_APPARMOR,         /* restricted, and no profile applies to this program */
	USERNS_CAUSE_APPARMOR_UNLOADED, /* restricted; a profile file exists but does not apply */
	USERNS_CAUSE_USERNS_CLONE,     /* kernel.unprivileged_userns_clone=0 */
	USERNS_CAUSE_MAX_ZERO,         /* user.max_user_namespaces=0 */
	USERNS_CAUSE_LIMIT_REACHED,    /* ENOSPC: the count or the nesting limit */
	USERNS_CAUSE_SECCOMP,          /* refused with EPERM under a seccomp filter */
	USERNS_CAUSE_NO_MOUNT,         /* made, but mounting inside it is refused */
	USERNS_CAUSE_UNKNOWN,
};

struct userns_inputs {
	/* From the probe (host facts). */
	bool userns_create, userns_mount;
	int userns_errno;
	bool root; /* the effective uid is 0 */
	/* Read from files; -1 where the file does not exist. */
	int apparmor_restrict;       /* kernel.apparmor_restrict_unprivileged_userns */
	int unprivileged_userns_clone; /* kernel.unprivileged_userns_clone (Debian, older Ubuntu) */
	long max_user_namespaces;    /* user.max_user_namespaces */
	int seccomp_mode;            /* "Seccomp:" of /proc/self/status: 2 = filter */
	bool apparmor_enabled;       /* securityfs shows AppArmor */
	bool confined_by_profile;    /* this process's label is a profile, not "unconfined" */
	char label[128];             /* that label, or "" */
	bool profile_file;           /* USERNS_HINT_PROFILE_DIR/procage exists */
	bool container;              /* /.dockerenv or /run/.containerenv exists */
	char program[256];           /* this program's path, or "" */
};

/*
 * Fill in from the files below root ("" for this host), keeping the
 * probe's fields as they are; on this host the program's path comes from
 * /proc/self/exe, below another root it is left as the caller set it.
 */
void userns_inputs_read(const char *root, struct userns_inputs *in);
enum userns_cause userns_cause_judge(const struct userns_inputs *in);
/* The hint's text for the cause (no "hint: " prefix), "" for none. */
void userns_hint_format(const struct userns_inputs *in, enum userns_cause cause, char *buf,
			size_t size);

#endif
