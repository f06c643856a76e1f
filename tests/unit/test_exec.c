/*
 * Unit tests of exec mode (procage_exec), each in a forked child that
 * becomes the caged command: it runs with the cage (a write outside the
 * workspace is refused, one inside works), it keeps the caller's pid and
 * has no reaper, and its failures say whether the process was left as it
 * was (a private temporary directory refused on tier T2; on tier T1 a
 * process with threads, which cannot enter a user namespace) or is partly
 * caged. On tier T1 a private temporary directory is a tmpfs of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procage.h"
#include "tap.h"

static char workspace[256];

/* A cage of the default policy on the workspace, with or without a private tmp. */
static struct procage_cage *cage_make_here(bool private_tmp)
{
	struct procage_policy *p = NULL;
	struct procage_cage *c = NULL;
	struct procage_error err;
	if (procage_policy_new_default(workspace, &p, &err) != 0 ||
	    procage_policy_set_private_tmp(p, private_tmp, &err) != 0 ||
	    procage_cage_new(p, &c, &err) != 0)
		tap_diag("cage: %s", err.message);
	procage_policy_free(p);
	return c;
}

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/*
 * In a child: procage_exec of sh -c script. On failure the child exits
 * with 100 + the step when the process was left as it was, else 90.
 */
static int exec_in_child_after(const struct procage_cage *c, const char *script,
			       bool with_thread, bool ahead, char *message, size_t size)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		pthread_t thread;
		if (with_thread)
			pthread_create(&thread, NULL, idle, NULL);
		if (ahead)
			procage_prepare_ahead();
		char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
		struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .cwd = workspace };
		struct procage_error err;
		procage_exec(c, &o, &err);
		(void)!write(pipefd[1], err.message, strlen(err.message));
		bool intact = err.step == PROCAGE_STEP_NONE || err.step == PROCAGE_STEP_NAMESPACES;
		_exit(intact ? 100 + (err.step < 0 ? 0 : err.step) : 90);
	}
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], message, size - 1);
	message[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

static int exec_in_child(const struct procage_cage *c, const char *script, bool with_thread,
			 char *message, size_t size)
{
	return exec_in_child_after(c, script, with_thread, false, message, size);
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char message[600], script[1024], outside[300];
	struct procage_host_facts facts;

	snprintf(workspace, sizeof workspace, "%s/procage-unit-XXXXXX", base);
	if (!mkdtemp(workspace) || procage_host_facts(&facts, NULL) != 0)
		return 99;
	snprintf(outside, sizeof outside, "%s.outside", workspace);

	struct procage_cage *c = cage_make_here(false);
	if (!tap_ok(c != NULL, "a cage without a private tmp"))
		return tap_done();

	snprintf(script, sizeof script,
		 "echo in > %s/inside && ! echo out 2>/dev/null > %s && [ \"$$\" = \"$PROCAGE_TEST_PID\" ]",
		 workspace, outside);
	char pid_text[32];
	/* The child's pid is what $$ must be: set just before exec, in the child. */
	pid_t pid = fork();
	if (pid == 0) {
		snprintf(pid_text, sizeof pid_text, "%d", (int)getpid());
		setenv("PROCAGE_TEST_PID", pid_text, 1);
		char *argv[] = { "/bin/sh", "-c", script, NULL };
		struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .cwd = workspace };
		procage_exec(c, &o, NULL);
		_exit(90);
	}
	int status = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char path[300];
	snprintf(path, sizeof path, "%s/inside", workspace);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the process becomes the caged command: it keeps its pid, writes in the workspace "
	       "and not outside (status 0x%x)",
	       status);
	tap_ok(access(path, F_OK) == 0 && access(outside, F_OK) != 0,
	       "the files say the same from outside");
	unlink(path);
	unlink(outside);

	int code = exec_in_child(c, "exit 7", false, message, sizeof message);
	tap_ok(code == 7, "the command's exit status is the process's (%d)", code);

	code = exec_in_child(c, "exec /no/such/command", false, message, sizeof message);
	tap_ok(code == 127, "a command that the cage's sh cannot find: its own 127 (%d)", code);

	procage_cage_free(c);

	c = cage_make_here(true);
	code = c ? exec_in_child(c, "echo x >\"$TMPDIR/f\" && test -s \"$TMPDIR/f\"", false,
				 message, sizeof message)
		 : -1;
	if (c && procage_cage_tier(c) == PROCAGE_TIER_T1)
		tap_ok(code == 0, "on tier T1 a private tmp is a tmpfs of the command's own, "
				  "writable (%d: %s)",
		       code, message);
	else
		tap_ok(code == 100 + 0 && strstr(message, "private temporary directory"),
		       "on tier T2 a private tmp is refused before anything changes: %s", message);
	procage_cage_free(c);

	c = cage_make_here(false);
	code = exec_in_child(c, "exit 0", true, message, sizeof message);
	if (procage_cage_tier(c) == PROCAGE_TIER_T1)
		tap_ok(code == 100 + PROCAGE_STEP_NAMESPACES && strstr(message, "single-threaded"),
		       "on tier T1 a process with threads is refused at the namespaces step, "
		       "unchanged: %s",
		       message);
	else
		tap_ok(code == 0, "on tier T2 a process with threads becomes the command (%d: %s)",
		       code, message);
	/* The library's own thread of procage_prepare_ahead is no thread of the caller's. */
	code = exec_in_child_after(c, "exit 0", false, true, message, sizeof message);
	tap_ok(code == 0, "work begun ahead does not keep the process from becoming the command "
			  "(%d: %s)",
	       code, message);
	procage_cage_free(c);
	rmdir(workspace);
	return tap_done();
}
