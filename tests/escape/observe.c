/*
 * The observer: with refusals explained (procage_policy_set_explain,
 * on by default in procage run), the calls that name paths go to the
 * supervisor, which only looks and answers CONTINUE, or hands a call to
 * the T2 broker as before. The observer must grant nothing: every refusal
 * of the cage stays a refusal, judged from outside (the host file
 * unchanged, the secret not in the probe's output), with its control (the
 * same operation where the policy allows it). A thread of the probe
 * rewriting the path while the call waits changes nothing either: the
 * observer decides nothing from what it read.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

static const char secret[] = "r46: the key\n";

/* ws with explain on, a hidden key, a protected .git/config and files to write. */
static bool r46_fixtures(const struct tier *t, struct caged_ws *ws)
{
	char path[PATH_MAX];
	struct procage_error err;
	if (!fixture(t, procage_policy_set_explain(ws->policy, 1, &err) == 0,
		     "r46: explain is set on the policy"))
		return false;
	static const char *const files[][2] = {
	    {".git/HEAD", "ref: refs/heads/main\n"},
	    {".git/config", "[core]\n\tbare = false\n"},
	    {"README.md", "r46: readme\n"},
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (!path_join(t, path, ws->rw, files[i][0]) ||
		    !fixture(t, put_file(path, files[i][1]), "r46: %s written", path))
			return false;
	if (!path_join(t, path, ws->home, ".ssh/id_ed25519") ||
	    !fixture(t, put_file(path, secret), "r46: %s written", path))
		return false;
	return path_join(t, path, ws->ro, "kept") &&
	       fixture(t, put_file(path, "r46: kept\n"), "r46: %s written", path);
}

void r46_the_observer_grants_nothing(const struct tier *t)
{
	char key[PATH_MAX], config[PATH_MAX], kept[PATH_MAX], made[PATH_MAX], readme[PATH_MAX];
	struct caged_ws *ws = workspace(t, "r46");
	if (!ws || cage_refused_here(t, ws, "r46") || !r46_fixtures(t, ws) ||
	    !path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, config, ws->rw, ".git/config") || !path_join(t, kept, ws->ro, "kept") ||
	    !path_join(t, made, ws->rw, "made-in-the-run") ||
	    !path_join(t, readme, ws->rw, "README.md"))
		goto out;

	struct caged_result r = run_caged(ws, NULL, "read-file", key, NULL);
	check(t, refused(&r) && !strstr(r.out, "the key"), &r,
	      "r46: observed, a hidden key stays unreadable");
	r = run_caged(ws, NULL, "read-file", readme, NULL);
	check(t, did_it(&r) && strstr(r.out, "r46: readme"), &r,
	      "r46: control: observed, a file of the workspace is read");

	r = run_caged(ws, NULL, "write-file", config, "[core]\n\thooksPath = /tmp\n", NULL);
	check(t, refused(&r) && file_is(config, "[core]\n\tbare = false\n"), &r,
	      "r46: observed, .git/config stays unchanged");
	r = run_caged(ws, NULL, "write-file", kept, "changed", NULL);
	check(t, refused(&r) && file_is(kept, "r46: kept\n"), &r,
	      "r46: observed, a file of a read grant stays unchanged");
	r = run_caged(ws, NULL, "write-file", made, "made", NULL);
	check(t, did_it(&r) && file_is(made, "made"), &r,
	      "r46: control: observed, a new file of the workspace is made");

	r = run_caged(ws, NULL, "io-uring", NULL);
	check(t, refused(&r) && strstr(r.err, "EPERM"), &r,
	      "r46: observed, a call the filter refuses stays refused");
out:
	caged_ws_free(ws);
}
