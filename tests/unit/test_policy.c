/* Unit tests: the policy setters, the environment filter, command lookup. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/command.h"
#include "plan/env.h"
#include "policy/policy.h"
#include "tap.h"

static void test_allow(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();

	tap_ok(p->network == PROCAGE_NET_OFF && p->private_tmp,
	       "a new policy has the network off and a private tmp");
	tap_ok(procage_policy_allow(p, "/usr", PROCAGE_READ, &err) == 0 && p->n_paths == 1,
	       "an absolute existing path is accepted");
	tap_ok(procage_policy_allow(p, "/usr", PROCAGE_READ, &err) == 0 && p->n_paths == 1,
	       "the same rule twice is kept once");
	int rc = procage_policy_allow(p, "/usr", PROCAGE_WRITE, &err);
	tap_ok(rc == -EINVAL && strstr(err.message, "conflicting rules for /usr"),
	       "a conflicting rule for the same path is refused: %s", err.message);
	rc = procage_policy_allow(p, "usr/lib", PROCAGE_READ, &err);
	tap_ok(rc == -EINVAL && strstr(err.message, "usr/lib") && strstr(err.message, "relative"),
	       "a relative path is refused, named: %s", err.message);
	rc = procage_policy_allow(p, "/no/such/procage/path", PROCAGE_WRITE, &err);
	tap_ok(rc == -ENOENT && strstr(err.message, "/no/such/procage/path"),
	       "a missing path is refused, named: %s", err.message);
	rc = procage_policy_allow(p, "/usr", (enum procage_access)9, &err);
	tap_ok(rc == -EINVAL, "an unknown access is refused");
	tap_ok(p->n_paths == 1, "refused rules leave the policy as it was");
	procage_policy_free(p);
}

static void test_env_and_limits(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();

	tap_ok(procage_policy_env_set(p, "A_B1", "x", &err) == 0, "a valid name can be set");
	tap_ok(procage_policy_env_set(p, "1AB", "x", &err) == -EINVAL, "a name starting with a digit is refused");
	tap_ok(procage_policy_env_set(p, "A=B", "x", &err) == -EINVAL, "a name with '=' is refused");
	tap_ok(procage_policy_env_pass(p, "", &err) == -EINVAL, "an empty name is refused");
	tap_ok(procage_policy_env_set(p, "A_B1", "y", &err) == 0 && p->n_env_set == 1 &&
		       strcmp(p->env_set[0].value, "y") == 0,
	       "setting a name again replaces its value");
	tap_ok(procage_policy_set_rlimit(p, RLIMIT_NOFILE, 10, 5, &err) == -EINVAL,
	       "a soft limit above the hard one is refused");
	tap_ok(procage_policy_set_rlimit(p, RLIM_NLIMITS, 1, 1, &err) == -EINVAL,
	       "an unknown resource is refused");
	tap_ok(procage_policy_set_rlimit(p, RLIMIT_NOFILE, 5, 10, &err) == 0 &&
		       p->rlimits[RLIMIT_NOFILE].set && p->rlimits[RLIMIT_NOFILE].hard == 10,
	       "a limit is recorded");
	tap_ok(procage_rlimit_from_name("nofile") == RLIMIT_NOFILE &&
		       procage_rlimit_from_name("cpu") == RLIMIT_CPU &&
		       procage_rlimit_from_name("bogus") == -EINVAL,
	       "limit names map to RLIMIT_* and unknown names are refused");
	tap_ok(procage_policy_set_network(p, (enum procage_network)7, &err) == -EINVAL,
	       "an unknown network mode is refused");

	struct procage_policy *copy = policy_copy(p);
	tap_ok(copy && copy->n_env_set == 1 && copy->rlimits[RLIMIT_NOFILE].soft == 5 &&
		       copy->env_set[0].name != p->env_set[0].name,
	       "a copy is deep");
	procage_policy_free(copy);
	procage_policy_free(p);
}

static void test_secret_names(void)
{
	static const char *const secret[] = { "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "DB_PASSWORD",
					      "my_api_key", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
					      "NPM_TOKEN", "CLIENT_SECRET", "PRIVATE_KEY_PEM",
					      "AZURE_CLIENT_ID", "VAULT_ADDR", "GIT_PASSWD" };
	static const char *const plain[] = { "PATH", "HOME", "LANG", "TERM", "USER", "EDITOR",
					     "PWD", "SHELL" };
	for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
		tap_ok(env_name_looks_secret(secret[i]), "%s looks secret", secret[i]);
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		tap_ok(!env_name_looks_secret(plain[i]), "%s does not look secret", plain[i]);
}

static void test_env_build(void)
{
	struct procage_error err;
	struct procage_policy *p = procage_policy_new();
	char *base[] = { "PATH=/usr/bin", "GITHUB_TOKEN=t", "NPM_TOKEN=n", "TMPDIR=/tmp",
			 "LANG=C", "noequals", NULL };
	char **env = NULL;

	procage_policy_env_pass(p, "NPM_TOKEN", &err);
	procage_policy_env_set(p, "LANG", "C.UTF-8", &err);
	tap_ok(env_build(p, base, "/tmp/run", &env, &err) == 0, "an environment is built");
	tap_ok(env_lookup(env, "GITHUB_TOKEN") == NULL, "a secret is dropped");
	tap_ok(env_lookup(env, "NPM_TOKEN") && strcmp(env_lookup(env, "NPM_TOKEN"), "n") == 0,
	       "a secret passed by name is kept");
	tap_ok(strcmp(env_lookup(env, "LANG"), "C.UTF-8") == 0, "a set variable replaces the base");
	tap_ok(strcmp(env_lookup(env, "TMPDIR"), "/tmp/run") == 0 &&
		       strcmp(env_lookup(env, "TMP"), "/tmp/run") == 0,
	       "TMPDIR and TMP name the run's directory");
	size_t n = 0, langs = 0;
	for (; env[n]; n++)
		langs += strncmp(env[n], "LANG=", 5) == 0;
	tap_ok(langs == 1, "a variable appears once");
	tap_ok(env_lookup(env, "noequals") == NULL, "an entry without '=' is dropped");
	env_free(env);
	procage_policy_free(p);
}

static void test_command_resolve(void)
{
	struct procage_error err;
	char *path = NULL;

	tap_ok(command_resolve("sh", "/nonexistent:/bin:/usr/bin", NULL, &path, &err) == 0 &&
		       path && path[0] == '/',
	       "a command is found in PATH: %s", path ? path : "(none)");
	free(path);
	path = NULL;
	int rc = command_resolve("no-such-command-procage", "/bin:/usr/bin", NULL, &path, &err);
	tap_ok(rc == -ENOENT && err.step == PROCAGE_STEP_EXEC &&
		       strstr(err.message, "command not found: no-such-command-procage"),
	       "a missing command says it is not found: %s", err.message);
	char plain[] = "/tmp/procage-test-plain-XXXXXX";
	int fd = mkstemp(plain);
	close(fd);
	rc = command_resolve(plain, NULL, NULL, &path, &err);
	tap_ok(rc == -EACCES && strstr(err.message, plain),
	       "a file that is not executable is refused: %s", err.message);
	unlink(plain);
	rc = command_resolve("/usr", NULL, NULL, &path, &err);
	tap_ok(rc == -EISDIR, "a directory is refused");
	rc = command_resolve("", NULL, NULL, &path, &err);
	tap_ok(rc == -EINVAL, "an empty name is refused");
}

int main(void)
{
	test_allow();
	test_env_and_limits();
	test_secret_names();
	test_env_build();
	test_command_resolve();
	return tap_done();
}
