/*
 * The policy of procage run and exec: the policy file or the default one,
 * then the flags in order, --write-new directories and profile caches made
 * (or, in a dry run, listed).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_options.h"

/*
 * The write rule for path's target or a directory above it (a read of it
 * is covered; said, not refused): true with its path in holder. The
 * target, not the spelling: a link in the workspace may lead out of it.
 */
static bool write_grant_holding(const struct procage_policy *p, const char *path, char *holder,
				size_t size)
{
	char target[PATH_MAX];
	if (!realpath(path, target) || snprintf(holder, size, "%s", target) >= (int)size)
		return false;
	for (;;) {
		if (procage_policy_access(p, holder) == PROCAGE_WRITE)
			return true;
		char *slash = strrchr(holder, '/');
		if (!slash || holder[1] == '\0')
			return false;
		slash[slash == holder] = '\0'; /* "/a" becomes "/" */
	}
}

/* Add path to the list of directories a run would make, once. */
static void would_make_add(const char **would_make, const char *path)
{
	while (*would_make && strcmp(*would_make, path) != 0)
		would_make++;
	*would_make = path;
}

/*
 * --write-new PATH: a write grant whose directory procage makes when it is
 * missing (the library's checks: parent exists, no class location in or
 * under it). A dry run makes nothing: an existing directory is granted as
 * a run would grant it, a missing one is only checked and joins
 * would_make, which the dry run lists beside the policy.
 */
static int new_directory_apply(const struct run_options *o, struct procage_policy *p,
			       const char *path, const char **would_make, struct procage_error *err)
{
	bool missing = access(path, F_OK) != 0;
	int rc = procage_policy_allow_new_directory(p, path, o->dry_run, err);
	if (rc == 0 && o->dry_run)
		rc = procage_policy_allow(p, path, PROCAGE_WRITE, err);
	if (rc == 1 && would_make) {
		would_make_add(would_make, path);
	} else if (rc == 0 && missing && !o->dry_run) {
		cli_note(o->json, "--write-new %s: made (mode 0700) and granted", path);
	}
	return rc < 0 ? rc : 0;
}

/*
 * A profile's cache: made with its missing parents inside the caller's home
 * (the library's checks), without a word on a run, since the profile says
 * so; a dry run lists it with the directories a run would make.
 */
static int cache_directory_apply(const struct run_options *o, struct procage_policy *p,
				 const char *path, const char **would_make,
				 struct procage_error *err)
{
	int rc = procage_policy_allow_cache_directory(p, path, o->dry_run, err);
	if (rc == 1 && would_make)
		would_make_add(would_make, path);
	return rc < 0 ? rc : 0;
}

/*
 * The policy file is read once (src) and stays read-only for the whole run,
 * wherever it lies: no run changes the policy of the next one.
 */
int run_policy_build(const struct run_options *o, const char *workdir,
		     const struct policy_source *src, struct procage_policy **out,
		     const char **would_make, struct procage_error *err)
{
	int rc = src ? procage_policy_from_json_text(src->text, o->policy_file, out, err)
		     : procage_policy_new_default(workdir, out, err);
	if (rc == 0 && src)
		rc = procage_policy_allow(*out, src->canonical, PROCAGE_PROTECT, err);
	for (size_t i = 0; rc == 0 && i < o->n_flags; i++) {
		const struct policy_flag *f = &o->flags[i];
		char holder[PATH_MAX];
		bool covered = f->option == OPT_READ &&
			       write_grant_holding(*out, f->value, holder, sizeof holder);
		rc = f->option == OPT_WRITE_NEW
			 ? new_directory_apply(o, *out, f->value, would_make, err)
		     : f->option == OPT_CACHE
			 ? cache_directory_apply(o, *out, f->value, would_make, err)
			 : run_flag_apply(*out, f, err);
		if (rc == 0 && covered)
			cli_note(o->json,
				 "--read %s: covered, the policy already lets %s be written",
				 f->value, strcmp(holder, f->value) == 0 ? "it" : holder);
	}
	if (rc == 0 && o->allow_host && procage_policy_network(*out) != PROCAGE_NET_PROXY)
		cli_note(o->json,
			 "warning: --allow-host has no effect: the network is %s, and only --net "
			 "proxy reaches the hosts it names",
			 procage_policy_network(*out) == PROCAGE_NET_ON ? "on (every host)"
									: "off");
	if (rc == 0 && o->no_private_tmp)
		rc = procage_policy_set_private_tmp(*out, false, err);
	if (rc == 0 && o->changes_overlay)
		rc = procage_policy_set_changes(*out, PROCAGE_CHANGES_OVERLAY, err);
	/* Exec mode has no supervisor to observe with. */
	if (rc == 0 && strcmp(o->verb, "run") == 0)
		rc = procage_policy_set_explain(*out, !o->explain_off, err);
	if (rc == 0)
		rc = cli_nofile_prepare(*out, err);
	return rc;
}
