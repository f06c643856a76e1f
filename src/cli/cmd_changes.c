/*
 * procage changes: the change sets runs with --changes overlay kept, and
 * what happens to a run's change set when it ends (--apply). Lines name
 * paths the run chose: they are printed escaped.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common/text_escape.h"

static void lines_print(FILE *f, char **lines)
{
	for (size_t i = 0; lines && lines[i]; i++) {
		/* Escaped, without the quotes around the whole line. */
		char *shown = escape_quoted_dup(lines[i]);
		size_t len = shown ? strlen(shown) : 0;
		fprintf(f, "%s%.*s\n", f == stderr ? "procage: " : "", len >= 2 ? (int)len - 2 : 1,
			len >= 2 ? shown + 1 : "?");
		free(shown);
	}
}

/*
 * What applying said: every line but "applied: PATH"; those only when
 * something was not applied (the partial result is then stated), at
 * most APPLIED_SHOWN of them and the count of the rest.
 */
#define APPLIED_SHOWN 20
static void apply_lines_print(char **lines)
{
	size_t applied = 0, other = 0, shown = 0;
	for (size_t i = 0; lines && lines[i]; i++)
		*(strncmp(lines[i], "applied: ", 9) == 0 ? &applied : &other) += 1;
	for (size_t i = 0; lines && lines[i]; i++) {
		bool is_applied = strncmp(lines[i], "applied: ", 9) == 0;
		if (is_applied && (other == 0 || shown++ >= APPLIED_SHOWN))
			continue;
		char *one[2] = { lines[i], NULL };
		lines_print(stderr, one);
	}
	if (other && applied > APPLIED_SHOWN)
		fprintf(stderr, "procage: ... and %zu more applied\n", applied - APPLIED_SHOWN);
}

static bool kept_say(const char *id, int rule, int kept, bool any_line)
{
	if (!kept)
		return false;
	if (rule == PROCAGE_APPLY_NONE)
		fprintf(stderr, "procage: changes kept as %s: procage changes apply %s\n", id, id);
	else
		fprintf(stderr,
			"procage: change set %s keeps what was not applied; procage changes "
			"apply %s PATH applies one, procage changes discard %s drops it\n",
			id, id, id);
	return !any_line && rule != PROCAGE_APPLY_NONE;
}

bool cli_changes_after_run(const struct procage_run *run, int rule, bool json)
{
	const char *id = procage_run_changes_id(run);
	struct procage_error err = { 0 };
	char **lines = NULL;
	int kept = 0;
	if (!id)
		return false;
	if (procage_changes_apply(id, rule, NULL, 0, &lines, &kept, &err) != 0) {
		cli_report_error(&err, json);
		fprintf(stderr, "procage: the change set %s is kept\n", id);
		return true;
	}
	apply_lines_print(lines);
	kept_say(id, rule, kept, lines != NULL);
	procage_strings_free(lines);
	return false;
}

/* PATH arguments as absolute paths (relative to the working directory). */
static char **paths_absolute(int n, char **args)
{
	char cwd[PATH_MAX];
	char **out = calloc((size_t)n + 1, sizeof *out);
	if (!out || !getcwd(cwd, sizeof cwd)) {
		free(out);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		size_t len;
		if (args[i][0] == '/' ? asprintf(&out[i], "%s", args[i]) < 0
				      : asprintf(&out[i], "%s/%s", cwd, args[i]) < 0) {
			procage_strings_free(out);
			return NULL;
		}
		/* A trailing slash names the same directory. */
		while ((len = strlen(out[i])) > 1 && out[i][len - 1] == '/')
			out[i][len - 1] = '\0';
	}
	return out;
}

static int changes_apply_verb(const char *id, int rule, int n, char **args)
{
	struct procage_error err = { 0 };
	char **paths = paths_absolute(n, args), **lines = NULL;
	int kept = 0;
	if (!paths)
		return cli_usage_error("changes apply: out of memory");
	int rc = procage_changes_apply(id, rule, (const char *const *)paths, (size_t)n, &lines,
				       &kept, &err);
	procage_strings_free(paths);
	if (rc != 0) {
		cli_report_error(&err, false);
		return EXIT_PROCAGE_FAILED;
	}
	apply_lines_print(lines);
	if (kept && lines)
		kept_say(id, rule, kept, true);
	procage_strings_free(lines);
	return 0;
}

/*
 * The diff on stdout. File content is the run's: on a terminal, control
 * bytes but tab are shown as \xNN so that the run cannot drive the
 * terminal; into a pipe or a file it is written as it is, for patch(1).
 */
static void diff_print(const char *text)
{
	bool tty = isatty(STDOUT_FILENO);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (tty && ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f))
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
}

static int changes_diff_verb(const char *id, int n, char **args)
{
	struct procage_error err = { 0 };
	char **paths = paths_absolute(n, args), *text = NULL;
	if (!paths)
		return cli_usage_error("changes diff: out of memory");
	int rc = procage_changes_diff(id, (const char *const *)paths, (size_t)n, &text, &err);
	procage_strings_free(paths);
	if (rc != 0) {
		cli_report_error(&err, false);
		return EXIT_PROCAGE_FAILED;
	}
	diff_print(text);
	procage_free(text);
	return fflush(stdout) == 0 ? 0 : EXIT_PROCAGE_FAILED;
}

int cmd_changes(int argc, char **argv)
{
	struct procage_error err = { 0 };
	char **lines = NULL;
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "list") == 0 && argc == 2) {
		if (procage_changes_list(&lines, &err) != 0) {
			cli_report_error(&err, false);
			return EXIT_PROCAGE_FAILED;
		}
		lines_print(stdout, lines);
		procage_strings_free(lines);
		return 0;
	}
	if (argc < 3)
		return cli_usage_error("changes: expected list, show ID, diff ID [PATH...], apply [--all] ID "
				       "[PATH...] or discard ID");
	if (strcmp(what, "show") == 0 && argc == 3) {
		if (procage_changes_show(argv[2], &lines, &err) != 0) {
			cli_report_error(&err, false);
			return EXIT_PROCAGE_FAILED;
		}
		lines_print(stdout, lines);
		procage_strings_free(lines);
		return 0;
	}
	if (strcmp(what, "discard") == 0 && argc == 3) {
		if (procage_changes_discard(argv[2], &err) != 0) {
			cli_report_error(&err, false);
			return EXIT_PROCAGE_FAILED;
		}
		return 0;
	}
	if (strcmp(what, "apply") == 0) {
		bool all = strcmp(argv[2], "--all") == 0;
		if (all && argc < 4)
			return cli_usage_error("changes apply --all: expected an ID");
		int at = all ? 3 : 2;
		/* Paths named one by one are applied as asked: the caller has looked at them. */
		int rule = all || argc > at + 1 ? PROCAGE_APPLY_ALL : PROCAGE_APPLY_SAFE;
		return changes_apply_verb(argv[at], rule, argc - at - 1, argv + at + 1);
	}
	if (strcmp(what, "diff") == 0)
		return changes_diff_verb(argv[2], argc - 3, argv + 3);
	return cli_usage_error("changes: unknown '%s' or wrong arguments", what);
}
