/*
 * The policy model and its setters. Setters check their argument at once so
 * a mistake is reported where it is made; nothing here touches the kernel
 * beyond the existence check of a path (resolution waits for the cage).
 */
#include "policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classes.h"
#include "proxy/allowlist.h"
#include "proxy/dest.h"
#include "base/error.h"
#include "base/string_list.h"

/* Bounds that keep a policy's checks linear in practice. */
#define POLICY_MAX_PATHS 4096
#define POLICY_MAX_ENV 4096

static const struct {
	const char *name;
	int resource;
} rlimit_names[] = {
	{ "as", RLIMIT_AS },         { "core", RLIMIT_CORE },       { "cpu", RLIMIT_CPU },
	{ "data", RLIMIT_DATA },     { "fsize", RLIMIT_FSIZE },     { "locks", RLIMIT_LOCKS },
	{ "memlock", RLIMIT_MEMLOCK }, { "msgqueue", RLIMIT_MSGQUEUE }, { "nice", RLIMIT_NICE },
	{ "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC },     { "rss", RLIMIT_RSS },
	{ "rtprio", RLIMIT_RTPRIO }, { "rttime", RLIMIT_RTTIME },   { "sigpending", RLIMIT_SIGPENDING },
	{ "stack", RLIMIT_STACK },
};

PROCAGE_API int procage_rlimit_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < sizeof rlimit_names / sizeof rlimit_names[0]; i++)
		if (strcmp(rlimit_names[i].name, name) == 0)
			return rlimit_names[i].resource;
	return -EINVAL;
}

const char *policy_rlimit_name(int resource)
{
	for (size_t i = 0; i < sizeof rlimit_names / sizeof rlimit_names[0]; i++)
		if (rlimit_names[i].resource == resource)
			return rlimit_names[i].name;
	return "unknown";
}

const char *policy_access_name(enum procage_access access)
{
	switch (access) {
	case PROCAGE_READ:
		return "read";
	case PROCAGE_WRITE:
		return "write";
	case PROCAGE_PROTECT:
		return "protect";
	case PROCAGE_HIDE:
		return "hide";
	case PROCAGE_CONNECT:
		return "connect";
	}
	return "unknown";
}

PROCAGE_API struct procage_policy *procage_policy_new(void)
{
	struct procage_policy *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->network = PROCAGE_NET_OFF;
	p->private_tmp = true;
	p->own_proc = true;
	return p;
}

PROCAGE_API int procage_policy_create(struct procage_policy **out, struct procage_error *err)
{
	error_clear(err);
	if (!out)
		return error_set(err, -EINVAL, "no place for the policy given");
	*out = procage_policy_new();
	return *out ? 0 : error_set(err, -ENOMEM, "out of memory");
}

static void env_vars_free(struct policy_env_var *vars, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(vars[i].name);
		free(vars[i].value);
	}
	free(vars);
}

PROCAGE_API void procage_policy_free(struct procage_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_paths; i++)
		free(p->paths[i].path);
	free(p->paths);
	env_vars_free(p->env_pass, p->n_env_pass);
	env_vars_free(p->env_set, p->n_env_set);
	procage_strings_free(p->hardlink_exempt);
	procage_strings_free(p->allow_hosts);
	procage_strings_free(p->allow_ssh);
	for (size_t i = 0; i < p->n_path_waivers; i++)
		free(p->path_waivers[i].path);
	free(p->path_waivers);
	free(p->home);
	free(p->tmp_base);
	free(p->ssh_bin);
	free(p->source);
	free(p->host_pos);
	free(p);
}

/* Grow an array by one element; the new slot is zeroed. */
static void *array_grow(void *array, size_t *n, size_t elem_size)
{
	char *grown = realloc(array, (*n + 1) * elem_size);
	if (!grown)
		return NULL;
	memset(grown + *n * elem_size, 0, elem_size);
	(*n)++;
	return grown;
}

/* The bytes of s's first characters within max bytes: never half a UTF-8 character. */
static int utf8_prefix_len(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);
	if (n <= max)
		return (int)n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return (int)n;
}

PROCAGE_API int procage_policy_allow(struct procage_policy *p, const char *path, int access,
				     struct procage_error *err)
{
	struct stat st;

	error_clear(err);
	if (!p || !path)
		return error_set(err, -EINVAL, "no policy or no path given");
	if (access < PROCAGE_READ || access > PROCAGE_CONNECT)
		return error_set(err, -EINVAL, "unknown access %d for %s", (int)access, path);
	if (path[0] != '/')
		return error_set(err, -EINVAL, "path %s is relative; rules take absolute paths",
				 path);
	if (strlen(path) >= 4096)
		return error_set(err, -ENAMETOOLONG, "path %.*s... is too long",
				 utf8_prefix_len(path, 64), path);
	if (stat(path, &st) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "%s rule for %s",
				     policy_access_name(access), path);
	if (access == PROCAGE_CONNECT && !S_ISSOCK(st.st_mode))
		return error_set(err, -ENOTSOCK, "connect rule for %s: not a Unix socket", path);
	if (p->n_paths >= POLICY_MAX_PATHS)
		return error_set(err, -E2BIG, "too many path rules (at most %d)", POLICY_MAX_PATHS);
	for (size_t i = 0; i < p->n_paths; i++)
		if (strcmp(p->paths[i].path, path) == 0 && p->paths[i].access == PROCAGE_WRITE &&
		    access == PROCAGE_READ)
			return 0; /* covered: writing includes reading */
		else if (strcmp(p->paths[i].path, path) == 0 && (int)p->paths[i].access != access)
			return error_set(err, -EINVAL,
					 "conflicting rules for %s: %s and %s", path,
					 policy_access_name(p->paths[i].access),
					 policy_access_name(access));
		else if (strcmp(p->paths[i].path, path) == 0)
			return 0;

	char *copy = strdup(path);
	struct policy_path_rule *grown = copy ? array_grow(p->paths, &p->n_paths, sizeof *grown)
					      : NULL;
	if (!grown) {
		free(copy);
		return error_set(err, -ENOMEM, "out of memory adding %s", path);
	}
	p->paths = grown;
	p->paths[p->n_paths - 1] = (struct policy_path_rule){ copy, access, { 0, 0 } };
	return 0;
}

PROCAGE_API int procage_policy_access(const struct procage_policy *p, const char *path)
{
	for (size_t i = 0; p && path && i < p->n_paths; i++)
		if (strcmp(p->paths[i].path, path) == 0)
			return (int)p->paths[i].access;
	return -ENOENT;
}

PROCAGE_API int procage_policy_network(const struct procage_policy *p)
{
	return p ? (int)p->network : -EINVAL;
}

PROCAGE_API int procage_policy_set_network(struct procage_policy *p, int mode,
					   struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (mode != PROCAGE_NET_OFF && mode != PROCAGE_NET_ON && mode != PROCAGE_NET_PROXY &&
	    mode != PROCAGE_NET_LOOPBACK)
		return error_set(err, -EINVAL, "unknown network mode %d", (int)mode);
	p->network = mode;
	return 0;
}

/* Environment names: a letter or '_', then letters, digits, '_'. */
static bool env_name_valid(const char *name)
{
	if (!name || !name[0] || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (const char *c = name; *c; c++)
		if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9')))
			return false;
	return true;
}

static int env_list_put(struct policy_env_var **list, size_t *n, const char *name,
			const char *value, struct procage_error *err)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*list)[i].name, name) != 0)
			continue;
		if (!value)
			return 0;
		char *v = strdup(value);
		if (!v)
			return error_set(err, -ENOMEM, "out of memory setting %s", name);
		free((*list)[i].value);
		(*list)[i].value = v;
		return 0;
	}
	if (*n >= POLICY_MAX_ENV)
		return error_set(err, -E2BIG, "too many environment entries (at most %d)",
				 POLICY_MAX_ENV);
	char *n_copy = strdup(name);
	char *v_copy = value ? strdup(value) : NULL;
	struct policy_env_var *grown = NULL;
	if (n_copy && (!value || v_copy))
		grown = array_grow(*list, n, sizeof **list);
	if (!grown) {
		free(n_copy);
		free(v_copy);
		return error_set(err, -ENOMEM, "out of memory adding %s", name);
	}
	*list = grown;
	grown[*n - 1] = (struct policy_env_var){ n_copy, v_copy };
	return 0;
}

PROCAGE_API int procage_policy_env_pass(struct procage_policy *p, const char *name,
					struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (!env_name_valid(name))
		return error_set(err, -EINVAL, "'%s' is not a valid environment variable name",
				 name ? name : "");
	return env_list_put(&p->env_pass, &p->n_env_pass, name, NULL, err);
}

PROCAGE_API int procage_policy_env_set(struct procage_policy *p, const char *name,
				       const char *value, struct procage_error *err)
{
	error_clear(err);
	if (!p || !value)
		return error_set(err, -EINVAL, "no policy or no value given");
	if (!env_name_valid(name))
		return error_set(err, -EINVAL, "'%s' is not a valid environment variable name",
				 name ? name : "");
	return env_list_put(&p->env_set, &p->n_env_set, name, value, err);
}

PROCAGE_API int procage_policy_set_private_tmp(struct procage_policy *p, int on,
					       struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	p->private_tmp = on != 0;
	return 0;
}

PROCAGE_API int procage_policy_set_own_proc(struct procage_policy *p, int on,
					    struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	p->own_proc = on != 0;
	return 0;
}

PROCAGE_API int procage_policy_set_changes(struct procage_policy *p, int changes,
					   struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (changes != PROCAGE_CHANGES_IN_PLACE && changes != PROCAGE_CHANGES_OVERLAY)
		return error_set(err, -EINVAL, "changes: %d is neither in place nor overlay",
				 changes);
	p->changes = (enum procage_changes)changes;
	return 0;
}

PROCAGE_API int procage_policy_set_rlimit(struct procage_policy *p, int resource, uint64_t soft,
					  uint64_t hard, struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (resource < 0 || resource >= RLIM_NLIMITS)
		return error_set(err, -EINVAL, "unknown resource limit %d", resource);
	if (soft > hard)
		return error_set(err, -EINVAL,
				 "resource limit %s: soft limit %llu is above hard limit %llu",
				 policy_rlimit_name(resource), (unsigned long long)soft,
				 (unsigned long long)hard);
	p->rlimits[resource] = (struct policy_rlimit){ true, soft, hard };
	return 0;
}

PROCAGE_API int procage_policy_get_rlimit(const struct procage_policy *p, int resource,
					  uint64_t *soft, uint64_t *hard)
{
	if (!p || resource < 0 || resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (!p->rlimits[resource].set)
		return -ENOENT;
	if (soft)
		*soft = p->rlimits[resource].soft;
	if (hard)
		*hard = p->rlimits[resource].hard;
	return 0;
}

static int env_list_copy(const struct policy_env_var *src, size_t n, struct policy_env_var **dst,
			 size_t *dst_n)
{
	for (size_t i = 0; i < n; i++)
		if (env_list_put(dst, dst_n, src[i].name, src[i].value, NULL) < 0)
			return -ENOMEM;
	return 0;
}

static const char *const approximation_names[APPROX__COUNT] = {
	[APPROX_SPAWN_SNAPSHOT] = "spawn-snapshot",
	[APPROX_ENTRY_GRANTS] = "entry-grants",
	[APPROX_PROC_OTHER_PROCESSES] = "proc-other-processes",
	[APPROX_LISTING_SHOWS_HIDDEN_NAMES] = "listing-shows-hidden-names",
	[APPROX_HOST_LOOPBACK] = "host-loopback",
};

const char *policy_approximation_name(enum policy_approximation a)
{
	return a < APPROX__COUNT ? approximation_names[a] : "unknown";
}

PROCAGE_API int procage_policy_accept(struct procage_policy *p, const char *name,
				      struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	for (int a = 0; name && a < APPROX__COUNT; a++)
		if (strcmp(name, approximation_names[a]) == 0) {
			p->accepted |= 1u << a;
			return 0;
		}
	return error_set(err, -EINVAL,
			 "unknown approximation '%s' (known: spawn-snapshot, entry-grants, "
			 "proc-other-processes, listing-shows-hidden-names, host-loopback)",
			 name ? name : "");
}

/* "CLASS:PATH": the class lifted for that one location (see policy_path_waiver). */
static int path_waiver_add(struct procage_policy *p, const char *spec, const char *colon,
			   struct procage_error *err)
{
	char name[32];
	const char *path = colon + 1;
	snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
	int cls = class_from_name(name);
	if (cls < 0)
		return error_set(err, -EINVAL,
				 "waiver %s: unknown hard-deny class '%s' (known: secrets, "
				 "trust-handoff, persistence, service-handoff, container-engines, "
				 "process-access, workspace-config)",
				 spec, name);
	if (path[0] != '/' && strncmp(path, "~/", 2) != 0)
		return error_set(err, -EINVAL,
				 "waiver %s: the location must be an absolute path or ~/PATH", spec);
	if (strlen(path) >= 4096)
		return error_set(err, -ENAMETOOLONG, "waiver %.*s...: the path is too long",
				 utf8_prefix_len(spec, 64), spec);
	for (size_t i = 0; i < p->n_path_waivers; i++)
		if (p->path_waivers[i].cls == cls && strcmp(p->path_waivers[i].path, path) == 0)
			return 0;
	if (p->n_path_waivers >= POLICY_MAX_PATHS)
		return error_set(err, -E2BIG, "too many waivers of one location (at most %d)",
				 POLICY_MAX_PATHS);
	char *copy = strdup(path);
	struct policy_path_waiver *grown =
		copy ? array_grow(p->path_waivers, &p->n_path_waivers, sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return error_set(err, -ENOMEM, "out of memory adding the waiver %s", spec);
	}
	p->path_waivers = grown;
	grown[p->n_path_waivers - 1] = (struct policy_path_waiver){ cls, copy };
	return 0;
}

PROCAGE_API int procage_policy_waive(struct procage_policy *p, const char *name,
				     struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	const char *colon = name ? strchr(name, ':') : NULL;
	if (colon)
		return path_waiver_add(p, name, colon, err);
	int cls = class_from_name(name);
	if (cls < 0)
		return error_set(err, -EINVAL,
				 "unknown hard-deny class '%s' (known: secrets, trust-handoff, "
				 "persistence, service-handoff, container-engines, process-access, "
				 "workspace-config)",
				 name ? name : "");
	p->waived_classes |= 1u << cls;
	return 0;
}

PROCAGE_API int procage_policy_set_hardlinks(struct procage_policy *p, int mode,
					     struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (mode != PROCAGE_HARDLINKS_REFUSE && mode != PROCAGE_HARDLINKS_REPORT)
		return error_set(err, -EINVAL, "unknown hard-link check mode %d", (int)mode);
	p->hardlinks = mode;
	return 0;
}

PROCAGE_API int procage_policy_set_handoff_change(struct procage_policy *p, int mode,
						  struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (mode != PROCAGE_HANDOFF_CHANGE_REPORT && mode != PROCAGE_HANDOFF_CHANGE_FAIL)
		return error_set(err, -EINVAL, "unknown trust-handoff change mode %d", (int)mode);
	p->handoff_change = mode;
	return 0;
}

int policy_path_argument_check(const struct procage_policy *p, const char *path,
			       struct procage_error *err)
{
	error_clear(err);
	if (!p || !path)
		return error_set(err, -EINVAL, "no policy or no path given");
	if (path[0] != '/')
		return error_set(err, -EINVAL, "path %s is relative; rules take absolute paths",
				 path);
	return 0;
}

PROCAGE_API int procage_policy_exempt_hardlinks(struct procage_policy *p, const char *path,
						struct procage_error *err)
{
	int rc = policy_path_argument_check(p, path, err);
	if (rc < 0)
		return rc;
	char *canonical = realpath(path, NULL);
	if (!canonical)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "hard-link exemption %s", path);
	rc = string_list_append(&p->hardlink_exempt, &p->n_hardlink_exempt, canonical);
	free(canonical);
	return rc < 0 ? error_set(err, rc, "out of memory") : 0;
}

PROCAGE_API int procage_policy_allow_host(struct procage_policy *p, const char *entry,
					  struct procage_error *err)
{
	struct allowlist *one = NULL;
	error_clear(err);
	if (!p || !entry)
		return error_set(err, -EINVAL, "no policy or no host given");
	/* The proxy's own reader judges the entry, so the two never differ. */
	int rc = allowlist_new(&entry, 1, &one, err);
	allowlist_free(one);
	if (rc < 0)
		return rc;
	/* A host given twice (a profile and a flag, say) is one grant, listed once. */
	rc = string_list_add_once(&p->allow_hosts, &p->n_allow_hosts, entry);
	return rc < 0 ? error_set(err, rc, "out of memory") : 0;
}

PROCAGE_API int procage_policy_publish(struct procage_policy *p, long port,
				       struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (port < 1 || port > 65535)
		return error_set(err, -EINVAL, "published port %ld is not a TCP port (1 to 65535)",
				 port);
	for (size_t i = 0; i < p->n_publish; i++)
		if (p->publish[i] == port)
			return error_set(err, -EEXIST, "port %ld is published twice", port);
	if (p->n_publish == POLICY_PUBLISH_MAX)
		return error_set(err, -E2BIG, "more than %d published ports (port %ld)",
				 POLICY_PUBLISH_MAX, port);
	p->publish[p->n_publish++] = (uint16_t)port;
	return 0;
}

/*
 * One host ssh may reach: a name or an address, with a port (22 when none
 * is given), read by the proxy's own host reader and kept canonical. No
 * wildcard and no range: the agent filter binds signatures to the known
 * keys of named hosts.
 */
PROCAGE_API int procage_policy_allow_ssh(struct procage_policy *p, const char *entry,
					 struct procage_error *err)
{
	struct dest d;
	char canonical[DEST_AUTHORITY_BUF];
	error_clear(err);
	if (!p || !entry)
		return error_set(err, -EINVAL, "no policy or no ssh host given");
	enum dest_error e = dest_parse_authority(entry, strlen(entry), 22, &d);
	if (e != DEST_OK)
		return error_set(err, -EINVAL, "--allow-ssh %.200s: %s (HOST or HOST:PORT, a name or "
				 "an address, no wildcard)", entry, dest_error_text(e));
	dest_format_authority(&d, canonical, sizeof canonical);
	int rc = string_list_add_once(&p->allow_ssh, &p->n_allow_ssh, canonical);
	return rc < 0 ? error_set(err, rc, "out of memory") : 0;
}

PROCAGE_API int procage_policy_set_lifetime(struct procage_policy *p, int lifetime,
					    struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (lifetime != PROCAGE_LIFETIME_SESSION && lifetime != PROCAGE_LIFETIME_TREE)
		return error_set(err, -EINVAL, "unknown lifetime %d", (int)lifetime);
	p->lifetime = lifetime;
	return 0;
}

PROCAGE_API int procage_policy_set_cgroup_limit(struct procage_policy *p, int limit,
						uint64_t value, struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (limit == PROCAGE_CGROUP_MEMORY) {
		/* Below this an exec alone does not fit. */
		if (value && value < 1024 * 1024)
			return error_set(err, -EINVAL,
					 "memory limit %llu: at least 1 MiB (1048576 bytes)",
					 (unsigned long long)value);
		p->cgroup_memory = value;
		return 0;
	}
	if (limit == PROCAGE_CGROUP_PIDS) {
		p->cgroup_pids = value;
		return 0;
	}
	return error_set(err, -EINVAL, "unknown cgroup limit %d", (int)limit);
}

PROCAGE_API int procage_policy_set_changes_limit(struct procage_policy *p, uint64_t bytes,
						 struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (bytes && bytes < CHANGES_LIMIT_MIN)
		return error_set(err, -EINVAL,
				 "change set limit %llu: at least 1 MiB (1048576 bytes)",
				 (unsigned long long)bytes);
	p->changes_limit = bytes;
	return 0;
}

/* A new pseudo-terminal is a valid request; the cage refuses it (not supported). */
PROCAGE_API int procage_policy_set_terminal(struct procage_policy *p, int terminal,
					    struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (terminal != PROCAGE_TERMINAL_INHERIT && terminal != PROCAGE_TERMINAL_NEW_PTY)
		return error_set(err, -EINVAL, "unknown terminal handling %d", (int)terminal);
	p->terminal = terminal;
	return 0;
}

PROCAGE_API int procage_policy_set_reports(struct procage_policy *p, int on,
					   struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	p->reports = on != 0;
	return 0;
}

PROCAGE_API int procage_policy_set_host_ask(struct procage_policy *p, procage_host_ask_fn ask,
					    void *ctx, int timeout_ms, struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	if (timeout_ms < 0)
		return error_set(err, -EINVAL, "the time to answer a host question (%d ms) is negative",
				 timeout_ms);
	p->host_ask = ask;
	p->host_ask_ctx = ask ? ctx : NULL;
	p->host_ask_timeout_ms = ask ? timeout_ms : 0;
	return 0;
}

PROCAGE_API int procage_policy_set_explain(struct procage_policy *p, int on,
					   struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	p->explain = on != 0;
	return 0;
}

const char *policy_home(const struct procage_policy *p)
{
	return p->home ? p->home : getenv("HOME");
}

/* An absolute path to an existing directory, kept as given; NULL clears it. */
static int directory_set(char **field, const char *what, const char *path,
			 struct procage_error *err)
{
	struct stat st;
	char *copy = NULL;
	if (path && path[0] != '/')
		return error_set(err, -EINVAL, "%s %s is relative; it must be an absolute path",
				 what, path);
	if (path && stat(path, &st) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "%s %s", what, path);
	if (path && !S_ISDIR(st.st_mode))
		return error_set(err, -ENOTDIR, "%s %s is not a directory", what, path);
	if (path && !(copy = strdup(path)))
		return error_set(err, -ENOMEM, "out of memory");
	free(*field);
	*field = copy;
	return 0;
}

PROCAGE_API int procage_policy_set_home(struct procage_policy *p, const char *home,
					struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	return directory_set(&p->home, "home", home, err);
}

PROCAGE_API int procage_policy_set_tmp_base(struct procage_policy *p, const char *base,
					    struct procage_error *err)
{
	error_clear(err);
	if (!p)
		return error_set(err, -EINVAL, "no policy given");
	return directory_set(&p->tmp_base, "temporary-directory base", base, err);
}

struct procage_policy *policy_copy(const struct procage_policy *src)
{
	struct procage_policy *p = procage_policy_new();
	if (!p)
		return NULL;
	if ((src->home && !(p->home = strdup(src->home))) ||
	    (src->tmp_base && !(p->tmp_base = strdup(src->tmp_base))) ||
	    (src->ssh_bin && !(p->ssh_bin = strdup(src->ssh_bin))))
		goto fail;
	p->network = src->network;
	p->private_tmp = src->private_tmp;
	p->own_proc = src->own_proc;
	p->changes = src->changes;
	p->changes_limit = src->changes_limit;
	p->lifetime = src->lifetime;
	p->cgroup_memory = src->cgroup_memory;
	p->cgroup_pids = src->cgroup_pids;
	p->terminal = src->terminal;
	p->waived_classes = src->waived_classes;
	for (size_t i = 0; i < src->n_path_waivers; i++) {
		struct policy_path_waiver *grown =
			array_grow(p->path_waivers, &p->n_path_waivers, sizeof *grown);
		if (!grown)
			goto fail;
		p->path_waivers = grown;
		grown[p->n_path_waivers - 1].cls = src->path_waivers[i].cls;
		if (!(grown[p->n_path_waivers - 1].path = strdup(src->path_waivers[i].path)))
			goto fail;
	}
	p->hardlinks = src->hardlinks;
	p->handoff_change = src->handoff_change;
	for (size_t i = 0; i < src->n_allow_hosts; i++)
		if (string_list_append(&p->allow_hosts, &p->n_allow_hosts, src->allow_hosts[i]) < 0)
			goto fail;
	memcpy(p->publish, src->publish, sizeof p->publish);
	p->n_publish = src->n_publish;
	for (size_t i = 0; i < src->n_allow_ssh; i++)
		if (string_list_append(&p->allow_ssh, &p->n_allow_ssh, src->allow_ssh[i]) < 0)
			goto fail;
	p->host_ask = src->host_ask;
	p->host_ask_ctx = src->host_ask_ctx;
	p->host_ask_timeout_ms = src->host_ask_timeout_ms;
	p->reports = src->reports;
	p->explain = src->explain;
	for (size_t i = 0; i < src->n_hardlink_exempt; i++)
		if (string_list_append(&p->hardlink_exempt, &p->n_hardlink_exempt,
				   src->hardlink_exempt[i]) < 0)
			goto fail;
	p->accepted = src->accepted;
	memcpy(p->rlimits, src->rlimits, sizeof p->rlimits);
	p->paths = calloc(src->n_paths ? src->n_paths : 1, sizeof *p->paths);
	if (!p->paths)
		goto fail;
	for (size_t i = 0; i < src->n_paths; i++) {
		p->paths[i].access = src->paths[i].access;
		p->paths[i].pos = src->paths[i].pos;
		p->paths[i].path = strdup(src->paths[i].path);
		if (!p->paths[i].path)
			goto fail;
		p->n_paths++;
	}
	if (src->source && !(p->source = strdup(src->source)))
		goto fail;
	memcpy(p->key_pos, src->key_pos, sizeof p->key_pos);
	if (src->n_host_pos) {
		p->host_pos = calloc(src->n_host_pos, sizeof *p->host_pos);
		if (!p->host_pos)
			goto fail;
		memcpy(p->host_pos, src->host_pos, src->n_host_pos * sizeof *p->host_pos);
		p->n_host_pos = src->n_host_pos;
	}
	if (env_list_copy(src->env_pass, src->n_env_pass, &p->env_pass, &p->n_env_pass) < 0 ||
	    env_list_copy(src->env_set, src->n_env_set, &p->env_set, &p->n_env_set) < 0)
		goto fail;
	return p;
fail:
	procage_policy_free(p);
	return NULL;
}

/* The library's allocator, so a binding never pairs our memory with another free. */
PROCAGE_API void procage_free(void *memory)
{
	free(memory);
}

PROCAGE_API void procage_strings_free(char **strings)
{
	for (size_t i = 0; strings && strings[i]; i++)
		free(strings[i]);
	free(strings);
}
