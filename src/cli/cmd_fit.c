/* procage fit: what a policy becomes on this host, change by change. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int fit_print(const struct procage_policy *policy, const struct procage_policy *fitted,
		     char **changes, bool json, struct procage_error *err)
{
	struct procage_host_facts f;
	char *text = NULL;
	size_t n = 0;
	while (changes[n])
		n++;
	if (procage_host_facts(&f, err) != 0 || procage_policy_to_json(fitted, &text, err) != 0)
		return -1;
	if (json) {
		printf("{\"tier\":\"%s\"", procage_tier_name(f.tier));
		cli_resolutions_print(policy, true);
		fputs(",\"changes\":[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? "," : "", stdout);
			json_write_string(stdout, changes[i]);
		}
		printf("],\"policy\":%s}\n", text);
	} else {
		if (n == 0)
			printf("this host (tier %s) enforces the policy as it is\n",
			       procage_tier_name(f.tier));
		else
			printf("this host (tier %s) enforces the policy as follows (%zu "
			       "item%s):\n",
			       procage_tier_name(f.tier), n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++)
			printf("  - %s\n", changes[i]);
		printf("the fitted policy:\n%s", text);
	}
	procage_free(text);
	return 0;
}

/*
 * The default policy makes the working directory writable; without one
 * (it was removed, or is out of reach) there is nothing to make it from.
 */
static int cwd_failure(struct procage_error *err)
{
	int e = errno;
	snprintf(err->message, sizeof err->message,
		 "cannot find the working directory, which the default policy makes writable: "
		 "%s; change to an existing directory or give --policy FILE",
		 strerror(e));
	err->sys_errno = e;
	err->step = PROCAGE_STEP_NONE;
	return err->code = -e;
}

int cmd_fit(int argc, char **argv)
{
	const char *file = NULL;
	bool json = false;
	char cwd[PATH_MAX];
	for (int i = 1; i < argc; i++) {
		if (cli_help_wanted(argv[i]))
			return cli_help("fit");
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
			file = argv[++i];
		else
			return cli_usage_error("fit: unknown option '%s'", argv[i]);
	}
	struct procage_error err = { 0 };
	struct procage_policy *policy = NULL, *fitted = NULL;
	char **changes = NULL;
	int rc;
	if (file)
		rc = procage_policy_from_json_file(file, &policy, &err);
	else if (getcwd(cwd, sizeof cwd))
		rc = procage_policy_new_default(cwd, &policy, &err);
	else
		rc = cwd_failure(&err);
	/* Said first: a rule refused through a link is easier read beside it. */
	if (rc == 0 && !json)
		cli_resolutions_print(policy, false);
	if (rc == 0)
		rc = procage_policy_fit(policy, &fitted, &changes, &err);
	if (rc == 0)
		rc = fit_print(policy, fitted, changes, json, &err);
	if (rc != 0)
		cli_report_error(&err, json);
	procage_strings_free(changes);
	procage_policy_free(fitted);
	procage_policy_free(policy);
	return rc == 0 ? 0 : 1;
}
