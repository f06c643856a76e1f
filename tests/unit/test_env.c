/* Unit tests: credential variables judged by name and by value; defaults added. */
#include <stdlib.h>
#include <string.h>

#include "plan/env.h"
#include "policy/policy.h"
#include "tap.h"

static void test_credential_names(void)
{
	static const char *const secret[] = {
	    "MYSQL_PWD",	 "NPM_CONFIG__AUTH", "CI_JOB_JWT",  "GITHUB_PAT",
	    "SMTP_PASS",	 "LDAP_BIND_PW",     "SIGNING_KEY", "SENTRY_DSN",
	    "SLACK_WEBHOOK_URL", "npm_config__auth", "GIT_ASKPASS", "REDIS_AUTH",
	    "BASIC_AUTH_HEADER", "db_passphrase",    "JWT_PUBLIC",
	};
	static const char *const plain[] = {
	    "PWD",  "OLDPWD", "XAUTHORITY",	 "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
	    "PATH", "LANG",   "KEYBOARD_LAYOUT", "DISPLAY"};
	for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
		tap_ok(env_name_looks_secret(secret[i]), "%s looks secret", secret[i]);
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		tap_ok(!env_name_looks_secret(plain[i]), "%s does not look secret", plain[i]);
}

static void test_credential_values(void)
{
	static const char *const secret[] = {
	    "postgres://u:pw@h/db",
	    "https://u:pw@pypi.example/simple",
	    "https://ghp_token@github.com/o/r.git",
	    "https://mirror.example/simple https://u:pw@other.example/simple",
	    "redis://:pw@cache:6379",
	};
	static const char *const plain[] = {
	    "https://pypi.org/simple",	  "/usr/bin:/bin",
	    "mailto:someone@example.com", "https://example.com/path?user=a@b",
	    "https://example.com/#x@y",	  "",
	};
	for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
		tap_ok(env_value_looks_secret(secret[i]), "'%s' carries a credential", secret[i]);
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		tap_ok(!env_value_looks_secret(plain[i]), "'%s' carries none", plain[i]);
}

static void test_env_build_by_value(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	char *base[] = {"DATABASE_URL=postgres://u:pw@h/db",
			"PIP_INDEX_URL=https://u:pw@h/simple",
			"MIRROR_URL=https://h/simple",
			"MYSQL_PWD=pw",
			"PWD=/ws",
			NULL};
	char **env = NULL;

	procage_policy_env_pass(p, "PIP_INDEX_URL", &err);
	tap_ok(env_build(p, base, NULL, &env, &err) == 0, "an environment is built");
	tap_ok(env_lookup(env, "DATABASE_URL") == NULL, "a URL with user-info is dropped");
	tap_ok(env_lookup(env, "MYSQL_PWD") == NULL, "a credential name is dropped");
	tap_ok(env_lookup(env, "PIP_INDEX_URL") != NULL, "one passed by name is kept");
	tap_ok(env_lookup(env, "MIRROR_URL") && env_lookup(env, "PWD"),
	       "a URL without user-info and PWD are kept");
	env_free(env);
	procage_policy_free(p);
}

/* A default is added once, and never over the caller's own in any letter case. */
static void test_add_default(void)
{
	char **env = calloc(3, sizeof *env);
	env[0] = strdup("PATH=/bin");
	env[1] = strdup("NPM_CONFIG_CACHE=/mine");
	tap_ok(env_add_default(&env, "npm_config_cache", "/run/npm") == 0 &&
		       env_lookup(env, "npm_config_cache") == NULL &&
		       strcmp(env_lookup(env, "NPM_CONFIG_CACHE"), "/mine") == 0,
	       "the caller's NPM_CONFIG_CACHE stands; no lower-case one is added");
	tap_ok(env_add_default(&env, "GOCACHE", "/run/go") == 0 &&
		       strcmp(env_lookup(env, "GOCACHE"), "/run/go") == 0 && env[3] == NULL,
	       "a missing one is added at the end, the list still ends in NULL");
	tap_ok(env_add_default(&env, "GOCACHE", "/other") == 0 &&
		       strcmp(env_lookup(env, "GOCACHE"), "/run/go") == 0 && env[3] == NULL,
	       "and only once");
	tap_ok(env_add_default(&env, "PAT", "x") == 0 && strcmp(env_lookup(env, "PAT"), "x") == 0,
	       "a name that begins another (PATH) is not taken for it");
	env_free(env);
}

int main(void)
{
	test_add_default();
	test_credential_names();
	test_credential_values();
	test_env_build_by_value();
	return tap_done();
}
