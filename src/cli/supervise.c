/*
 * procage run, while its run lives: signals passed on, a stop and a
 * continue as a shell's job, the timeout, and the grace period after
 * SIGTERM. The run is in a session of its own without our terminal, so
 * everything the terminal sends us (Ctrl-C, Ctrl-\, Ctrl-Z, a hangup, a
 * new window size) is passed on by us.
 *
 * Signal handlers only write the signal's number on a pipe; the loop here
 * reads it, so nothing unsafe runs in a handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run_options.h"

/* Signals passed on to the run. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
				 SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT };
#define N_FORWARDED (sizeof forwarded / sizeof *forwarded)

static int signal_pipe[2] = { -1, -1 };
static struct sigaction saved_actions[N_FORWARDED];
static bool installed[N_FORWARDED];

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	(void)!write(signal_pipe[1], &c, 1);
	errno = saved;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool cli_seconds_parse(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e9)
		return false;
	*out = v;
	return true;
}

/*
 * Stop as a shell's job would: the run first, then procage itself; when
 * the shell continues us, continue the run.
 */
static void job_stop(struct procage_run *run, const struct sigaction *handler)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t tstp;

	procage_run_signal(run, SIGTSTP, NULL);
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, &dfl, NULL);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &tstp, NULL);
	raise(SIGTSTP);
	sigaction(SIGTSTP, handler, NULL);
	procage_run_signal(run, SIGCONT, NULL);
}

/*
 * Before the spawn, so that no signal sent once the command runs is lost:
 * it waits in the pipe until the loop reads it.
 */
void cli_signals_install(void)
{
	struct sigaction handler = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	if (signal_pipe[0] >= 0 || pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return;
	sigemptyset(&handler.sa_mask);
	for (size_t i = 0; i < N_FORWARDED; i++) {
		/* A signal we were started ignoring (nohup, a background job) stays so. */
		installed[i] = false;
		if (sigaction(forwarded[i], NULL, &saved_actions[i]) != 0 ||
		    saved_actions[i].sa_handler == SIG_IGN)
			continue;
		installed[i] = sigaction(forwarded[i], &handler, NULL) == 0;
	}
}

void cli_signals_restore(void)
{
	for (size_t i = 0; i < N_FORWARDED; i++)
		if (installed[i])
			sigaction(forwarded[i], &saved_actions[i], NULL);
	if (signal_pipe[0] >= 0) {
		close(signal_pipe[0]);
		close(signal_pipe[1]);
	}
	signal_pipe[0] = signal_pipe[1] = -1;
}

int cli_supervise(struct procage_run *run, const struct cli_supervise_opts *o,
		  struct cli_supervise_result *result, struct procage_error *err)
{
	struct sigaction handler = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	long long deadline = -1, grace_end = -1, abandon_at = -1;
	const long long grace_ms = (long long)(o->grace_seconds * 1000);
	int rc;

	memset(result, 0, sizeof *result);
	sigemptyset(&handler.sa_mask);
	cli_signals_install();
	if (signal_pipe[0] < 0) {
		struct pollfd end = { procage_run_fd(run), POLLIN, 0 };
		while (end.fd >= 0 && poll(&end, 1, -1) < 0 && errno == EINTR)
			;
		if (end.fd >= 0)
			cli_ask_cancel();
		return procage_run_wait(run, &result->status, err);
	}
	if (o->timeout_seconds > 0)
		deadline = now_ms() + (long long)(o->timeout_seconds * 1000);

	for (;;) {
		long long now = now_ms(), next = -1;
		if (deadline >= 0 && !result->timed_out && now >= deadline) {
			/* Out of time: SIGTERM, then SIGKILL after the grace period. */
			result->timed_out = true;
			procage_run_signal(run, SIGTERM, NULL);
			if (grace_end < 0)
				grace_end = now + grace_ms;
		}
		if (grace_end >= 0 && now >= grace_end && !result->killed) {
			result->killed = true;
			procage_run_kill(run, NULL);
			abandon_at = now + CLI_KILL_WAIT_MS;
		}
		/*
		 * A timeout ends procage run whatever the run's reaper does: one
		 * that does not end the run soon after SIGKILL is not waited for
		 * (the caller says what may remain; the reaper, seeing us gone,
		 * goes on ending the run).
		 */
		if (result->timed_out && abandon_at >= 0 && now >= abandon_at) {
			result->abandoned = true;
			cli_ask_cancel();
			cli_signals_restore();
			return 0;
		}
		if (deadline >= 0 && !result->timed_out)
			next = deadline;
		if (grace_end >= 0 && !result->killed && (next < 0 || grace_end < next))
			next = grace_end;
		if (result->timed_out && abandon_at >= 0 && (next < 0 || abandon_at < next))
			next = abandon_at;
		struct pollfd p[2] = { { procage_run_fd(run), POLLIN, 0 },
				       { signal_pipe[0], POLLIN, 0 } };
		int n = poll(p, 2, next < 0 ? -1 : (int)(next > now ? next - now : 0));
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && p[0].revents)
			break;
		unsigned char sigs[64];
		ssize_t got = n > 0 && p[1].revents ? read(signal_pipe[0], sigs, sizeof sigs) : 0;
		for (ssize_t i = 0; i < got; i++) {
			int sig = sigs[i];
			if (sig == SIGTSTP) {
				job_stop(run, &handler);
				continue;
			}
			procage_run_signal(run, sig, NULL);
			/* Asked to end: the run gets the grace period, then SIGKILL. */
			if ((sig == SIGTERM || sig == SIGHUP) && grace_end < 0)
				grace_end = now_ms() + grace_ms;
		}
	}
	/* The run is over (or this wait failed): an open question has nobody
	 * left to ask for, and the wait below would wait for its answer. */
	cli_ask_cancel();
	rc = procage_run_wait(run, &result->status, err);
	cli_signals_restore();
	return rc;
}
