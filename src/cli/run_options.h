/* procage run and exec: their options, shared by the files of the verb. */
#ifndef PROCAGE_CLI_RUN_OPTIONS_H
#define PROCAGE_CLI_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* One policy flag, applied in order on top of the base policy. */
struct policy_flag {
	int option;
	const char *value;
	char *owned; /* value, when procage made it (a relative path made absolute) */
};

struct run_options {
	const char *verb; /* "run" or "exec", for messages */
	const char *policy_file;
	const char *cwd;
	bool json;
	bool no_private_tmp;
	bool changes_overlay; /* --changes overlay */
	int apply_rule;       /* --apply: enum procage_apply_rule (safe unless given) */
	bool apply_given;
	bool audit;
	bool handoff_change_given; /* --on-handoff-change (run only) */
	struct cli_supervise_opts supervise;
	struct policy_flag *flags;
	size_t n_flags, cap_flags;
	char **command;
	const char *report_json; /* --report-json FILE */
	bool report;
	bool explain_off; /* --explain off: refusals not observed nor explained */
	bool explain_all; /* --explain all: every refusal printed, the run failed or not */
	bool trust_policy;	  /* --trust-policy: record the policy file's text */
	bool help;		  /* --help was given and printed: nothing to run */
	bool allow_host;	  /* --allow-host was given */
	bool dry_run;		  /* --dry-run: print the policy and the cage's verdict only */
	struct cli_config config; /* the user's configuration and a trusted project file */
	bool no_config;		  /* --no-config: neither the user's nor the project's file */
	bool config_loaded;	  /* the configuration was read: --profile expands at once */
	bool in_user_profile; /* applying a profile of config.json: --profile is a shipped one */
	bool ask;		   /* --ask: a host off the allowlist is asked about (ask_host.c) */
	double ask_timeout_seconds; /* --ask-timeout, 0: 60 s */
	char **kept;	      /* strings taken from configurations, freed with the options */
	size_t n_kept;
};

enum {
	OPT_POLICY = 256,
	OPT_READ,
	OPT_WRITE,
	OPT_PROTECT,
	OPT_HIDE,
	OPT_NET,
	OPT_ENV,
	OPT_SETENV,
	OPT_NO_PRIVATE_TMP,
	OPT_LIMIT,
	OPT_CWD,
	OPT_JSON,
	OPT_ACCEPT,
	OPT_WAIVE,
	OPT_SOCKET,
	OPT_HARDLINKS,
	OPT_HARDLINK_EXEMPT,
	OPT_AUDIT,
	OPT_ALLOW_HOST,
	OPT_ALLOW_SSH,
	OPT_PUBLISH,
	OPT_REPORT,
	OPT_REPORT_JSON,
	OPT_EXPLAIN,
	OPT_LIFETIME,
	OPT_TERMINAL,
	OPT_TIMEOUT,
	OPT_GRACE,
	OPT_TRUST_POLICY,
	OPT_DRY_RUN,
	OPT_WRITE_NEW,
	OPT_PROFILE,
	OPT_NO_CONFIG,
	OPT_ON_HANDOFF_CHANGE,
	OPT_CACHE, /* a profile's "cache DIR": no option of the command line */
	OPT_ASK,
	OPT_ASK_TIMEOUT,
	OPT_CHANGES,
	OPT_APPLY,
};

/*
 * Read procage run's (or exec's) options from argv, then the
 * configuration file's and the profiles' flags (run_options.c): 0, or the
 * exit status after a usage error was said. run_options_free frees them.
 */
int run_options_parse(int argc, char **argv, struct run_options *o);
void run_options_free(struct run_options *o);

/*
 * --ask (ask_host.c): the terminal question set on policy, and under --net
 * proxy the user's allowed_hosts added to it; cli_ask_cage gives it the
 * cage whose grants "always" is checked against.
 */
int cli_ask_prepare(const struct run_options *o, bool for_exec, struct procage_policy *policy,
		    struct procage_error *err);
void cli_ask_cage(const struct procage_cage *cage);
/*
 * The run has ended: a question open on the terminal is answered deny at
 * once and wiped, and none is asked from now on. Without --ask, nothing.
 */
void cli_ask_cancel(void);
/*
 * The hosts approved on the terminal since the last call, each "name:port",
 * as a NULL-terminated list the caller frees (procage_strings_free); NULL
 * when none (procage learn keeps them).
 */
char **cli_ask_take_approved(void);

/*
 * The policy the options make (run_policy.c): src's, or the default one
 * for workdir, with every flag applied; would_make (a dry run) gets the
 * directories a run would make first.
 */
int run_policy_build(const struct run_options *o, const char *workdir,
		     const struct policy_source *src, struct procage_policy **out,
		     const char **would_make, struct procage_error *err);
/* Apply one flag (not --write-new, which needs the run's options) to p (run_flags.c). */
int run_flag_apply(struct procage_policy *p, const struct policy_flag *f,
		   struct procage_error *err);

/*
 * The exit status of a run that was waited for, said on stderr where it is
 * not the command's own (run_exit.c).
 */
int run_exit_status(const struct run_options *o, const struct procage_cage *cage,
		    const struct cli_supervise_result *end, bool handoff_changed);

#endif
