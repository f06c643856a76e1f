/*
 * Other names of hidden locations. A string is not an identity: the home
 * and its secrets are reached through a bind mount of a directory above
 * them, through the account's home when $HOME says nothing usable
 * and through the targets of symbolic links inside a hidden
 * location, and a root caller's /etc through a bind mount of it
 * . Each is denied like the location itself, or the cage is refused
 * naming it.
 *
 * The bind mounts are made in a mount namespace of the test's own (a
 * helper process: root unshares one, anyone else a user namespace with
 * it), never on the host's; the helper hands its runs' results back over
 * a pipe and the assertions are made here. Judged from outside: the secret
 * in the probe's output, a file the run would have made.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"

static const char secret[] = "r02: the key\n";

/* ---- a helper with a mount namespace of its own ------------------------ */

#define HELPER_RUNS 7

struct helper_out {
	bool entered;
	char why[512];
	struct caged_result r[HELPER_RUNS];
};

typedef void (*helper_fn)(struct caged_ws *ws, const void *arg, struct helper_out *out);

static bool id_map_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		close(fd);
	return ok;
}

static bool private_mounts_enter(struct helper_out *out)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];
	if (geteuid() == 0 ? unshare(CLONE_NEWNS) != 0
			   : unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		snprintf(out->why, sizeof out->why, "unshare: %s", strerror(errno));
		return false;
	}
	if (geteuid() != 0 || uid != 0) {
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		bool ok = id_map_write("/proc/self/setgroups", "deny") &&
			  id_map_write("/proc/self/uid_map", map);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		if (!ok || !id_map_write("/proc/self/gid_map", map)) {
			snprintf(out->why, sizeof out->why, "id maps: %s", strerror(errno));
			return false;
		}
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		snprintf(out->why, sizeof out->why, "making the mounts private: %s",
			 strerror(errno));
		return false;
	}
	return true;
}

/*
 * Run fn in a child process with a mount namespace of its own; its results
 * in *out. False when it did not run there: a failed fixture, or a skip
 * saying that what (the scene the canary sets) cannot be made here.
 */
static bool in_private_mounts(const struct tier *t, struct caged_ws *ws, helper_fn fn,
			      const void *arg, struct helper_out *out, const char *what)
{
	int fds[2];
	memset(out, 0, sizeof *out);
	caged_ws_drop_cage(ws);
	if (!fixture(t, pipe2(fds, O_CLOEXEC) == 0, "a pipe for the helper"))
		return false;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		out->entered = private_mounts_enter(out);
		if (out->entered)
			fn(ws, arg, out);
		const char *p = (const char *)out;
		for (size_t done = 0; done < sizeof *out;) {
			ssize_t n = write(fds[1], p + done, sizeof *out - done);
			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	size_t got = 0;
	for (ssize_t n = 1; pid > 0 && got < sizeof *out && n > 0;) {
		n = read(fds[0], (char *)out + got, sizeof *out - got);
		if (n > 0)
			got += (size_t)n;
	}
	close(fds[0]);
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (!fixture(t, pid > 0 && got == sizeof *out && WIFEXITED(status),
		     "the helper with a mount namespace of its own ran (%zu bytes back)", got))
		return false;
	if (!out->entered)
		skip(t, "%s: CANNOT RUN HERE: no mount namespace of the test's own (%s)", what,
		     out->why);
	return out->entered;
}

/* A policy refused as a run would be, or (without the sandbox) the run made uncaged. */
static void policy_refused(struct caged_result *r, const char *message)
{
	memset(r, 0, sizeof *r);
	r->how = CAGED_NOT_STARTED;
	r->caged = true;
	r->cage_refused = true;
	snprintf(r->error, sizeof r->error, "%s", message);
	snprintf(r->summary, sizeof r->summary, "not started: cage refused: %s", message);
}

/* ---- a bind mount of a directory above the home ------------------ */

struct alias_paths {
	char alias[PATH_MAX], alias_key[PATH_MAX], alias_notes[PATH_MAX], alias_rw[PATH_MAX],
	    alias_planted[PATH_MAX];
};

static void alias_runs(struct caged_ws *ws, const void *arg, struct helper_out *out)
{
	const struct alias_paths *a = arg;
	struct caged_opts from_alias = {.inherit_cwd = a->alias_rw};
	if (mount(ws->root, a->alias, NULL, MS_BIND, NULL) != 0) {
		out->entered = false;
		snprintf(out->why, sizeof out->why, "bind mount: %s", strerror(errno));
		return;
	}
	out->r[0] = run_caged(ws, NULL, "read-file", a->alias_key, NULL);
	out->r[1] = run_caged(ws, &from_alias, "read-file", "../home/.ssh/id_ed25519", NULL);
	out->r[2] = run_caged(ws, NULL, "read-file", a->alias_notes, NULL);
	out->r[3] = run_uncaged(ws, NULL, "read-file", a->alias_key, NULL);
	/* The default policy from the alias of the directory holding the home. */
	struct procage_policy *p = NULL;
	struct procage_error err = {0};
	setenv("HOME", ws->home, 1);
	if (caged_sandbox_off()) {
		out->r[4] = run_uncaged(ws, NULL, "write-file", a->alias_planted, "x", NULL);
	} else if (procage_policy_new_default(a->alias, &p, &err) < 0) {
		policy_refused(&out->r[4], err.message);
	} else {
		procage_policy_free(ws->policy);
		ws->policy = p;
		out->r[4] = run_caged(ws, NULL, "write-file", a->alias_planted, "x", NULL);
	}
}

void r02_a_bind_mount_alias_reaches_no_hidden_location(const struct tier *t)
{
	char key[PATH_MAX], notes[PATH_MAX], planted[PATH_MAX];
	struct alias_paths a;
	struct caged_ws *ws = workspace(t, "r02");
	struct helper_out *out = calloc(1, sizeof *out);
	if (!ws || !out || cage_refused_here(t, ws, "r02"))
		goto out;
	if (!path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, notes, ws->home, "notes.txt") ||
	    !path_join(t, planted, ws->home, ".planted-rc") ||
	    !path_join(t, a.alias, ws->root, "alias") ||
	    !path_join(t, a.alias_key, a.alias, "home/.ssh/id_ed25519") ||
	    !path_join(t, a.alias_notes, a.alias, "home/notes.txt") ||
	    !path_join(t, a.alias_rw, a.alias, "rw") ||
	    !path_join(t, a.alias_planted, a.alias, "home/.planted-rc"))
		goto out;
	if (!fixture(t,
		     put_file(key, secret) && put_file(notes, "r02: notes\n") && make_dirs(a.alias),
		     "r02: fixtures in %s", ws->root))
		goto out;
	if (!in_private_mounts(t, ws, alias_runs, &a, out,
			       "r02: a bind mount alias of the workspace"))
		goto out;
	check(t, refused(&out->r[0]) && !strstr(out->r[0].out, "r02:"), &out->r[0],
	      "r02: through a bind mount of the directory above the home, the hidden "
	      "~/.ssh/id_ed25519 cannot be read");
	check(t, refused(&out->r[1]) && !strstr(out->r[1].out, "r02:"), &out->r[1],
	      "r02: nor by a relative path from a working directory reached through the alias");
	check(t,
	      refused_before_any_child(&out->r[4]) &&
		  strstr(out->r[4].error, "contains the home") && !caged_path_exists(planted),
	      &out->r[4],
	      "r02: the default policy from the alias of the directory holding the home is "
	      "refused: it contains the home by identity, whatever its spelling");
	check(t, did_it(&out->r[2]) && strstr(out->r[2].out, "r02: notes"), &out->r[2],
	      "r02: control: in the cage an ordinary file of the home is read through the alias");
	check(t, did_it(&out->r[3]) && strstr(out->r[3].out, "r02: the key"), &out->r[3],
	      "r02: control: without the cage the key is read through the alias");
out:
	free(out);
	caged_ws_free(ws);
}

/* ---- a mount inside a write grant ---------------------------------- */

struct grant_mount {
	char alias[PATH_MAX], alias_planted[PATH_MAX], alias_notes[PATH_MAX], keys[PATH_MAX],
	    keys_mount[PATH_MAX], keys_mount_key[PATH_MAX], plain[PATH_MAX], uncaged_planted[PATH_MAX],
	    alias_sub[PATH_MAX], alias_sub_planted[PATH_MAX], alias_named[PATH_MAX];
};

static void grant_mount_runs(struct caged_ws *ws, const void *arg, struct helper_out *out)
{
	const struct grant_mount *g = arg;
	if (mount(ws->ro, g->alias, NULL, MS_BIND, NULL) != 0 ||
	    mount(g->keys, g->keys_mount, NULL, MS_BIND, NULL) != 0) {
		out->entered = false;
		snprintf(out->why, sizeof out->why, "bind mounts: %s", strerror(errno));
		return;
	}
	out->r[0] = run_caged(ws, NULL, "write-file", g->alias_planted, "x", NULL);
	out->r[1] = run_caged(ws, NULL, "read-file", g->keys_mount_key, NULL);
	out->r[2] = run_caged(ws, NULL, "read-file", g->alias_notes, NULL);
	out->r[3] = run_caged(ws, NULL, "write-file", g->plain, "x", NULL);
	out->r[4] = run_uncaged(ws, NULL, "write-file", g->uncaged_planted, "x", NULL);
	/* A write grant spelled inside the mount. */
	struct procage_error err = {0};
	if (procage_policy_allow(ws->policy, g->alias_sub, PROCAGE_WRITE, &err) < 0)
		policy_refused(&out->r[5], err.message);
	else
		out->r[5] = run_caged(ws, NULL, "write-file", g->alias_sub_planted, "x", NULL);
	/* A write grant naming the mount itself: the caller's own choice. */
	if (caged_ws_reset_policy(ws) < 0 ||
	    procage_policy_allow(ws->policy, g->alias, PROCAGE_WRITE, &err) < 0)
		policy_refused(&out->r[6], err.message[0] ? err.message : "the default policy");
	else
		out->r[6] = run_caged(ws, NULL, "write-file", g->alias_named, "x", NULL);
}

/*
 * A write grant holding a bind mount of a read-only tree (a root caller's
 * workspace with /etc mounted in it) would let the command write that
 * tree under the mount's name; one holding a mount of a directory inside a
 * hidden location (~/.ssh/keys) would let it read the keys. The mount gets
 * no more than the other name does.
 */
void r02_a_mount_inside_a_grant_gets_no_more_than_its_other_name(const struct tier *t)
{
	char planted[PATH_MAX], key[PATH_MAX], notes[PATH_MAX], sub[PATH_MAX], sub_planted[PATH_MAX];
	struct grant_mount g;
	struct caged_ws *ws = workspace(t, "r02m");
	struct helper_out *out = calloc(1, sizeof *out);
	if (!ws || !out || cage_refused_here(t, ws, "r02m"))
		goto out;
	if (!path_join(t, g.alias, ws->rw, "mounted-ro") ||
	    !path_join(t, g.alias_planted, g.alias, "planted") ||
	    !path_join(t, g.alias_notes, g.alias, "notes.txt") ||
	    !path_join(t, g.uncaged_planted, g.alias, "planted-uncaged") ||
	    !path_join(t, g.keys, ws->home, ".ssh/keys") ||
	    !path_join(t, key, g.keys, "id_work") ||
	    !path_join(t, g.keys_mount, ws->rw, "mounted-keys") ||
	    !path_join(t, g.keys_mount_key, g.keys_mount, "id_work") ||
	    !path_join(t, g.plain, ws->rw, "plain.txt") ||
	    !path_join(t, planted, ws->ro, "planted") ||
	    !path_join(t, notes, ws->ro, "notes.txt") || !path_join(t, sub, ws->ro, "sub") ||
	    !path_join(t, sub_planted, sub, "planted") ||
	    !path_join(t, g.alias_sub, g.alias, "sub") ||
	    !path_join(t, g.alias_sub_planted, g.alias_sub, "planted") ||
	    !path_join(t, g.alias_named, g.alias, "named"))
		goto out;
	if (!fixture(t,
		     make_dirs(g.alias) && make_dirs(g.keys_mount) && make_dirs(sub) &&
			 put_file(key, secret) &&
			 put_file(notes, "r02m: notes\n") && put_file(g.plain, "before\n"),
		     "r02m: fixtures in %s", ws->root))
		goto out;
	if (!in_private_mounts(t, ws, grant_mount_runs, &g, out,
			       "r02m: a mount inside a write grant"))
		goto out;
	check(t, refused(&out->r[0]) && !caged_path_exists(planted), &out->r[0],
	      "r02m: a bind mount of the read-only tree inside the write grant cannot be written "
	      "through (nothing made in %s)",
	      ws->ro);
	check(t, refused(&out->r[1]) && !strstr(out->r[1].out, "r02:"), &out->r[1],
	      "r02m: a bind mount of a directory inside the hidden ~/.ssh cannot be read through");
	check(t,
	      refused_before_any_child(&out->r[5]) && strstr(out->r[5].error, "own name") &&
		  !caged_path_exists(sub_planted),
	      &out->r[5],
	      "r02m: a write grant spelled inside the mount is refused before any child, asking "
	      "for the location under its own name");
	check(t, did_it(&out->r[2]) && strstr(out->r[2].out, "r02m: notes"), &out->r[2],
	      "r02m: control: in the cage the read-only tree is read through the mount");
	check(t, did_it(&out->r[3]), &out->r[3],
	      "r02m: control: in the cage the rest of the write grant is written (an existing "
	      "file: on tier T2 no new entry is made beside the mount, as beside a protected "
	      "location)");
	check(t, did_it(&out->r[4]), &out->r[4],
	      "r02m: control: without the cage the read-only tree is written through the mount");
	check(t, did_it(&out->r[6]), &out->r[6],
	      "r02m: control: a write rule naming the mount itself is the caller's choice: the "
	      "run writes there");
out:
	free(out);
	caged_ws_free(ws);
}

/* ---- R-42: /etc reached through a bind mount of it ---------------------- */

struct etc_alias {
	char alias[PATH_MAX], unlisted[PATH_MAX], alias_shadow[PATH_MAX],
	    alias_unlisted[PATH_MAX], alias_passwd[PATH_MAX];
	/* A root-only file in a directory below /etc, that directory, and its mount. */
	char deep[PATH_MAX], deep_dir[PATH_MAX], part[PATH_MAX], part_file[PATH_MAX];
};

static void etc_alias_runs(struct caged_ws *ws, const void *arg, struct helper_out *out)
{
	const struct etc_alias *a = arg;
	/* First a directory of /etc alone: /etc itself has no other name yet. */
	if (a->deep[0]) {
		if (mount(a->deep_dir, a->part, NULL, MS_BIND, NULL) != 0) {
			out->entered = false;
			snprintf(out->why, sizeof out->why, "bind mount of %.300s: %s", a->deep_dir,
				 strerror(errno));
			return;
		}
		out->r[4] = run_caged(ws, NULL, "read-file", a->part_file, NULL);
		out->r[5] = run_uncaged(ws, NULL, "read-file", a->part_file, NULL);
	}
	if (mount("/etc", a->alias, NULL, MS_BIND, NULL) != 0) {
		out->entered = false;
		snprintf(out->why, sizeof out->why, "bind mount of /etc: %s", strerror(errno));
		return;
	}
	out->r[0] = run_caged(ws, NULL, "read-file", a->alias_unlisted, NULL);
	out->r[1] = run_caged(ws, NULL, "read-file", a->alias_shadow, NULL);
	out->r[2] = run_caged(ws, NULL, "read-file", a->alias_passwd, NULL);
	out->r[3] = run_uncaged(ws, NULL, "read-file", a->alias_unlisted, NULL);
}

/* A root-only file no class lists, in a directory below /etc; false if none. */
static bool root_only_unlisted_below_etc(char *found, size_t size)
{
	DIR *d = opendir("/etc");
	bool got = false;
	for (struct dirent *e; d && !got && (e = readdir(d));) {
		char sub[PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.' || snprintf(sub, sizeof sub, "/etc/%s", e->d_name) >= (int)sizeof sub)
			continue;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_IXOTH))
			got = root_only_unlisted(sub, 1, found, size);
	}
	if (d)
		closedir(d);
	return got;
}

/* The run read something: its output is judged by length and then wiped. */
static bool read_something(struct caged_result *r)
{
	bool got = did_it(r) && r->out[0] != '\0';
	memset(r->out, 0, sizeof r->out);
	return got;
}

/*
 * On tier T1 a root caller's run sees /etc through an id-mapped copy
 * attached over the /etc spelling only: with /etc also bind-mounted
 * elsewhere, the cage must fall back to hiding each root-only file under
 * every spelling. The file sought is one no class lists by name, which
 * only the rule "what others may not read" covers.
 */
void r42_an_alias_of_etc_reaches_no_root_only_file(const struct tier *t)
{
	struct etc_alias a;
	struct caged_ws *ws = workspace(t, "r42a");
	struct helper_out *out = calloc(1, sizeof *out);
	if (!ws || !out || cage_refused_here(t, ws, "r42a"))
		goto out;
	if (geteuid() != 0) {
		skip(t,
		     "r42a: a root caller's cage: CANNOT RUN HERE: uid %u cannot read root-only "
		     "files without the cage either",
		     (unsigned)geteuid());
		goto out;
	}
	if (!root_only_unlisted("/etc", 0, a.unlisted, sizeof a.unlisted)) {
		skip(t, "r42a: a root-only file no class lists: CANNOT RUN HERE: /etc has none");
		goto out;
	}
	if (!path_join(t, a.alias, ws->root, "etc-alias") ||
	    !path_join(t, a.alias_unlisted, a.alias, a.unlisted + strlen("/etc/")) ||
	    !path_join(t, a.alias_shadow, a.alias, "shadow") ||
	    !path_join(t, a.alias_passwd, a.alias, "passwd") ||
	    !fixture(t, make_dirs(a.alias), "r42a: %s made", a.alias))
		goto out;
	a.deep[0] = '\0';
	if (root_only_unlisted_below_etc(a.deep, sizeof a.deep)) {
		snprintf(a.deep_dir, sizeof a.deep_dir, "%s", a.deep);
		*strrchr(a.deep_dir, '/') = '\0';
		/* In a tree the policy grants reading: reached there, as /etc is. */
		if (!path_join(t, a.part, ws->ro, "etc-part") ||
		    !path_join(t, a.part_file, a.part, strrchr(a.deep, '/') + 1) ||
		    !fixture(t, make_dirs(a.part), "r42a: %s made", a.part))
			goto out;
	}
	if (!in_private_mounts(t, ws, etc_alias_runs, &a, out, "r42a: a bind mount of /etc"))
		goto out;
	bool read_unlisted = read_something(&out->r[0]);
	check(t, refused(&out->r[0]) && !read_unlisted, &out->r[0],
	      "r42a: through a bind mount of /etc, %s (root-only, listed by no class) cannot be "
	      "read",
	      a.unlisted);
	bool read_shadow = read_something(&out->r[1]);
	check(t, refused(&out->r[1]) && !read_shadow, &out->r[1],
	      "r42a: nor can /etc/shadow through it");
	check(t, did_it(&out->r[2]) && strstr(out->r[2].out, "root:"), &out->r[2],
	      "r42a: control: in the cage /etc/passwd is read through the alias");
	check(t, read_something(&out->r[3]), &out->r[3],
	      "r42a: control: without the cage root reads %s through the alias", a.unlisted);
	if (!a.deep[0]) {
		skip(t,
		     "r42a: a bind mount of a directory of /etc: CANNOT RUN HERE: no root-only file "
		     "that no class lists lies in a directory below /etc");
		goto out;
	}
	bool read_deep = read_something(&out->r[4]);
	check(t, refused(&out->r[4]) && !read_deep, &out->r[4],
	      "r42a: through a bind mount of %s alone, %s (root-only, listed by no class) cannot "
	      "be read",
	      a.deep_dir, a.deep);
	check(t, read_something(&out->r[5]), &out->r[5],
	      "r42a: control: without the cage root reads %s through that mount", a.deep);
out:
	free(out);
	caged_ws_free(ws);
}

/* ---- a grant's path swapped between resolving and opening it ------ */

/*
 * procage_cage_new resolves each rule's path, then does other work (the
 * classes, the account's home from the password database) before it opens
 * the grants. Here /etc/passwd is a FIFO in the helper's namespace, so the
 * library waits inside that window, in its open of the FIFO, until a
 * writer comes. A swapper process waits until it sees the helper waiting
 * there, replaces a component of the granted path by a symbolic link to a
 * decoy, and only then opens the FIFO, which lets the library go on. (The
 * library does not wait for the content: the password database is not
 * read from a file it cannot seek.) The grant must not follow the link.
 */
struct race {
	char fifo[PATH_MAX], dir[PATH_MAX], dir_real[PATH_MAX], decoy[PATH_MAX],
	    decoy_file[PATH_MAX], granted_file[PATH_MAX];
	char passwd[16384];
	size_t passwd_len;
};

/* Is a thread of pid waiting in the open of a FIFO for a writer? */
static bool waiting_for_writer(pid_t pid)
{
	char path[64], wchan[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	bool waiting = false;
	for (struct dirent *e; d && !waiting && (e = readdir(d));) {
		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof path, "/proc/%d/task/%.16s/wchan", (int)pid, e->d_name) >=
			    (int)sizeof path)
			continue;
		waiting = caged_read_file(path, wchan, sizeof wchan) == 0 &&
			  strcmp(wchan, "wait_for_partner") == 0;
	}
	if (d)
		closedir(d);
	return waiting;
}

/*
 * Swap once the helper waits in the window, or once it says the cage is
 * made (the window was missed, or there was none: without the sandbox, or
 * if the library no longer reads the password database there); the
 * deadline only bounds a failure.
 */
static _Noreturn void race_swapper(const struct race *x, pid_t helper, int made)
{
	struct pollfd p = { .fd = made, .events = POLLIN };
	signal(SIGPIPE, SIG_IGN); /* the library reads no content: the write may find no reader */
	for (int ms = 0; ms < 20000 && !waiting_for_writer(helper) && poll(&p, 1, 1) == 0; ms++)
		;
	if (rename(x->dir, x->dir_real) != 0 || symlink(x->decoy, x->dir) != 0)
		_exit(1);
	int fd = open(x->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC); /* lets the library go on */
	if (fd >= 0) {
		(void)!write(fd, x->passwd, x->passwd_len);
		close(fd);
	}
	_exit(0);
}

static void race_runs(struct caged_ws *ws, const void *arg, struct helper_out *out)
{
	const struct race *x = arg;
	char why[600] = "";
	if (mkfifo(x->fifo, 0644) != 0 || mount(x->fifo, "/etc/passwd", NULL, MS_BIND, NULL) != 0) {
		out->entered = false;
		snprintf(out->why, sizeof out->why, "a FIFO over /etc/passwd: %s", strerror(errno));
		return;
	}
	int made[2];
	if (pipe2(made, O_CLOEXEC) != 0) {
		out->entered = false;
		snprintf(out->why, sizeof out->why, "a pipe: %s", strerror(errno));
		return;
	}
	pid_t helper = getpid(), swapper = fork();
	if (swapper == 0) {
		close(made[1]);
		race_swapper(x, helper, made[0]);
	}
	close(made[0]);
	int rc = caged_ws_hold_cage(ws, why, sizeof why);
	close(made[1]); /* the cage is made or refused: a swapper still waiting goes on */
	int status = 0;
	waitpid(swapper, &status, 0);
	if (rc < 0)
		policy_refused(&out->r[0], why);
	else
		out->r[0] =
		    run_caged(ws, NULL, "write-file", x->decoy_file, "r02: redirected", NULL);
	caged_ws_drop_cage(ws);
	/* Put the path back, without the FIFO, for the controls. */
	(void)umount2("/etc/passwd", MNT_DETACH);
	(void)unlink(x->dir);
	(void)rename(x->dir_real, x->dir);
	out->r[1] = run_caged(ws, NULL, "write-file", x->granted_file, "r02: granted", NULL);
	out->r[2] = run_uncaged(ws, NULL, "write-file", x->decoy_file, "r02: uncaged", NULL);
	(void)unlink(x->decoy_file);
}

void r02_a_grant_swapped_for_a_link_while_the_cage_is_made_binds_nothing(const struct tier *t)
{
	struct race *x = calloc(1, sizeof *x);
	struct helper_out *out = calloc(1, sizeof *out);
	char granted[PATH_MAX];
	struct caged_ws *ws = workspace(t, "r02");
	if (!ws || !x || !out || cage_refused_here(t, ws, "r02"))
		goto out;
	if (!path_join(t, x->fifo, ws->root, "passwd.fifo") ||
	    !path_join(t, x->dir, ws->root, "project") ||
	    !path_join(t, x->dir_real, ws->root, "project-real") ||
	    !path_join(t, x->decoy, ws->root, "decoy") ||
	    !path_join(t, granted, x->dir, "granted") ||
	    !path_join(t, x->granted_file, granted, "f") ||
	    !path_join(t, x->decoy_file, x->decoy, "granted/f"))
		goto out;
	int n = caged_read_file("/etc/passwd", x->passwd, sizeof x->passwd);
	x->passwd_len = strlen(x->passwd);
	if (!fixture(t, n == 0 && make_dirs(granted) && put_file(x->decoy_file, "decoy\n"),
		     "r02: fixtures in %s", ws->root) ||
	    !policy_rule(t, ws, "r02", granted, PROCAGE_WRITE))
		goto out;
	(void)unlink(x->decoy_file);
	if (!in_private_mounts(t, ws, race_runs, x, out,
			       "r02: a path swapped while the cage is made"))
		goto out;
	check(t,
	      refused_before_any_child(&out->r[0]) && strstr(out->r[0].error, "symbolic link") &&
		  !caged_path_exists(x->decoy_file),
	      &out->r[0],
	      "r02: a component of a write grant swapped for a link to a decoy while the cage is "
	      "made refuses the cage, naming it; the decoy is not written");
	check(t, did_it(&out->r[1]) && file_is(x->granted_file, "r02: granted"), &out->r[1],
	      "r02: control: without the swap the cage is made and the grant written");
	check(t, did_it(&out->r[2]), &out->r[2],
	      "r02: control: without the cage the decoy is written");
out:
	free(x);
	free(out);
	caged_ws_free(ws);
}

/* ---- the home when $HOME names none ------------------------------- */

static const char *const odd_homes[] = {"", "relative/home", "~/"};
#define N_ODD (sizeof odd_homes / sizeof *odd_homes)

struct account_home {
	char dir[PATH_MAX], key[PATH_MAX], notes[PATH_MAX], real_home[PATH_MAX];
};

/*
 * Root: the account's home (/root) is covered, in this namespace only, by
 * the workspace's home; then each odd $HOME, with the account's home
 * granted for reading by the policy.
 */
static void account_home_runs(struct caged_ws *ws, const void *arg, struct helper_out *out)
{
	const struct account_home *h = arg;
	struct procage_error err = {0};
	if (mount(h->real_home, h->dir, NULL, MS_BIND, NULL) != 0) {
		out->entered = false;
		snprintf(out->why, sizeof out->why, "bind mount over %.300s: %s", h->dir,
			 strerror(errno));
		return;
	}
	for (size_t i = 0; i < N_ODD; i++) {
		snprintf(ws->home, sizeof ws->home, "%s", odd_homes[i]);
		if (caged_ws_reset_policy(ws) < 0 ||
		    procage_policy_allow(ws->policy, h->dir, PROCAGE_READ, &err) < 0) {
			policy_refused(&out->r[i],
				       err.message[0] ? err.message : "the default policy");
			continue;
		}
		out->r[i] = run_caged(ws, NULL, "read-file", h->key, NULL);
	}
	out->r[N_ODD] = run_caged(ws, NULL, "read-file", h->notes, NULL);
	out->r[N_ODD + 1] = run_uncaged(ws, NULL, "read-file", h->key, NULL);
}

/* Anyone but root: no home of the account here, so the default is refused. */
static void odd_home_refusals(const struct tier *t, struct caged_ws *ws, const char *account)
{
	char saved[PATH_MAX], planted[PATH_MAX];
	snprintf(saved, sizeof saved, "%s", ws->home);
	if (!path_join(t, planted, ws->rw, "the-probe-ran"))
		return;
	for (size_t i = 0; i < N_ODD; i++) {
		struct procage_policy *p = NULL;
		struct procage_error err = {0};
		struct caged_result r;
		setenv("HOME", odd_homes[i], 1);
		if (caged_sandbox_off())
			r = run_uncaged(ws, NULL, "write-file", planted, "x", NULL);
		else if (procage_policy_new_default(ws->rw, &p, &err) < 0)
			policy_refused(&r, err.message);
		else {
			procage_policy_free(ws->policy);
			ws->policy = p;
			r = run_caged(ws, NULL, "write-file", planted, "x", NULL);
		}
		setenv("HOME", saved, 1);
		check(
		    t,
		    refused_before_any_child(&r) && strstr(r.error, "none could be established") &&
			strstr(r.error, account) && !caged_path_exists(planted),
		    &r,
		    "r02: with HOME=\"%s\" and no home of the account (%s), the default policy is "
		    "refused before any child runs, naming why",
		    odd_homes[i], account);
		(void)unlink(planted);
	}
}

void r02_the_home_is_found_whatever_home_says(const struct tier *t)
{
	struct account_home h;
	struct passwd *pw = getpwuid(getuid());
	struct caged_ws *ws = workspace(t, "r02");
	struct helper_out *out = calloc(1, sizeof *out);
	if (!ws || !out || cage_refused_here(t, ws, "r02"))
		goto out;
	if (!fixture(t, pw && pw->pw_dir[0] == '/', "r02: uid %u has an account with a home",
		     (unsigned)getuid()))
		goto out;
	snprintf(h.dir, sizeof h.dir, "%s", pw->pw_dir);
	if (geteuid() != 0 || !caged_path_exists(h.dir)) {
		if (caged_path_exists(h.dir))
			skip(t,
			     "r02: odd $HOME values: CANNOT RUN HERE: the account's home %s "
			     "exists and only root can cover it in a namespace of its own",
			     h.dir);
		else
			odd_home_refusals(t, ws, h.dir);
		goto out;
	}
	if (!path_join(t, h.key, h.dir, ".ssh/id_ed25519") ||
	    !path_join(t, h.notes, h.dir, "notes.txt"))
		goto out;
	char key[PATH_MAX], notes[PATH_MAX];
	if (!path_join(t, key, ws->home, ".ssh/id_ed25519") ||
	    !path_join(t, notes, ws->home, "notes.txt") ||
	    !fixture(t, put_file(key, secret) && put_file(notes, "r02: notes\n"),
		     "r02: fixtures in %s", ws->home))
		goto out;
	snprintf(h.real_home, sizeof h.real_home, "%s", ws->home);
	if (!in_private_mounts(t, ws, account_home_runs, &h, out, "r02: odd $HOME values"))
		goto out;
	for (size_t i = 0; i < N_ODD; i++)
		check(t, refused(&out->r[i]) && !strstr(out->r[i].out, "r02:"), &out->r[i],
		      "r02: with HOME=\"%s\", the secrets class holds in the account's home %s: "
		      "its ~/.ssh/id_ed25519 cannot be read though the policy grants the home",
		      odd_homes[i], h.dir);
	check(t, did_it(&out->r[N_ODD]) && strstr(out->r[N_ODD].out, "r02: notes"), &out->r[N_ODD],
	      "r02: control: in the cage an ordinary file of that home is read");
	check(t, did_it(&out->r[N_ODD + 1]) && strstr(out->r[N_ODD + 1].out, "r02: the key"),
	      &out->r[N_ODD + 1], "r02: control: without the cage the key is read");
out:
	free(out);
	caged_ws_free(ws);
}

/* ---- symbolic links inside a hidden location ----------------------- */

void r41_targets_of_links_in_hidden_locations_are_hidden(const struct tier *t)
{
	static const char creds[] = "r41: aws credentials\n";
	char link[PATH_MAX], target[PATH_MAX], other[PATH_MAX], backup[PATH_MAX], marker[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r41");
	if (!ws || cage_refused_here(t, ws, "r41"))
		goto out;
	if (!path_join(t, link, ws->home, ".aws/credentials") ||
	    !path_join(t, target, ws->home, "sync/aws-credentials") ||
	    !path_join(t, other, ws->home, "sync/notes.txt") ||
	    !path_join(t, backup, ws->home, ".ssh/workspace") ||
	    !path_join(t, marker, ws->rw, "the-probe-ran"))
		goto out;
	if (!fixture(t,
		     put_file(target, creds) && put_file(other, "r41: notes\n") &&
			 make_dirs(link) && rmdir(link) == 0 &&
			 symlink("../sync/aws-credentials", link) == 0,
		     "r41: ~/.aws/credentials -> ~/sync/aws-credentials in %s", ws->home))
		goto out;

	r = run_caged(ws, NULL, "read-file", target, NULL);
	check(t, refused(&r) && !strstr(r.out, "r41:"), &r,
	      "r41: the target of a link inside the hidden ~/.aws cannot be read by its own path");
	r = run_caged(ws, NULL, "read-file", link, NULL);
	check(t, refused(&r) && !strstr(r.out, "r41:"), &r, "r41: nor through the link");
	r = run_caged(ws, NULL, "read-file", other, NULL);
	check(t, did_it(&r) && strstr(r.out, "r41: notes"), &r,
	      "r41: control: in the cage a file beside the target is read");
	r = run_uncaged(ws, NULL, "read-file", link, NULL);
	check(t, did_it(&r) && strstr(r.out, "r41: aws credentials"), &r,
	      "r41: control: without the cage the link reads the credentials");

	/* A link to a directory holding a grant cannot be hidden: the cage is refused. */
	if (!fixture(t, make_dirs(backup) && rmdir(backup) == 0 && symlink(ws->rw, backup) == 0,
		     "r41: ~/.ssh/workspace -> the workspace"))
		goto out;
	r = run_caged(ws, NULL, "write-file", marker, "ran", NULL);
	check(t,
	      refused_before_any_child(&r) && strstr(r.error, ws->rw) && !caged_path_exists(marker),
	      &r,
	      "r41: a link in the hidden ~/.ssh to the writable workspace refuses the cage before "
	      "any child runs, naming it");
out:
	caged_ws_free(ws);
}
