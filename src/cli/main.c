/* procage: run a command in a cage. The library does the work; this speaks. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#if defined(__SANITIZE_ADDRESS__)
/*
 * The sanitizer build's leak check, at exit: the proxy's resolver threads
 * are never waited for (a lookup cannot be interrupted, and the end of a
 * run must not hang on a dead name server: src/lib/proxy/resolver.c), so
 * a lookup still in flight when procage exits holds a buffer glibc's
 * resolver allocated. That buffer is glibc's, not lost by procage.
 */
const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
	return "leak:res_context_send\n";
}
#endif

int main(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("no verb given");
	const char *verb = argv[1];
	if (cli_help_wanted(verb))
		return cli_help(NULL);
	if (strcmp(verb, "help") == 0) {
		if (argc > 3)
			return cli_usage_error("help: one verb at a time");
		if (argc == 3 && strcmp(argv[2], "profiles") == 0)
			return cli_profiles_help();
		return cli_help(argc == 3 ? argv[2] : NULL);
	}
	if (strcmp(verb, "--version") == 0) {
		printf("procage %s\n", PROCAGE_VERSION);
		return 0;
	}
	if (strcmp(verb, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(verb, "exec") == 0)
		return cmd_exec(argc - 1, argv + 1);
	if (strcmp(verb, "learn") == 0)
		return cmd_learn(argc - 1, argv + 1);
	if (strcmp(verb, "facts") == 0)
		return cmd_facts(argc - 1, argv + 1);
	if (strcmp(verb, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(verb, "fit") == 0)
		return cmd_fit(argc - 1, argv + 1);
	if (strcmp(verb, "trust") == 0)
		return cmd_trust(argc - 1, argv + 1);
	if (strcmp(verb, "changes") == 0)
		return cmd_changes(argc - 1, argv + 1);
	if (strcmp(verb, "profiles") == 0)
		return cmd_profiles(argc - 1, argv + 1);
	return cli_usage_error("unknown verb '%s'", verb);
}
