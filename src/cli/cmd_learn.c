/*
 * procage learn [OPTIONS] -- COMMAND: the smallest widening of the policy
 * (the default one, or the options') that lets COMMAND run, printed as a
 * policy file on stdout.
 *
 * The command runs caged and observed (explain on); every refusal the
 * rules explain as "not granted" adds the grant its line names, and the
 * command runs again, until a run meets no new one (at most
 * LEARN_MAX_RUNS runs). So the policy is widened only where a run was
 * refused, one directory at a time. A class is never widened: a location
 * of a class the command touched is listed on stderr with the waiver it
 * would need, and left hidden or read-only; so is a write to the system's
 * trees (/usr, /etc, ...) or to the home as a whole, which the command
 * would otherwise choose for itself. Under --net proxy, a host the proxy
 * refused is learned as an --allow-host (procage_learn_host), except the
 * host's own and special addresses, which are named with the flag. Learn
 * never chooses the network mode: a connection refused because the
 * network is off is named on stderr, with the flags, and not learned.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/text_escape.h"
#include "run_options.h"

#define LEARN_MAX_RUNS 8
/*
 * Under --net proxy, an allowlist entry that reaches nothing (".invalid"
 * never resolves, RFC 6761), so that the first run may start with no host
 * granted; it is taken out of the printed policy.
 */
#define LEARN_NO_HOST "procage-learn.invalid"
#define LEARN_MAX_ARGS 512

struct learned {
	char *args[LEARN_MAX_ARGS]; /* the grant options, owned: "--write", "/x", ... */
	size_t n;
	char *notes[64]; /* class and network lines, owned */
	size_t n_notes;
};

static bool learned_has(const struct learned *l, const char *option, const char *path)
{
	for (size_t i = 0; i + 1 < l->n; i += 2)
		if (strcmp(l->args[i + 1], path) == 0 &&
		    (strcmp(l->args[i], option) == 0 || strcmp(l->args[i], "--write") == 0 ||
		     strcmp(l->args[i], "--write-new") == 0))
			return true;
	return false;
}

static void note_add(struct learned *l, const char *line)
{
	for (size_t i = 0; i < l->n_notes; i++)
		if (strcmp(l->notes[i], line) == 0)
			return;
	if (l->n_notes < sizeof l->notes / sizeof *l->notes)
		l->notes[l->n_notes++] = strdup(line);
}

/*
 * "... (add --write ~/.npm)", or --write-new for a directory to make: the
 * option and the path, ~ expanded.
 * False for another line, or a path learn cannot read back (a control in
 * it, or cut short).
 */
static bool grant_of(const char *line, char *option, size_t osize, char *path, size_t psize)
{
	/*
	 * The flag ends the line: the last " (add --", since the subject
	 * before it is a name the cage chose and may spell one too.
	 */
	const char *add = NULL;
	for (const char *at = strstr(line, " (add --"); at; at = strstr(at + 1, " (add --"))
		add = at;
	size_t len = strlen(line);
	if (!add || len < 2 || line[len - 1] != ')')
		return false;
	const char *opt = add + 6, *space = strchr(opt, ' ');
	if (!space || (size_t)(space - opt) >= osize)
		return false;
	snprintf(option, osize, "%.*s", (int)(space - opt), opt);
	const char *p = space + 1;
	size_t plen = (size_t)(line + len - 1 - p);
	char word[4200];
	const char *home = getenv("HOME");
	int n;
	if (plen >= 2 && p[0] == '~' && p[1] == '/' && home) {
		if (!escape_shell_read(p + 2, plen - 2, word, sizeof word))
			return false;
		n = snprintf(path, psize, "%s/%s", home, word);
	} else if (plen == 1 && p[0] == '~' && home) {
		n = snprintf(path, psize, "%s", home);
	} else {
		if (!escape_shell_read(p, plen, word, sizeof word))
			return false;
		n = snprintf(path, psize, "%s", word);
	}
	return n > 0 && (size_t)n < psize && path[0] == '/';
}

/*
 * A write the caged command asked for that learn does not grant by itself:
 * the system's own trees and the home as a whole. The command chose the
 * paths it touched, so it would choose its next run's grants: those are
 * named for the caller to decide.
 */
static bool write_needs_review(const char *option, const char *path)
{
	static const char *const system[] = {"/usr",   "/bin",	   "/sbin", "/lib",
					     "/lib32", "/lib64",   "/etc",  "/boot",
					     "/opt",   "/var/lib", "/root"};
	const char *home = getenv("HOME");
	if (strcmp(option, "--write") != 0 && strcmp(option, "--write-new") != 0)
		return false;
	if (strcmp(path, "/") == 0 || (home && strcmp(path, home) == 0))
		return true;
	for (size_t i = 0; i < sizeof system / sizeof *system; i++) {
		size_t n = strlen(system[i]);
		if (strncmp(path, system[i], n) == 0 && (path[n] == '/' || !path[n]))
			return true;
	}
	return false;
}

/* A host the proxy refused: learned, left to the caller, or not such a line. */
static bool learn_host_line(struct learned *l, const char *line, int *added)
{
	char entry[300], note[1600];
	switch (procage_learn_host(line, entry, sizeof entry, note, sizeof note)) {
	case PROCAGE_LEARNED_NONE:
		return false;
	case PROCAGE_LEARNED_REVIEW:
		note_add(l, note);
		return true;
	case PROCAGE_LEARNED_GRANT:
		break;
	}
	if (!learned_has(l, "--allow-host", entry) && l->n + 2 <= LEARN_MAX_ARGS) {
		l->args[l->n++] = strdup("--allow-host");
		l->args[l->n++] = strdup(entry);
		(*added)++;
	}
	return true;
}

/* Learn from one run's lines; how many grants were new. */
static int learn_lines(struct learned *l, char **lines)
{
	char option[32], path[PATH_MAX];
	struct stat st;
	int added = 0;
	for (size_t i = 0; lines && lines[i]; i++) {
		if (learn_host_line(l, lines[i], &added))
			continue;
		if (!grant_of(lines[i], option, sizeof option, path, sizeof path) ||
		    write_needs_review(option, path)) {
			note_add(l, lines[i]);
			continue;
		}
		if (learned_has(l, option, path) || l->n + 2 > LEARN_MAX_ARGS)
			continue;
		/* A write grant's missing directory is made by procage (a cache). */
		bool missing = strcmp(option, "--write") == 0 && stat(path, &st) != 0;
		l->args[l->n++] = strdup(missing ? "--write-new" : option);
		l->args[l->n++] = strdup(path);
		added++;
	}
	return added;
}

/*
 * The hosts the caller approved when asked (--ask) during the run: the
 * caller chose them, so they are learned as --allow-host, in the form the
 * refusals are learned in (a name alone for the two web ports).
 */
static int learn_approved(struct learned *l)
{
	char **hosts = cli_ask_take_approved();
	int added = 0;
	for (size_t i = 0; hosts && hosts[i]; i++) {
		char entry[300];
		char *colon = strrchr(hosts[i], ':');
		snprintf(entry, sizeof entry, "%s", hosts[i]);
		if (colon && (strcmp(colon, ":80") == 0 || strcmp(colon, ":443") == 0))
			entry[colon - hosts[i]] = '\0';
		if (learned_has(l, "--allow-host", entry) || l->n + 2 > LEARN_MAX_ARGS)
			continue;
		l->args[l->n++] = strdup("--allow-host");
		l->args[l->n++] = strdup(entry);
		added++;
	}
	procage_strings_free(hosts);
	return added;
}

/* Does the caller ask for proxy-only networking on the command line? */
static bool net_proxy_asked(int dashes, char **argv)
{
	for (int i = 1; i < dashes; i++)
		if (strcmp(argv[i], "--net=proxy") == 0 ||
		    (strcmp(argv[i], "--net") == 0 && i + 1 < dashes &&
		     strcmp(argv[i + 1], "proxy") == 0))
			return true;
	return false;
}

/* text with the first what replaced by with, in place (with is never longer). */
static void text_replace(char *text, const char *what, const char *with)
{
	char *at = strstr(text, what);
	size_t n = strlen(what), m = strlen(with);
	if (!at || m > n)
		return;
	memcpy(at, with, m);
	memmove(at + m, at + n, strlen(at + n) + 1);
}

/*
 * The printed policy without LEARN_NO_HOST; when no host was learned or
 * given, the run needed none, and the policy's network is off.
 */
static void policy_without_placeholder(char *json)
{
	if (strstr(json, "\"allow_hosts\": [\"" LEARN_NO_HOST "\"]")) {
		text_replace(json, "\"" LEARN_NO_HOST "\"", "");
		text_replace(json, "\"network\": \"proxy\"", "\"network\": \"off\"");
		return;
	}
	text_replace(json, "\"" LEARN_NO_HOST "\", ", "");
	text_replace(json, ", \"" LEARN_NO_HOST "\"", "");
}

/* argv of one run: "run", the caller's options, the learned ones, "--", the command. */
static char **run_argv(int argc, char **argv, int dashes, const struct learned *l, int *out_argc)
{
	char **v = calloc((size_t)argc + l->n + 2, sizeof *v);
	int n = 0;
	if (!v)
		return NULL;
	v[n++] = "run";
	for (int i = 1; i < dashes; i++)
		v[n++] = argv[i];
	for (size_t i = 0; i < l->n; i++)
		v[n++] = l->args[i];
	for (int i = dashes; i < argc; i++)
		v[n++] = argv[i];
	*out_argc = n;
	return v;
}

static void learned_free(struct learned *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->args[i]);
	for (size_t i = 0; i < l->n_notes; i++)
		free(l->notes[i]);
}

int cmd_learn(int argc, char **argv)
{
	struct learned l = {0};
	char *policy_json = NULL;
	int dashes = 1, rc = 0, code = -1;
	if (argc == 2 && cli_help_wanted(argv[1]))
		return cli_help("learn");
	while (dashes < argc && strcmp(argv[dashes], "--") != 0)
		dashes++;
	if (dashes + 1 >= argc)
		return cli_usage_error(
		    "learn: usage: procage learn [RUN OPTIONS] -- COMMAND [ARG...]");
	if (net_proxy_asked(dashes, argv)) {
		l.args[l.n++] = strdup("--allow-host");
		l.args[l.n++] = strdup(LEARN_NO_HOST);
	}
	for (int round = 0; round < LEARN_MAX_RUNS; round++) {
		int n;
		char **lines = NULL, **v = run_argv(argc, argv, dashes, &l, &n);
		if (!v)
			return cli_usage_error("out of memory");
		procage_free(policy_json);
		policy_json = NULL;
		fprintf(stderr, "procage: learn: run %d of at most %d\n", round + 1,
			LEARN_MAX_RUNS);
		rc = cli_learn_run(n, v, &lines, &policy_json, &code);
		free(v);
		int added = rc == 0 ? learn_lines(&l, lines) + learn_approved(&l) : 0;
		procage_strings_free(lines);
		if (rc != 0 || added == 0)
			break;
	}
	for (size_t i = 0; rc == 0 && i < l.n_notes; i++) {
		/* Not granted: a class is waived only by the caller, by name. */
		fputs("procage: learn: not granted, left to you: ", stderr);
		text_write(stderr, l.notes[i]);
		fputc('\n', stderr);
	}
	if (rc == 0 && policy_json) {
		policy_without_placeholder(policy_json);
		fputs(policy_json, stdout);
	}
	procage_free(policy_json);
	learned_free(&l);
	/*
	 * The policy printed is what was learned; a command that still fails
	 * under it needs more than learn grants by itself (a class's
	 * location, the network, a system tree: the lines above), or fails
	 * for a reason of its own.
	 */
	if (rc == 0 && code != 0) {
		fprintf(stderr,
			"procage: learn: the command still fails under the learned policy (exit %d): "
			"the refusals left to you above, if any, or a failure of its own\n",
			code);
		rc = code > 0 && code < 256 ? code : EXIT_PROCAGE_FAILED;
	}
	return rc;
}
