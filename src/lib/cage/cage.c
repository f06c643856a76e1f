/*
 * Making a cage: every path resolved to its canonical target and
 * pinned by an O_PATH descriptor, every construct mapped to the mechanism
 * that enforces it on this host, and whatever cannot be enforced refused
 * with the capability it lacks named.
 */
#include "cage.h"
#include "proxy/capture.h"
#include "ahead.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/string_list.h"
#include "policy/classes.h"
#include "changes_overlay.h"
#include "entry_grants.h"
#include "discover/handoff_snapshot.h"
#include "host/host.h"
#include "discover/path_aliases.h"
#include "paths.h"
#include "proxy/allowlist.h"
#include "proxy/ssh_setup.h"
#include "rlimits.h"
#include "discover/root_private.h"
#include "kernel/seccomp.h"
#include "base/syscalls.h"

static int host_refusal(const struct procage_host_facts *f, struct procage_error *err)
{
	if (f->landlock_abi < 1) {
		if (f->landlock_errno == EOPNOTSUPP)
			return error_set(err, -EOPNOTSUPP,
					 "unsupported: Landlock is built into this kernel (%s) but "
					 "not enabled; add \"landlock\" to the lsm= boot parameter",
					 f->kernel_release);
		return error_set(err, -EOPNOTSUPP,
				 "unsupported: this kernel (%s) has no Landlock (built without "
				 "CONFIG_SECURITY_LANDLOCK)",
				 f->kernel_release);
	}
	if (!f->seccomp_filter)
		return error_set(err, -EOPNOTSUPP,
				 "unsupported: this kernel (%s) has no seccomp filters",
				 f->kernel_release);
	/*
	 * Below ABI 3 a file that can be read can also be truncated by path
	 * or by O_TRUNC; no filter can tell those calls from
	 * legitimate ones, so the cage is refused rather than weakened.
	 */
	if (f->landlock_abi < 3)
		return error_set(err, -EOPNOTSUPP,
				 "unsupported: Landlock ABI %d cannot deny truncating readable "
				 "files; procage needs ABI 3 (Linux 6.2) or later",
				 f->landlock_abi);
	return 0;
}

bool cage_accepted(const struct procage_cage *c, enum policy_approximation a)
{
	return c->policy->accepted & (1u << a);
}

void cage_fix_set(const struct procage_cage *c, enum cage_fix_kind kind, int approximation,
		  const char *path)
{
	if (!c->fix)
		return;
	c->fix->kind = kind;
	c->fix->approximation = approximation;
	snprintf(c->fix->path, sizeof c->fix->path, "%s", path ? path : "");
}

static int denial_refusal(const struct procage_cage *c, const struct cage_path *d,
			  struct procage_error *err)
{
	char origin[64];
	cage_fix_set(c, CAGE_FIX_ACCEPT,
		c->tier == PROCAGE_TIER_T1 ? APPROX_SPAWN_SNAPSHOT : APPROX_ENTRY_GRANTS, NULL);
	const char *what = d->access == PROCAGE_HIDE ? "hiding" : "keeping read-only";
	if (c->tier == PROCAGE_TIER_T1)
		return error_set(err, -EOPNOTSUPP,
				 "%s %s (%s) inside a granted tree is a mask laid over what "
				 "exists at spawn; accept the approximation spawn-snapshot",
				 what, d->path, cage_path_origin(d, origin, sizeof origin));
	return error_set(err, -EOPNOTSUPP,
			 "%s %s (%s) inside a granted tree needs mount masks (tier T1), and "
			 "this host is tier T2, where Landlock cannot take rights away below a "
			 "grant; accept the approximation entry-grants to grant entry by entry "
			 "around it%s",
			 what, d->path, cage_path_origin(d, origin, sizeof origin),
			 d->cls >= 0 ? ", or waive the class" : "");
}

/*
 * Tier T2 below Landlock ABI 9 has no rule for Unix sockets: the broker
 * judges each connect by path (broker_unix.c), where the host lets a
 * supervisor answer seccomp notifications. With the whole network on, the
 * broker would have to take every IP connect too: refused, named.
 */
static int socket_refusal_t2(struct procage_cage *c, const struct cage_path *s, size_t n,
			     struct procage_error *err)
{
	if (!host_facts_get()->seccomp_user_notif)
		return error_set(err, -EOPNOTSUPP,
				 "connecting to the Unix socket %s needs every other socket masked "
				 "(tier T1) or, on tier T2 with Landlock ABI %d, seccomp user "
				 "notification (a supervisor judging each connect), which this host "
				 "refuses",
				 s->path, c->landlock.abi);
	if (c->policy->network == PROCAGE_NET_ON)
		return error_set(err, -EOPNOTSUPP,
				 "connecting to the Unix socket %s on tier T2 goes through the "
				 "supervisor's broker, which does not broker the unrestricted "
				 "network; turn the network off or to loopback or proxy",
				 s->path);
	if (n > BROKER_UNIX_GRANTS_MAX)
		return error_set(err, -E2BIG, "more than %d Unix sockets granted on tier T2",
				 BROKER_UNIX_GRANTS_MAX);
	c->unix_brokered = true;
	return 0;
}

/*
 * Landlock below ABI 9 cannot tell one Unix socket from another, so the
 * command may only reach the sockets it names where every other socket
 * found at spawn can be masked (tier T1), and abstract sockets are scoped
 * (Landlock ABI 6, or a network namespace of its own).
 */
static int socket_refusal(struct procage_cage *c, const struct cage_path *s, size_t n,
			  struct procage_error *err)
{
	cage_fix_set(c, CAGE_FIX_DROP_RULE, 0, s->path);
	if (c->tier != PROCAGE_TIER_T1)
		return socket_refusal_t2(c, s, n, err);
	if (!cage_accepted(c, APPROX_SPAWN_SNAPSHOT)) {
		cage_fix_set(c, CAGE_FIX_ACCEPT, APPROX_SPAWN_SNAPSHOT, NULL);
		return error_set(err, -EOPNOTSUPP,
				 "connecting to the Unix socket %s masks every other socket bound "
				 "at spawn; accept the approximation spawn-snapshot",
				 s->path);
	}
	if (c->policy->network == PROCAGE_NET_ON && c->landlock.abi < 6)
		return error_set(err, -EOPNOTSUPP,
				 "with the network on, Unix sockets need abstract sockets scoped to "
				 "the run (Landlock ABI 6); this kernel has ABI %d",
				 c->landlock.abi);
	/*
	 * The masks are a snapshot: a socket bound later in a read grant
	 * would be reached. Unless the network is on, the run has a network
	 * namespace of its own, and the broker judges each connect as on
	 * T2, also letting through the sockets the run made there itself
	 * (broker_unix.c), and takes the run's IP calls there too (with
	 * proxy, by the TCP rules Landlock has). With the network on the
	 * masks alone hold: the broker does not take the host's network.
	 */
	c->unix_brokered = host_facts_get()->seccomp_user_notif &&
			   c->policy->network != PROCAGE_NET_ON && n <= BROKER_UNIX_GRANTS_MAX;
	return 0;
}

/*
 * The path of the written rule that an error of the path resolver names
 * (the longest one its message contains), or NULL.
 */
static const char *message_rule_path(const struct procage_policy *p,
				     const struct procage_error *err)
{
	const char *found = NULL;
	for (size_t i = 0; err && i < p->n_paths; i++)
		if (p->paths[i].pos.line && strstr(err->message, p->paths[i].path) &&
		    (!found || strlen(p->paths[i].path) > strlen(found)))
			found = p->paths[i].path;
	return found;
}

/*
 * The broker's directories, pinned like the grants; one the Landlock rules
 * also name must be the same inode as the rule's (nothing swapped it in
 * between), or the broker would make entries in a directory the rules do
 * not describe.
 */
static int cage_zones_open(struct procage_cage *c, struct procage_error *err)
{
	int rc = broker_zones_open(&c->zones, err);
	for (size_t z = 0; rc == 0 && z < c->zones.n; z++) {
		const struct broker_zone *zone = &c->zones.zones[z];
		for (size_t g = 0; g < c->n_grants; g++) {
			struct stat st;
			if (strcmp(c->grants[g].path, zone->path) != 0)
				continue;
			if (fstat(c->grants[g].path_fd, &st) != 0 || st.st_dev != zone->dev ||
			    st.st_ino != zone->ino)
				return error_set(err, -ESTALE,
						 "%s changed while the cage was made; make the "
						 "cage again",
						 zone->path);
		}
	}
	return rc;
}

/*
 * A root caller's T1 cage hides what others may not read in /etc by
 * showing each run an id-mapped copy of it (root_private.h) rather than
 * walking it at every cage: when the host can make one (tried once here)
 * and /etc is no symbolic link. 0 when chosen, else -errno (then walk).
 */
static int root_private_idmap_choose(struct procage_cage *c)
{
	char real[PATH_MAX];
	if (c->tier != PROCAGE_TIER_T1 || geteuid() != 0 ||
	    (c->policy->waived_classes & (1u << CLASS_SECRETS)) ||
	    !realpath(ROOT_PRIVATE_TREE, real) || strcmp(real, ROOT_PRIVATE_TREE) != 0)
		return -ENOTSUP;
	/*
	 * /etc reached through another mount (a bind mount of it, of /, or
	 * of a directory in it) would show its real owners there: the walk
	 * hides each root-only path under every spelling
	 * (mount_aliases_resolve).
	 */
	struct mount_table *mounts = NULL;
	char **aliases = NULL;
	size_t n_aliases = 0;
	int rc = mount_table_read(&mounts);
	if (rc == 0)
		rc = mount_aliases_of(mounts, ROOT_PRIVATE_TREE, &aliases, &n_aliases);
	if (rc == 0 && mount_shows_part_of(mounts, ROOT_PRIVATE_TREE))
		rc = -EXDEV;
	path_strings_free(aliases, n_aliases);
	mount_table_free(mounts);
	if (rc < 0 || n_aliases > 0)
		return rc < 0 ? rc : -EXDEV;
	ahead_join(); /* the namespace made ahead is taken, not made again */
	int ns = root_private_userns_open();
	int tree = ns < 0 ? ns : root_private_tree_open(ns);
	if (tree < 0) {
		if (ns >= 0)
			close(ns);
		return tree;
	}
	close(tree);
	c->root_private_userns_fd = ns;
	return 0;
}

/*
 * A grant below /etc, or a write grant on it or holding it, would be
 * changed by the id-mapped copy (read-only, owned by nobody): such a cage
 * walks, as before. Reading /etc itself, or a tree holding it, is what
 * the copy shows.
 */
static bool grants_reach_root_private(const struct cage_paths *paths)
{
	for (size_t i = 0; i < paths->n_grants; i++) {
		const struct cage_path *g = &paths->grants[i];
		bool below = path_within(g->path, ROOT_PRIVATE_TREE) &&
			     strcmp(g->path, ROOT_PRIVATE_TREE) != 0;
		if (below || (g->access == PROCAGE_WRITE && path_within(ROOT_PRIVATE_TREE, g->path)))
			return true;
	}
	return false;
}

/*
 * The policy's part of the paths (paths_resolve_policy), resolved before
 * the host's facts are in: it needs none of them, and the host's probe
 * runs meanwhile (ahead.h).
 */
struct policy_paths {
	struct cage_paths paths;
	int rc;
	struct procage_error err;
};

/*
 * The host's part of the paths, after the policy's (taken over from
 * early): a root caller's /etc walked unless an id-mapped copy is shown,
 * link targets, other mounts' spellings. On failure, where names the rule.
 */
static int cage_paths_host(struct procage_cage *c, struct policy_paths *early,
			   struct cage_paths *paths, struct policy_position *where,
			   struct procage_error *err)
{
	int rc = early->rc;
	*paths = early->paths;
	memset(&early->paths, 0, sizeof early->paths);
	if (rc < 0)
		*err = early->err;
	else
		rc = paths_resolve_host(c->policy, root_private_idmap_choose(c) < 0, paths, err);
	if (rc == 0 && c->root_private_userns_fd >= 0 && grants_reach_root_private(paths)) {
		close(c->root_private_userns_fd);
		c->root_private_userns_fd = -1;
		cage_paths_free(paths);
		rc = paths_resolve(c->policy, true, paths, err);
	}
	if (rc < 0)
		/* A waiver's message names a path too: it is the "waive" key's. */
		*where = strncmp(err->message, "waiver ", 7) == 0
				 ? policy_key_position(c->policy, "waive")
				 : policy_path_position(c->policy, message_rule_path(c->policy, err));
	return rc;
}

/* Denials or sockets this tier holds only through what the policy does not accept. */
static int cage_paths_refusal(struct procage_cage *c, const struct cage_paths *paths,
			      struct policy_position *where, struct procage_error *err)
{
	enum policy_approximation needed =
		c->tier == PROCAGE_TIER_T1 ? APPROX_SPAWN_SNAPSHOT : APPROX_ENTRY_GRANTS;
	int rc = 0;
	/* A location still missing is held by the broker at its making: no approximation. */
	const struct cage_path *first = NULL;
	for (size_t i = 0; !first && i < paths->n_denials; i++)
		if (!paths->denials[i].absent)
			first = &paths->denials[i];
	if (first && !cage_accepted(c, needed)) {
		rc = denial_refusal(c, first, err);
		*where = policy_path_position(c->policy, first->path);
		if (!where->line)
			*where = policy_key_position(c->policy, "accept");
		return rc;
	}
	if (paths->n_sockets &&
	    (rc = socket_refusal(c, &paths->sockets[0], paths->n_sockets, err)) < 0)
		*where = policy_path_position(c->policy, paths->sockets[0].path);
	return rc;
}

/* Does a location still missing lie inside a write grant? */
static bool missing_denial_any(const struct cage_paths *paths)
{
	for (size_t i = 0; i < paths->n_denials; i++)
		if (paths->denials[i].absent)
			return true;
	return false;
}

/*
 * The grants pinned into the cage: made entry by entry around the denials,
 * with the broker's zones, on T2; on T1 around the missing ones only
 * (what exists is masked) and the denials kept for the masks.
 */
static int cage_grants_take(struct procage_cage *c, struct cage_paths *paths,
			    struct policy_position *where, struct procage_error *err)
{
	struct cage_path *grants = paths->grants;
	size_t n_grants = paths->n_grants;
	bool masks = c->tier == PROCAGE_TIER_T1;
	int rc = 0;
	/*
	 * The broker answers seccomp notifications: without them (a container
	 * refusing them) the zones stay read-only, as entry grants alone leave
	 * them.
	 */
	struct broker_zones *zones = host_facts_get()->seccomp_user_notif ? &c->zones : NULL;
	for (size_t i = 0; rc == 0 && i < n_grants; i++)
		if (grants[i].access == PROCAGE_WRITE &&
		    string_list_append(&c->write_rules, &c->n_write_rules, grants[i].path) < 0)
			rc = error_set(err, -ENOMEM, "out of memory");
	bool expand = rc == 0 && paths->n_denials && (!masks || missing_denial_any(paths));
	if (expand && masks)
		rc = cage_write_roots_keep(c, paths, err);
	if (expand && rc == 0 &&
	    (rc = entry_grants_expand(paths, c->examined, c->n_examined, masks, &grants, &n_grants,
				      zones, err)) < 0) {
		*where = policy_path_position(c->policy, message_rule_path(c->policy, err));
		return rc;
	}
	for (size_t i = 0; rc == 0 && i < n_grants; i++)
		rc = cage_add_grant(c, &grants[i], err);
	if (rc < 0)
		*where = policy_path_position(c->policy, message_rule_path(c->policy, err));
	if (rc == 0)
		rc = cage_proc_system_grants(c, paths, err);
	if (rc == 0)
		rc = cage_pty_grants(c, err);
	/* Listing through the broker only where the policy accepts the names showing. */
	if (!cage_accepted(c, APPROX_LISTING_SHOWS_HIDDEN_NAMES) && c->zones.n_listing) {
		c->n_unlistable = c->zones.n_listing;
		c->unlistable_first = strdup(c->zones.listing[0].path);
		/* A refused listing is then explained after the run. */
		struct denial_rules *r = c->denial_rules;
		for (size_t i = 0; rc == 0 && r && i < c->zones.n_listing; i++)
			if (denial_rules_add_unlistable(r, c->zones.listing[i].path) < 0)
				rc = error_set(err, -ENOMEM, "out of memory");
		broker_zones_drop_listing(&c->zones);
	}
	if (rc == 0 && (c->zones.n || c->zones.n_listing))
		rc = cage_zones_open(c, err);
	if (grants != paths->grants) {
		for (size_t i = 0; i < n_grants; i++)
			free(grants[i].path);
		free(grants);
	}
	path_list_release_denials(paths, masks ? &c->denials : NULL, masks ? &c->n_denials : NULL);
	return rc;
}

/*
 * Paths to Landlock grants, by tier: on T1 the denials become masks at
 * spawn; on T2 the grants are made entry by entry around them. Takes
 * early->paths over.
 */
static int cage_resolve_paths(struct procage_cage *c, struct policy_paths *early,
			      struct policy_position *where, struct procage_error *err)
{
	struct cage_paths paths;
	int rc = cage_paths_host(c, early, &paths, where, err);
	if (rc < 0)
		return rc;
	cage_changes_denials_filter(c->policy, &paths);
	if ((rc = cage_paths_refusal(c, &paths, where, err)) < 0) {
		cage_paths_free(&paths);
		return rc;
	}
	/*
	 * Explaining needs seccomp notifications; without them (a container
	 * refusing them) the run is only not explained: it decides nothing.
	 */
	if (c->policy->explain && host_facts_get()->seccomp_user_notif &&
	    (rc = denial_rules_from_paths(c, &paths, err)) < 0) {
		cage_paths_free(&paths);
		return rc;
	}
	path_list_release_sockets(&paths, &c->sockets, &c->n_sockets);
	c->handoff_snapshot = paths.handoff_snapshot;
	paths.handoff_snapshot = NULL;
	path_list_release_examined(&paths, &c->examined, &c->n_examined);
	rc = cage_grants_take(c, &paths, where, err);
	cage_paths_free(&paths);
	return rc;
}

/*
 * A pseudo-terminal of the run's own is not provided (nor by the
 * reference): the command shares the caller's terminal, outside its
 * session, and cannot push input into it (TIOCSTI and TIOCLINUX are
 * refused by the filter).
 */
static int terminal_refusal(const struct procage_policy *policy, struct procage_error *err)
{
	if (policy->terminal != PROCAGE_TERMINAL_NEW_PTY)
		return 0;
	return error_set(err, -EOPNOTSUPP,
			 "a new pseudo-terminal for the command (terminal \"new-pty\") is not "
			 "supported; the command can share the caller's terminal (terminal "
			 "\"inherit\"), where it cannot push input (TIOCSTI and TIOCLINUX are "
			 "refused)");
}

/* Limits of the whole run need a delegated cgroup v2 subtree with their controller. */
static int cgroup_refusal(const struct procage_policy *policy, const struct procage_host_facts *f,
			  struct procage_error *err)
{
	if (!policy->cgroup_memory && !policy->cgroup_pids)
		return 0;
	f = host_facts_with_cgroup();
	bool memory = policy->cgroup_memory && !f->cgroup_memory;
	bool pids = policy->cgroup_pids && !f->cgroup_pids;
	if (!memory && !pids)
		return 0;
	return error_set(err, -EOPNOTSUPP,
			 "a %s limit of the whole run needs a delegated cgroup v2 subtree with the %s "
			 "controller, and this host has none: %s",
			 memory ? "memory" : "process", memory ? "memory" : "pids",
			 f->cgroup_why[0] ? f->cgroup_why : "no subtree found");
}

bool cage_run_rules_needed(const struct procage_cage *c)
{
	/* Each overlay gets the grant's rights on its own root (spawn). */
	if (c->tmp_base || c->pts_private != CAGE_PTS_HOST ||
	    c->policy->changes == PROCAGE_CHANGES_OVERLAY)
		return true;
	/* Tier T1: the run's view of its cgroup is granted for reading (plan/cgroup_view.c). */
	if (c->tier == PROCAGE_TIER_T1)
		return true;
	/*
	 * A run with a /proc of its own (plan.c) gets a grant on it when the
	 * cage reads it (own_proc) or the policy grants /proc itself.
	 */
	if (!cage_pid_namespace(c))
		return false;
	if (c->own_proc)
		return true;
	for (size_t i = 0; i < c->n_grants; i++)
		if (strcmp(c->grants[i].path, "/proc") == 0)
			return true;
	return false;
}

PROCAGE_API int procage_cage_new(const struct procage_policy *policy, struct procage_cage **out,
				 struct procage_error *err)
{
	return cage_make(policy, out, NULL, err);
}

/* What refuses the policy before any path is looked at: the host, the terminal, limits. */
static int cage_policy_refusal(const struct procage_policy *policy,
			       const struct procage_host_facts *f, struct procage_error *err)
{
	struct policy_position where = { 0, 0 };
	int rc = host_refusal(f, err);
	if (rc == 0 && (rc = terminal_refusal(policy, err)) < 0)
		where = policy_key_position(policy, "terminal");
	if (rc == 0 && (rc = cgroup_refusal(policy, f, err)) < 0)
		where = policy_key_position(policy, "limits");
	if (rc == 0 && (rc = rlimits_refusal(policy, f->tier, err)) < 0)
		where = policy_key_position(policy, "limits");
	if (rc == 0 && (rc = cage_changes_refusal(policy, f->tier, err)) < 0)
		where = policy_key_position(policy, "changes");
	if (rc < 0)
		policy_error_locate(policy, where, err);
	return rc;
}

/* A new cage for policy on this host: its copy of the policy, its tier, its Landlock rights. */
static struct procage_cage *cage_alloc(const struct procage_policy *policy,
				       const struct procage_host_facts *f, struct cage_fix *fix)
{
	struct procage_cage *c = calloc(1, sizeof *c);
	if (!c || !(c->policy = policy_copy(policy))) {
		free(c);
		return NULL;
	}
	c->tier = f->tier;
	c->fix = fix;
	c->landlock_fd = -1;
	c->root_private_userns_fd = -1;
	/*
	 * A root caller's run is uid 0 too, the owner of the /proc files only
	 * root may read: the run's /proc masks them (plan/proc_masks.c,
	 * docs/proc.md) before it is granted.
	 */
	c->own_proc = policy->own_proc && c->tier == PROCAGE_TIER_T1 && f->pidns_private_proc;
	bool loopback = policy->network == PROCAGE_NET_LOOPBACK;
	/*
	 * On T1 the loopback mode's namespace is its bound, and TCP is free
	 * in it; on T2 the broker connects and binds outside the cage, and
	 * Landlock (ABI 4) refuses every TCP connect and bind made in it.
	 */
	landlock_config_init(&c->landlock, f->landlock_abi,
			     policy->network != PROCAGE_NET_ON &&
				 !(loopback && c->tier == PROCAGE_TIER_T1),
			     policy->network == PROCAGE_NET_PROXY && c->tier == PROCAGE_TIER_T1
				     ? POLICY_PROXY_PORT
				     : 0);
	/* Transparent egress: the captured ports lead to procage's listeners only. */
	if (c->landlock.connect_port)
		c->landlock.n_more_ports = capture_ports(
			(const char *const *)policy->allow_hosts, policy->n_allow_hosts,
			POLICY_PROXY_PORT, c->landlock.more_ports, LANDLOCK_MORE_PORTS);
	return c;
}

/* The run's own directories (temporary, shared memory, terminals), chosen once. */
static int cage_choose_run_dirs(struct procage_cage *c, struct policy_position *where,
				struct procage_error *err)
{
	const struct procage_policy *policy = c->policy;
	int rc = 0;
	if (policy->private_tmp && (rc = cage_choose_tmp_base(c, err)) < 0) {
		*where = policy_key_position(policy, policy->tmp_base ? "tmp_base" : "paths");
		return rc;
	}
	if ((rc = cage_choose_shm(c, err)) < 0)
		return rc;
	cage_choose_pts(c);
	if (!c->denial_rules)
		return 0;
	/*
	 * Tier T1: tmp_base and shm_mount are tmpfs mounts of the run's own
	 * (T2: the run's directory in tmp_base, at spawn).
	 */
	if (c->tmp_base && c->tmp_mounted &&
	    (denial_rules_add_grant(c->denial_rules, c->tmp_base, PROCAGE_WRITE) < 0 ||
	     (c->shm_mount &&
	      denial_rules_add_grant(c->denial_rules, c->shm_mount, PROCAGE_WRITE) < 0)))
		return error_set(err, -ENOMEM, "out of memory");
	if (c->pts_private != CAGE_PTS_HOST &&
	    (denial_rules_add_grant(c->denial_rules, CAGE_PTS_DIR, PROCAGE_WRITE) < 0 ||
	     denial_rules_add_grant(c->denial_rules, CAGE_PTMX, PROCAGE_WRITE) < 0))
		return error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/*
 * What every run of the cage shares, made once: the seccomp programs,
 * the Landlock ruleset (when no run adds rules of its own), tier T1's
 * masks and writable trees, and whether runs are supervised.
 */
static int cage_shared_make(struct procage_cage *c, struct procage_error *err)
{
	int rc = cage_filters_build(c, err);
	if (rc == 0 && !cage_run_rules_needed(c)) {
		c->landlock_fd = landlock_ruleset_create(&c->landlock, c->grants, c->n_grants, err);
		rc = c->landlock_fd < 0 ? c->landlock_fd : 0;
	}
	if (rc == 0 && c->tier == PROCAGE_TIER_T1)
		rc = cage_masks_build(c, err);
	cage_supervision_decide(c);
	return rc;
}

int cage_make(const struct procage_policy *policy, struct procage_cage **out,
	      struct cage_fix *fix, struct procage_error *err)
{
	error_clear(err);
	if (fix)
		fix->kind = CAGE_FIX_NONE;
	if (!policy || !out)
		return error_set(err, -EINVAL, "no policy or no place for the cage given");
	*out = NULL;
	/* --allow-ssh: the cage's policy is a copy carrying the ssh directory. */
	struct procage_policy *extended;
	struct ssh_setup *ssh;
	int rc = cage_ssh_prepare(policy, &extended, &ssh, err);
	if (rc < 0) {
		policy_error_locate(policy, policy_key_position(policy, "allow_ssh"), err);
		return rc;
	}
	if (extended)
		policy = extended;
	struct policy_paths early = { .rc = 0 };
	early.rc = paths_resolve_policy(policy, &early.paths, &early.err);
	const struct procage_host_facts *f = host_facts_get();
	struct policy_position where = { 0, 0 };
	rc = cage_policy_refusal(policy, f, err);
	struct procage_cage *c = rc < 0 ? NULL : cage_alloc(policy, f, fix);
	if (!c) {
		cage_paths_free(&early.paths);
		procage_policy_free(extended);
		ssh_setup_unref(ssh);
		return rc < 0 ? rc : error_set(err, -ENOMEM, "out of memory");
	}
	c->ssh = ssh;
	if (rc == 0)
		rc = cage_network_prepare(c, &where, err);
	if (rc == 0)
		rc = cage_resolve_paths(c, &early, &where, err);
	cage_paths_free(&early.paths); /* left when the network's part failed */
	if (rc == 0)
		rc = cage_choose_run_dirs(c, &where, err);
	if (rc == 0)
		rc = cage_shared_make(c, err);
	c->fix = NULL;
	/* A change fitting makes states what it is, not where: only a refusal is located. */
	if (rc < 0) {
		if (!fix || fix->kind == CAGE_FIX_NONE)
			policy_error_locate(policy, where, err);
		procage_cage_free(c);
		procage_policy_free(extended);
		return rc;
	}
	procage_policy_free(extended);
	*out = c;
	return 0;
}

PROCAGE_API void procage_cage_free(struct procage_cage *c)
{
	if (!c)
		return;
	cage_grants_free(c->grants, c->n_grants);
	if (c->landlock_fd >= 0)
		close(c->landlock_fd);
	if (c->root_private_userns_fd >= 0)
		close(c->root_private_userns_fd);
	cage_masks_free(&c->masks);
	cage_grants_free(c->write_roots, c->n_write_roots);
	procage_strings_free(c->write_rules);
	for (size_t i = 0; i < c->n_denials; i++)
		free(c->denials[i].path);
	free(c->denials);
	for (size_t i = 0; i < c->n_sockets; i++)
		free(c->sockets[i].path);
	free(c->sockets);
	for (size_t i = 0; i < c->n_examined; i++)
		free(c->examined[i].path);
	free(c->examined);
	seccomp_program_free(&c->seccomp);
	seccomp_program_free(&c->seccomp_unbrokered);
	denial_rules_free(c->denial_rules);
	broker_zones_free(&c->zones);
	free(c->unlistable_first);
	free(c->tmp_base);
	free(c->shm_mount);
	allowlist_free(c->allowlist);
	ssh_setup_unref(c->ssh);
	handoff_snapshot_free(c->handoff_snapshot);
	procage_policy_free(c->policy);
	host_probe_reap(); /* by now the host probe's namespaces are long gone */
	free(c);
}

PROCAGE_API int procage_cage_tier(const struct procage_cage *c)
{
	return c ? c->tier : PROCAGE_TIER_UNSUPPORTED;
}
