/*
 * The refusals printed after a run. With --explain on (the default) they
 * are printed only when the command failed, and then only those that could
 * explain the failure, most relevant first:
 *
 *   1. changes refused (write, create, remove): a program rarely does
 *      without a file it meant to write;
 *   2. the network (socket, connect): a download that did not happen;
 *   3. the rest (execute, a refused call), then reads: most reads a
 *      program is refused are of configuration it does without;
 *
 * each group in the order its refusals were first met. Left out are the
 * probes every runtime makes and handles when refused: its own
 * /proc/self or /proc/thread-self (cgroup, maps, mountinfo), and /sys
 * (cgroup limits, hugepage and CPU topology), unless they are all the
 * run was refused (`cat /proc/self/status` failing). --explain all prints every
 * line in the order met; the JSON report keeps every refusal either way.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool starts(const char *line, const char *prefix)
{
	return strncmp(line, prefix, strlen(prefix)) == 0;
}

/*
 * A read a runtime makes of itself or of the kernel's settings, and does
 * without. The line starts with the op and the subject as the library
 * wrote it (a name with other bytes is quoted, and so not a probe).
 */
static bool probe(const char *line)
{
	return starts(line, "read /proc/self/") || starts(line, "read /proc/thread-self/") ||
	       starts(line, "read /sys/");
}

/* 0 for the most relevant lines, 3 for the least; 4: not printed. */
static int rank(const char *line)
{
	if (probe(line))
		return 4;
	if (starts(line, "write ") || starts(line, "create ") || starts(line, "remove "))
		return 0;
	if (starts(line, "socket ") || starts(line, "connect "))
		return 1;
	if (starts(line, "read "))
		return 3;
	return 2; /* execute, call, and the count of those not kept */
}

static void line_print(const char *line, bool json)
{
	if (json) {
		fputs("{\"denial\":", stderr);
		json_write_string(stderr, line);
		fputs("}\n", stderr);
	} else {
		fputs("procage: ", stderr);
		text_write(stderr, line);
		fputc('\n', stderr);
	}
}

/*
 * One line each, names already escaped by the library, so a name the cage
 * chose can neither end a line nor forge one of procage's own.
 */
void cli_denials_print(const struct procage_run *run, bool json, bool all)
{
	char **lines = NULL;
	struct procage_error err;
	if (procage_run_denials(run, &lines, &err) != 0) {
		cli_report_error(&err, json);
		return;
	}
	/* Probes only: then they are what could explain the failure. */
	int last = 4;
	for (size_t i = 0; lines && lines[i]; i++)
		if (rank(lines[i]) < 4)
			last = 3;
	for (int r = 0; r <= (all ? 0 : last); r++)
		for (size_t i = 0; lines && lines[i]; i++)
			if (all || rank(lines[i]) == r)
				line_print(lines[i], json);
	procage_strings_free(lines);
}
