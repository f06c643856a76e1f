/*
 * Making a cage: every path resolved to its canonical target and
 * pinned by an O_PATH descriptor, every construct mapped to the mechanism
 * that enforces it on this host, and whatever cannot be enforced refused
 * with the capability it lacks named.
 */
#include "cage.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "host.h"
#include "seccomp.h"

/* Is path equal to or below tree? Both canonical. */
static bool path_within(const char *path, const char *tree)
{
	size_t n = strlen(tree);
	if (strcmp(tree, "/") == 0)
		return true;
	return strncmp(path, tree, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

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

static uint64_t grant_rights(const struct landlock_config *c, enum procage_access access,
			     bool is_dir)
{
	uint64_t rights = access == PROCAGE_WRITE ? c->handled_fs : landlock_fs_rights_read();
	return is_dir ? rights : landlock_fs_rights_for_file(rights);
}

/* Resolve rule i and append it to the grants, or explain why not. */
static int cage_add_grant(struct procage_cage *c, const struct policy_path_rule *rule,
			  const char *canonical, struct procage_error *err)
{
	struct stat st;
	int fd = open(canonical, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "%s rule for %s",
				     policy_access_name(rule->access), rule->path);
	}
	struct landlock_grant *g = &c->grants[c->n_grants];
	g->path = strdup(canonical);
	if (!g->path) {
		close(fd);
		return error_set(err, -ENOMEM, "out of memory");
	}
	g->path_fd = fd;
	g->access = grant_rights(&c->landlock, rule->access, S_ISDIR(st.st_mode));
	c->n_grants++;
	return 0;
}

/*
 * protect and hide inside a granted tree need a mechanism Landlock does not
 * have (it only adds rights, never removes them below a grant).
 */
static int deny_inside_grant_refusal(const struct procage_policy *p, const char *const *canon,
				     size_t i, struct procage_error *err)
{
	enum procage_access a = p->paths[i].access;
	for (size_t j = 0; j < p->n_paths; j++) {
		enum procage_access b = p->paths[j].access;
		bool reaches = b == PROCAGE_WRITE || (a == PROCAGE_HIDE && b == PROCAGE_READ);
		if (!reaches || !path_within(canon[i], canon[j]))
			continue;
		return error_set(err, -EOPNOTSUPP,
				 "cannot %s %s: it lies inside the %s tree %s, and Landlock "
				 "cannot take rights away below a grant; this needs mount masks "
				 "(tier T1), which this cage does not apply",
				 policy_access_name(a), canon[i], policy_access_name(b), canon[j]);
	}
	return 0;
}

static int cage_resolve_paths(struct procage_cage *c, struct procage_error *err)
{
	const struct procage_policy *p = c->policy;
	char **canon = calloc(p->n_paths + 1, sizeof *canon);
	int rc = 0;

	c->grants = calloc(p->n_paths + 1, sizeof *c->grants);
	if (!canon || !c->grants) {
		free(canon);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->n_paths && rc == 0; i++)
		if (!(canon[i] = realpath(p->paths[i].path, NULL)))
			rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "%s rule for %s",
					   policy_access_name(p->paths[i].access),
					   p->paths[i].path);
	for (size_t i = 0; i < p->n_paths && rc == 0; i++) {
		enum procage_access a = p->paths[i].access;
		if (a == PROCAGE_PROTECT || a == PROCAGE_HIDE)
			rc = deny_inside_grant_refusal(p, (const char *const *)canon, i, err);
		/* hide outside every grant holds by itself: nothing grants it. */
		if (rc == 0 && a != PROCAGE_HIDE)
			rc = cage_add_grant(c, &p->paths[i], canon[i], err);
	}
	for (size_t i = 0; i < p->n_paths; i++)
		free(canon[i]);
	free(canon);
	return rc;
}

/* The granted path that contains path, or NULL. */
static const char *grant_containing(const struct procage_cage *c, const char *path)
{
	for (size_t i = 0; i < c->n_grants; i++)
		if (path_within(path, c->grants[i].path))
			return c->grants[i].path;
	return NULL;
}

/*
 * Private temporary directories are only private if no grant reaches the
 * directory they are made in: another run of the same policy would reach
 * them through it. The caller's TMPDIR is used when no grant
 * reaches it, else /tmp; when both are granted the cage is refused.
 */
static int cage_choose_tmp_base(struct procage_cage *c, struct procage_error *err)
{
	const char *candidates[] = { getenv("TMPDIR"), "/tmp" };
	const char *granted_by[] = { "nothing usable", "nothing usable" };
	for (size_t i = 0; i < 2; i++) {
		struct stat st;
		char *base;
		if (!candidates[i] || candidates[i][0] != '/' || !(base = realpath(candidates[i], NULL)))
			continue;
		const char *grant = grant_containing(c, base);
		if (!grant && stat(base, &st) == 0 && S_ISDIR(st.st_mode)) {
			c->tmp_base = base;
			return 0;
		}
		if (grant)
			granted_by[i] = grant;
		free(base);
	}
	return error_set(err, -EINVAL,
			 "cannot make private temporary directories: $TMPDIR lies in the granted %s and "
			 "/tmp in the granted %s, so other runs could reach them; set TMPDIR to a "
			 "directory outside the granted paths or turn private tmp off",
			 granted_by[0], granted_by[1]);
}

PROCAGE_API int procage_cage_new(const struct procage_policy *policy, struct procage_cage **out,
				 struct procage_error *err)
{
	error_clear(err);
	if (!policy || !out)
		return error_set(err, -EINVAL, "no policy or no place for the cage given");
	*out = NULL;
	const struct procage_host_facts *f = host_facts_get();
	int rc = host_refusal(f, err);
	if (rc < 0)
		return rc;

	struct procage_cage *c = calloc(1, sizeof *c);
	if (!c || !(c->policy = policy_copy(policy))) {
		free(c);
		return error_set(err, -ENOMEM, "out of memory");
	}
	c->tier = f->tier;
	landlock_config_init(&c->landlock, f->landlock_abi, policy->network == PROCAGE_NET_OFF);
	rc = cage_resolve_paths(c, err);
	if (rc == 0 && policy->private_tmp)
		rc = cage_choose_tmp_base(c, err);
	if (rc == 0) {
		struct seccomp_options so = { .network_on = policy->network == PROCAGE_NET_ON };
		rc = seccomp_program_build(&so, &c->seccomp, err);
	}
	if (rc < 0) {
		procage_cage_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

PROCAGE_API void procage_cage_free(struct procage_cage *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_grants; i++) {
		free((char *)c->grants[i].path);
		close(c->grants[i].path_fd);
	}
	free(c->grants);
	seccomp_program_free(&c->seccomp);
	free(c->tmp_base);
	procage_policy_free(c->policy);
	free(c);
}

PROCAGE_API int procage_cage_tier(const struct procage_cage *c)
{
	return c ? c->tier : PROCAGE_TIER_UNSUPPORTED;
}
