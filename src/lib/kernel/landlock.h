/* Landlock rulesets: rights per ABI, filled in the parent. */
#ifndef PROCAGE_LANDLOCK_H
#define PROCAGE_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "procage.h"

/* What a cage hands the kernel: the rights it handles, and the grants. */
struct landlock_grant {
	const char *path; /* canonical; for messages */
	int path_fd;      /* O_PATH descriptor pinning the inode */
	uint64_t access;  /* rights, already reduced to what the file type takes */
	dev_t dev;        /* the pinned inode's identity, read when it was pinned */
	ino_t ino;
};

#define LANDLOCK_MORE_PORTS 16

struct landlock_config {
	int abi;
	uint64_t handled_fs;
	uint64_t handled_net; /* 0: TCP is not restricted by Landlock */
	uint64_t scoped;
	uint16_t connect_port; /* with handled_net: the one TCP port connect may reach */
	/* With handled_net and connect_port: more ports connect may reach (transparent egress). */
	uint16_t more_ports[LANDLOCK_MORE_PORTS];
	size_t n_more_ports;
};

/* Every file right the ABI knows. */
uint64_t landlock_fs_rights_all(int abi);
/* Rights of a read grant: read files and directories, execute. */
uint64_t landlock_fs_rights_read(void);
/* The subset of rights the kernel accepts on a non-directory. */
uint64_t landlock_fs_rights_for_file(uint64_t rights);

/*
 * The handled rights and scopes for a cage on this ABI. With network_off,
 * TCP bind and connect are handled with no rule, or with one rule for
 * connect_port when it is not 0 (the run's proxy).
 */
void landlock_config_init(struct landlock_config *config, int abi, bool network_off,
			  uint16_t connect_port);

/*
 * Create a ruleset fd (close-on-exec) holding grants; the caller closes it.
 * Returns the fd or a negative errno with err naming the grant that failed.
 */
int landlock_ruleset_create(const struct landlock_config *config,
			    const struct landlock_grant *grants, size_t n_grants,
			    struct procage_error *err);

/*
 * Child side, system calls only: grant access beneath the directory open
 * at path_fd (a /proc mounted in the child's namespaces).
 */
int landlock_ruleset_add_fd(int ruleset_fd, int path_fd, uint64_t access);

/* Child side, system calls only: enforce the ruleset on the caller. */
int landlock_ruleset_enforce(int ruleset_fd);

#endif
