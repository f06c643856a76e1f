/*
 * Hard links and the handoff audit.
 *
 * A hard link made before the run gives a hidden or protected file a second
 * name that no rule on the first name covers. Before every spawn the
 * library counts the names of each hidden and protected file inside those
 * locations and compares them with the link count: a file with a name
 * elsewhere refuses the spawn (the error names it) or, in report mode, is
 * listed by procage_cage_hardlinks while the run goes ahead. During the
 * run no second name can be made, on either tier.
 *
 * The refusals are judged from outside: the run's error, and a marker file
 * the probe would have written first, which must not exist (no child ran).
 * The report-mode findings are read from the cage the runs use; with
 * PROCAGE_TEST_SANDBOX_OFF=1 no cage is made, so there is no check to ask
 * and those assertions fail with the rest.
 *
 * The audit: begun before a run and ended after it on the same cage, it
 * lists exactly the trust-handoff locations the run created or changed
 * under the writable trees (a nested repository made in the run, its hook
 * and its symlinked hook; a repository's config changed with the class
 * waived) and nothing for a run that touched none.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

static const char key_text[] = "r08: secret key\n";
static const char config_text[] = "[core]\n\tbare = false\n";
static const char bashrc_text[] = "# r08: startup file\n";
static const char evil[] = "r08: planted\n";

/* realpath into a PATH_MAX buffer: what the library's messages name. */
static bool canonical(const struct tier *t, const char *path, char *out)
{
	return fixture(t, realpath(path, out) != NULL, "the path %s resolves", path);
}

static bool hard_link(const struct tier *t, const char *from, const char *to)
{
	return fixture(t, link(from, to) == 0, "a hard link %s -> %s is made (%s)", to, from,
		       strerror(errno));
}

/*
 * The spawn was refused by the hard-link check: no child was made (the
 * probe's first action, writing marker, left nothing), the cage itself was
 * accepted, and the error names path.
 */
static bool refused_by_the_check(const struct caged_result *r, const char *path, const char *marker)
{
	return r->how == CAGED_NOT_STARTED && !r->cage_refused && r->code == -EMLINK &&
	       strstr(r->error, path) && !caged_path_exists(marker);
}

/* ---- findings -------------------------------------------------------- */

static size_t strings_count(char **list)
{
	size_t n = 0;
	while (list && list[n])
		n++;
	return n;
}

/* Does a finding name path (as a whole word of the line)? */
static bool strings_name(char **list, const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; list && list[i]; i++)
		for (const char *p = strstr(list[i], path); p; p = strstr(p + 1, path))
			if (p[n] == ' ' || p[n] == '\0')
				return true;
	return false;
}

static void strings_diag(const char *what, char **list)
{
	if (!list) {
		diag("  %s: none (no list)", what);
		return;
	}
	diag("  %s: %zu", what, strings_count(list));
	for (size_t i = 0; list[i]; i++)
		diag("    %s", list[i]);
}

/*
 * The hard-link check as a caller runs it, on the cage the runs use: the
 * list, or NULL when there is no cage (the sandbox is off) or it failed.
 */
static char **hardlink_findings(const struct caged_ws *ws)
{
	struct procage_error err = {0};
	char **findings = NULL;
	if (procage_cage_hardlinks(ws->held, &findings, &err) < 0) {
		diag("  procage_cage_hardlinks: %s", err.message);
		return NULL;
	}
	return findings;
}

static bool hold(const struct tier *t, struct caged_ws *ws, const char *what)
{
	char why[600] = "";
	return fixture(t, caged_ws_hold_cage(ws, why, sizeof why) == 0, "%s: the cage is made (%s)",
		       what, why);
}

static bool report_mode(const struct tier *t, struct caged_ws *ws)
{
	struct procage_error err = {0};
	return fixture(
	    t, procage_policy_set_hardlinks(ws->policy, PROCAGE_HARDLINKS_REPORT, &err) == 0,
	    "r08: the policy takes report mode (%s)", err.message);
}

static bool exempt(const struct tier *t, struct caged_ws *ws, const char *path)
{
	struct procage_error err = {0};
	return fixture(t, procage_policy_exempt_hardlinks(ws->policy, path, &err) == 0,
		       "r08: the policy exempts %s (%s)", path, err.message);
}

static bool fresh_policy(const struct tier *t, struct caged_ws *ws)
{
	caged_ws_drop_cage(ws);
	return fixture(t, caged_ws_reset_policy(ws) == 0, "r08: the default policy is made anew");
}

/*
 * Where a second name lies matters on tier T2. A directory on the way from
 * a writable tree to a denied path (here the workspace itself, which holds
 * a repository) is granted entry by entry, and a Landlock rule binds an
 * inode: a grant on the entry that is the second name is a grant on the
 * denied file itself. In report mode, or under an exemption, the file's own
 * name then takes the workspace's rights. Tier T1 masks the path, which
 * holds whatever the inode's other names are. Elsewhere (notes/, granted
 * as a whole tree) the own name stays denied on both tiers.
 */
/* ---- a hidden file ------------------------------------------------ */

void r08_a_hard_link_to_a_hidden_file_is_refused(const struct tier *t)
{
	char key[PATH_MAX], key_canon[PATH_MAX], stolen[PATH_MAX], elsewhere[PATH_MAX],
	    marker[PATH_MAX], cred[PATH_MAX], cred_canon[PATH_MAX], cred_copy[PATH_MAX],
	    git_dir[PATH_MAX], token[PATH_MAX], token_canon[PATH_MAX], token_moved[PATH_MAX],
	    plain[PATH_MAX], at_root[PATH_MAX], repo_config[PATH_MAX], in_protected[PATH_MAX];
	struct caged_result r;
	char **findings = NULL;
	struct caged_ws *ws = workspace(t, "r08");
	if (!ws || cage_refused_here(t, ws, "r08"))
		goto out;
	if (!path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, stolen, ws->rw, "notes/key-copy") ||
	    !path_join(t, at_root, ws->rw, "key-copy") ||
	    !path_join(t, repo_config, ws->rw, "repo/.git/config") ||
	    !path_join(t, elsewhere, ws->root, "key-copy") ||
	    !path_join(t, marker, ws->rw, "notes/the-probe-ran") ||
	    !path_join(t, git_dir, ws->home, ".config/git") ||
	    !path_join(t, cred, git_dir, "credentials") ||
	    !path_join(t, cred_copy, ws->rw, "notes/cred-copy") ||
	    !path_join(t, token, ws->rw, "private/token") ||
	    !path_join(t, token_moved, ws->rw, "private/token.moved") ||
	    !path_join(t, plain, ws->rw, "notes/plain.txt"))
		goto out;
	if (!fixture(t,
		     put_file(key, key_text) &&
			 put_file(cred, "https://r08:secret@example.test\n") &&
			 put_file(plain, "r08: plain\n") && put_file(token, key_text) &&
			 put_file(repo_config, config_text),
		     "r08: fixtures in %s", ws->root) ||
	    !canonical(t, key, key_canon) || !canonical(t, cred, cred_canon) ||
	    !canonical(t, token, token_canon))
		goto out;

	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, did_it(&r) && caged_path_exists(marker), &r,
	      "r08: control: with no second name for the key, the spawn runs");
	(void)unlink(marker);

	if (!hard_link(t, key, stolen))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "read-file", stolen, NULL);
	check(t, refused_by_the_check(&r, key_canon, marker) && !strstr(r.out, "secret"), &r,
	      "r08: a hard link in the workspace to ~/.ssh/id_ed25519, made before the run, "
	      "refuses the spawn before any child runs, and the error names the key");
	(void)unlink(marker);
	r = run_uncaged(ws, NULL, "read-file", stolen, NULL);
	check(t, did_it(&r) && strstr(r.out, "r08: secret key"), &r,
	      "r08: control: without the cage the hard link reads the key");

	/* The check counts names: a second one anywhere is found, not only in a grant. */
	(void)unlink(stolen);
	if (!hard_link(t, key, elsewhere))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, refused_by_the_check(&r, key_canon, marker), &r,
	      "r08: a second name outside every grant refuses the spawn too");
	(void)unlink(marker);
	(void)unlink(elsewhere);
	if (!hard_link(t, key, stolen))
		goto out;

	/* Hidden files are examined everywhere, under an exempt subtree too. */
	if (!exempt(t, ws, ws->home))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "read-file", stolen, NULL);
	check(t, refused_by_the_check(&r, key_canon, marker) && !strstr(r.out, "secret"), &r,
	      "r08: with the whole home exempt from the check, the hidden key is still examined "
	      "and the spawn refused");
	(void)unlink(marker);
	(void)unlink(stolen);
	if (!fresh_policy(t, ws))
		goto out;

	/*
	 * A hidden file inside a protected location (~/.config/git/credentials
	 * in ~/.config/git) with that location exempt: still examined.
	 */
	if (!hard_link(t, cred, cred_copy) || !exempt(t, ws, git_dir))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "read-file", cred_copy, NULL);
	check(t, refused_by_the_check(&r, cred_canon, marker) && !strstr(r.out, "secret"), &r,
	      "r08: with ~/.config/git exempt, a hard link to the hidden "
	      "~/.config/git/credentials inside it still refuses the spawn");
	(void)unlink(marker);
	(void)unlink(cred_copy);
	if (!fresh_policy(t, ws))
		goto out;

	/* Report mode: the run goes ahead, the key is listed, its own name stays hidden. */
	if (!hard_link(t, key, stolen) || !report_mode(t, ws) || !hold(t, ws, "r08"))
		goto out;
	findings = hardlink_findings(ws);
	bool listed = strings_count(findings) == 1 && strings_name(findings, key_canon);
	if (!check(t, listed, NULL,
		   "r08: in report mode procage_cage_hardlinks lists the key, and only it"))
		strings_diag("findings", findings);
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "read-file", key, NULL);
	check(t, refused(&r) && caged_path_exists(marker) && !strstr(r.out, "secret"), &r,
	      "r08: in report mode the spawn goes ahead, and the key still cannot be read "
	      "through its hidden name");
	(void)unlink(marker);
	if (!fixture(t, rename(stolen, at_root) == 0, "r08: the link moves to %s", at_root))
		goto out;
	caged_ws_drop_cage(ws);
	if (!hold(t, ws, "r08"))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "read-file", key, NULL);
	check(t, refused(&r) && caged_path_exists(marker) && !strstr(r.out, "secret"),
			    &r,
			    "r08: in report mode, with the second name directly in the workspace, "
			    "the key still cannot be read through its hidden name");
	(void)unlink(marker);
	(void)unlink(at_root);
	procage_strings_free(findings);
	findings = NULL;
	if (!fresh_policy(t, ws))
		goto out;

	/*
	 * A second name inside a protected location is readable there: a
	 * hidden file's names must all lie in hidden locations.
	 */
	if (!path_join(t, in_protected, git_dir, "key-copy") || !hard_link(t, key, in_protected))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "read-file", in_protected,
		      NULL);
	check(t, refused_by_the_check(&r, key_canon, marker) && !strstr(r.out, "secret"), &r,
	      "r08: a hard link to ~/.ssh/id_ed25519 in the protected (readable) ~/.config/git "
	      "refuses the spawn before any child runs, and the error names the key");
	(void)unlink(marker);
	r = run_uncaged(ws, NULL, "read-file", in_protected, NULL);
	check(t, did_it(&r) && strstr(r.out, "r08: secret key"), &r,
	      "r08: control: without the cage the name in the protected location reads the key");
	(void)unlink(in_protected);

	/* A hidden literal target that has become a symbolic link since the cage was made. */
	if (!policy_rule(t, ws, "r08", token, PROCAGE_HIDE) || !hold(t, ws, "r08"))
		goto out;
	if (!fixture(t, rename(token, token_moved) == 0 && symlink(plain, token) == 0,
		     "r08: %s is replaced by a symbolic link", token))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, refused_by_the_check(&r, token_canon, marker) && strstr(r.error, "symbolic link"),
	      &r,
	      "r08: a hidden path that has become a symbolic link since the cage was made "
	      "refuses the spawn, naming it");
	(void)unlink(marker);
	(void)unlink(token);
	(void)rename(token_moved, token);
	if (!fresh_policy(t, ws))
		goto out;

	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, did_it(&r) && caged_path_exists(marker), &r,
	      "r08: control: with the links gone, the spawn runs again");
out:
	procage_strings_free(findings);
	caged_ws_free(ws);
}

/* ---- a protected file --------------------------------------------- */

void r08_a_hard_link_to_a_protected_file_is_refused(const struct tier *t)
{
	char config[PATH_MAX], config_canon[PATH_MAX], config_copy[PATH_MAX],
	    config_aside[PATH_MAX], bashrc[PATH_MAX], bashrc_canon[PATH_MAX], bashrc_copy[PATH_MAX],
	    bashrc_aside[PATH_MAX], key[PATH_MAX], key_canon[PATH_MAX], key_copy[PATH_MAX],
	    marker[PATH_MAX], head[PATH_MAX], objects[PATH_MAX];
	struct caged_result r;
	char **findings = NULL;
	struct caged_ws *ws = workspace(t, "r08");
	if (!ws || cage_refused_here(t, ws, "r08"))
		goto out;
	/* Second names directly in the workspace, and in notes/ (see entry_granted above). */
	if (!path_join(t, config, ws->rw, "repo/.git/config") ||
	    !path_join(t, head, ws->rw, "repo/.git/HEAD") ||
	    !path_join(t, objects, ws->rw, "repo/.git/objects/ab") ||
	    !path_join(t, config_copy, ws->rw, "config-copy") ||
	    !path_join(t, config_aside, ws->rw, "notes/config-copy") ||
	    !path_join(t, bashrc, ws->home, ".bashrc") ||
	    !path_join(t, bashrc_copy, ws->rw, "bashrc-copy") ||
	    !path_join(t, bashrc_aside, ws->rw, "notes/bashrc-copy") ||
	    !path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, key_copy, ws->rw, "notes/key-copy") ||
	    !path_join(t, marker, ws->rw, "notes/the-probe-ran"))
		goto out;
	if (!fixture(t,
		     put_file(config, config_text) && put_file(head, "ref: refs/heads/main\n") &&
			 make_dirs(objects) && put_file(bashrc, bashrc_text) &&
			 put_file(key, key_text) && put_file(marker, "") && unlink(marker) == 0,
		     "r08: fixtures in %s", ws->root) ||
	    !canonical(t, config, config_canon) || !canonical(t, bashrc, bashrc_canon) ||
	    !canonical(t, key, key_canon))
		goto out;

	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, did_it(&r) && caged_path_exists(marker), &r,
	      "r08: control: with no second name for a protected file, the spawn runs");
	(void)unlink(marker);

	if (!hard_link(t, config, config_copy))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "write-file", config_copy,
		      evil, NULL);
	check(t, refused_by_the_check(&r, config_canon, marker) && file_is(config, config_text), &r,
	      "r08: a hard link in the workspace to a repository's .git/config refuses the spawn "
	      "before any child runs, naming it");
	(void)unlink(marker);
	r = run_uncaged(ws, NULL, "write-file", config_copy, evil, NULL);
	check(t, did_it(&r) && file_is(config, evil), &r,
	      "r08: control: without the cage, writing through the link rewrites .git/config");
	put_file(config, config_text);
	(void)unlink(config_copy);

	if (!hard_link(t, bashrc, bashrc_copy))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "write-file", bashrc_copy,
		      evil, NULL);
	check(t, refused_by_the_check(&r, bashrc_canon, marker) && file_is(bashrc, bashrc_text), &r,
	      "r08: a hard link in the workspace to ~/.bashrc refuses the spawn before any child "
	      "runs, naming it");
	(void)unlink(marker);
	put_file(bashrc, bashrc_text);

	/*
	 * An exempt subtree is not examined for protected files, and is for
	 * hidden ones: with the home exempt, ~/.bashrc's second name is not
	 * listed and ~/.ssh/id_ed25519's is, and refuses the spawn.
	 */
	if (!hard_link(t, key, key_copy) || !exempt(t, ws, ws->home) || !report_mode(t, ws) ||
	    !hold(t, ws, "r08"))
		goto out;
	findings = hardlink_findings(ws);
	bool exempt_ok = strings_count(findings) == 1 && strings_name(findings, key_canon) &&
			 !strings_name(findings, bashrc_canon);
	if (!check(t, exempt_ok, NULL,
		   "r08: with the home exempt, the check lists the hidden key's second name and "
		   "not ~/.bashrc's"))
		strings_diag("findings", findings);
	procage_strings_free(findings);
	findings = NULL;
	if (!fixture(t,
		     procage_policy_set_hardlinks(ws->policy, PROCAGE_HARDLINKS_REFUSE, NULL) == 0,
		     "r08: back to refusing"))
		goto out;
	caged_ws_drop_cage(ws);
	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, refused_by_the_check(&r, key_canon, marker) && !strstr(r.error, bashrc_canon), &r,
	      "r08: and the spawn is refused for the key, not for ~/.bashrc");
	(void)unlink(marker);
	(void)unlink(key_copy);

	/*
	 * With the key's link gone the exempt run goes ahead: ~/.bashrc keeps
	 * its second name, and its own name stays read-only.
	 */
	if (!fixture(t, rename(bashrc_copy, bashrc_aside) == 0, "r08: the link moves to notes/"))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "write-file", bashrc, evil,
		      NULL);
	check(t, refused(&r) && caged_path_exists(marker) && file_is(bashrc, bashrc_text), &r,
	      "r08: with the home exempt the spawn goes ahead, and ~/.bashrc still cannot be "
	      "written through its own name");
	(void)unlink(marker);
	put_file(bashrc, bashrc_text);
	if (!fixture(t, rename(bashrc_aside, bashrc_copy) == 0, "r08: the link moves back"))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "write-file", bashrc, evil,
		      NULL);
	check(
	    t, refused(&r) && caged_path_exists(marker) && file_is(bashrc, bashrc_text), &r,
	    "r08: with the home exempt and the second name directly in the "
	    "workspace, ~/.bashrc still cannot be written through its own name");
	(void)unlink(marker);
	put_file(bashrc, bashrc_text);
	if (!fresh_policy(t, ws))
		goto out;

	/* Report mode: both listed, the run goes ahead, the protected names stay read-only. */
	if (!hard_link(t, config, config_aside) || !report_mode(t, ws) || !hold(t, ws, "r08"))
		goto out;
	findings = hardlink_findings(ws);
	bool listed = strings_count(findings) == 2 && strings_name(findings, config_canon) &&
		      strings_name(findings, bashrc_canon);
	if (!check(t, listed, NULL,
		   "r08: in report mode procage_cage_hardlinks lists .git/config and ~/.bashrc, "
		   "and only them"))
		strings_diag("findings", findings);
	procage_strings_free(findings);
	findings = NULL;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "write-file", config, evil,
		      NULL);
	check(t, refused(&r) && caged_path_exists(marker) && file_is(config, config_text), &r,
	      "r08: in report mode the spawn goes ahead, and .git/config still cannot be written "
	      "through its protected name");
	(void)unlink(marker);
	put_file(config, config_text);
	if (!fixture(t, rename(config_aside, config_copy) == 0, "r08: the link moves to %s",
		     config_copy))
		goto out;
	caged_ws_drop_cage(ws);
	if (!hold(t, ws, "r08"))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", "then", "write-file", config, evil,
		      NULL);
	check(
	    t, refused(&r) && caged_path_exists(marker) && file_is(config, config_text), &r,
	    "r08: in report mode, with the second name directly in the workspace, "
	    ".git/config still cannot be written through its protected name");
	(void)unlink(marker);
	put_file(config, config_text);
	(void)unlink(config_copy);
	(void)unlink(bashrc_copy);
	if (!fresh_policy(t, ws))
		goto out;

	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t, did_it(&r) && caged_path_exists(marker), &r,
	      "r08: control: with the links gone, the spawn runs again");
out:
	procage_strings_free(findings);
	caged_ws_free(ws);
}

/* ---- no second name during the run -------------------------------- */

void r08_no_hard_link_can_be_made_during_the_run(const struct tier *t)
{
	char key[PATH_MAX], token[PATH_MAX], config[PATH_MAX], bashrc[PATH_MAX], plain[PATH_MAX],
	    dest[PATH_MAX], sub[PATH_MAX], same_dir[PATH_MAX], other_dir[PATH_MAX],
	    uncaged[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r08");
	if (!ws || cage_refused_here(t, ws, "r08"))
		goto out;
	if (!path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, token, ws->rw, "private/token") ||
	    !path_join(t, config, ws->rw, "repo/.git/config") ||
	    !path_join(t, bashrc, ws->home, ".bashrc") ||
	    !path_join(t, plain, ws->rw, "notes/plain.txt") ||
	    !path_join(t, sub, ws->rw, "notes/sub") || !path_join(t, dest, ws->rw, "notes/copy") ||
	    !path_join(t, same_dir, ws->rw, "notes/plain-link") ||
	    !path_join(t, other_dir, sub, "plain-link") ||
	    !path_join(t, uncaged, ws->rw, "uncaged-copy"))
		goto out;
	if (!fixture(t,
		     put_file(key, key_text) && put_file(token, key_text) &&
			 put_file(config, config_text) && put_file(bashrc, bashrc_text) &&
			 put_file(plain, "r08: plain\n") && make_dirs(sub),
		     "r08: fixtures in %s", ws->root) ||
	    !policy_rule(t, ws, "r08", token, PROCAGE_HIDE))
		goto out;

	static const struct {
		const char *what;
		bool hidden;
	} sources[] = {
	    {"the hidden ~/.ssh/id_ed25519", true},
	    {"a file the policy hides inside the workspace", true},
	    {"a repository's protected .git/config in the workspace", false},
	    {"the protected ~/.bashrc", false},
	};
	const char *paths[] = {key, token, config, bashrc};
	const char *texts[] = {key_text, key_text, config_text, bashrc_text};
	for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
		unsigned long long ino = inode_of(paths[i]);
		r = run_caged(ws, NULL, "link", paths[i], dest, NULL);
		check(t, refused(&r) && !caged_path_exists(dest) && inode_of(paths[i]) == ino, &r,
		      "r08: link() from %s into the writable workspace is refused",
		      sources[i].what);
		(void)unlink(dest);
		/* A descriptor is a second way to name the file; only readable ones open. */
		if (!sources[i].hidden) {
			r = run_caged(ws, NULL, "flink", paths[i], dest, NULL);
			check(t, refused(&r) && !caged_path_exists(dest), &r,
			      "r08: linkat(AT_EMPTY_PATH) on a descriptor of %s into the workspace "
			      "is refused",
			      sources[i].what);
			(void)unlink(dest);
		}
		r = run_uncaged(ws, NULL, "link", paths[i], uncaged, NULL);
		bool made = did_it(&r) && file_is(uncaged, texts[i]);
		check(t, made, &r, "r08: control: without the cage, link() from %s succeeds",
		      sources[i].what);
		(void)unlink(uncaged);
		if (!sources[i].hidden) {
			r = run_uncaged(ws, NULL, "flink", paths[i], uncaged, NULL);
			control_or_skip(
			    t, "r08", HOST_FLINK, &r,
			    "linkat(AT_EMPTY_PATH) on a descriptor of a file it opened");
			(void)unlink(uncaged);
		}
	}

	r = run_caged(ws, NULL, "link", plain, same_dir, "then", "link", plain, other_dir, NULL);
	check(
	    t,
	    did_it(&r) && file_is(same_dir, "r08: plain\n") && file_is(other_dir, "r08: plain\n"),
	    &r,
	    "r08: control: in the cage, an ordinary workspace file is linked in its own directory "
	    "and into another one");
out:
	caged_ws_free(ws);
}

/* ---- the handoff audit -------------------------------------------- */

/*
 * The audit finds home locations through $HOME, read when it begins and
 * ends: the workspace's, as for the cage.
 */
struct home_swap {
	char *saved;
};

static void home_enter(const struct caged_ws *ws, struct home_swap *s)
{
	const char *home = getenv("HOME");
	s->saved = home ? strdup(home) : NULL;
	setenv("HOME", ws->home, 1);
}

static void home_leave(struct home_swap *s)
{
	if (s->saved)
		setenv("HOME", s->saved, 1);
	else
		unsetenv("HOME");
	free(s->saved);
	s->saved = NULL;
}

/*
 * Audit one run of the probe on the held cage: the findings, or NULL when
 * there is no cage (the sandbox is off) or the audit failed.
 */
static char **audited_run(struct caged_ws *ws, struct caged_result *r, const char *const *args)
{
	struct procage_error err = {0};
	struct procage_audit *audit = NULL;
	struct home_swap home;
	char **findings = NULL;
	home_enter(ws, &home);
	int rc = procage_audit_begin(ws->held, &audit, &err);
	home_leave(&home);
	if (rc < 0) {
		diag("  procage_audit_begin: %s", err.message);
		*r = run_caged_argv(ws, NULL, args);
		return NULL;
	}
	*r = run_caged_argv(ws, NULL, args);
	home_enter(ws, &home);
	rc = procage_audit_end(audit, &findings, &err);
	home_leave(&home);
	procage_audit_free(audit);
	if (rc < 0) {
		diag("  procage_audit_end: %s", err.message);
		return NULL;
	}
	return findings;
}

/* The findings are exactly the expected lines, in order. */
static bool findings_are(char **findings, const char *const *expected, size_t n)
{
	if (!findings || strings_count(findings) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(findings[i], expected[i]) != 0)
			return false;
	return true;
}

static void expected_diag(const char *const *expected, size_t n)
{
	diag("  expected: %zu", n);
	for (size_t i = 0; i < n; i++)
		diag("    %s", expected[i]);
}

void r07_the_audit_lists_what_a_run_made_in_handoff_locations(const struct tier *t)
{
	char rw[PATH_MAX], config[PATH_MAX], head[PATH_MAX], hook[PATH_MAX], readme[PATH_MAX],
	    src_dir[PATH_MAX], src[PATH_MAX], payload[PATH_MAX], vendor[PATH_MAX], lib[PATH_MAX],
	    nested[PATH_MAX], nested_hooks[PATH_MAX], nested_hook[PATH_MAX], nested_link[PATH_MAX],
	    nested_config[PATH_MAX], new_hook[PATH_MAX], e[6][PATH_MAX + 128];
	static const char link_target[] = "../../../../tools/payload.sh";
	struct caged_result r;
	char **findings = NULL;
	struct procage_error err = {0};
	struct caged_ws *ws = workspace(t, "r07");
	if (!ws || cage_refused_here(t, ws, "r07"))
		goto out;
	if (!canonical(t, ws->rw, rw) || !path_join(t, config, rw, "repo/.git/config") ||
	    !path_join(t, head, rw, "repo/.git/HEAD") ||
	    !path_join(t, hook, rw, "repo/.git/hooks/post-checkout") ||
	    !path_join(t, new_hook, rw, "repo/.git/hooks/pre-push") ||
	    !path_join(t, readme, rw, "repo/README.md") || !path_join(t, src_dir, rw, "repo/src") ||
	    !path_join(t, src, src_dir, "main.c") ||
	    !path_join(t, payload, rw, "tools/payload.sh") ||
	    /* vendor/lib: within the discovery bound (a grandchild of the tree). */
	    !path_join(t, vendor, rw, "vendor") || !path_join(t, lib, vendor, "lib") ||
	    !path_join(t, nested, lib, ".git") || !path_join(t, nested_hooks, nested, "hooks") ||
	    !path_join(t, nested_hook, nested_hooks, "pre-commit") ||
	    !path_join(t, nested_link, nested_hooks, "post-merge") ||
	    !path_join(t, nested_config, nested, "config"))
		goto out;
	if (!fixture(t,
		     put_file(config, config_text) && put_file(head, "ref: refs/heads/main\n") &&
			 put_file(hook, "#!/bin/sh\necho r07: the real hook\n") &&
			 put_file(readme, "r07: readme\n") && make_dirs(src_dir) &&
			 make_dirs(vendor) && put_file(payload, "#!/bin/sh\necho r07: payload\n"),
		     "r07: fixtures in %s", rw) ||
	    !hold(t, ws, "r07"))
		goto out;

	/* Untouched: nothing; ordinary files written: nothing either. */
	const char *quiet[] = {"print", "r07: ran", NULL};
	findings = audited_run(ws, &r, quiet);
	if (!check(t, did_it(&r) && findings && !findings[0], &r,
		   "r07: the audit of a run that touched nothing lists nothing"))
		strings_diag("findings", findings);
	procage_strings_free(findings);
	const char *ordinary[] = {"write-file",
				  readme,
				  "r07: edited",
				  "then",
				  "write-file",
				  src,
				  "int main(void) { return 0; }\n",
				  NULL};
	findings = audited_run(ws, &r, ordinary);
	if (!check(t, did_it(&r) && file_is(readme, "r07: edited") && findings && !findings[0], &r,
		   "r07: the audit of a run that wrote only ordinary files lists nothing"))
		strings_diag("findings", findings);
	procage_strings_free(findings);

	/* A nested repository made in the run, with a hook and a symlinked hook. */
	const char *make_nested[] = {
	    "mkdir", lib,	   "then",	  "mkdir",
	    nested,  "then",	   "mkdir",	  nested_hooks,
	    "then",  "write-file", nested_hook,	  "#!/bin/sh\necho r07: planted\n",
	    "then",  "symlink",	   link_target,	  nested_link,
	    "then",  "write-file", nested_config, "[core]\n\thooksPath = hooks\n",
	    "then",  "write-file", readme,	  "r07: edited again",
	    NULL};
	findings = audited_run(ws, &r, make_nested);
	snprintf(e[0], sizeof e[0], "created: '%s' (a file)", nested_config);
	snprintf(e[1], sizeof e[1], "created: '%s' (a directory)", nested_hooks);
	snprintf(e[2], sizeof e[2], "created: '%s' (a symbolic link to '%s')", nested_link,
		 link_target);
	snprintf(e[3], sizeof e[3], "created: '%s' (a file)", nested_hook);
	const char *made[] = {e[0], e[1], e[2], e[3]};
	if (!check(t, did_it(&r) && findings_are(findings, made, 4), &r,
		   "r07: the audit lists exactly the nested repository's new config, hooks "
		   "directory, hook and symlinked hook")) {
		strings_diag("findings", findings);
		expected_diag(made, 4);
	}
	procage_strings_free(findings);
	findings = NULL;

	/* With the class waived the repository's own config is writable: changed. */
	caged_ws_drop_cage(ws);
	if (!fixture(t, procage_policy_waive(ws->policy, "trust-handoff", &err) == 0,
		     "r07: the policy waives trust-handoff (%s)", err.message) ||
	    !hold(t, ws, "r07"))
		goto out;
	const char *change[] = {"write-file", config,	"[core]\n\thooksPath = ../tools\n", "then",
				"write-file", new_hook, "#!/bin/sh\necho r07: planted\n",   NULL};
	findings = audited_run(ws, &r, change);
	/*
	 * The config now names ../tools as the hooks directory (relative to
	 * the work tree): the audit follows it and lists what git would run
	 * from there, as a location it did not watch before.
	 */
	char tools[PATH_MAX];
	snprintf(tools, sizeof tools, "%s", payload);
	*strrchr(tools, '/') = '\0';
	snprintf(e[0], sizeof e[0], "changed: '%s' (a file)", config);
	snprintf(e[1], sizeof e[1], "created: '%s' (a file)", new_hook);
	snprintf(e[2], sizeof e[2], "created: '%s' (a directory)", tools);
	snprintf(e[3], sizeof e[3], "created: '%s' (a file)", payload);
	const char *changed[] = {e[0], e[1], e[2], e[3]};
	if (!check(t, did_it(&r) && findings_are(findings, changed, 4), &r,
		   "r07: with trust-handoff waived, the audit lists exactly the changed "
		   ".git/config, the new hook and the hooks directory it now names, not the "
		   "untouched hook")) {
		strings_diag("findings", findings);
		expected_diag(changed, 4);
	}
	procage_strings_free(findings);
	findings = NULL;
	const char *after[] = {"print", "r07: ran", NULL};
	findings = audited_run(ws, &r, after);
	if (!check(t, did_it(&r) && findings && !findings[0], &r,
		   "r07: the next run, which touches nothing, lists nothing again"))
		strings_diag("findings", findings);
out:
	procage_strings_free(findings);
	caged_ws_free(ws);
}
