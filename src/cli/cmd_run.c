/*
 * procage run: cage a command, wait for it, exit with its status.
 * procage exec: become the caged command (no supervisor).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/json.h"
#include "run_options.h"

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
