/*
 * Judging an access against the rules a cage was made from: the first
 * question is a class location (hidden, or read-only for what writes),
 * then the grants. The answer names the rule and the narrowest flag that
 * would allow the access (a per-location waiver, not the whole class).
 */
#include "denials.h"

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cage.h"
#include "policy/classes.h"
#include "base/error.h"
#include "paths.h"
#include "discover/root_private.h"
#include "common/text_escape.h"

int denial_rules_add_grant(struct denial_rules *r, const char *path, enum procage_access access)
{
	char *copy = strdup(path);
	struct denial_grant *grown =
	    copy ? realloc(r->grants, (r->n_grants + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	r->grants = grown;
	r->grants[r->n_grants++] = (struct denial_grant){copy, access};
	return 0;
}

int denial_rules_add_location(struct denial_rules *r, const char *path, enum procage_access deny,
			      int cls)
{
	char *copy = strdup(path);
	struct denial_location *grown =
	    copy ? realloc(r->locations, (r->n_locations + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	r->locations = grown;
	r->locations[r->n_locations++] = (struct denial_location){copy, deny, cls};
	return 0;
}

int denial_rules_add_unlistable(struct denial_rules *r, const char *path)
{
	char *copy = strdup(path);
	char **grown = copy ? realloc(r->unlistable, (r->n_unlistable + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	r->unlistable = grown;
	r->unlistable[r->n_unlistable++] = copy;
	return 0;
}

struct denial_rules *denial_rules_copy(const struct denial_rules *src)
{
	struct denial_rules *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->network = src->network;
	r->root_private_idmapped = src->root_private_idmapped;
	r->trust_handoff = src->trust_handoff;
	r->cgroup_view = src->cgroup_view;
	r->proc_own_only = src->proc_own_only;
	bool ok = !src->home || (r->home = strdup(src->home));
	for (size_t i = 0; ok && i < src->n_grants; i++)
		ok = denial_rules_add_grant(r, src->grants[i].path, src->grants[i].access) == 0;
	for (size_t i = 0; ok && i < src->n_locations; i++)
		ok = denial_rules_add_location(r, src->locations[i].path, src->locations[i].deny,
					       src->locations[i].cls) == 0;
	for (size_t i = 0; ok && i < src->n_unlistable; i++)
		ok = denial_rules_add_unlistable(r, src->unlistable[i]) == 0;
	if (!ok) {
		denial_rules_free(r);
		return NULL;
	}
	return r;
}

void denial_rules_free(struct denial_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_grants; i++)
		free(r->grants[i].path);
	for (size_t i = 0; i < r->n_locations; i++)
		free(r->locations[i].path);
	for (size_t i = 0; i < r->n_unlistable; i++)
		free(r->unlistable[i]);
	free(r->unlistable);
	free(r->grants);
	free(r->locations);
	free(r->home);
	free(r);
}

const char *denial_op_name(enum denial_op op)
{
	switch (op) {
	case DENIAL_READ:
		return "read";
	case DENIAL_WRITE:
		return "write";
	case DENIAL_CREATE:
		return "create";
	case DENIAL_REMOVE:
		return "remove";
	case DENIAL_EXEC:
		return "execute";
	}
	return "access";
}

/*
 * path as the user would type it into a shell: ~/rest under the home, and
 * quoted where a shell would read more than the name (escape_shell_word).
 */
static void user_path(const struct denial_rules *r, const char *path, char *out, size_t size)
{
	size_t h = r->home ? strlen(r->home) : 0;
	if (h > 1 && strncmp(path, r->home, h) == 0 && (path[h] == '/' || !path[h])) {
		/* ~ and its slash bare, for the shell to expand; the rest quoted. */
		if (!path[h] || !path[h + 1]) {
			snprintf(out, size, "~%s", path + h);
			return;
		}
		if (size > 2) {
			memcpy(out, "~/", 2);
			escape_shell_word(out + 2, size - 2, path + h + 1);
		}
		return;
	}
	escape_shell_word(out, size, path);
}

/*
 * The directory a grant should name for path: under the home, a dot
 * directory whole (~/.npm for ~/.npm/_cacache/x: a tool's cache or state);
 * otherwise the directory holding path (for an entry made or removed, the
 * one it is made in).
 */
static void suggested_directory(const struct denial_rules *r, const char *path, char *dir,
				size_t size)
{
	size_t h = r->home ? strlen(r->home) : 0;
	snprintf(dir, size, "%s", path);
	if (h > 1 && strncmp(path, r->home, h) == 0 && path[h] == '/' && path[h + 1] == '.') {
		char *end = strchr(dir + h + 1, '/');
		if (end)
			*end = '\0';
	} else {
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		else if (slash)
			slash[1] = '\0';
	}
}

/*
 * The system's trees, the home and what holds it: a grant of one whole
 * hands the command far more than the refused file (other programs'
 * files, every user's temporary files, the startup files the home does
 * not have yet), so none is ever offered for them.
 */
static bool whole_tree(const struct denial_rules *r, const char *dir)
{
	static const char *const trees[] = {
		"/",	     "/usr",	"/etc",	    "/dev",  "/proc", "/sys",  "/tmp",
		"/var",	     "/var/tmp", "/var/lib", "/run",  "/home", "/root", "/boot",
		"/bin",	     "/sbin",	"/lib",	    "/lib32", "/lib64", "/opt", "/srv",
		"/mnt",	     "/media",	"/usr/lib", "/usr/bin", "/usr/local", "/usr/share",
	};
	for (size_t i = 0; i < sizeof trees / sizeof *trees; i++)
		if (strcmp(dir, trees[i]) == 0)
			return true;
	return r->home && path_within(r->home, dir);
}

/*
 * Is dir granted for reading, by a rule on dir itself? A --write of it
 * would then conflict with that rule (a path has one), and it names
 * system directories and the home, which no command should be offered to
 * write whole.
 */
static bool read_granted_itself(const struct denial_rules *r, const char *dir)
{
	for (size_t i = 0; i < r->n_grants; i++)
		if (r->grants[i].access == PROCAGE_READ && strcmp(r->grants[i].path, dir) == 0)
			return true;
	return false;
}

/*
 * The home's class locations a write grant of dir (as the user writes it,
 * "~/.config") would hold all the same, whether they exist or not: a
 * suggested grant says what stays out of it. "" when none.
 */
static void held_below(const char *dir, char *out, size_t size)
{
	char row[256], first[2][80]; /* the rows are short names below the home */
	size_t n = 0;
	out[0] = '\0';
	if (strncmp(dir, "~/", 2) != 0)
		return;
	for (size_t i = 0; i < classes_row_count(); i++) {
		enum class_id cls;
		enum procage_access deny;
		classes_row_describe(i, row, sizeof row, &cls, &deny);
		if (strncmp(row, "~/", 2) != 0 || strcmp(row, dir) == 0 || !path_within(row, dir))
			continue;
		if (n < 2)
			snprintf(first[n], sizeof first[n], "%.79s", row);
		n++;
	}
	if (n == 1)
		snprintf(out, size, "%s stays held", first[0]);
	else if (n == 2)
		snprintf(out, size, "%s and %s stay held", first[0], first[1]);
	else if (n > 2)
		snprintf(out, size, "%s, %s and %zu more locations of the classes stay held", first[0],
			 first[1], n - 2);
}

/* Does op need more than a read grant gives? */
static bool op_writes(enum denial_op op)
{
	return op == DENIAL_WRITE || op == DENIAL_CREATE || op == DENIAL_REMOVE;
}

/* The deepest class or policy location holding path, or NULL. */
static const struct denial_location *location_of(const struct denial_rules *r, const char *path)
{
	const struct denial_location *best = NULL;
	for (size_t i = 0; i < r->n_locations; i++) {
		const struct denial_location *l = &r->locations[i];
		if (path_within(path, l->path) && (!best || strlen(l->path) > strlen(best->path)))
			best = l;
	}
	return best;
}

/*
 * Is op on path granted? An entry made or removed needs the right on the
 * directory it is in: a grant of the entry itself does not give it.
 */
static bool granted(const struct denial_rules *r, enum denial_op op, const char *path)
{
	bool entry = op == DENIAL_CREATE || op == DENIAL_REMOVE;
	for (size_t i = 0; i < r->n_grants; i++) {
		const struct denial_grant *g = &r->grants[i];
		if (!path_within(path, g->path) || (entry && strcmp(path, g->path) == 0))
			continue;
		if (!op_writes(op) || g->access == PROCAGE_WRITE)
			return true;
	}
	return false;
}

/* A grant inside the hidden location itself (tier T2's system files of /proc) reaches past it. */
static bool granted_inside(const struct denial_rules *r, enum denial_op op, const char *path,
			   const struct denial_location *l)
{
	for (size_t i = 0; i < r->n_grants; i++) {
		const struct denial_grant *g = &r->grants[i];
		if (strcmp(g->path, l->path) != 0 && path_within(g->path, l->path) &&
		    path_within(path, g->path) && (!op_writes(op) || g->access == PROCAGE_WRITE))
			return true;
	}
	return false;
}

static void set(struct denial *out, enum denial_op op, const char *subject, const char *reason)
{
	memset(out, 0, sizeof *out);
	snprintf(out->op, sizeof out->op, "%s", denial_op_name(op));
	snprintf(out->subject, sizeof out->subject, "%s", subject);
	snprintf(out->reason, sizeof out->reason, "%s", reason);
}

/*
 * Tier T2: the host's /proc, of which the supervisor shows a run only its
 * own processes (watch/broker_proc_run.c). No flag is offered: the waiver
 * would show it every process of the host.
 */
static bool judge_proc_others(enum denial_op op, const char *path, struct denial *out)
{
	if (strcmp(path, "/proc") == 0 && op == DENIAL_READ) {
		set(out, op, path,
		    "the host's list of processes (on tier T2 the supervisor shows a run only "
		    "its own processes, and could not make that list here: docs/proc.md)");
	} else {
		size_t digits = strspn(path + 6, "0123456789");
		bool own = path_within(path, "/proc/self") || path_within(path, "/proc/thread-self");
		if (!own && (!path_within(path, "/proc") || strlen(path) < 7 || digits == 0 ||
			     (path[6 + digits] != '/' && path[6 + digits] != '\0')))
			return false;
		set(out, op, path,
		    "tier T2 opens for a process its own /proc/self files and, of the run's "
		    "other processes, only stat, status, statm and cmdline (docs/proc.md); "
		    "nothing of a process outside the run");
	}
	snprintf(out->rule, sizeof out->rule, "%s", class_name(CLASS_PROCESS_ACCESS));
	snprintf(out->group, sizeof out->group, "/proc");
	return true;
}

static bool judge_location(const struct denial_rules *r, enum denial_op op, const char *path,
			   const struct denial_location *l, struct denial *out)
{
	char where[4096];
	if (l->deny == PROCAGE_PROTECT && !op_writes(op))
		return false;
	if (r->proc_own_only && l->cls == CLASS_PROCESS_ACCESS && judge_proc_others(op, path, out))
		return true;
	set(out, op, path, l->deny == PROCAGE_HIDE ? "hidden" : "read-only");
	snprintf(out->group, sizeof out->group, "%s", l->path);
	if (l->cls == CAGE_PATH_ALIAS) {
		/* A mount's other name: granting that name is the remedy. */
		snprintf(out->rule, sizeof out->rule, "mount-alias");
		return true;
	}
	if (l->cls < 0) {
		/* The caller's own --hide or --protect: the remedy is to drop it. */
		snprintf(out->rule, sizeof out->rule, "policy");
		return true;
	}
	snprintf(out->rule, sizeof out->rule, "%s", class_name(l->cls));
	/*
	 * A waiver lifts one location the class lists, named as listed
	 * (docs/classes.md); a repository's hooks and config only go with the
	 * whole trust-handoff class.
	 */
	if (l->cls == CLASS_TRUST_HANDOFF) {
		snprintf(out->flag, sizeof out->flag, "--waive %s", class_name(l->cls));
		return true;
	}
	user_path(r, l->path, where, sizeof where);
	snprintf(out->flag, sizeof out->flag, "--waive %s:%s", class_name(l->cls), where);
	return true;
}

/*
 * The broker refuses to make "NAME.lock" beside a protected NAME (git's
 * lock files: hooks.lock would be renamed over hooks), so such a lock
 * file is judged as NAME's location. A repository's config.lock and
 * config.worktree.lock are made: the broker judges their rename onto the
 * config by content (watch/broker_git_config.h), and explains a refusal.
 */
static bool git_config_location(const struct denial_location *l)
{
	const char *base = strrchr(l->path, '/');
	return l->cls == CLASS_TRUST_HANDOFF && base &&
	       (strcmp(base, "/config") == 0 || strcmp(base, "/config.worktree") == 0);
}

static const struct denial_location *lock_file_location(const struct denial_rules *r,
							enum denial_op op, const char *path)
{
	static const char lock[] = ".lock";
	size_t len = strlen(path);
	if (op != DENIAL_CREATE || len <= sizeof lock ||
	    strcmp(path + len - (sizeof lock - 1), lock) != 0)
		return NULL;
	for (size_t i = 0; i < r->n_locations; i++) {
		const struct denial_location *l = &r->locations[i];
		if (strlen(l->path) == len - (sizeof lock - 1) &&
		    strncmp(l->path, path, len - (sizeof lock - 1)) == 0)
			return git_config_location(l) ? NULL : l;
	}
	return NULL;
}

/*
 * Would the id-mapped /etc keep a read of path out? Only what others may
 * read is readable there: every directory on the way must let others
 * search it, and the last entry must let them read it.
 */
static bool root_private_refuses(const char *path)
{
	char prefix[4096];
	struct stat st;
	size_t tree_len = strlen(ROOT_PRIVATE_TREE);
	if (!path_within(path, ROOT_PRIVATE_TREE) || strlen(path) >= sizeof prefix)
		return false;
	for (const char *slash = path + tree_len; slash; slash = strchr(slash + 1, '/')) {
		memcpy(prefix, path, (size_t)(slash - path));
		prefix[slash - path] = '\0';
		if (stat(prefix, &st) != 0)
			return false;
		if (!(st.st_mode & S_IXOTH))
			return true;
	}
	return stat(path, &st) == 0 && !(st.st_mode & S_IROTH);
}

/*
 * A terminal or console: /dev/pts and /dev/ptmx, /dev/console, /dev/tty*
 * and the virtual consoles' memory (/dev/vcs*), by name or by the major
 * numbers of terminals (4, 5, 7, 136-143: a link may name one otherwise).
 * Writing one writes to a screen the user reads as the host's; reading
 * one reads what the user types.
 */
static bool terminal_device(const char *path)
{
	struct stat st;
	if (path_within(path, "/dev/pts") || strcmp(path, "/dev/ptmx") == 0 ||
	    strcmp(path, "/dev/console") == 0 || strncmp(path, "/dev/tty", 8) == 0 ||
	    strncmp(path, "/dev/vcs", 8) == 0)
		return true;
	if (stat(path, &st) != 0 || !S_ISCHR(st.st_mode))
		return false;
	unsigned int major = major(st.st_rdev);
	return major == 4 || major == 5 || major == 7 || (major >= 136 && major <= 143);
}

/*
 * A refusal below /dev (out already says "not granted"). Devices are
 * granted one by one: a grant of /dev or of a directory in it would hand
 * the run the host's disks (a root caller owns them), cameras and sound,
 * and /dev/pts holds the user's terminals, whose input a run could read
 * (a terminal /dev/ptmx makes lies there too: no grant of /dev/ptmx alone
 * makes one usable).
 * A disk's block device holds every file of its file systems, hidden ones
 * too, and /dev/shm every program's shared memory. So the flag offered
 * names the device itself, and none is offered for /dev whole, for the
 * terminals, for a disk, for /dev/shm, or for making or removing an entry.
 */
static bool judge_device(const struct denial_rules *r, enum denial_op op, const char *path,
			 struct denial *out)
{
	char device[4096];
	struct stat st;
	/*
	 * Granting the host's shared memory would hand the run every other
	 * program's segments: no flag is offered for it (cage_choose_shm).
	 */
	if (path_within(path, CAGE_SHM_DIR)) {
		snprintf(out->rule, sizeof out->rule, "shared-memory");
		snprintf(out->group, sizeof out->group, "%s", CAGE_SHM_DIR);
		return true;
	}
	/* A terminal made by /dev/ptmx is reached by its name in /dev/pts. */
	bool terminals = terminal_device(path);
	bool disk = stat(path, &st) == 0 && S_ISBLK(st.st_mode);
	if (terminals || disk || strcmp(path, "/dev") == 0 || op == DENIAL_CREATE ||
	    op == DENIAL_REMOVE) {
		snprintf(out->rule, sizeof out->rule, "%s",
			 terminals ? "terminals" : disk ? "disks" : "devices");
		snprintf(out->group, sizeof out->group, "%s",
			 terminals ? "/dev/pts" : disk ? path : "/dev");
		return true;
	}
	snprintf(out->rule, sizeof out->rule, "grants");
	user_path(r, path, device, sizeof device);
	snprintf(out->flag, sizeof out->flag, "%s %s", op_writes(op) ? "--write" : "--read",
		 device);
	snprintf(out->group, sizeof out->group, "%s", out->flag);
	return true;
}

/*
 * A refusal where no grant reaches: the narrowest grant that would make
 * it go away, or why procage offers none (the home, a whole system tree,
 * a class's location).
 */
static bool judge_not_granted(const struct denial_rules *r, enum denial_op op, const char *path,
			      struct denial *out)
{
	char dir[4096], written[4096];
	set(out, op, path, "not granted");
	if (path_within(path, "/dev"))
		return judge_device(r, op, path, out);
	/*
	 * A read names the file itself, or the directory itself for a
	 * listing: the narrowest grant that makes this refusal go away.
	 */
	struct stat st;
	if (op_writes(op))
		suggested_directory(r, path, dir, sizeof dir);
	else
		snprintf(dir, sizeof dir, "%s", path);
	/*
	 * A write grant holding the home would let the command make the
	 * startup files and configuration that do not exist yet (the
	 * default policy refuses such a working directory for that reason).
	 */
	bool home = r->home && path_within(r->home, dir);
	if (home || whole_tree(r, dir) || (op_writes(op) && read_granted_itself(r, dir))) {
		snprintf(out->rule, sizeof out->rule, "%s",
			 home ? (op_writes(op) ? "home" : "holds-home")
			 : whole_tree(r, dir) ? "system-tree"
					      : "read-grant");
		snprintf(out->group, sizeof out->group, "%s", dir);
		return true;
	}
	/* A grant procage would refuse: one lying in a location of a class. */
	if (location_of(r, dir)) {
		snprintf(out->rule, sizeof out->rule, "class-inside");
		snprintf(out->group, sizeof out->group, "%s", dir);
		return true;
	}
	snprintf(out->rule, sizeof out->rule, "grants");
	user_path(r, dir, written, sizeof written);
	/* A rule takes an existing path; --write-new makes the directory first. */
	bool missing = op_writes(op) && lstat(dir, &st) != 0 && errno == ENOENT;
	snprintf(out->flag, sizeof out->flag, "%s %s",
		 !op_writes(op) ? "--read" : missing ? "--write-new" : "--write", written);
	if (op_writes(op))
		held_below(written, out->held, sizeof out->held);
	snprintf(out->group, sizeof out->group, "%s", out->flag);
	return true;
}

/* Where the run's view of its cgroup lies (plan/cgroup_view.c). */
#define CGROUP_VIEW_PATH "/sys/fs/cgroup"

bool denial_judge_path(const struct denial_rules *r, enum denial_op op, const char *path,
		       struct denial *out)
{
	if (path[0] != '/')
		return false;
	const struct denial_location *l = location_of(r, path);
	if (!l)
		l = lock_file_location(r, op, path);
	if (l && l->cls == CLASS_PROCESS_ACCESS && granted_inside(r, op, path, l))
		return false;
	if (r->cgroup_view && op_writes(op) && path_within(path, CGROUP_VIEW_PATH)) {
		set(out, op, path, "the run's view of its cgroup is read-only");
		snprintf(out->rule, sizeof out->rule, "cgroup-view");
		snprintf(out->group, sizeof out->group, "%s", CGROUP_VIEW_PATH);
		return true;
	}
	/*
	 * A write below /proc or /sys changes a setting of the kernel or of a
	 * process: no grant makes it work for a run (its namespaces own none
	 * of them) and none should, so no flag is offered.
	 */
	if (op_writes(op) && (path_within(path, "/proc") || path_within(path, "/sys"))) {
		set(out, op, path, "not granted");
		snprintf(out->rule, sizeof out->rule, "kernel-settings");
		snprintf(out->group, sizeof out->group, "%s",
			 path_within(path, "/proc") ? "/proc" : "/sys");
		return true;
	}
	if (l)
		return judge_location(r, op, path, l, out);
	if (r->root_private_idmapped && op == DENIAL_READ && root_private_refuses(path)) {
		set(out, op, path, "hidden");
		snprintf(out->group, sizeof out->group, "%s", path);
		snprintf(out->rule, sizeof out->rule, "%s", class_name(CLASS_SECRETS));
		/* Root-only system files go only with the whole class. */
		snprintf(out->flag, sizeof out->flag, "--waive %s", class_name(CLASS_SECRETS));
		return true;
	}
	/*
	 * Opening it at all needs the right to list it, which Landlock
	 * could not give without the hidden entries below.
	 */
	for (size_t i = 0; op == DENIAL_READ && i < r->n_unlistable; i++)
		if (strcmp(path, r->unlistable[i]) == 0) {
			set(out, op, path, "cannot be listed without the hidden entries below it");
			snprintf(out->rule, sizeof out->rule, "listing");
			snprintf(out->group, sizeof out->group, "%s", path);
			snprintf(out->flag, sizeof out->flag,
				 "--accept listing-shows-hidden-names");
			return true;
		}
	if (granted(r, op, path))
		return false;
	return judge_not_granted(r, op, path, out);
}

void denial_judge_socket(const struct denial_rules *r, bool udp, struct denial *out)
{
	(void)r;
	memset(out, 0, sizeof *out);
	snprintf(out->op, sizeof out->op, "socket");
	snprintf(out->subject, sizeof out->subject, "%s", udp ? "udp" : "ip");
	/* A resolver's first step: the datagram socket to its name server. */
	snprintf(out->reason, sizeof out->reason, "%s",
		 udp ? "network is off, DNS lookups too" : "network is off");
	snprintf(out->rule, sizeof out->rule, "network");
	snprintf(out->flag, sizeof out->flag, "--net on, or --net proxy --allow-host HOST");
}

/*
 * Without a PID namespace (tier T2) the session lifetime finds the run's
 * processes by their session, so no process of the run may leave it (a
 * run with one allows setsid: its reaper's exit ends it all); programs that give a terminal to a
 * child of theirs (pty.spawn, script, expect) make it a session leader
 * first. The tree lifetime allows it, and its descendants die with the
 * run all the same (docs/lifetime.md).
 */
void denial_judge_session(struct denial *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->op, sizeof out->op, "call");
	snprintf(out->subject, sizeof out->subject, "setsid");
	snprintf(out->reason, sizeof out->reason, "%s",
		 "a session of its own is refused in the session lifetime");
	snprintf(out->rule, sizeof out->rule, "lifetime");
	snprintf(out->flag, sizeof out->flag, "--lifetime tree");
}

int denial_rules_from_paths(struct procage_cage *c, const struct cage_paths *paths,
			    struct procage_error *err)
{
	struct denial_rules *r = calloc(1, sizeof *r);
	const char *home = policy_home(c->policy);
	bool ok = r && (!home || (r->home = strdup(home)));
	for (size_t i = 0; ok && i < paths->n_grants; i++)
		ok = denial_rules_add_grant(r, paths->grants[i].path, paths->grants[i].access) == 0;
	/*
	 * A run with a /proc of its own reads it (plan.c): the class that
	 * hides the caller's /proc says nothing about the run's.
	 */
	if (ok && c->own_proc)
		ok = denial_rules_add_grant(r, "/proc", PROCAGE_READ) == 0;
	/*
	 * A run on tier T1 reads its own cgroup there, read-only, whatever
	 * the policy grants (plan/cgroup_view.c): no read of it is refused,
	 * and a write is refused for every run alike, with no flag to offer.
	 */
	r->cgroup_view = c->tier == PROCAGE_TIER_T1;
	if (ok && r->cgroup_view)
		ok = denial_rules_add_grant(r, CGROUP_VIEW_PATH, PROCAGE_READ) == 0;
	for (size_t i = 0; ok && i < paths->n_examined; i++) {
		const char *where = paths->examined[i].path;
		if (c->own_proc && path_within(where, "/proc"))
			continue;
		ok = denial_rules_add_location(r, where, paths->examined[i].access,
					       paths->examined[i].cls) == 0;
	}
	if (!ok) {
		denial_rules_free(r);
		return error_set(err, -ENOMEM, "out of memory");
	}
	r->network = c->policy->network;
	r->root_private_idmapped = c->root_private_userns_fd >= 0;
	r->trust_handoff = !(c->policy->waived_classes & (1u << CLASS_TRUST_HANDOFF));
	r->proc_own_only = c->tier == PROCAGE_TIER_T2 && c->policy->own_proc;
	c->denial_rules = r;
	return 0;
}
