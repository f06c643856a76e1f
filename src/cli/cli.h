/* The procage command: shared pieces of its verbs. */
#ifndef PROCAGE_CLI_H
#define PROCAGE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "procage.h"

/* Exit codes of procage's own failures, as env, timeout and chroot use them. */
enum {
	EXIT_PROCAGE_FAILED = 125,
	EXIT_CANNOT_EXECUTE = 126,
	EXIT_NOT_FOUND = 127,
	EXIT_USAGE = 2,
};

int cmd_run(int argc, char **argv);
int cmd_facts(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_fit(int argc, char **argv);

/* Print "procage: MESSAGE" (and a hint when one helps) or its JSON form. */
void cli_report_error(const struct procage_error *err, bool json);
/* Print a usage problem and return EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* JSON output helpers: a quoted, escaped string. */
void json_write_string(FILE *out, const char *s);
/* The name of an errno ("EACCES"), or NULL. */
const char *errno_name(int e);

#endif
