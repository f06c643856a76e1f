/* The child's environment, built in the parent. */
#ifndef PROCAGE_ENV_H
#define PROCAGE_ENV_H

#include <stdbool.h>

#include "policy/policy.h"

/* True for names that look like they carry a secret. */
bool env_name_looks_secret(const char *name);
/* True for values that carry a credential in plain sight (URL user-info). */
bool env_value_looks_secret(const char *value);

/*
 * The environment for one spawn: base (a NULL-terminated "NAME=value"
 * array) without secret-looking variables unless the policy passes them,
 * then the policy's own settings, then TMPDIR when tmpdir is not NULL.
 * *out is NULL-terminated and freed with env_free.
 */
int env_build(const struct procage_policy *policy, char *const *base, const char *tmpdir,
	      char ***out, struct procage_error *err);
/* The same with the proxy's port (tier T2: the run's own; env_build: 3128). */
int env_build_proxy(const struct procage_policy *policy, char *const *base, const char *tmpdir,
		    uint16_t proxy_port, char ***out, struct procage_error *err);
/*
 * Add NAME=value to *env unless it already names NAME in any letter case
 * (npm reads npm_config_cache and NPM_CONFIG_CACHE alike). *env grows by
 * one entry; 0 or -ENOMEM.
 */
int env_add_default(char ***env, const char *name, const char *value);
void env_free(char **env);
/* The value of name in env, or NULL. */
const char *env_lookup(char *const *env, const char *name);

#endif
