/*
 * The hard-link check beside the run's setup (hardlinks_gate.h).
 *
 * Fail-closed: the target runs its command only after reading GATE_PASS,
 * which the thread writes only when the check found nothing and failed
 * nowhere. Every other outcome is a refusal byte, or end of file when the
 * caller died first: the verdict's end stays open in the caller until the
 * thread is joined, after the spawn, and the reaper closes the copy its
 * clone gave it before it starts the target (plan->exec_gate_write_fd).
 */
#include "hardlinks_gate.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "cage/cage.h"

static void *gate_check(void *arg)
{
	struct hardlinks_gate *g = arg;
	g->rc = cage_hardlinks_refusal(g->cage, &g->err);
	const char verdict = g->rc == 0 ? GATE_PASS : GATE_REFUSE;
	ssize_t n;
	/*
	 * One byte into an empty pipe whose reading end the caller holds:
	 * it cannot block or fail but for a signal, and this thread takes
	 * none. Should it fail all the same, the run is refused.
	 */
	do
		n = write(g->write_fd, &verdict, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 && g->rc == 0)
		g->rc = error_set_sys(&g->err, errno, PROCAGE_STEP_PREPARE,
				      "passing the hard-link check's verdict to the run");
	if (g->beside)
		g->beside();
	return NULL;
}

int hardlinks_gate_begin(const struct procage_cage *cage, void (*beside)(void),
			 struct hardlinks_gate *g, int *read_fd, struct procage_error *err)
{
	int fds[2];
	*g = (struct hardlinks_gate){.cage = cage, .write_fd = -1, .beside = beside};
	*read_fd = -1;
	if (procage_cage_hardlink_mode(cage) == PROCAGE_HARDLINKS_REPORT)
		return 0;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return cage_hardlinks_refusal(cage, err);
	g->write_fd = fds[1];
	/*
	 * The thread takes no signal: the caller's handlers keep running on
	 * the threads they ran on before, as when the check ran here.
	 */
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	int e = pthread_create(&g->thread, NULL, gate_check, g);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (e != 0) {
		close(fds[0]);
		close(fds[1]);
		g->write_fd = -1;
		return cage_hardlinks_refusal(cage, err);
	}
	g->running = true;
	*read_fd = fds[0];
	return 0;
}

int hardlinks_gate_end(struct hardlinks_gate *g, struct procage_error *err)
{
	if (g->running) {
		pthread_join(g->thread, NULL);
		g->running = false;
	}
	/* A zeroed gate was never begun: its 0 is no descriptor of ours. */
	if (g->cage && g->write_fd >= 0)
		close(g->write_fd);
	g->write_fd = -1;
	if (g->rc < 0 && err)
		*err = g->err;
	return g->rc;
}
