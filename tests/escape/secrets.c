/*
 * The secrets class, family by family: agent CLIs, database clients, cloud,
 * storage and registry clients, snap and flatpak browser profiles, ~/.env.
 * Each is a file in the workspace's home holding a marker; the cage reads
 * the home but none of the markers, the same reads without the cage find
 * every one.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

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
