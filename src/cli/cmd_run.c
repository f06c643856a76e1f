/*
 * procage run: cage a command, wait for it, exit with its status.
 * procage exec: become the caged command (no supervisor).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/json.h"
#include "run_options.h"

static const struct option run_long_options[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "read", required_argument, NULL, OPT_READ },
	{ "write", required_argument, NULL, OPT_WRITE },
	{ "write-new", required_argument, NULL, OPT_WRITE_NEW },
	{ "protect", required_argument, NULL, OPT_PROTECT },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "net", required_argument, NULL, OPT_NET },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "setenv", required_argument, NULL, OPT_SETENV },
	{ "no-private-tmp", no_argument, NULL, OPT_NO_PRIVATE_TMP },
	{ "changes", required_argument, NULL, OPT_CHANGES },
	{ "apply", required_argument, NULL, OPT_APPLY },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "accept", required_argument, NULL, OPT_ACCEPT },
	{ "waive", required_argument, NULL, OPT_WAIVE },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "hardlinks", required_argument, NULL, OPT_HARDLINKS },
	{ "audit", no_argument, NULL, OPT_AUDIT },
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ "allow-ssh", required_argument, NULL, OPT_ALLOW_SSH },
	{ "publish", required_argument, NULL, OPT_PUBLISH },
	{ "ask", no_argument, NULL, OPT_ASK },
	{ "ask-timeout", required_argument, NULL, OPT_ASK_TIMEOUT },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "report-json", required_argument, NULL, OPT_REPORT_JSON },
	{ "explain", required_argument, NULL, OPT_EXPLAIN },
	{ "hardlink-exempt", required_argument, NULL, OPT_HARDLINK_EXEMPT },
	{ "lifetime", required_argument, NULL, OPT_LIFETIME },
	{ "terminal", required_argument, NULL, OPT_TERMINAL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "trust-policy", no_argument, NULL, OPT_TRUST_POLICY },
	{ "on-handoff-change", required_argument, NULL, OPT_ON_HANDOFF_CHANGE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/*
 * The longest --timeout or --grace: the supervisor waits in poll(), whose
 * timeout is an int of milliseconds.
 */
#define SECONDS_OPTION_MAX (INT_MAX / 1000)

/* Seconds as a decimal number ("10", "0.5", "1e3"), each problem named. */
static bool seconds_option_parse(const char *verb, const char *option, const char *s,
				 bool zero_ok, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || isnan(v) || v < 0 || (v == 0 && !zero_ok)) {
		cli_usage_error("%s: %s %s: expected a number of seconds%s, such as 10 or 0.5",
				verb, option, s, zero_ok ? "" : " above 0");
		return false;
	}
	if (v > SECONDS_OPTION_MAX) {
		cli_usage_error("%s: %s %s: at most %d seconds (about 24 days)", verb, option, s,
				SECONDS_OPTION_MAX);
		return false;
	}
	*out = v;
	return true;
}

/* Room for one more flag (profiles add flags of their own): false when out of memory. */
static bool flag_push(struct run_options *o, struct policy_flag f)
{
	if (o->n_flags == o->cap_flags) {
		size_t cap = o->cap_flags ? o->cap_flags * 2 : 16;
		struct policy_flag *grown = realloc(o->flags, cap * sizeof *grown);
		if (!grown)
			return false;
		o->flags = grown;
		o->cap_flags = cap;
	}
	o->flags[o->n_flags++] = f;
	return true;
}

static const char *path_option_name(int option)
{
	switch (option) {
	case OPT_READ:
		return "--read";
	case OPT_WRITE:
		return "--write";
	case OPT_WRITE_NEW:
		return "--write-new";
	case OPT_PROTECT:
		return "--protect";
	case OPT_HIDE:
		return "--hide";
	case OPT_SOCKET:
		return "--socket";
	case OPT_HARDLINK_EXEMPT:
		return "--hardlink-exempt";
	}
	return NULL;
}

/*
 * A path option's relative value made absolute now, against the caller's
 * working directory (run_paths.c), whatever --cwd says.
 */
static int path_flag_add(struct run_options *o, int option, const char *value)
{
	char cwd[PATH_MAX], absolute[PATH_MAX];
	struct procage_error err = { 0 };
	if (!flag_push(o, (struct policy_flag){ option, value, NULL }))
		return cli_usage_error("out of memory");
	struct policy_flag *f = &o->flags[o->n_flags - 1];
	if (value[0] == '/' || value[0] == '\0')
		return 0;
	if (cli_path_option_absolute(path_option_name(option), value,
				     getcwd(cwd, sizeof cwd), absolute, sizeof absolute,
				     &err) != 0)
		return cli_usage_error("%s: %s", o->verb, err.message);
	if (!(f->owned = strdup(absolute)))
		return cli_usage_error("out of memory");
	f->value = f->owned;
	return 0;
}

/* A profile's lines (profiles.c), each as the flag of its name, in place. */
static int profile_line_add(void *ctx, const char *option, const char *value)
{
	struct run_options *o = ctx;
	if (strcmp(option, "cache") == 0) {
		char *owned = strdup(value);
		if (!owned || !flag_push(o, (struct policy_flag){ OPT_CACHE, owned, owned })) {
			free(owned);
			return -ENOMEM;
		}
		return 0;
	}
	for (const struct option *opt = run_long_options; opt->name; opt++) {
		if (strcmp(opt->name, option) != 0)
			continue;
		char *owned = strdup(value);
		if (!owned || !flag_push(o, (struct policy_flag){ opt->val, owned, owned })) {
			free(owned);
			return -ENOMEM;
		}
		return 0;
	}
	return -EINVAL;
}

static int vector_flags_add(struct run_options *o, const char *source, char **args, size_t n);
static int profile_flags_add(struct run_options *o, const char *name);

/* A configuration's array of flags (strings, checked when it was read). */
static int json_flags_add(struct run_options *o, const char *source, const struct json_value *a)
{
	char **args = calloc(a->u.array.count + 1, sizeof *args);
	if (!args)
		return cli_usage_error("out of memory");
	for (size_t i = 0; i < a->u.array.count; i++)
		args[i] = a->u.array.items[i]->u.string;
	int rc = vector_flags_add(o, source, args, a->u.array.count);
	free(args);
	return rc;
}

static bool strings_keep(struct run_options *o, char *s)
{
	char **grown = realloc(o->kept, (o->n_kept + 1) * sizeof *grown);
	if (!grown)
		return false;
	o->kept = grown;
	o->kept[o->n_kept++] = s;
	return true;
}

/* The user's defaults, then a trusted project file's flags. */
static int config_flags_add(struct run_options *o, bool json)
{
	char why[PATH_MAX + 400], source[PATH_MAX + 40];
	if (cli_config_load(&o->config, json, why, sizeof why) != 0) {
		fprintf(stderr, "procage: %s\n", why);
		return EXIT_PROCAGE_FAILED;
	}
	int rc = 0;
	if (o->config.defaults) {
		snprintf(source, sizeof source, "%s: defaults", o->config.user_path);
		rc = json_flags_add(o, source, o->config.defaults);
	}
	if (rc == 0 && o->config.project_flags)
		rc = json_flags_add(o, o->config.project_path, o->config.project_flags);
	return rc;
}

/*
 * The configuration's flags go before the command line's, whose --profile
 * entries are expanded once the user's profiles are known: the command line
 * is read first (it says --no-config and --json).
 */
static int config_and_profiles_apply(struct run_options *o)
{
	struct policy_flag *command_line = o->flags;
	size_t n = o->n_flags;
	int rc = 0;
	o->flags = NULL;
	o->n_flags = o->cap_flags = 0;
	o->config_loaded = true;
	if (!o->no_config)
		rc = config_flags_add(o, o->json);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && command_line[i].option == OPT_PROFILE)
			rc = profile_flags_add(o, command_line[i].value);
		else if (rc == 0 && !flag_push(o, command_line[i]))
			rc = cli_usage_error("out of memory");
		else if (rc == 0)
			continue; /* now o's */
		free(command_line[i].owned);
	}
	free(command_line);
	return rc;
}

static int profile_flags_add(struct run_options *o, const char *name)
{
	char why[512], source[PATH_MAX + 80];
	const struct json_value *mine =
		o->in_user_profile ? NULL : cli_config_profile(&o->config, name);
	if (mine) {
		/* The user's own profile: its --profile names a shipped one. */
		snprintf(source, sizeof source, "%s: profile %s", o->config.user_path, name);
		o->in_user_profile = true;
		int rc = json_flags_add(o, source, mine);
		o->in_user_profile = false;
		return rc;
	}
	if (cli_profile_read(name, profile_line_add, o, why, sizeof why) != 0)
		return cli_usage_error("%s: --profile %s: %s", o->verb, name, why);
	return 0;
}

static void run_options_free(struct run_options *o)
{
	for (size_t i = 0; o->flags && i < o->n_flags; i++)
		free(o->flags[i].owned);
	free(o->flags);
	for (size_t i = 0; i < o->n_kept; i++)
		free(o->kept[i]);
	free(o->kept);
	cli_config_free(&o->config);
}

/* One option of the command line or of a configuration: 0, or the exit status. */
static int option_take(struct run_options *o, int c, char *arg)
{
	switch (c) {
	case OPT_POLICY:
		o->policy_file = arg;
		break;
	case OPT_CWD:
		o->cwd = arg;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_NO_PRIVATE_TMP:
		o->no_private_tmp = true;
		break;
	case OPT_CHANGES:
		if (strcmp(arg, "overlay") != 0 && strcmp(arg, "in-place") != 0)
			return cli_usage_error("%s: --changes %s: expected 'overlay' or 'in-place'",
					       o->verb, arg);
		o->changes_overlay = strcmp(arg, "overlay") == 0;
		break;
	case OPT_APPLY:
		o->apply_given = true;
		if (strcmp(arg, "safe") == 0)
			o->apply_rule = PROCAGE_APPLY_SAFE;
		else if (strcmp(arg, "all") == 0)
			o->apply_rule = PROCAGE_APPLY_ALL;
		else if (strcmp(arg, "none") == 0)
			o->apply_rule = PROCAGE_APPLY_NONE;
		else
			return cli_usage_error("%s: --apply %s: expected 'safe', 'all' or 'none'",
					       o->verb, arg);
		break;
	case OPT_AUDIT:
		o->audit = true;
		break;
	case OPT_TRUST_POLICY:
		o->trust_policy = true;
		break;
	case OPT_DRY_RUN:
		o->dry_run = true;
		break;
	case OPT_NO_CONFIG:
		o->no_config = true;
		break;
	case OPT_PROFILE:
		/* On the command line, expanded once the user's profiles are read. */
		if (o->config_loaded)
			return profile_flags_add(o, arg);
		return flag_push(o, (struct policy_flag){ c, arg, NULL })
			       ? 0
			       : cli_usage_error("out of memory");
	case OPT_REPORT_JSON:
		o->report_json = arg;
		return flag_push(o, (struct policy_flag){ OPT_REPORT, NULL, NULL })
			       ? 0
			       : cli_usage_error("out of memory");
	case OPT_EXPLAIN:
		if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0 && strcmp(arg, "all") != 0)
			return cli_usage_error("%s: --explain %s: expected 'on', 'all' or 'off'",
					       o->verb, arg);
		o->explain_off = strcmp(arg, "off") == 0;
		o->explain_all = strcmp(arg, "all") == 0;
		return 0;
	case OPT_REPORT:
		o->report = true;
		return flag_push(o, (struct policy_flag){ OPT_REPORT, NULL, NULL })
			       ? 0
			       : cli_usage_error("out of memory");
	case OPT_TIMEOUT:
		return seconds_option_parse(o->verb, "--timeout", arg, false,
					    &o->supervise.timeout_seconds)
			       ? 0
			       : EXIT_USAGE;
	case OPT_GRACE:
		return seconds_option_parse(o->verb, "--grace", arg, true,
					    &o->supervise.grace_seconds)
			       ? 0
			       : EXIT_USAGE;
	case OPT_ON_HANDOFF_CHANGE:
		o->handoff_change_given = true;
		return flag_push(o, (struct policy_flag){ c, arg, NULL })
			       ? 0
			       : cli_usage_error("out of memory");
	case OPT_ASK:
		o->ask = true;
		return 0;
	case OPT_ASK_TIMEOUT:
		return seconds_option_parse(o->verb, "--ask-timeout", arg, false,
					    &o->ask_timeout_seconds)
			       ? 0
			       : EXIT_USAGE;
	case OPT_ALLOW_SSH:
		return flag_push(o, (struct policy_flag){ c, arg, NULL })
			       ? 0
			       : cli_usage_error("out of memory");
	case OPT_ALLOW_HOST:
		o->allow_host = true;
		return flag_push(o, (struct policy_flag){ c, arg, NULL })
			       ? 0
			       : cli_usage_error("out of memory");
	default:
		if (path_option_name(c))
			return path_flag_add(o, c, arg) != 0 ? EXIT_USAGE : 0;
		if (!flag_push(o, (struct policy_flag){ c, arg, NULL }))
			return cli_usage_error("out of memory");
	}
	return 0;
}

/*
 * The options a configuration file may give: what shapes the policy and
 * the run's limits, never where the command runs, its policy file, or how
 * procage reports.
 */
static bool option_configurable(int c)
{
	return c != OPT_POLICY && c != OPT_CWD && c != OPT_JSON && c != OPT_TRUST_POLICY &&
	       c != OPT_DRY_RUN && c != OPT_NO_CONFIG && c != OPT_REPORT_JSON && c != 'h' &&
	       c != OPT_TIMEOUT && c != OPT_GRACE && c != OPT_AUDIT && c != OPT_ON_HANDOFF_CHANGE;
}

/*
 * Flags from a configuration ("--net", "proxy", "--profile=npm"), where
 * "~/" is the caller's home; the strings live as long as the options.
 */
static int vector_flags_add(struct run_options *o, const char *source, char **args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *a = args[i], *eq = strchr(a, '=');
		size_t len = (eq ? (size_t)(eq - a) : strlen(a)) - (a[0] == '-' && a[1] == '-' ? 2 : 0);
		const struct option *opt = run_long_options;
		for (; opt->name && a[0] == '-' && a[1] == '-'; opt++)
			if (strlen(opt->name) == len && strncmp(opt->name, a + 2, len) == 0)
				break;
		if (a[0] != '-' || a[1] != '-' || !opt->name || !option_configurable(opt->val))
			return cli_usage_error("%s: %s: not an option a configuration may give",
					       source, a);
		const char *value = NULL;
		if (opt->has_arg == required_argument && eq)
			value = eq + 1;
		else if (opt->has_arg == required_argument && i + 1 < n)
			value = args[++i];
		else if (opt->has_arg == required_argument)
			return cli_usage_error("%s: %s needs a value", source, a);
		else if (eq)
			return cli_usage_error("%s: %s takes no value", source, a);
		char *kept = value ? cli_home_expand(value) : NULL;
		if (value && (!kept || !strings_keep(o, kept)))
			return cli_usage_error("%s: %s: out of memory or no home to expand ~/", source, a);
		int rc = option_take(o, opt->val, kept);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int run_options_parse(int argc, char **argv, struct run_options *o)
{
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", run_long_options, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
			return cli_help(o->verb);
		}
		if (c == '?')
			return cli_usage_error("%s: unknown option or missing value: '%s'",
					       o->verb, argv[optind - 1]);
		int rc = option_take(o, c, optarg);
		if (rc != 0)
			return rc;
	}
	if (optind >= argc && !o->dry_run)
		return cli_usage_error("%s: no command given", o->verb);
	o->command = argv + optind;
	return config_and_profiles_apply(o);
}

static int spawn_failure_exit(const struct procage_error *err)
{
	if (err->step != PROCAGE_STEP_EXEC)
		return EXIT_PROCAGE_FAILED;
	return err->sys_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
}

/*
 * run_and_wait's answer when the spawn found the tree changed since the
 * cage was made (-ESTALE) and may be tried again: nothing was printed.
 */
#define RUN_CAGE_STALE (-1)

static int run_and_wait(const struct run_options *o, const struct procage_cage *cage,
			bool stale_retry, struct procage_error *err)
{
	struct procage_spawn_opts spawn = { .size = sizeof spawn, .argv = o->command, .cwd = o->cwd,
					    .report_json_path = o->report_json };
	struct procage_run *run;
	struct procage_audit *audit = NULL;
	struct procage_handoff *handoff = NULL;
	struct cli_supervise_result end;

	if (o->audit && procage_audit_begin(cage, &audit, err) != 0) {
		cli_report_error(err, o->json);
		return EXIT_PROCAGE_FAILED;
	}
	if (procage_handoff_begin(cage, &handoff, err) != 0) {
		cli_report_error(err, o->json);
		procage_audit_free(audit);
		return EXIT_PROCAGE_FAILED;
	}
	cli_signals_install(); /* a signal from now on is passed on, not lost */
	if (procage_spawn(cage, &spawn, &run, err) != 0) {
		cli_signals_restore();
		if (err->code == -ESTALE && stale_retry) {
			procage_audit_free(audit);
			procage_handoff_free(handoff);
			return RUN_CAGE_STALE;
		}
		if (err->code == -EMLINK)
			cli_hardlinks_print(cage, o->json, err->message);
		cli_report_spawn_error(err, o->json, o->command[0], o->cwd, false);
		procage_audit_free(audit);
		procage_handoff_free(handoff);
		return spawn_failure_exit(err);
	}
	if (procage_cage_hardlink_mode(cage) == PROCAGE_HARDLINKS_REPORT)
		cli_hardlinks_print(cage, o->json, NULL); /* listed, and the run goes on */
	int rc = cli_supervise(run, &o->supervise, &end, err);
	if (end.abandoned) {
		/* Not waited for any longer: freeing the run would wait. */
		fprintf(stderr,
			"procage: timed out: the command ran out of its %g s and did not end %d ms "
			"after SIGKILL; processes of the run may remain, and its temporary "
			"directory %s\n",
			o->supervise.timeout_seconds, CLI_KILL_WAIT_MS,
			procage_run_tmpdir(run) ? procage_run_tmpdir(run) : "(none)");
		procage_audit_free(audit);
		procage_handoff_free(handoff);
		return EXIT_TIMED_OUT;
	}
	if (o->report)
		cli_reports_print(run, o->json);
	/*
	 * A run that succeeded needed nothing it was refused: its refusals
	 * are printed only when asked for (--explain all), or in the report.
	 */
	bool failed = rc != 0 || end.timed_out || WIFSIGNALED(end.status) ||
		      WEXITSTATUS(end.status) != 0;
	if (failed || o->explain_all)
		cli_denials_print(run, o->json, o->explain_all);
	/*
	 * What the run was seen writing where git runs, for the trust-handoff
	 * lines below; its error apart, so that the run's own (in err) is kept.
	 */
	struct procage_error added_err;
	int added = procage_handoff_add_run(handoff, run, &added_err);
	bool changes_failed = cli_changes_after_run(run, o->apply_rule, o->json);
	procage_run_free(run);
	if (added != 0) {
		cli_report_error(&added_err, o->json);
		procage_audit_free(audit);
		procage_handoff_free(handoff);
		return EXIT_PROCAGE_FAILED;
	}
	if (audit)
		cli_audit_print(audit, o->json);
	procage_audit_free(audit);
	bool handoff_changed = cli_handoff_print(handoff, o->json);
	procage_handoff_free(handoff);
	if (rc != 0) {
		cli_report_error(err, o->json);
		return EXIT_PROCAGE_FAILED;
	}
	if (changes_failed)
		return EXIT_PROCAGE_FAILED;
	return run_exit_status(o, cage, &end, handoff_changed);
}

/*
 * The policy the options describe: the default one for the working
 * directory or the policy file (read once into src), then the flags.
 * exec mode on tier T2 turns the private TMPDIR off: nothing would remain
 * to remove a directory made on the host (on T1 it is a tmpfs in the
 * command's mount namespace, gone with it).
 */
static bool exec_tmp_mounted(void)
{
	struct procage_host_facts f;
	return procage_host_facts(&f, NULL) == 0 && f.tier == PROCAGE_TIER_T1;
}

static int policy_from_options(const struct run_options *o, bool for_exec,
			       struct policy_source *src, struct procage_policy **policy,
			       const char **would_make, struct procage_error *err)
{
	char workdir[PATH_MAX];
	if (o->cwd) {
		snprintf(workdir, sizeof workdir, "%s", o->cwd);
	} else if (!getcwd(workdir, sizeof workdir)) {
		snprintf(err->message, sizeof err->message,
			 "cannot find the working directory: %s", strerror(errno));
		return err->code = -errno;
	}
	if ((o->policy_file && policy_file_read(o->policy_file, src, err) != 0) ||
	    run_policy_build(o, workdir, o->policy_file ? src : NULL, policy, would_make, err) != 0 ||
	    (for_exec && !exec_tmp_mounted() &&
	     procage_policy_set_private_tmp(*policy, false, err) != 0)) {
		if (!err->message[0])
			snprintf(err->message, sizeof err->message, "cannot build the policy");
		return err->code ? err->code : -EINVAL;
	}
	return 0;
}

/*
 * The policy the options describe, checked against this host.
 * Returns 0, or the exit status after the error was reported.
 */
static int cage_from_options(const struct run_options *o, bool for_exec,
			     struct procage_policy **policy, struct procage_cage **cage,
			     struct procage_error *err)
{
	char grant[PATH_MAX] = "";
	struct policy_source src = { .dir_fd = -1 };
	if (policy_from_options(o, for_exec, &src, policy, NULL, err) != 0 ||
	    cli_ask_prepare(o, for_exec, *policy, err) != 0 ||
	    procage_cage_new(*policy, cage, err) != 0 ||
	    (o->policy_file &&
	     policy_file_judge(&src, *cage, o->trust_policy, grant, sizeof grant, err) != 0)) {
		if (!err->message[0])
			snprintf(err->message, sizeof err->message, "cannot build the policy");
		cli_report_error(err, o->json);
		policy_source_free(&src);
		return EXIT_PROCAGE_FAILED;
	}
	cli_ask_cage(*cage);
	if (grant[0] && o->audit) {
		/* Named by the audit: what the run could have reached, and did not. */
		fputs("procage: audit: the policy file ", stderr);
		json_write_string(stderr, src.canonical);
		fputs(" lies inside the write grant ", stderr);
		json_write_string(stderr, grant);
		fputs(": read-only for this run\n", stderr);
	}
	policy_source_free(&src);
	return 0;
}

/*
 * --dry-run: the effective policy, what fit does to it here, and whether
 * the cage would be made; nothing runs, and nothing is recorded (a policy
 * file that --trust-policy would record is said to be, not recorded).
 */
static int dry_run(const struct run_options *o, bool for_exec)
{
	struct procage_error err = { 0 }, cage_err = { 0 };
	struct policy_source src = { .dir_fd = -1 };
	struct procage_policy *policy = NULL;
	struct procage_cage *cage = NULL;
	char grant[PATH_MAX] = "";
	int rc = EXIT_PROCAGE_FAILED;
	/* One slot a flag, and the NULL that ends the list. */
	const char **would_make = calloc(o->n_flags + 1, sizeof *would_make);
	if (!would_make) {
		snprintf(err.message, sizeof err.message, "out of memory");
		err.code = -ENOMEM;
		cli_report_error(&err, o->json);
		return rc;
	}
	if (policy_from_options(o, for_exec, &src, &policy, would_make, &err) != 0) {
		cli_report_error(&err, o->json);
		goto out;
	}
	if (procage_cage_new(policy, &cage, &cage_err) == 0 && o->policy_file &&
	    !o->trust_policy)
		policy_file_judge(&src, cage, false, grant, sizeof grant, &cage_err);
	rc = cli_dry_run_print(policy, would_make, &cage_err, o->policy_file, &o->config,
			       o->trust_policy, o->command, o->json);
out:
	free(would_make);
	procage_cage_free(cage);
	procage_policy_free(policy);
	policy_source_free(&src);
	return rc;
}

/*
 * procage exec's part: become the caged command. There is no supervisor.
 * The private TMPDIR is a tmpfs of the command's own on tier T1; on tier
 * T2 none is made (nothing would remain to remove it from the host),
 * which a note on stderr says, since tools then find no writable TMPDIR.
 * A failure after the process started to change (err.step past
 * "namespaces") ends it at once with _exit: it is partly caged.
 */
static int exec_caged(const struct run_options *o, const struct procage_cage *cage)
{
	struct procage_error err = { 0 };
	if (!o->no_private_tmp && procage_cage_tier(cage) != PROCAGE_TIER_T1)
		fputs("procage: note: exec on tier T2 makes no private TMPDIR (nothing would "
		      "remain to remove it); TMPDIR stays the caller's, writable only where a "
		      "write grant reaches; use procage run for one\n",
		      stderr);
	struct procage_spawn_opts spawn = { .size = sizeof spawn, .argv = o->command, .cwd = o->cwd };
	procage_exec(cage, &spawn, &err); /* returns only on failure */
	/* Past its namespaces this process is caged: it sees what the command saw. */
	bool partly_caged = err.step != PROCAGE_STEP_NONE && err.step != PROCAGE_STEP_NAMESPACES;
	cli_report_spawn_error(&err, o->json, o->command[0], o->cwd, partly_caged);
	int rc = spawn_failure_exit(&err);
	if (partly_caged) {
		fflush(stderr);
		_exit(rc);
	}
	return rc;
}

/*
 * procage run and procage exec: the same options, --dry-run and cage; run
 * then spawns and supervises, exec becomes the command. The options of a
 * supervisor (--timeout, --audit, --on-handoff-change) do not apply to exec.
 */
static int caged_verb(int argc, char **argv, const char *verb)
{
	bool for_exec = strcmp(verb, "exec") == 0;
	struct run_options o = { .verb = verb, .supervise = { .grace_seconds = 5 } };
	struct procage_error err = { 0 };
	struct procage_policy *policy = NULL;
	struct procage_cage *cage = NULL;
	/*
	 * The host's facts and a root caller's /etc, while the options and
	 * the policy are read (a usage error or --dry-run leaves the work
	 * unused); not for exec, whose process enters the command's
	 * namespaces itself, which the kernel refuses to a process with a
	 * second thread still running.
	 */
	if (!for_exec)
		procage_prepare_ahead();
	int rc = run_options_parse(argc, argv, &o);

	if (rc != 0 || o.help)
		goto out;
	if (o.dry_run) {
		rc = dry_run(&o, for_exec);
		goto out;
	}
	if (o.apply_given && !o.changes_overlay) {
		rc = cli_usage_error("%s: --apply needs --changes overlay", verb);
		goto out;
	}
	if (for_exec && (o.supervise.timeout_seconds > 0 || o.audit || o.handoff_change_given)) {
		rc = cli_usage_error("exec: --timeout, --audit and --on-handoff-change need a "
				     "supervisor (procage run)");
		goto out;
	}
	if ((rc = cage_from_options(&o, for_exec, &policy, &cage, &err)) != 0)
		goto out;
	if (for_exec) {
		rc = exec_caged(&o, cage);
		goto out;
	}
	/*
	 * A tree that changed between the cage and the spawn (another run
	 * removing a repository in the workspace, say): the cage is made
	 * again, twice at most, before the refusal is printed.
	 */
	for (int again = 2;; again--) {
		rc = run_and_wait(&o, cage, again > 0, &err);
		if (rc != RUN_CAGE_STALE)
			break;
		procage_cage_free(cage);
		cage = NULL;
		if (procage_cage_new(policy, &cage, &err) != 0) {
			cli_report_error(&err, o.json);
			rc = EXIT_PROCAGE_FAILED;
			break;
		}
		cli_ask_cage(cage);
	}
out:
	procage_cage_free(cage);
	procage_policy_free(policy);
	run_options_free(&o);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	return caged_verb(argc, argv, "run");
}

int cmd_exec(int argc, char **argv)
{
	return caged_verb(argc, argv, "exec");
}

/*
 * One run of procage learn: argv as procage run takes it (argv[0] is the
 * verb). The command's output goes to stderr (stdout is the policy's).
 * The run's explained refusals in *lines (NULL: none), its policy as JSON
 * in *policy_json. Returns 0 or the exit status of a failure, reported.
 */
int cli_learn_run(int argc, char **argv, char ***lines, char **policy_json, int *code)
{
	struct run_options o = { .verb = "run", .supervise = { .grace_seconds = 5 } };
	struct procage_error err = { 0 };
	struct procage_policy *policy = NULL;
	struct procage_cage *cage = NULL;
	struct procage_run *run = NULL;
	struct cli_supervise_result end;
	const struct procage_fd_map fds[] = { { 0, 0 }, { 2, 1 }, { 2, 2 } };
	*lines = NULL;
	*policy_json = NULL;
	*code = -1;
	int rc = run_options_parse(argc, argv, &o);
	if (rc == 0 && (o.changes_overlay || o.apply_given))
		rc = cli_usage_error("learn: --changes and --apply are for procage run");
	if (rc != 0 || o.help || (rc = cage_from_options(&o, false, &policy, &cage, &err)) != 0)
		goto out;
	struct procage_spawn_opts spawn = { .size = sizeof spawn, .argv = o.command,
					    .cwd = o.cwd, .fds = fds, .n_fds = 3 };
	cli_signals_install();
	if (procage_spawn(cage, &spawn, &run, &err) != 0) {
		cli_signals_restore();
		cli_report_spawn_error(&err, o.json, o.command[0], o.cwd, false);
		rc = spawn_failure_exit(&err);
		goto out;
	}
	if (cli_supervise(run, &o.supervise, &end, &err) != 0 || end.abandoned ||
	    procage_run_denials(run, lines, &err) != 0 ||
	    procage_policy_to_json(policy, policy_json, &err) != 0) {
		cli_report_error(&err, o.json);
		rc = EXIT_PROCAGE_FAILED;
	} else {
		*code = end.timed_out		    ? EXIT_TIMED_OUT
			: WIFSIGNALED(end.status) ? 128 + WTERMSIG(end.status)
						  : WEXITSTATUS(end.status);
	}
	if (!end.abandoned)
		procage_run_free(run);
out:
	procage_cage_free(cage);
	procage_policy_free(policy);
	run_options_free(&o);
	return rc;
}
