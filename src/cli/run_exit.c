/* procage run: the exit status of a run that was waited for. */
#include <stdio.h>
#include <sys/wait.h>

#include "run_options.h"

/*
 * The exit status of a run that was waited for, said on stderr where it is
 * not the command's own (a timeout, a trust-handoff change that fails the
 * run) and in --json always.
 */
int run_exit_status(const struct run_options *o, const struct procage_cage *cage,
		    const struct cli_supervise_result *end, bool handoff_changed)
{
	int status = end->status;
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (end->timed_out) {
		/* Reported as a timeout, whatever the command did on its way out. */
		code = EXIT_TIMED_OUT;
		if (o->json)
			fprintf(stderr,
				"{\"exit\":{\"timeout\":true,\"seconds\":%g,%s\"code\":%d}}\n",
				o->supervise.timeout_seconds, end->killed ? "\"killed\":true," : "",
				code);
		else
			fprintf(stderr,
				"procage: timed out: the command ran out of its %g s and was ended "
				"(%s)\n",
				o->supervise.timeout_seconds,
				end->killed ? "SIGTERM, then SIGKILL after the grace period"
					    : "SIGTERM");
	} else if (handoff_changed &&
		   procage_cage_handoff_change(cage) == PROCAGE_HANDOFF_CHANGE_FAIL) {
		/* The run fails with its own status; the command's is kept in the message. */
		if (o->json)
			fprintf(stderr,
				"{\"exit\":{\"handoff_changed\":true,\"command_code\":%d,\"code\":%"
				"d}}\n",
				code, EXIT_HANDOFF_CHANGED);
		else
			fprintf(stderr,
				"procage: trust-handoff: the run changed what git or the shell on "
				"the host trusts (on_handoff_change fail); the command exited %d\n",
				code);
		code = EXIT_HANDOFF_CHANGED;
	} else if (o->json && WIFSIGNALED(status)) {
		fprintf(stderr, "{\"exit\":{\"signal\":%d,\"code\":%d}}\n", WTERMSIG(status), code);
	} else if (o->json) {
		fprintf(stderr, "{\"exit\":{\"code\":%d}}\n", code);
	}
	return code;
}
