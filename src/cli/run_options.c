/*
 * The options of procage run and procage exec (and learn's run): the
 * command line, the configuration file's flags and the profiles, read
 * into struct run_options (run_options.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

void run_options_free(struct run_options *o)
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

int run_options_parse(int argc, char **argv, struct run_options *o)
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
