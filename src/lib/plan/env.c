/*
 * Environment hygiene. Tokens and agent sockets in the caller's
 * environment would reach the child without any file access, so variables
 * whose names look secret are dropped unless the caller passes them by name.
 * The match is deliberately broad: a dropped variable is a visible failure
 * the caller can fix with one pass entry, a leaked one is silent.
 */
#include "env.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"

/*
 * Substrings, matched without regard to case; written in upper case. PASS
 * covers PASSWORD, PASSWD, PASSPHRASE and SMTP_PASS; AUTH covers
 * NPM_CONFIG__AUTH and every *_AUTH_TOKEN (AUTHOR is not a credential and
 * is skipped where it is matched).
 */
static const char *const secret_name_parts[] = {
	"TOKEN",  "SECRET",      "PASS",       "CREDENTIAL", "API_KEY", "APIKEY",
	"PRIVATE_KEY", "ACCESS_KEY", "SESSION_KEY", "COOKIE", "JWT",     "DSN",
	"WEBHOOK",
};

/* Suffixes: MYSQL_PWD, LDAP_BIND_PW, GITHUB_PAT, SIGNING_KEY. */
static const char *const secret_name_suffixes[] = { "PWD", "_PW", "PAT", "_KEY" };

/*
 * Names that match a rule above and carry no secret: the shell's working
 * directories, and the path (not the contents) of the X cookie file.
 */
static const char *const harmless_names[] = { "PWD", "OLDPWD", "XAUTHORITY" };

/* Prefixes of whole families of credentials and agent handles. */
static const char *const secret_name_prefixes[] = {
	"AWS_", "AZURE_", "GOOGLE_APPLICATION_CREDENTIALS", "GCP_SERVICE", "VAULT_", "SSH_AUTH_SOCK",
	"SSH_AGENT_", "GPG_AGENT_INFO", "KRB5CCNAME", "OP_SESSION_", "DOCKER_AUTH",
};

/* Names up to this length are judged from a copy on the stack. */
#define NAME_COPY_STACK 256

/*
 * One upper-case copy of the name, then strstr for each part: matching
 * with strncasecmp at every position of the name, for every part, cost
 * microseconds per variable. The folding is ASCII's, as strncasecmp's is
 * in the C locale; the parts are ASCII upper case.
 */
bool env_name_looks_secret(const char *name)
{
	size_t n = strlen(name);
	char stack_copy[NAME_COPY_STACK];
	char *upper = n < sizeof stack_copy ? stack_copy : malloc(n + 1);
	if (!upper)
		return true; /* not judged: dropped, the visible failure */
	for (size_t i = 0; i <= n; i++)
		upper[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
	bool secret = false;
	for (size_t i = 0; i < sizeof harmless_names / sizeof *harmless_names; i++)
		if (strcmp(name, harmless_names[i]) == 0)
			goto out;
	for (size_t i = 0; !secret && i < sizeof secret_name_parts / sizeof *secret_name_parts; i++)
		secret = strstr(upper, secret_name_parts[i]) != NULL;
	for (const char *at = upper; !secret && (at = strstr(at, "AUTH")); at += 4)
		secret = strncmp(at, "AUTHOR", 6) != 0;
	for (size_t i = 0; !secret && i < sizeof secret_name_suffixes / sizeof *secret_name_suffixes;
	     i++) {
		size_t k = strlen(secret_name_suffixes[i]);
		secret = n >= k && strcmp(upper + n - k, secret_name_suffixes[i]) == 0;
	}
	for (size_t i = 0; !secret && i < sizeof secret_name_prefixes / sizeof *secret_name_prefixes;
	     i++)
		secret = strncmp(name, secret_name_prefixes[i], strlen(secret_name_prefixes[i])) == 0;
out:
	if (upper != stack_copy)
		free(upper);
	return secret;
}

/*
 * A URL with user-info (scheme://user:password@host, or a token as the
 * user) carries a credential whatever the variable is called
 * (DATABASE_URL, PIP_INDEX_URL). Every "://" of the value is judged: lists
 * of URLs are common. The authority ends at the first '/', '?', '#' or
 * white space; an '@' inside it means user-info.
 */
bool env_value_looks_secret(const char *value)
{
	for (const char *at = value; (at = strstr(at, "://")); at += 3) {
		size_t authority = strcspn(at + 3, "/?# \t\n,;");
		if (memchr(at + 3, '@', authority))
			return true;
	}
	return false;
}

/* Length of the name part of "NAME=value". */
static size_t entry_name_length(const char *entry)
{
	const char *eq = strchr(entry, '=');
	return eq ? (size_t)(eq - entry) : strlen(entry);
}

static bool entry_has_name(const char *entry, const char *name)
{
	size_t n = entry_name_length(entry);
	return strlen(name) == n && strncmp(entry, name, n) == 0;
}

static bool policy_passes(const struct procage_policy *p, const char *entry)
{
	for (size_t i = 0; i < p->n_env_pass; i++)
		if (entry_has_name(entry, p->env_pass[i].name))
			return true;
	return false;
}

static bool is_temporary_directory_name(const char *entry)
{
	return entry_has_name(entry, "TMPDIR") || entry_has_name(entry, "TMP") ||
	       entry_has_name(entry, "TEMP") || entry_has_name(entry, "TEMPDIR");
}

static char *entry_join(const char *name, const char *value)
{
	size_t n = strlen(name), v = strlen(value);
	char *s = malloc(n + v + 2);
	if (!s)
		return NULL;
	memcpy(s, name, n);
	s[n] = '=';
	memcpy(s + n + 1, value, v + 1);
	return s;
}

/* Set for a proxy-only run, so that programs find its proxy. */
static const char *const proxy_variables[] = {
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
};
/* Emptied, so that no inherited value sends a request around it. */
static const char *const no_proxy_variables[] = { "NO_PROXY", "no_proxy" };
#define N_PROXY_VARIABLES 8

static bool is_proxy_variable(const char *entry)
{
	for (size_t i = 0; i < sizeof proxy_variables / sizeof *proxy_variables; i++)
		if (entry_has_name(entry, proxy_variables[i]))
			return true;
	return entry_has_name(entry, "NO_PROXY") || entry_has_name(entry, "no_proxy");
}

/* Is entry replaced by something the policy or the run sets? */
static bool entry_overridden(const struct procage_policy *p, const char *entry,
			     const char *tmpdir)
{
	for (size_t i = 0; i < p->n_env_set; i++)
		if (entry_has_name(entry, p->env_set[i].name))
			return true;
	if (p->network == PROCAGE_NET_PROXY && is_proxy_variable(entry))
		return true;
	return tmpdir && is_temporary_directory_name(entry);
}

/*
 * --allow-ssh: the run's ssh, scp and sftp are procage's wrappers (they
 * add -F with the run's configuration), found first in PATH.
 */
static int ssh_bin_first(char **env, size_t n, const char *bin)
{
	static const char fallback[] = "/usr/local/bin:/usr/bin:/bin";
	size_t i = 0;
	while (i < n && !entry_has_name(env[i], "PATH"))
		i++;
	const char *rest = i < n ? env[i] + 5 : fallback;
	size_t len = strlen(bin) + 1 + strlen(rest) + 1;
	char *value = malloc(len);
	if (!value)
		return -ENOMEM;
	snprintf(value, len, "%s%s%s", bin, rest[0] ? ":" : "", rest);
	char *entry = entry_join("PATH", value);
	free(value);
	if (!entry)
		return -ENOMEM;
	if (i < n)
		free(env[i]);
	env[i] = entry;
	return 0;
}

static int proxy_variables_add(char **env, size_t *n, uint16_t port)
{
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	for (size_t i = 0; i < sizeof proxy_variables / sizeof *proxy_variables; i++)
		if (!(env[(*n)++] = entry_join(proxy_variables[i], url)))
			return -ENOMEM;
	for (size_t i = 0; i < sizeof no_proxy_variables / sizeof *no_proxy_variables; i++)
		if (!(env[(*n)++] = entry_join(no_proxy_variables[i], "")))
			return -ENOMEM;
	return 0;
}


int env_build(const struct procage_policy *p, char *const *base, const char *tmpdir,
	      char ***out, struct procage_error *err)
{
	return env_build_proxy(p, base, tmpdir, POLICY_PROXY_PORT, out, err);
}

int env_build_proxy(const struct procage_policy *p, char *const *base, const char *tmpdir,
		    uint16_t proxy_port, char ***out, struct procage_error *err)
{
	static const char *const tmp_names[] = { "TMPDIR", "TMP", "TEMP" };
	size_t n_base = 0;
	while (base && base[n_base])
		n_base++;
	size_t cap = n_base + p->n_env_set + 3 + N_PROXY_VARIABLES + 2, n = 0;
	char **env = calloc(cap, sizeof *env);
	if (!env)
		goto oom;
	for (size_t i = 0; i < n_base; i++) {
		const char *e = base[i];
		if (!strchr(e, '=') || entry_overridden(p, e, tmpdir))
			continue;
		/* The whole name is judged: a long one must not hide its end. */
		char *name = strndup(e, entry_name_length(e));
		if (!name)
			goto oom;
		bool secret = env_name_looks_secret(name) || env_value_looks_secret(e + strlen(name) + 1);
		free(name);
		if (secret && !policy_passes(p, e))
			continue;
		if (!(env[n++] = strdup(e)))
			goto oom;
	}
	for (size_t i = 0; i < p->n_env_set; i++)
		if (!(env[n++] = entry_join(p->env_set[i].name, p->env_set[i].value)))
			goto oom;
	for (size_t i = 0; tmpdir && i < 3; i++)
		if (!(env[n++] = entry_join(tmp_names[i], tmpdir)))
			goto oom;
	if (p->network == PROCAGE_NET_PROXY && proxy_variables_add(env, &n, proxy_port) < 0)
		goto oom;
	if (p->ssh_bin) {
		bool had_path = env_lookup(env, "PATH") != NULL;
		if (ssh_bin_first(env, n, p->ssh_bin) < 0)
			goto oom;
		n += !had_path;
	}
	*out = env;
	return 0;
oom:
	env_free(env);
	return error_set(err, -ENOMEM, "out of memory building the child's environment");
}

int env_add_default(char ***env, const char *name, const char *value)
{
	size_t n = 0, len = strlen(name);
	for (; *env && (*env)[n]; n++)
		if (entry_name_length((*env)[n]) == len && strncasecmp((*env)[n], name, len) == 0)
			return 0;
	char *entry = entry_join(name, value);
	char **grown = entry ? realloc(*env, (n + 2) * sizeof **env) : NULL;
	if (!grown) {
		free(entry);
		return -ENOMEM;
	}
	grown[n] = entry;
	grown[n + 1] = NULL;
	*env = grown;
	return 0;
}

void env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

const char *env_lookup(char *const *env, const char *name)
{
	for (size_t i = 0; env && env[i]; i++)
		if (entry_has_name(env[i], name))
			return strchr(env[i], '=') + 1;
	return NULL;
}
