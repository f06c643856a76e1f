/*
 * What the child inherits from its caller: descriptors, environment
 * variables and the shared temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

/* ---- R-21 ------------------------------------------------------------- */

void r21_an_inherited_descriptor_does_not_reach_the_child(const struct tier *t)
{
	static const char secret[] = "r21: reachable only through a descriptor\n";
	char path[PATH_MAX + 32], num[16], high_num[16], mapped_num[16];
	struct caged_ws *ws = workspace(t, "r21");
	if (!ws || cage_refused_here(t, ws, "r21"))
		goto out;

	/* Outside every grant: a descriptor is the only way to it. */
	snprintf(path, sizeof path, "%s/r21-secret", ws->root);
	if (caged_write_file(path, secret) < 0) {
		check(t, false, NULL, "r21: fixture %s written", path);
		goto out;
	}
	int fd = open(path, O_RDONLY);	    /* no O_CLOEXEC, on purpose */
	int high = fcntl(fd, F_DUPFD, 100); /* a high number too, no O_CLOEXEC either */
	snprintf(num, sizeof num, "%d", fd);
	snprintf(high_num, sizeof high_num, "%d", high);

	struct caged_result r = run_caged(ws, NULL, "read-fd", num, NULL);
	check(t, refused(&r) && !strstr(r.out, "r21:"), &r,
	      "r21: descriptor %d, left open without O_CLOEXEC, is closed in the cage", fd);
	r = run_caged(ws, NULL, "read-fd", high_num, NULL);
	check(t, refused(&r) && !strstr(r.out, "r21:"), &r,
	      "r21: descriptor %d (a high number) is closed in the cage", high);
	r = run_caged(ws, NULL, "read-file", path, NULL);
	check(t, refused(&r), &r, "r21: the file behind it cannot be opened by path in the cage");

	r = run_uncaged(ws, NULL, "read-fd", num, NULL);
	check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
	      "r21: control: without the cage the probe inherits descriptor %d and reads the file",
	      fd);

	int mapped = fd == 7 ? 8 : 7;
	snprintf(mapped_num, sizeof mapped_num, "%d", mapped);
	struct procage_fd_map map = {fd, mapped};
	struct caged_opts o = {.fds = &map, .n_fds = 1};
	r = run_caged(ws, &o, "read-fd", mapped_num, NULL);
	check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
	      "r21: control: passed through the spawn's fd map as %d, the caged probe reads the "
	      "right content",
	      mapped);
	r = run_caged(ws, &o, "read-fd", mapped_num, "then", "read-fd", num, NULL);
	check(t, refused(&r) && strcmp(r.out, secret) == 0, &r,
	      "r21: with it passed as %d, its original number %d stays closed in the cage", mapped,
	      fd);
	close(fd);
	close(high);
out:
	caged_ws_free(ws);
}

/* ---- R-24 ------------------------------------------------------------- */

static const char *const r24_secrets[][2] = {
    {"GITHUB_TOKEN", "ghp_r24canaryGithubToken"},
    {"AWS_SECRET_ACCESS_KEY", "r24canaryAwsSecretAccessKey"},
    {"SSH_AUTH_SOCK", "/tmp/ssh-r24canary/agent.1"},
    {"NPM_TOKEN", "npm_r24canaryNpmToken"},
    {"MY_API_KEY", "r24canaryMyApiKey"},
    {"DB_PASSWORD", "r24canaryDbPassword"},
    {"MYSQL_PWD", "r24canaryMysqlPwd"},
    {"NPM_CONFIG__AUTH", "r24canaryNpmAuth"},
    {"CI_JOB_JWT", "r24canaryJobJwt"},
    {"GITHUB_PAT", "r24canaryGithubPat"},
    {"SMTP_PASS", "r24canarySmtpPass"},
    {"LDAP_BIND_PW", "r24canaryLdapBindPw"},
    {"SENTRY_DSN", "https://r24canarySentryDsn@sentry.example/1"},
    {"SLACK_WEBHOOK_URL", "https://hooks.example/r24canaryWebhook"},
    {"DATABASE_URL", "postgres://u:r24canaryDatabaseUrl@h/db"},
    {"PIP_INDEX_URL", "https://u:r24canaryPipIndex@h/simple"},
};
#define R24_N_SECRETS (sizeof r24_secrets / sizeof *r24_secrets)

void r24_secret_variables_do_not_reach_the_child(const struct tier *t)
{
	static const char ordinary_value[] = "r24-an-ordinary-value";
	char entries[R24_N_SECRETS + 3][512];
	char *env[R24_N_SECRETS + 4];
	size_t n = 0;
	struct caged_ws *ws = workspace(t, "r24");
	if (!ws || cage_refused_here(t, ws, "r24"))
		goto out;

	const char *path = getenv("PATH");
	snprintf(entries[n++], sizeof entries[0], "PATH=%s", path ? path : "/usr/bin:/bin");
	snprintf(entries[n++], sizeof entries[0], "R24_ORDINARY=%s", ordinary_value);
	for (size_t i = 0; i < R24_N_SECRETS; i++)
		snprintf(entries[n++], sizeof entries[0], "%s=%s", r24_secrets[i][0],
			 r24_secrets[i][1]);
	for (size_t i = 0; i < n; i++)
		env[i] = entries[i];
	env[n] = NULL;
	struct caged_opts o = {.env = env};

	for (size_t i = 0; i < R24_N_SECRETS; i++) {
		const char *name = r24_secrets[i][0], *value = r24_secrets[i][1];
		struct caged_result r = run_caged(ws, &o, "env-has", name, NULL);
		check(t, refused(&r) && !strstr(r.out, value), &r,
		      "r24: %s in the spawn's environment does not reach the child", name);
		r = run_uncaged(ws, &o, "env-has", name, NULL);
		check(t, did_it(&r) && strcmp(r.out, value) == 0, &r,
		      "r24: control: without the cage %s reaches the probe", name);
	}

	struct caged_result r = run_caged(ws, &o, "env-list", NULL);
	bool leaked = false;
	for (size_t i = 0; i < R24_N_SECRETS; i++)
		leaked |= strstr(r.out, r24_secrets[i][1]) != NULL;
	check(t, did_it(&r) && !leaked, &r,
	      "r24: no secret value appears anywhere in the child's environment");

	/*
	 * The filter must judge the whole name: a long one (longer than any
	 * fixed buffer a filter might copy it into) ending in _TOKEN is a secret
	 * too.
	 */
	char long_name[320], long_entry[400];
	snprintf(long_name, sizeof long_name, "R24_%0300d_TOKEN", 0);
	snprintf(long_entry, sizeof long_entry, "%s=%s", long_name, r24_secrets[0][1]);
	char *long_env[] = {entries[0], long_entry, NULL};
	struct caged_opts long_opts = {.env = long_env};
	r = run_caged(ws, &long_opts, "env-has", long_name, NULL);
	check(t, refused(&r), &r,
	      "r24: a secret variable with a %zu-character name (R24_000..._TOKEN) does not reach "
	      "the child",
	      strlen(long_name));
	r = run_uncaged(ws, &long_opts, "env-has", long_name, NULL);
	check(t, did_it(&r) && strcmp(r.out, r24_secrets[0][1]) == 0, &r,
	      "r24: control: without the cage the long-named secret reaches the probe");

	r = run_caged(ws, &o, "env-has", "R24_ORDINARY", NULL);
	check(t, did_it(&r) && strcmp(r.out, ordinary_value) == 0, &r,
	      "r24: control: an ordinary variable reaches the caged probe unchanged");

	struct procage_error err;
	if (procage_policy_env_pass(ws->policy, "GITHUB_TOKEN", &err) < 0) {
		check(t, false, NULL, "r24: procage_policy_env_pass(GITHUB_TOKEN): %s",
		      err.message);
		goto out;
	}
	r = run_caged(ws, &o, "env-has", "GITHUB_TOKEN", NULL);
	check(t, did_it(&r) && strcmp(r.out, r24_secrets[0][1]) == 0, &r,
	      "r24: control: GITHUB_TOKEN passed by name with procage_policy_env_pass reaches "
	      "the caged probe");
	r = run_caged(ws, &o, "env-has", "NPM_TOKEN", NULL);
	check(t, refused(&r), &r, "r24: passing GITHUB_TOKEN by name lets no other secret through");
out:
	caged_ws_free(ws);
}

/* ---- R-10 ------------------------------------------------------------- */

void r10_runs_do_not_share_temporary_files(const struct tier *t)
{
	static const char secret[] = "r10: run A's private file";
	char name[64], a_file[PATH_MAX + 64], shared_file[PATH_MAX + 64], a_tmp[PATH_MAX];
	char name_arg[96], b_tmp[4][PATH_MAX];
	int hold[2] = {-1, -1};
	struct caged_ws *ws = workspace(t, "r10");
	/* Tier T1: the TMPDIR is a tmpfs in the run's mount namespace (docs/lifetime.md). */
	bool t1 = tier_is_t1(t);
	if (!ws || cage_refused_here(t, ws, "r10"))
		goto out;
	memset(b_tmp, 0, sizeof b_tmp);

	snprintf(name, sizeof name, "procage-r10-%d", (int)getpid());
	snprintf(name_arg, sizeof name_arg, "$TMPDIR/%s", name);
	snprintf(shared_file, sizeof shared_file, "%s/procage-r10-shared-%d", ws->base,
		 (int)getpid());
	if (pipe2(hold, O_CLOEXEC) != 0) {
		check(t, false, NULL, "r10: pipe: %s", strerror(errno));
		goto out;
	}

	/* Run A: writes in its TMPDIR, says so, stays alive until we let go. */
	struct procage_fd_map a_map = {hold[0], 3};
	struct caged_opts a_opts = {.fds = &a_map, .n_fds = 1};
	struct caged_proc *a =
	    start_caged(ws, &a_opts, "write-file", name_arg, secret, "then", "print", "ready",
			"then", "wait-on-fd", "3", "then", "read-file", name_arg, NULL);
	close(hold[0]);
	hold[0] = -1;
	snprintf(a_tmp, sizeof a_tmp, "%s", caged_proc_tmpdir(a));
	snprintf(a_file, sizeof a_file, "%s/%s", a_tmp, name);
	if (!check_role(t, ROLE_SETUP, caged_proc_wait_for(a, "ready\n", 10000), NULL,
			"r10: run A wrote %s and is waiting", a_file)) {
		close(hold[1]);
		hold[1] = -1;
		struct caged_result ra = caged_proc_finish(a);
		result_diag(&ra);
		goto out;
	}

	/* Runs B, while A lives. */
	struct caged_result r = run_caged(ws, NULL, "read-file", a_file, NULL);
	snprintf(b_tmp[0], sizeof b_tmp[0], "%s", r.tmpdir);
	/* T1: at that path B finds its own tmpfs, where the file does not exist. */
	bool absent = caged_exited_with(&r, PROBE_ERROR) && strstr(r.err, "ENOENT");
	check(t, (t1 ? absent : refused(&r)) && !strstr(r.out, secret), &r,
	      "r10: a concurrent run B cannot read run A's file in A's private TMPDIR%s",
	      t1 ? " (no such file in B's own)" : "");
	if (t1) {
		/* T1: every run's TMPDIR is a tmpfs of its own at the same path. */
		r = run_caged(ws, NULL, "list-dir", "$TMPDIR", name, NULL);
		snprintf(b_tmp[1], sizeof b_tmp[1], "%s", r.tmpdir);
		check(t, did_it(&r) && !strstr(r.out, name) && strcmp(r.tmpdir, a_tmp) == 0, &r,
		      "r10: a concurrent run B lists its TMPDIR, the path of A's (%s), and finds "
		      "nothing of A's there",
		      r.tmpdir);
	} else {
		r = run_caged(ws, NULL, "list-dir", a_tmp, NULL);
		snprintf(b_tmp[1], sizeof b_tmp[1], "%s", r.tmpdir);
		check(t, refused(&r) && !strstr(r.out, name), &r,
		      "r10: a concurrent run B cannot list run A's private TMPDIR");
	}
	r = run_caged(ws, NULL, "write-file", shared_file, "from run B", NULL);
	snprintf(b_tmp[2], sizeof b_tmp[2], "%s", r.tmpdir);
	check(t, refused(&r) && !caged_path_exists(shared_file), &r,
	      "r10: run B cannot write into the shared temporary directory %s", ws->base);
	unlink(shared_file);

	char own_arg[96], own_file[PATH_MAX + 64];
	snprintf(own_arg, sizeof own_arg, "$TMPDIR/procage-r10-own-%d", (int)getpid());
	r = run_caged(ws, NULL, "write-file", own_arg, "run B's own", "then", "read-file", own_arg,
		      NULL);
	snprintf(b_tmp[3], sizeof b_tmp[3], "%s", r.tmpdir);
	/* Without the cage (PROCAGE_TEST_SANDBOX_OFF) it went to the shared directory. */
	snprintf(own_file, sizeof own_file, "%s/procage-r10-own-%d", r.tmpdir, (int)getpid());
	bool own_on_host = caged_path_exists(own_file);
	unlink(own_file);
	check(t, did_it(&r) && strcmp(r.out, "run B's own") == 0, &r,
	      "r10: control: run B writes and reads back a file in its own private TMPDIR");
	/* T1: the same path for every run, never the shared one; T2: a directory per run. */
	check(t,
	      a_tmp[0] && b_tmp[3][0] && (t1 || strcmp(a_tmp, b_tmp[3]) != 0) &&
		  strcmp(a_tmp, ws->base) != 0 && strcmp(b_tmp[3], ws->base) != 0,
	      NULL, "r10: runs A and B have TMPDIRs of their own (A %s, B %s), not the shared %s",
	      a_tmp, b_tmp[3], ws->base);

	if (t1) {
		/* Nothing of a run's TMPDIR reaches the host: no other process can read it. */
		check(t, !caged_path_exists(a_file) && !own_on_host, NULL,
		      "r10: T1: what runs A and B wrote in their TMPDIRs is not on the host (%s)",
		      a_file);
	} else {
		r = run_uncaged(ws, NULL, "read-file", a_file, NULL);
		check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
		      "r10: control: without a cage the same user reads run A's file");
	}
	r = run_uncaged(ws, NULL, "write-file", shared_file, "uncaged", NULL);
	check(t, did_it(&r) && caged_path_exists(shared_file), &r,
	      "r10: control: without a cage the same user writes into %s", ws->base);
	unlink(shared_file);

	/* Let A go on: it reads its own file back and ends. */
	close(hold[1]);
	hold[1] = -1;
	struct caged_result ra = caged_proc_finish(a);
	char expect[256];
	snprintf(expect, sizeof expect, "ready\n%s", secret);
	check(t, did_it(&ra) && strcmp(ra.out, expect) == 0, &ra,
	      "r10: control: run A reads its own file back after B's attempts");

	if (t1) {
		check(t, a_tmp[0] && !caged_path_exists(a_file), NULL,
		      "r10: T1: after the run, nothing of run A's TMPDIR is on the host (%s)",
		      a_file);
	} else {
		check(t, a_tmp[0] && !caged_path_exists(a_tmp), NULL,
		      "r10: run A's private TMPDIR %s is gone after the run", a_tmp);
		bool b_gone = true;
		for (int i = 0; i < 4; i++)
			b_gone &= b_tmp[i][0] && !caged_path_exists(b_tmp[i]);
		check(t, b_gone, NULL,
		      "r10: the private TMPDIRs of the B runs are gone after them (%s ...)",
		      b_tmp[0]);
	}
	/* Without the cage (PROCAGE_TEST_SANDBOX_OFF) A wrote in the shared directory. */
	unlink(a_file);
out:
	for (int i = 0; i < 2; i++)
		if (hold[i] >= 0)
			close(hold[i]);
	caged_ws_free(ws);
}

/*
 * A run may take its own rights away in its TMPDIR: a directory it made,
 * and one inside it, left with mode 0 and a file below. The removal after
 * the run gives the owner's rights back before it enters each directory,
 * so nothing of the run stays on the host. (Tier T1: the TMPDIR is a
 * tmpfs in the run's mount namespace, never on the host; root passes the
 * modes anyway: the check bites for the other users on tier T2.)
 */
void r10_a_private_tmpdir_the_run_locked_is_removed(const struct tier *t)
{
	char top[96], inner[128], file[160], host_top[PATH_MAX + 96];
	struct caged_ws *ws = workspace(t, "r10");
	if (!ws || cage_refused_here(t, ws, "r10"))
		goto out;
	snprintf(top, sizeof top, "$TMPDIR/procage-r10-locked-%d", (int)getpid());
	snprintf(inner, sizeof inner, "%s/inner", top);
	snprintf(file, sizeof file, "%s/left", inner);
	struct caged_result r =
	    run_caged(ws, NULL, "mkdir", top, "then", "mkdir", inner, "then", "write-file", file,
		      "left by the run", "then", "chmod", inner, "0", "then", "chmod", top, "0", NULL);
	snprintf(host_top, sizeof host_top, "%s/procage-r10-locked-%d",
		 r.tmpdir[0] ? r.tmpdir : ws->base, (int)getpid());
	bool gone = tier_is_t1(t) ? !caged_path_exists(host_top) : !caged_path_exists(r.tmpdir);
	check(t, did_it(&r) && r.tmpdir[0] && gone, &r,
	      "r10: a private TMPDIR whose run left directories of mode 0 in it is gone after "
	      "the run (%s)",
	      r.tmpdir[0] ? r.tmpdir : "no private TMPDIR");
	/* What a failure (or the run without the cage) left: the owner's rights back, removed. */
	char inner_host[PATH_MAX + 128], file_host[PATH_MAX + 160];
	snprintf(inner_host, sizeof inner_host, "%s/inner", host_top);
	snprintf(file_host, sizeof file_host, "%s/left", inner_host);
	chmod(host_top, 0700);
	chmod(inner_host, 0700);
	unlink(file_host);
	rmdir(inner_host);
	rmdir(host_top);
	if (!tier_is_t1(t) && r.caged && r.tmpdir[0])
		rmdir(r.tmpdir); /* the run's own directory, never a shared one */
out:
	caged_ws_free(ws);
}
