/*
 * procage run --dry-run: what a run would be given, without running it.
 * The effective policy (the default one or the policy file, then the flags,
 * in that order), the changes procage fit would make to it on this host,
 * and whether the cage would be made: the same checks a run makes, before
 * any child exists. Written on stdout, readable or as one JSON object. Every
 * grant shows once: in the policy, or, for a --write-new directory (of a
 * flag or a profile) a run would make first, in the list beside it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

struct fit_outcome {
	struct procage_host_facts facts;
	bool facts_known;
	char **changes;
	struct procage_error err; /* code 0: fitted */
};

static void fit_outcome_find(const struct procage_policy *policy, struct fit_outcome *f)
{
	struct procage_policy *fitted = NULL;
	f->changes = NULL;
	/* A failure is kept in f->err and printed in place of the changes. */
	f->facts_known = procage_host_facts(&f->facts, &f->err) == 0;
	if (f->facts_known && procage_policy_fit(policy, &fitted, &f->changes, &f->err) != 0)
		f->changes = NULL;
	procage_policy_free(fitted);
}

void cli_resolutions_print(const struct procage_policy *policy, bool json)
{
	struct procage_error err = {0};
	char **lines = NULL;
	int rc = procage_policy_resolutions(policy, &lines, &err);
	if (json) {
		fputs(",\"resolutions\":", stdout);
		if (rc != 0) {
			fputs("{\"error\":", stdout);
			json_write_string(stdout, err.message);
			fputc('}', stdout);
		}
		for (size_t i = 0; rc == 0 && lines[i]; i++) {
			fputs(i ? "," : "[", stdout);
			json_write_string(stdout, lines[i]);
		}
		if (rc == 0)
			fputs(lines[0] ? "]" : "[]", stdout);
	} else if (rc != 0) {
		fputs("what the rules resolve to cannot be said: ", stdout);
		text_write(stdout, err.message);
		fputc('\n', stdout);
	} else if (lines[0]) {
		fputs("rules that resolve to another path than they spell (the cage binds the "
		      "target):\n",
		      stdout);
		for (size_t i = 0; lines[i]; i++) {
			fputs("  ", stdout);
			text_write(stdout, lines[i]);
			fputc('\n', stdout);
		}
	}
	procage_strings_free(lines);
}

static void json_print(const struct procage_policy *policy, const char *policy_text,
		       const char *const *would_make, const struct fit_outcome *fit, const struct procage_error *cage_err,
		       const char *policy_file, bool trust_policy, char *const *command,
		       const char *const sources[2])
{
	printf("{\"dry_run\":true,\"policy_file\":");
	if (policy_file)
		json_write_string(stdout, policy_file);
	else
		fputs("null", stdout);
	fputs(",\"config\":[", stdout);
	for (size_t i = 0; i < 2 && sources[i]; i++) {
		fputs(i ? "," : "", stdout);
		json_write_string(stdout, sources[i]);
	}
	fputc(']', stdout);
	printf(",\"policy\":%s,\"write_new_would_make\":[", policy_text);
	for (size_t i = 0; would_make[i]; i++) {
		fputs(i ? "," : "", stdout);
		json_write_string(stdout, would_make[i]);
	}
	fputc(']', stdout);
	cli_resolutions_print(policy, true);
	printf(",\"tier\":\"%s\",\"fit\":",
	       fit->facts_known ? procage_tier_name(fit->facts.tier) : "unknown");
	if (fit->err.code) {
		fputs("{\"error\":", stdout);
		json_write_string(stdout, fit->err.message);
		fputc('}', stdout);
	} else {
		fputs("{\"changes\":[", stdout);
		for (size_t i = 0; fit->changes[i]; i++) {
			fputs(i ? "," : "", stdout);
			json_write_string(stdout, fit->changes[i]);
		}
		fputs("]}", stdout);
	}
	printf(",\"cage\":{\"made\":%s", cage_err->code ? "false" : "true");
	if (cage_err->code) {
		fputs(",\"error\":", stdout);
		json_write_string(stdout, cage_err->message);
	}
	printf(",\"trust_policy_would_record\":%s},\"command\":[",
	       trust_policy && policy_file ? "true" : "false");
	for (size_t i = 0; command && command[i]; i++) {
		fputs(i ? "," : "", stdout);
		json_write_string(stdout, command[i]);
	}
	fputs("]}\n", stdout);
}

static void text_print(const struct procage_policy *policy, const char *policy_text,
		       const char *const *would_make, const struct fit_outcome *fit, const struct procage_error *cage_err,
		       const char *policy_file, bool trust_policy, char *const *command,
		       const char *const sources[2])
{
	size_t n = 0;
	printf("procage: dry run, nothing is run\n");
	for (size_t i = 0; i < 2 && sources[i]; i++) {
		fputs("the configuration's flags come first: ", stdout);
		text_write(stdout, sources[i]);
		fputc('\n', stdout);
	}
	if (policy_file) {
		fputs("the effective policy (the policy file ", stdout);
		text_write(stdout, policy_file);
		fputs(", then the flags):\n", stdout);
	} else {
		printf("the effective policy (the default one, then the flags):\n");
	}
	fputs(policy_text, stdout);
	if (would_make[0])
		fputs("--write-new: a run would make these (mode 0700), then grant them for "
		      "writing; the policy above lacks them until then:\n",
		      stdout);
	for (size_t i = 0; would_make[i]; i++) {
		fputs("  ", stdout);
		text_write(stdout, would_make[i]);
		fputc('\n', stdout);
	}
	cli_resolutions_print(policy, false);
	while (!fit->err.code && fit->changes[n])
		n++;
	if (fit->err.code)
		printf("procage fit on this host%s%s%s: %s\n", fit->facts_known ? " (tier " : "",
		       fit->facts_known ? procage_tier_name(fit->facts.tier) : "",
		       fit->facts_known ? ")" : "", fit->err.message);
	else if (n == 0)
		printf("this host (tier %s) enforces the policy as it is\n",
		       procage_tier_name(fit->facts.tier));
	else
		printf("procage fit: this host (tier %s) would enforce the policy with %zu "
		       "change%s:\n",
		       procage_tier_name(fit->facts.tier), n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		printf("  - %s\n", fit->changes[i]);
	if (cage_err->code) {
		fputs("the cage would be refused: ", stdout);
		text_write(stdout, cage_err->message);
		fputc('\n', stdout);
	} else {
		printf("the cage would be made%s", command && command[0] ? " for:" : "");
		for (size_t i = 0; command && command[i]; i++) {
			fputc(' ', stdout);
			text_write(stdout, command[i]);
		}
		fputc('\n', stdout);
	}
	if (trust_policy && policy_file)
		printf("--trust-policy: a run would record the policy file's text (a dry run does "
		       "not)\n");
}

int cli_dry_run_print(const struct procage_policy *policy, const char *const *would_make,
		      const struct procage_error *cage_err, const char *policy_file,
		      const struct cli_config *config, bool trust_policy, char *const *command,
		      bool json)
{
	struct procage_error err = {0};
	struct fit_outcome fit = {0};
	char *text = NULL;
	if (procage_policy_to_json(policy, &text, &err) != 0) {
		cli_report_error(&err, json);
		return EXIT_PROCAGE_FAILED;
	}
	fit_outcome_find(policy, &fit);
	const char *sources[2] = {NULL, NULL};
	if (config && config->defaults)
		sources[0] = config->user_path;
	if (config && config->project_flags)
		sources[sources[0] ? 1 : 0] = config->project_path;
	if (json) {
		json_print(policy, text, would_make, &fit, cage_err, policy_file, trust_policy,
			   command, sources);
	} else {
		text_print(policy, text, would_make, &fit, cage_err, policy_file, trust_policy,
			   command, sources);
	}
	procage_strings_free(fit.changes);
	procage_free(text);
	return cage_err->code ? EXIT_PROCAGE_FAILED : 0;
}
