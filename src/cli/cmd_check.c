/* procage check: is this policy file valid, and can this host enforce it? */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_check(int argc, char **argv)
{
	bool json = false;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		if (cli_help_wanted(argv[i]))
			return cli_help("check");
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("check: unknown option '%s'", argv[i]);
		else if (file)
			return cli_usage_error("check: one policy file at a time");
		else
			file = argv[i];
	}
	if (!file)
		return cli_usage_error("check: no policy file given");

	struct procage_error err;
	struct procage_policy *policy = NULL;
	struct procage_cage *cage = NULL;
	if (procage_policy_from_json_file(file, &policy, &err) != 0 ||
	    procage_cage_new(policy, &cage, &err) != 0) {
		cli_report_error(&err, json);
		procage_policy_free(policy);
		return 1;
	}
	const char *tier = procage_tier_name(procage_cage_tier(cage));
	/* A policy file its own cage may write: say what runs make of it. */
	struct policy_source src = { .dir_fd = -1 };
	char grant[4096] = "";
	if (policy_file_read(file, &src, &err) != 0 ||
	    procage_cage_write_grant_of(cage, src.dir_fd, grant, sizeof grant) != 1)
		grant[0] = '\0';
	policy_source_free(&src);
	if (json) {
		printf("{\"policy\":");
		json_write_string(stdout, file);
		printf(",\"valid\":true,\"tier\":");
		json_write_string(stdout, tier);
		if (grant[0]) {
			printf(",\"inside_write_grant\":");
			json_write_string(stdout, grant);
		}
		printf("}\n");
	} else {
		printf("%s: valid; this host enforces it at tier %s\n", file, tier);
		if (grant[0]) {
			fputs("procage: warning: the policy file lies inside its own write grant ",
			      stderr);
			text_write(stderr, grant);
			fputs(": runs keep it read-only, and procage run refuses it after any "
			      "change made outside procage until --trust-policy confirms it\n",
			      stderr);
		}
	}
	procage_cage_free(cage);
	procage_policy_free(policy);
	return 0;
}
