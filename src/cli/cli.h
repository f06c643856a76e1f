/* The procage command: shared pieces of its verbs. */
#ifndef PROCAGE_CLI_H
#define PROCAGE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "procage.h"

/* Exit codes of procage's own failures, as env, timeout and chroot use them. */
enum {
	/* --on-handoff-change fail: the run made what git on the host would trust */
	EXIT_HANDOFF_CHANGED = 123,
	EXIT_TIMED_OUT = 124, /* --timeout ran out (as timeout(1)) */
	EXIT_PROCAGE_FAILED = 125,
	EXIT_CANNOT_EXECUTE = 126,
	EXIT_NOT_FOUND = 127,
	EXIT_USAGE = 2,
};

int cmd_run(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_learn(int argc, char **argv);
/*
 * One run of procage learn (cmd_run.c): its explained refusals, its policy
 * as JSON and the command's exit code (128 + N for signal N; -1 if unknown).
 */
int cli_learn_run(int argc, char **argv, char ***lines, char **policy_json, int *code);
int cmd_facts(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_fit(int argc, char **argv);
/* procage changes list|show|apply|discard (cmd_changes.c). */
int cmd_changes(int argc, char **argv);
/*
 * After a run with changes as an overlay: apply its change set by rule,
 * print what was held back or kept. True when applying failed.
 */
bool cli_changes_after_run(const struct procage_run *run, int rule, bool json);

/* procage run while the run lives (supervise.c). */
struct cli_supervise_opts {
	double timeout_seconds; /* 0: none */
	double grace_seconds;   /* after SIGTERM (a timeout's, or one we got), then SIGKILL */
};
struct cli_supervise_result {
	int status;     /* the target's, waitpid() form */
	bool timed_out; /* the timeout ran out and ended the run */
	bool killed;    /* the grace period ran out: SIGKILL */
	bool abandoned; /* the run had not ended CLI_KILL_WAIT_MS after SIGKILL: not waited for */
};
/* How long procage run waits for a run it sent SIGKILL before it stops waiting. */
#define CLI_KILL_WAIT_MS 2000
/* Catch the signals to pass on (before the spawn), and let them go again. */
void cli_signals_install(void);
void cli_signals_restore(void);
/* Pass signals on, apply the timeout, and wait for the run. */
int cli_supervise(struct procage_run *run, const struct cli_supervise_opts *o,
		  struct cli_supervise_result *result, struct procage_error *err);
/* Seconds as a decimal number ("1", "0.5"). */
bool cli_seconds_parse(const char *s, double *out);

/*
 * Before a spawn: raise procage's soft descriptor limit to the hard one
 * (the run's proxy lives in this process) and give the command the limit
 * procage had, unless the policy sets one.
 */
int cli_nofile_prepare(struct procage_policy *policy, struct procage_error *err);

/* The overview (verb NULL) or a verb's help on stdout: 0, or a usage error. */
int cli_help(const char *verb);
/* Is arg "--help" or "-h"? */
bool cli_help_wanted(const char *arg);

/* A note or warning on stderr: "procage: TEXT", or {"note": TEXT} with json. */
void cli_note(bool json, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The cage's hard-link findings: warnings in report mode (named NULL); or
 * with a refusal whose message (named) tells the first, the others.
 */
void cli_hardlinks_print(const struct procage_cage *cage, bool json, const char *named);
/* The refused calls of a run, after it: one line per refusal, its processes and count. */
void cli_reports_print(const struct procage_run *run, bool json);
/*
 * The file and network refusals the run met, explained (procage_run_denials):
 * all of them in the order met, or (all false, a failed run) those that could
 * explain the failure, most relevant first (denials_print.c).
 */
void cli_denials_print(const struct procage_run *run, bool json, bool all);
/* The handoff audit's findings, after the run: one line each. */
void cli_audit_print(struct procage_audit *audit, bool json);
/* The trust-handoff report after a run; whether something changed. */
bool cli_handoff_print(struct procage_handoff *handoff, bool json);

/* Print "procage: MESSAGE" (and a hint when one helps) or its JSON form. */
void cli_report_error(const struct procage_error *err, bool json);
/*
 * The same for a failed spawn or exec of command (run from cwd, NULL: ours),
 * with a hint; caged: this process is in the cage already (procage exec).
 */
void cli_report_spawn_error(const struct procage_error *err, bool json, const char *command,
			    const char *cwd, bool caged);
/*
 * When exec failed with ENOENT on a file that exists: the missing "#!"
 * interpreter or ELF loader it names, as a hint (exec_hint.c).
 */
bool cli_exec_hint(const char *command, const char *cwd, const struct procage_error *err,
		   bool caged, char *hint, size_t size);
/* Print a usage problem and return EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Text for a terminal or a log: what the cage could have chosen (file
 * names, call arguments) with every control byte and invalid UTF-8 byte
 * written as \xNN, so that it can neither break a line nor drive the
 * terminal.
 */
void text_write(FILE *out, const char *s);

/* The policy file as procage's own input (policy_file.c). */
struct policy_source {
	char *text;      /* the file's content, read once */
	int dir_fd;      /* its directory, O_PATH */
	char canonical[4096];
};
/* Read the file once, by descriptor, from its canonical path with no link followed. */
int policy_file_read(const char *path, struct policy_source *src, struct procage_error *err);
void policy_source_free(struct policy_source *src);
/*
 * Inside a write grant of cage (named in grant, "" when not), the text
 * must be the one procage last ran with, unless trust records it now.
 * 0, or a negative errno with err saying why and what to do.
 */
int policy_file_judge(const struct policy_source *src, const struct procage_cage *cage,
		      bool trust, char *grant, size_t grant_size, struct procage_error *err);

/*
 * A path option's value (--read, --write...) made absolute against the
 * caller's working directory (run_paths.c): 0, or an error naming option.
 */
int cli_path_option_absolute(const char *option, const char *value, const char *caller_cwd,
			     char *out, size_t size, struct procage_error *err);

/*
 * procage run --dry-run (dry_run.c): the effective policy, the --write-new
 * directories a run would make and grant (would_make, NULL-terminated: the
 * policy lacks them until they exist), what fit does to it on this host,
 * and the cage's verdict (cage_err: code 0 when it would be made). Returns
 * the exit status: 0, or 125 when refused.
 */
struct cli_config;
/*
 * What the policy's rules resolve to where that differs from their
 * spelling (procage_policy_resolutions), for --dry-run and fit: the text
 * lines under a heading, or the JSON member ,"resolutions":[...]. A
 * failure to find them is said in their place.
 */
void cli_resolutions_print(const struct procage_policy *policy, bool json);
int cli_dry_run_print(const struct procage_policy *policy, const char *const *would_make,
		      const struct procage_error *cage_err, const char *policy_file,
		      const struct cli_config *config, bool trust_policy, char *const *command,
		      bool json);

/*
 * Profiles (profiles.c): the directory they are found in, next to the
 * binary; a profile's lines, each given to add as (option, value) with
 * "~/" expanded (0, or -errno with why filled); the list on stdout.
 */
int cli_profiles_dir(char *out, size_t size);
int cli_profile_read(const char *name, int (*add)(void *ctx, const char *option, const char *value),
		     void *ctx, char *why, size_t why_size);
int cli_profiles_list(bool json);
int cmd_profiles(int argc, char **argv);
/* procage help profiles: the verb's help, then the profiles themselves. */
int cli_profiles_help(void);

/* The user's configuration and the trusted project file (config.c). */
struct json_value;
struct cli_config {
	struct json_value *user; /* config.json, or NULL */
	char user_path[4096];
	const struct json_value *defaults; /* its "defaults", or NULL */
	struct json_value *project;        /* a trusted .procage.json, or NULL */
	const struct json_value *project_flags;
	char project_path[4096];
};
/* 0, or a negative errno with why (FILE:LINE:COLUMN where it helps). */
int cli_config_load(struct cli_config *config, bool json, char *why, size_t size);
const struct json_value *cli_config_profile(const struct cli_config *config, const char *name);
void cli_config_free(struct cli_config *config);
/* $XDG_CONFIG_HOME/procage, else ~/.config/procage. */
int cli_config_dir(char *out, size_t size);
/* A copy of value with a leading "~/" made the caller's home; NULL without one. */
char *cli_home_expand(const char *value);
int cmd_trust(int argc, char **argv);

/* SHA-256 of data as 64 lower-case hex digits and a NUL (sha256.c). */
void cli_sha256_hex(const void *data, size_t len, char out[65]);

/* JSON output helpers: a quoted, escaped string. */
void json_write_string(FILE *out, const char *s);
/* The name of an errno ("EACCES"), or NULL. */
const char *errno_name(int e);

#endif
