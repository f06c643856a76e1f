/*
 * Landlock rulesets. Rights are chosen by the running ABI: a right the
 * kernel does not know cannot be handled, and one it knows but we forgot
 * would stay allowed, so every known right is handled and only granted
 * where a rule says so.
 */
#include "landlock.h"

#include <errno.h>
#include <unistd.h>

#include "base/error.h"
#include "base/syscalls.h"

#define FS_RIGHTS_ABI1                                                                         \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                          \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |                          \
	 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |                      \
	 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |                          \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |                          \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |                        \
	 LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Rights that make sense on a file rather than a directory. */
#define FS_RIGHTS_FILE                                                                         \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                          \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |                          \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

uint64_t landlock_fs_rights_all(int abi)
{
	uint64_t rights = 0;
	if (abi >= 1)
		rights |= FS_RIGHTS_ABI1;
	if (abi >= 2)
		rights |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return rights;
}

uint64_t landlock_fs_rights_read(void)
{
	return LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
	       LANDLOCK_ACCESS_FS_READ_DIR;
}

uint64_t landlock_fs_rights_for_file(uint64_t rights)
{
	return rights & FS_RIGHTS_FILE;
}

void landlock_config_init(struct landlock_config *c, int abi, bool network_off,
			  uint16_t connect_port)
{
	c->abi = abi;
	c->connect_port = connect_port;
	c->n_more_ports = 0;
	c->handled_fs = landlock_fs_rights_all(abi);
	c->handled_net = 0;
	c->scoped = 0;
	/* Handled with no rule at all: no TCP bind or connect to any port. */
	if (abi >= 4 && network_off)
		c->handled_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	/*
	 * Signals and abstract Unix sockets stay inside the run: the child can
	 * neither signal the user's other processes nor reach abstract
	 * sockets (a D-Bus bus, an X server) bound outside its domain.
	 */
	if (abi >= 6)
		c->scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
}

static size_t ruleset_attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct landlock_ruleset_attr_v6);
	if (abi >= 4)
		return 2 * sizeof(uint64_t);
	return sizeof(uint64_t);
}

int landlock_ruleset_create(const struct landlock_config *c, const struct landlock_grant *grants,
			    size_t n_grants, struct procage_error *err)
{
	struct landlock_ruleset_attr_v6 attr = {
		.handled_access_fs = c->handled_fs,
		.handled_access_net = c->handled_net,
		.scoped = c->scoped,
	};
	int fd = sys_landlock_create_ruleset(&attr, ruleset_attr_size(c->abi), 0);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_PREPARE,
				     "creating the Landlock ruleset (ABI %d)", c->abi);
	struct landlock_net_port_attr_v4 port = { LANDLOCK_ACCESS_NET_CONNECT_TCP, c->connect_port };
	if (c->handled_net && c->connect_port &&
	    sys_landlock_add_rule(fd, LANDLOCK_RULE_NET_PORT, &port, 0) != 0) {
		int e = errno;
		close(fd);
		return error_set_sys(err, e, PROCAGE_STEP_PREPARE,
				     "adding the Landlock rule for TCP port %u", c->connect_port);
	}
	for (size_t i = 0; c->handled_net && c->connect_port && i < c->n_more_ports; i++) {
		struct landlock_net_port_attr_v4 more = { LANDLOCK_ACCESS_NET_CONNECT_TCP,
							  c->more_ports[i] };
		if (sys_landlock_add_rule(fd, LANDLOCK_RULE_NET_PORT, &more, 0) != 0) {
			int e = errno;
			close(fd);
			return error_set_sys(err, e, PROCAGE_STEP_PREPARE,
					     "adding the Landlock rule for TCP port %u",
					     c->more_ports[i]);
		}
	}
	for (size_t i = 0; i < n_grants; i++) {
		struct landlock_path_beneath_attr_packed rule = {
			.allowed_access = grants[i].access & c->handled_fs,
			.parent_fd = grants[i].path_fd,
		};
		if (!rule.allowed_access)
			continue;
		if (sys_landlock_add_rule(fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
			int e = errno;
			close(fd);
			return error_set_sys(err, e, PROCAGE_STEP_PREPARE,
					     "adding the Landlock rule for %s", grants[i].path);
		}
	}
	return fd;
}

int landlock_ruleset_enforce(int ruleset_fd)
{
	return sys_landlock_restrict_self(ruleset_fd, 0) == 0 ? 0 : -errno;
}

int landlock_ruleset_add_fd(int ruleset_fd, int path_fd, uint64_t access)
{
	struct landlock_path_beneath_attr_packed rule = {
		.allowed_access = access,
		.parent_fd = path_fd,
	};
	return sys_landlock_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0 ? 0
											 : -errno;
}
