/*
 * What procage run prints about a run besides its errors: the hard-link
 * findings, the refused calls, the handoff audit. Each thing once: the
 * same refusal made by several processes is one line, and a finding the
 * error itself names is not listed again.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_note(bool json, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (json) {
		fputs("{\"note\":", stderr);
		json_write_string(stderr, text);
		fputs("}\n", stderr);
	} else {
		fputs("procage: ", stderr);
		text_write(stderr, text);
		fputc('\n', stderr);
	}
}

/* A list of findings on stderr, but the one skip names: {"KEY": text} or PREFIX text lines. */
static void findings_print(char **findings, bool json, const char *key, const char *prefix,
			   const char *skip)
{
	for (size_t i = 0; findings[i]; i++) {
		if (skip && strncmp(skip, findings[i], strlen(findings[i])) == 0)
			continue;
		if (json) {
			fprintf(stderr, "{\"%s\":", key);
			json_write_string(stderr, findings[i]);
			fputs("}\n", stderr);
		} else {
			fputs(prefix, stderr);
			text_write(stderr, findings[i]);
			fputc('\n', stderr);
		}
	}
}

void cli_hardlinks_print(const struct procage_cage *cage, bool json, const char *named)
{
	char **findings = NULL;
	struct procage_error err;
	if (procage_cage_hardlinks(cage, &findings, &err) != 0) {
		cli_report_error(&err, json);
		return;
	}
	findings_print(findings, json, "hardlink",
		       named ? "procage: " : "procage: warning: ", named);
	procage_strings_free(findings);
}

static bool same_refusal(const struct procage_report *a, const struct procage_report *b)
{
	return strcmp(a->call, b->call) == 0 && strcmp(a->args, b->args) == 0;
}

/* "CALL(ARGS) by pid P, N times", or "by pids P, Q, ..." for one refusal of several. */
static void refusal_print(const struct procage_report *r, size_t n, size_t first)
{
	enum { PIDS_SHOWN = 8 };
	unsigned long long count = 0;
	size_t pids = 0, shown = 0;
	for (size_t i = first; i < n; i++)
		if (same_refusal(&r[i], &r[first])) {
			count += r[i].count;
			pids++;
		}
	fputs("procage: refused: ", stderr);
	text_write(stderr, r[first].call);
	fputc('(', stderr);
	text_write(stderr, r[first].args);
	fprintf(stderr, ") by pid%s ", pids > 1 ? "s" : "");
	for (size_t i = first; i < n && shown < PIDS_SHOWN; i++)
		if (same_refusal(&r[i], &r[first]))
			fprintf(stderr, "%s%d", shown++ ? ", " : "", (int)r[i].pid);
	if (pids > shown)
		fprintf(stderr, " and %zu more", pids - shown);
	fprintf(stderr, ", %llu time%s\n", count, count == 1 ? "" : "s");
}

void cli_reports_print(const struct procage_run *run, bool json)
{
	struct procage_report *r = NULL;
	struct procage_error err;
	size_t n = 0;
	unsigned long long total = 0;
	if (procage_run_reports(run, &r, &n, &err) != 0) {
		cli_report_error(&err, json);
		return;
	}
	for (size_t i = 0; i < n; i++)
		total += r[i].count;
	if (!json)
		fprintf(stderr,
			"procage: %llu refused call%s (seccomp; Landlock denials of files, "
			"ports and signals are not seen)\n",
			total, total == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		if (json) {
			fputs("{\"report\":{\"call\":", stderr);
			json_write_string(stderr, r[i].call);
			fputs(",\"args\":", stderr);
			json_write_string(stderr, r[i].args);
			fprintf(stderr, ",\"pid\":%d,\"count\":%llu}}\n", (int)r[i].pid,
				(unsigned long long)r[i].count);
			continue;
		}
		bool printed = false; /* as part of an earlier line */
		for (size_t j = 0; j < i && !printed; j++)
			printed = same_refusal(&r[j], &r[i]);
		if (!printed)
			refusal_print(r, n, i);
	}
	procage_free(r);
}

void cli_audit_print(struct procage_audit *audit, bool json)
{
	char **findings = NULL;
	struct procage_error err;
	if (procage_audit_end(audit, &findings, &err) != 0) {
		cli_report_error(&err, json);
		return;
	}
	findings_print(findings, json, "audit", "procage: audit: ", NULL);
	if (!findings[0] && !json)
		fprintf(stderr, "procage: audit: nothing changed in trust-handoff locations\n");
	procage_strings_free(findings);
}

/*
 * The trust-handoff report, after every run: what git on the host would
 * now trust that the run made (new repositories and gitfiles, gitfiles
 * rewritten, absent locations now there), and programs it made on the
 * caller's search path ahead of a command. Silent when nothing changed.
 * Returns whether something changed (or the report failed).
 */
bool cli_handoff_print(struct procage_handoff *handoff, bool json)
{
	char **findings = NULL;
	struct procage_error err;
	if (procage_handoff_end(handoff, &findings, &err) != 0) {
		cli_report_error(&err, json);
		return true;
	}
	findings_print(findings, json, "handoff", "procage: trust-handoff: ", NULL);
	bool changed = findings[0] != NULL;
	if (changed && !json)
		fprintf(stderr, "procage: trust-handoff: review these before running git in "
				"them, or the commands named, on the host\n");
	procage_strings_free(findings);
	return changed;
}
