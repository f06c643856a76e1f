/*
 * The escape canaries' harness: a workspace per test, the probe run inside a
 * cage (through the public API only) or without one for controls, and the
 * outcome judged from outside.
 *
 *   caged_init(argv[0]);                       // finds the probe
 *   struct caged_ws *ws = caged_ws_new();      // <tmp>/procage-canary-XXXXXX/{rw,ro}
 *   struct caged_result r = run_caged(ws, NULL, "read-file", path, NULL);
 *   tap_ok(r.how == CAGED_EXITED && r.code == PROBE_REFUSED, "...: %s", r.summary);
 *   caged_ws_free(ws);                         // removes the workspace
 *
 * PROCAGE_TEST_SANDBOX_OFF=1 in the environment makes run_caged and
 * start_caged run without the cage, to prove that every canary fails when
 * the sandbox is switched off. It says so loudly on stdout (as TAP
 * comments) the first time it takes effect. Those runs get a mount
 * namespace of their own (when the process can make one), so an escape
 * that mounts or unmounts, now succeeding, cannot change the host's mounts.
 *
 * The hard-deny classes are found under $HOME and $XDG_RUNTIME_DIR, so a
 * workspace has its own of both (ws->home, ws->runtime): they are the
 * process's HOME and XDG_RUNTIME_DIR while a cage is made and while a run,
 * caged or not, is started. The caller's real home is never used.
 */
#ifndef PROCAGE_TEST_CAGED_H
#define PROCAGE_TEST_CAGED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "procage.h"

/*
 * The probe's exit codes (tests/probe.c): the operation succeeded, it was
 * refused by a permission check (the cage or the kernel), or something else
 * went wrong (usage, a missing file, an unexpected errno).
 */
#define PROBE_DID_IT 0
#define PROBE_REFUSED 10
#define PROBE_ERROR 20

/*
 * A per-test workspace. The cage's policy is procage_policy_new_default on
 * rw (system directories and home readable, rw writable, network off, a
 * private temporary directory) plus ro and the probe's directory readable.
 * root itself is granted nothing, so a file put there is out of the cage's
 * reach.
 */
struct caged_ws {
	char root[PATH_MAX];
	char rw[PATH_MAX];
	char ro[PATH_MAX];
	char home[PATH_MAX];	/* $HOME for cages and runs: <root>/home, a test may move it */
	char runtime[PATH_MAX]; /* $XDG_RUNTIME_DIR likewise: <root>/run */
	char base[PATH_MAX];	/* the shared temporary directory root was made in */
	struct procage_policy *policy; /* a test may add rules before a run */
	struct procage_cage *held;     /* caged_ws_hold_cage: runs use this cage */
};

/* Settings of one run besides the probe's arguments; NULL means none. */
struct caged_opts {
	char *const *env; /* NULL: the test's environ */
	const struct procage_fd_map
	    *fds; /* child_fd 0, 1, 2 are set by the harness unless mapped */
	size_t n_fds;
	int timeout_ms; /* 0: 20 s; then the run is killed */
	const char *report_json_path; /* caged runs: the run's reports as JSON lines here */
	/*
	 * The run's working directory, inherited from the test process (which
	 * enters it around the spawn) as `procage run` without --cwd does;
	 * NULL: ws->rw, passed as the spawn's cwd.
	 */
	const char *inherit_cwd;
};

enum caged_how {
	CAGED_EXITED,	   /* code is the exit code */
	CAGED_SIGNALED,	   /* code is the signal */
	CAGED_NOT_STARTED, /* code is the negative errno; error says why */
	CAGED_TIMED_OUT,   /* killed after the timeout */
};

struct caged_result {
	enum caged_how how;
	int code;
	bool caged;	       /* false: it ran without a cage */
	bool cage_refused;     /* procage_cage_new refused the policy: no child was made */
	char out[8192];	       /* the probe's stdout (cut at the buffer's size; NUL as space) */
	char err[1024];	       /* the probe's stderr */
	char tmpdir[PATH_MAX]; /* the run's TMPDIR: private to a caged run, "" if none */
	char error[600];       /* why the run did not start */
	char summary[800];     /* one line: "exit 10 (probe: ...)" for TAP names and diags */
};

/* Locate the probe: $PROCAGE_PROBE, else "probe" next to the running binary. */
int caged_init(const char *argv0);
const char *caged_probe_path(void);
/* PROCAGE_TEST_SANDBOX_OFF=1 is set: "caged" runs are not caged. */
bool caged_sandbox_off(void);

/* NULL on failure, with the reason on stderr. */
struct caged_ws *caged_ws_new(void);
/* Removes the whole workspace and frees the policy. Accepts NULL. */
void caged_ws_free(struct caged_ws *ws);

/*
 * Make the cage from ws->policy now (with the workspace's HOME and runtime
 * directory) and keep it: caged runs use it instead of making their own,
 * until caged_ws_drop_cage. 0, or -errno with the reason in why. Without
 * the sandbox (PROCAGE_TEST_SANDBOX_OFF) nothing is made and 0 returned.
 */
int caged_ws_hold_cage(struct caged_ws *ws, char *why, size_t size);
/* Replace ws->policy by a new default one, as caged_ws_new made it; 0 or -errno. */
int caged_ws_reset_policy(struct caged_ws *ws);
void caged_ws_drop_cage(struct caged_ws *ws);

/* Run the probe with ACTION ARGS... (NULL-terminated) and wait for it. */
struct caged_result run_caged(struct caged_ws *ws, const struct caged_opts *opts,
			      const char *action, ...) __attribute__((sentinel));
/* The same without a cage: fork and exec, the fd maps applied, the env unfiltered. */
struct caged_result run_uncaged(struct caged_ws *ws, const struct caged_opts *opts,
				const char *action, ...) __attribute__((sentinel));

/* The same with the action and its arguments in a NULL-terminated array. */
struct caged_result run_caged_argv(struct caged_ws *ws, const struct caged_opts *opts,
				   const char *const *args);
struct caged_result run_uncaged_argv(struct caged_ws *ws, const struct caged_opts *opts,
				     const char *const *args);

/* A run that stays alive while the test does other things. */
struct caged_proc;
struct caged_proc *start_caged(struct caged_ws *ws, const struct caged_opts *opts,
			       const char *action, ...) __attribute__((sentinel));
struct caged_proc *start_uncaged(struct caged_ws *ws, const struct caged_opts *opts,
				 const char *action, ...) __attribute__((sentinel));
/* Did it start? If not, caged_proc_finish tells why. */
bool caged_proc_started(const struct caged_proc *proc);
pid_t caged_proc_pid(const struct caged_proc *proc);
/* The run's TMPDIR while it lives ("" if none). */
const char *caged_proc_tmpdir(const struct caged_proc *proc);
/* Read its stdout until text appears (true), or EOF or the timeout (false). */
bool caged_proc_wait_for(struct caged_proc *proc, const char *text, int timeout_ms);
/*
 * End it now: a caged run with procage_run_kill (every process of the run),
 * an uncaged one by killing the probe (and nothing it started).
 */
void caged_proc_kill(struct caged_proc *proc);
/* Wait for the end (killing it after the timeout), free proc, return the outcome. */
struct caged_result caged_proc_finish(struct caged_proc *proc);

/* r->how == CAGED_EXITED && r->code == code */
bool caged_exited_with(const struct caged_result *r, int code);

/* Small file helpers for fixtures, judged from outside the cage. */
int caged_write_file(const char *path, const char *text);
/* The file's content in buf (NUL-terminated), or -errno. */
int caged_read_file(const char *path, char *buf, size_t size);
bool caged_path_exists(const char *path);
/* rm -rf, by descriptor, never following a link or leaving the file system. */
void caged_remove_tree(const char *path);

#endif
