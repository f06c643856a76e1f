/*
 * Listing a directory that holds a hidden location (the home holding
 * ~/.ssh). On tier T2 entry grants leave it without a rule, so it cannot
 * be listed; with listing-shows-hidden-names accepted (the default policy
 * does; the canary takes it out first) the broker opens it for listing. The hidden entry's name
 * then shows (as the empty mask over it does on tier T1), never what it holds: not through the
 * descriptor the broker handed over, not from it as the working directory, and the hidden directory
 * itself is never listed.
 *
 * Judged from the probe's output (the names it printed, the secret it
 * must not print) and its exit code.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static bool printed(const struct caged_result *r, const char *text)
{
	return strstr(r->out, text) != NULL;
}

/* The workspace's default policy, read back without listing-shows-hidden-names. */
static bool listing_not_accepted(const struct tier *t, struct caged_ws *ws)
{
	static const char accepted[] = ", \"listing-shows-hidden-names\"";
	struct procage_error err = {0};
	struct procage_policy *p = NULL;
	char *text = NULL, *at;
	if (procage_policy_to_json(ws->policy, &text, &err) == 0 &&
	    (at = strstr(text, accepted)) != NULL) {
		memmove(at, at + sizeof accepted - 1, strlen(at + sizeof accepted - 1) + 1);
		if (procage_policy_from_json_text(text, "r45", &p, &err) == 0) {
			procage_policy_free(ws->policy);
			ws->policy = p;
		}
	}
	procage_free(text);
	return fixture(t, p != NULL,
		       "r45: the default policy without listing-shows-hidden-names (%s)",
		       err.message);
}

void r45_a_brokered_listing_shows_names_never_contents(const struct tier *t)
{
	char key[PATH_MAX], notes[PATH_MAX], ssh[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r45");
	if (!ws || cage_refused_here(t, ws, "r45"))
		goto out;
	if (!path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, notes, ws->home, "notes") || !path_join(t, ssh, ws->home, ".ssh") ||
	    !fixture(t, put_file(key, "LISTING-SECRET\n") && put_file(notes, "visible\n"),
		     "listing: fixtures in %s", ws->home))
		goto out;

	if (!listing_not_accepted(t, ws))
		goto out;
	r = run_caged(ws, NULL, "list-dir", ws->home, NULL);
	if (tier_is_t1(t))
		check(t, did_it(&r) && printed(&r, ".ssh") && printed(&r, "notes"), &r,
		      "r45: control: on tier T1 the home is listed (the mask over ~/.ssh shows its "
		      "name)");
	else
		check(t, refused(&r) && !printed(&r, "notes"), &r,
		      "r45: without listing-shows-hidden-names the home holding ~/.ssh is not "
		      "listed on tier T2");

	if (!policy_accept(t, ws, "r45", "listing-shows-hidden-names"))
		goto out;
	r = run_caged(ws, NULL, "list-dir", ws->home, NULL);
	check(t, did_it(&r) && printed(&r, ".ssh") && printed(&r, "notes"), &r,
	      "r45: control: with listing-shows-hidden-names the home is listed, ~/.ssh by name");
	r = run_caged(ws, NULL, "list-then-open", ws->home, ".ssh/id_ed25519", NULL);
	check(t, refused(&r) && !printed(&r, "LISTING-SECRET"), &r,
	      "r45: the hidden key is not read through the listed directory's descriptor, nor "
	      "from it as the working directory");
	r = run_caged(ws, NULL, "list-dir", ssh, NULL);
	check(t, refused(&r) && !printed(&r, "id_ed25519"), &r,
	      "r45: the hidden directory itself is never listed");
	r = run_caged(ws, NULL, "list-then-open", ws->home, "notes", NULL);
	check(t, did_it(&r) && printed(&r, "visible"), &r,
	      "r45: control: a readable file is read through the listed directory's descriptor");
	r = run_uncaged(ws, NULL, "list-then-open", ws->home, ".ssh/id_ed25519", NULL);
	check(t, did_it(&r) && printed(&r, "LISTING-SECRET"), &r,
	      "r45: control: without the cage the key is read through the home's descriptor");
out:
	caged_ws_free(ws);
}
