/*
 * Violation reports: with reports on, the seccomp filter hands
 * refused calls to a supervisor in the calling process through a listener.
 * The listener reaches the parent before exec: nothing in the cage holds
 * it, can reopen it, or can answer the outer filter's refusals with a
 * listener of its own; a refused call fails EPERM and is reported with the
 * caller's pid. Next to the canary, the reports themselves: exactly the
 * refused calls, counts that survive a hammering, processes killed while
 * their calls wait, and JSON lines a harness reads.
 *
 * These runs need the reports of the run, which tests/lib/caged does not
 * return: reporting_run spawns the probe itself through the public API,
 * with the cage the workspace holds (made with the workspace's HOME).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"

struct reporting {
	struct caged_result r;
	pid_t pid; /* the probe's, in our PID namespace */
	struct procage_report *reports;
	size_t n;
	double seconds; /* from spawn to the end of the wait */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void append(char *buf, size_t size, size_t *len, const char *data, size_t n)
{
	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(buf + *len, data, n);
	*len += n;
	buf[*len] = '\0';
}

/*
 * The probe in a cage of ws->policy with reports on or off; its output,
 * its end, and the reports of the run. Without the sandbox
 * (PROCAGE_TEST_SANDBOX_OFF) it runs uncaged and has no reports.
 */
static struct reporting reporting_run(const struct tier *t, struct caged_ws *ws, bool reports,
				      const char *json_path, const char *const *args)
{
	struct reporting x;
	struct procage_error err;
	struct procage_run *run = NULL;
	memset(&x, 0, sizeof x);
	if (caged_sandbox_off()) {
		x.r = run_caged_argv(ws, NULL, args);
		return x;
	}
	x.r.caged = true;
	caged_ws_drop_cage(ws);
	char why[600];
	if (procage_policy_set_reports(ws->policy, reports, &err) < 0 ||
	    caged_ws_hold_cage(ws, why, sizeof why) < 0) {
		x.r.how = CAGED_NOT_STARTED;
		x.r.cage_refused = true;
		snprintf(x.r.summary, sizeof x.r.summary, "cage refused");
		return x;
	}
	char *argv[64];
	size_t a = 0;
	argv[a++] = (char *)caged_probe_path();
	for (size_t i = 0; args[i] && a < 63; i++)
		argv[a++] = (char *)args[i];
	argv[a] = NULL;
	char home[PATH_MAX + 8];
	snprintf(home, sizeof home, "HOME=%s", ws->home);
	char *env[] = {"PATH=/usr/bin:/bin", home, NULL};
	int out[2], errp[2];
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0 || null < 0) {
		x.r.how = CAGED_NOT_STARTED;
		snprintf(x.r.summary, sizeof x.r.summary, "pipes: %s", strerror(errno));
		return x;
	}
	struct procage_fd_map maps[] = {{null, 0}, {out[1], 1}, {errp[1], 2}};
	struct procage_spawn_opts so = {.size = sizeof so,
					.argv = argv,
					.envp = env,
					.cwd = ws->rw,
					.fds = maps,
					.n_fds = 3,
					.report_json_path = json_path};
	double start = now_s();
	int rc = procage_spawn(ws->held, &so, &run, &err);
	close(out[1]);
	close(errp[1]);
	close(null);
	if (rc < 0) {
		x.r.how = CAGED_NOT_STARTED;
		snprintf(x.r.error, sizeof x.r.error, "%s", err.message);
		snprintf(x.r.summary, sizeof x.r.summary, "not started: %s", err.message);
		close(out[0]);
		close(errp[0]);
		return x;
	}
	x.pid = procage_run_pid(run);
	size_t out_len = 0, err_len = 0;
	struct pollfd p[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
	bool timed_out = false;
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		int left = (int)((start + 60 - now_s()) * 1000);
		if (left <= 0) {
			timed_out = true;
			procage_run_kill(run, NULL);
			break;
		}
		if (poll(p, 2, left) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			char buf[4096];
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			ssize_t n = read(p[i].fd, buf, sizeof buf);
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
			} else if (i == 0) {
				append(x.r.out, sizeof x.r.out, &out_len, buf, (size_t)n);
			} else {
				append(x.r.err, sizeof x.r.err, &err_len, buf, (size_t)n);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	int status = 0;
	if (procage_run_wait(run, &status, &err) < 0)
		diag("waiting for the run: %s", err.message);
	x.seconds = now_s() - start;
	if (procage_run_reports(run, &x.reports, &x.n, &err) < 0)
		diag("procage_run_reports: %s", err.message);
	procage_run_free(run);
	if (timed_out) {
		x.r.how = CAGED_TIMED_OUT;
	} else if (WIFEXITED(status)) {
		x.r.how = CAGED_EXITED;
		x.r.code = WEXITSTATUS(status);
	} else {
		x.r.how = CAGED_SIGNALED;
		x.r.code = WTERMSIG(status);
	}
	snprintf(x.r.summary, sizeof x.r.summary, "%s %d after %.2f s (%.300s)",
		 x.r.how == CAGED_EXITED ? "exit" : x.r.how == CAGED_TIMED_OUT ? "timed out" : "signal",
		 x.r.code, x.seconds, x.r.err);
	(void)t;
	return x;
}

static void reports_diag(const struct reporting *x)
{
	diag("%zu reports (probe pid %d):", x->n, (int)x->pid);
	for (size_t i = 0; i < x->n && i < 20; i++)
		diag("  %s(%s) pid %d count %llu", x->reports[i].call, x->reports[i].args,
		     (int)x->reports[i].pid, (unsigned long long)x->reports[i].count);
}

static const struct procage_report *report_of(const struct reporting *x, const char *call,
					      pid_t pid)
{
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->reports[i].call, call) == 0 && (pid == 0 || x->reports[i].pid == pid))
			return &x->reports[i];
	return NULL;
}

static bool checked(const struct tier *t, bool ok, const struct reporting *x, const char *what)
{
	if (!check(t, ok, &x->r, "%s", what))
		reports_diag(x);
	return ok;
}

static void reporting_free(struct reporting *x)
{
	procage_free(x->reports);
	x->reports = NULL;
}

static bool eperm(const struct caged_result *r)
{
	return refused(r) && strstr(r->err, "EPERM");
}

void r32_the_seccomp_listener_stays_out_of_reach(const struct tier *t)
{
	struct reporting x;
	char what[256];
	struct caged_ws *ws = workspace(t, "r32");
	if (!ws || cage_refused_here(t, ws, "r32"))
		goto out;

	x = reporting_run(t, ws, true, NULL, (const char *const[]){"find-listener", NULL});
	/* (Caged: without the cage there is no listener to find, and nothing proven.) */
	checked(t, x.r.caged && refused(&x.r) && strstr(x.r.err, "no listener among"), &x,
		"r32: with reports on, no descriptor of the caged probe is a seccomp listener");
	reporting_free(&x);

	x = reporting_run(t, ws, true, NULL, (const char *const[]){"reopen-listener", "self", NULL});
	checked(t, x.r.caged && refused(&x.r), &x,
		"r32: no listener is reopened through /proc/self/fd");
	reporting_free(&x);
	x = reporting_run(t, ws, true, NULL,
			  (const char *const[]){"reopen-listener", "parent", NULL});
	checked(t, x.r.caged && refused(&x.r), &x,
		"r32: no listener is reopened through the parent's /proc/PID/fd");
	reporting_free(&x);

	x = reporting_run(t, ws, true, NULL, (const char *const[]){"own-listener", NULL});
	checked(t,
		eperm(&x.r) && !strstr(x.r.out, "answered continue") &&
		    report_of(&x, "io_uring_setup", 0),
		&x,
		"r32: a listener of the cage's own (if the kernel lets it install one) cannot "
		"answer the outer filter's refusal: io_uring_setup stays EPERM and is reported");
	if (strstr(x.r.err, "no listener of our own"))
		diag("r32: the probe's own listener was refused: %.200s", x.r.err);
	reporting_free(&x);

	static const struct {
		const char *action, *call;
		enum host_rule rule;
	} calls[] = {{"io-uring", "io_uring_setup", HOST_IO_URING},
		     {"unshare-user", "unshare", HOST_USERNS}};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		x = reporting_run(t, ws, true, NULL, (const char *const[]){calls[i].action, NULL});
		const struct procage_report *rep = report_of(&x, calls[i].call, x.pid);
		if (calls[i].rule == HOST_USERNS && !t->facts.userns_create) {
			/* The host refuses it before our filter is asked: nothing to report. */
			snprintf(what, sizeof what,
				 "r32: with reports on, %s fails EPERM (the host refuses user "
				 "namespaces before the cage's filter sees the call)",
				 calls[i].call);
			checked(t, eperm(&x.r), &x, what);
		} else {
			snprintf(what, sizeof what,
				 "r32: with reports on, %s fails EPERM and is reported with the "
				 "probe's pid",
				 calls[i].call);
			checked(t, eperm(&x.r) && x.pid > 0 && rep && rep->count == 1, &x, what);
		}
		reporting_free(&x);

		x = reporting_run(t, ws, false, NULL, (const char *const[]){calls[i].action, NULL});
		snprintf(what, sizeof what,
			 "r32: the control of reporting: with reports off, %s fails EPERM and "
			 "nothing is reported",
			 calls[i].call);
		checked(t, eperm(&x.r) && x.n == 0, &x, what);
		reporting_free(&x);

		struct caged_result u = run_uncaged(ws, NULL, calls[i].action, NULL);
		control_or_skip(t, "r32", calls[i].rule, &u, calls[i].call);
	}

	struct caged_result u = run_uncaged(ws, NULL, "own-listener", "then", "find-listener", NULL);
	if (strstr(u.out, "own listener installed"))
		check(t, strstr(u.out, "listener at fd") != NULL, &u,
		      "r32: control: without the cage, the probe's own listener is found among its "
		      "descriptors");
	else
		diag("r32: without the cage the probe installs no listener here: %s", u.summary);
out:
	caged_ws_free(ws);
}

/* The report of a run lists exactly the refused calls, each with the probe's pid. */
void reports_list_exactly_the_refused_calls(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r32");
	if (!ws || cage_refused_here(t, ws, "r32"))
		goto out;
	char json[PATH_MAX];
	if (!path_join(t, json, ws->root, "reports.jsonl"))
		goto out;
	struct reporting x =
	    reporting_run(t, ws, true, json, (const char *const[]){"refused-set", NULL});
	static const char *const expect[] = {"io_uring_setup", "ptrace", "mount", "unshare",
					     "ioctl"};
	/*
	 * A host that refuses user namespaces itself (tests/without_userns does,
	 * with a filter of its own that takes precedence) answers unshare before
	 * the cage's filter is asked: then it is not the cage's to report.
	 */
	size_t expected = t->facts.userns_create ? 5 : 4;
	bool all = x.n == expected && strstr(x.r.out, "unshare EPERM");
	for (size_t i = 0; i < 5; i++) {
		const struct procage_report *r = report_of(&x, expect[i], x.pid);
		if (strcmp(expect[i], "unshare") == 0 && !t->facts.userns_create)
			all = all && !r;
		else
			all = all && r && r->count == 1;
	}
	checked(t, did_it(&x.r) && all, &x,
		"r32: reports: io_uring, ptrace, a mount, a nested user namespace and TIOCSTI "
		"are reported, exactly those, each once with the probe's pid");
	const struct procage_report *m = report_of(&x, "mount", x.pid);
	const struct procage_report *io = report_of(&x, "ioctl", x.pid);
	checked(t,
		m && strstr(m->args, "source \"none\"") &&
		    strstr(m->args, "target \"/tmp/r32-no-such-directory\"") &&
		    strstr(m->args, "(untrusted)") && io &&
		    strstr(io->args, "0x5412"),
		&x,
		"r32: reports: the mount's source and target are read, each named as what it is, "
		"and marked untrusted; TIOCSTI named");
	reporting_free(&x);

	/* The JSON lines: one per distinct report, written once, then one of counts. */
	char text[16384], counts[256];
	int lines = 0, entries = 0, ends = 0, bad = 0;
	snprintf(counts, sizeof counts, "\"counts\":[1");
	for (size_t i = 1; i < expected; i++)
		strcat(counts, ",1");
	strcat(counts, "]}");
	if (caged_read_file(json, text, sizeof text) == 0) {
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			size_t len = strlen(line);
			lines++;
			if (line[0] != '{' || line[len - 1] != '}')
				bad++;
			else if (strncmp(line, "{\"end\":true,", 12) == 0)
				ends += strstr(line, counts) != NULL && lines == (int)expected + 1;
			else if (strstr(line, "\"call\":\"") && strstr(line, "\"pid\":") &&
				 !strstr(line, "\"final\""))
				entries++;
			else
				bad++;
		}
	}
	check(t, lines == (int)expected + 1 && entries == (int)expected && ends == 1 && bad == 0,
	      &x.r,
	      "r32: reports: --report-json gets one line per report as it comes, each written "
	      "once, then one closing line of counts (%d lines, %d reports, %d closing, %d "
	      "malformed)",
	      lines, entries, ends, bad);
out:
	caged_ws_free(ws);
}

/* 100 000 refused calls: none lost, the run ends promptly. */
void reports_survive_a_hammering(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r32");
	if (!ws || cage_refused_here(t, ws, "r32"))
		goto out;
	struct reporting x =
	    reporting_run(t, ws, true, NULL, (const char *const[]){"refuse-loop", "100000", NULL});
	unsigned long long sum = 0;
	for (size_t i = 0; i < x.n; i++)
		sum += x.reports[i].count;
	diag("r32: 100000 reported calls took %.2f s", x.seconds);
	checked(t, did_it(&x.r) && strstr(x.r.out, "100000 of 100000") && sum == 100000, &x,
		"r32: reports: 100 000 refused calls in a tight loop all fail EPERM and all are "
		"counted");
	checked(t, x.r.caged && x.r.how == CAGED_EXITED && x.seconds < 30, &x,
		"r32: reports: the hammered run ends promptly");
	reporting_free(&x);

	x = reporting_run(t, ws, true, NULL,
			  (const char *const[]){"refuse-crowd", "16", "300", NULL});
	diag("r32: a crowd of 16 killed mid-notification: %.2f s", x.seconds);
	checked(t,
		did_it(&x.r) && x.seconds < 30 && report_of(&x, "io_uring_setup", x.pid) &&
		    x.n >= 2,
		&x,
		"r32: reports: processes killed while their refused calls wait do not stall the "
		"supervisor; the next refused call is answered EPERM and reported");
	reporting_free(&x);
out:
	caged_ws_free(ws);
}

/*
 * Past the store's bound of distinct reports nothing is dropped: 5000
 * different refused calls, then a mount; the mount is reported, every
 * call is counted, and the merging past the bound is stated.
 */
void reports_keep_every_distinct_call(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "r32");
	if (!ws || cage_refused_here(t, ws, "r32"))
		goto out;
	struct reporting x = reporting_run(t, ws, true, NULL,
					   (const char *const[]){"refuse-distinct", "5000", NULL});
	unsigned long long io = 0;
	bool stated = false;
	for (size_t i = 0; i < x.n; i++) {
		if (strcmp(x.reports[i].call, "io_uring_setup") != 0)
			continue;
		io += x.reports[i].count;
		stated |= strstr(x.reports[i].args, "past 4096 distinct reports") != NULL;
	}
	const struct procage_report *m = report_of(&x, "mount", x.pid);
	checked(t, did_it(&x.r) && m && strstr(m->args, "r32-after-the-flood"), &x,
		"r32: reports: a mount after 5000 different refused calls is still reported");
	checked(t, io == 5000 && stated, &x,
		"r32: reports: all 5000 are counted, and the records past the bound say so");
	reporting_free(&x);
out:
	caged_ws_free(ws);
}
