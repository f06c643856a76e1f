/*
 * Path rules that cannot be undone: a rule binds the canonical target of a
 * symlinked spelling, and a grant through a link a run could have planted
 * is refused; renaming an ancestor moves no protected file
 * out from under its rule, and files moved between writable directories
 * gain no right; a protected file cannot be replaced.
 *
 * Each attempt is judged from outside twice: the probe's exit code, and
 * what is on disk afterwards (the same file, with the same content, at the
 * protected path).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

/* The same file (inode) at path, with its content. */
static bool still_there(const char *path, unsigned long long ino, const char *content)
{
	return ino && inode_of(path) == ino && file_is(path, content);
}

/* ---- R-02 ------------------------------------------------------------- */

void r02_a_rule_spelled_through_a_symlink_binds_its_target(const struct tier *t)
{
	static const char secret[] = "r02: the key behind a link\n";
	static const char settings[] = "r02: settings\n";
	char dir[PATH_MAX], key[PATH_MAX], alias[PATH_MAX], other_alias[PATH_MAX],
	    other_key[PATH_MAX], conf[PATH_MAX], conf_link[PATH_MAX], plain[PATH_MAX],
	    a_dir[PATH_MAX], b_dir[PATH_MAX], wlink[PATH_MAX], a_file[PATH_MAX], b_file[PATH_MAX],
	    decoy[PATH_MAX], why[600];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r02");
	if (!ws || cage_refused_here(t, ws, "r02"))
		goto out;
	if (!path_join(t, dir, ws->rw, "secrets") || !path_join(t, key, dir, "id_key") ||
	    !path_join(t, alias, ws->rw, "secrets-link") ||
	    !path_join(t, other_alias, ws->rw, "another-link") ||
	    !path_join(t, other_key, other_alias, "id_key") ||
	    !path_join(t, conf, ws->rw, "settings.conf") ||
	    !path_join(t, conf_link, ws->rw, "settings-link") ||
	    !path_join(t, plain, ws->rw, "plain.txt") || !path_join(t, a_dir, ws->root, "a") ||
	    !path_join(t, b_dir, ws->root, "b") || !path_join(t, wlink, ws->root, "w-link") ||
	    !path_join(t, a_file, a_dir, "f") || !path_join(t, b_file, b_dir, "f") ||
	    !path_join(t, decoy, ws->rw, "decoy"))
		goto out;
	if (!fixture(t,
		     put_file(key, secret) && put_file(conf, settings) &&
			 put_file(plain, "plain\n") && make_dirs(decoy) && make_dirs(a_dir) &&
			 make_dirs(b_dir) && symlink("secrets", alias) == 0 &&
			 symlink("secrets", other_alias) == 0 &&
			 symlink("settings.conf", conf_link) == 0 && symlink(a_dir, wlink) == 0,
		     "r02: files and links in %s", ws->root))
		goto out;
	/* Each rule is spelled through a link; it must bind the link's target. */
	if (!policy_rule(t, ws, "r02", alias, PROCAGE_HIDE) ||
	    !policy_rule(t, ws, "r02", conf_link, PROCAGE_PROTECT) ||
	    !policy_rule(t, ws, "r02", wlink, PROCAGE_WRITE))
		goto out;

	/*
	 * The cage is made now; then the links are pointed elsewhere. The
	 * rules stay on the targets resolved when the cage was made.
	 */
	why[0] = '\0';
	if (!fixture(t, caged_ws_hold_cage(ws, why, sizeof why) == 0,
		     "r02: the cage with rules spelled through links is made (%s)", why))
		goto out;
	if (!fixture(t,
		     unlink(wlink) == 0 && symlink(b_dir, wlink) == 0 && unlink(alias) == 0 &&
			 symlink("decoy", alias) == 0,
		     "r02: the links are pointed elsewhere after the cage was made"))
		goto out;

	r = run_caged(ws, NULL, "read-file", key, NULL);
	check(t, refused(&r) && !strstr(r.out, "r02:"), &r,
	      "r02: hide spelled through a link: the target's file cannot be read");
	r = run_caged(ws, NULL, "list-dir", dir, NULL);
	check(t, refused(&r) && !strstr(r.out, "id_key"), &r,
	      "r02: hide spelled through a link: the target directory cannot be listed");
	r = run_caged(ws, NULL, "read-file", other_key, NULL);
	check(t, refused(&r) && !strstr(r.out, "r02:"), &r,
	      "r02: the hidden target cannot be read through another link to it either");
	r = run_caged(ws, NULL, "write-file", conf, "r02: changed\n", NULL);
	check(t, refused(&r) && file_is(conf, settings), &r,
	      "r02: protect spelled through a link: the target file cannot be written");
	r = run_caged(ws, NULL, "write-file", conf_link, "r02: changed\n", NULL);
	check(t, refused(&r) && file_is(conf, settings), &r,
	      "r02: protect spelled through a link: writing through the link is refused too");
	if (!file_is(conf, settings)) /* changed without the cage: put it back */
		put_file(conf, settings);
	r = run_caged(ws, NULL, "write-file", b_file, "r02: moved grant\n", NULL);
	check(t, refused(&r) && !caged_path_exists(b_file), &r,
	      "r02: a write grant spelled through a link stays on the target it had when the "
	      "cage was made: the link's new target is not writable");

	r = run_caged(ws, NULL, "write-file", a_file, "r02: granted\n", NULL);
	check(t, did_it(&r) && file_is(a_file, "r02: granted\n"), &r,
	      "r02: control: the write grant's original target is writable in the cage");
	r = run_caged(ws, NULL, "read-file", conf, "then", "write-file", plain, "changed", NULL);
	check(t, did_it(&r) && strcmp(r.out, settings) == 0 && file_is(plain, "changed"), &r,
	      "r02: control: in the cage the protected target is readable and an ordinary file "
	      "beside it writable");
	caged_ws_drop_cage(ws);
	r = run_uncaged(ws, NULL, "read-file", key, "then", "write-file", b_file, "x", NULL);
	check(t, did_it(&r) && strcmp(r.out, secret) == 0, &r,
	      "r02: control: without the cage the hidden file is readable and the link's new "
	      "target writable");
out:
	caged_ws_free(ws);
}

/*
 * A first run replaces a directory of its workspace with a link to the
 * home, or to a system directory (stand-ins: the workspace's HOME, its
 * read-only tree as /usr/local/bin); the next run is given that directory
 * as a write grant, as a harness or a project file would. The grant must
 * not follow the link: the cage is refused, naming it, and the target is
 * not written.
 */
static void r02_planted_link_judged(const struct tier *t, struct caged_ws *ws, const char *name,
				    const char *target, const char *what)
{
	char dir[PATH_MAX], was[PATH_MAX], through[PATH_MAX], landed[PATH_MAX];
	struct caged_result r;
	struct stat st;
	if (!path_join(t, dir, ws->rw, name) || !path_join(t, was, ws->rw, "was") ||
	    !path_join(t, through, dir, "planted") || !path_join(t, landed, target, "planted"))
		return;
	if (!fixture(t, make_dirs(dir) && caged_ws_reset_policy(ws) == 0,
		     "r02p: the directory %s and the default policy", dir))
		return;
	r = run_caged(ws, NULL, "rename", dir, was, "then", "symlink", target, dir, NULL);
	if (!check_role(t, ROLE_SETUP, did_it(&r) && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode),
			&r, "r02p: a first caged run replaces %s with a link to %s", dir, what))
		return;
	if (!policy_rule(t, ws, "r02p", dir, PROCAGE_WRITE))
		return;
	r = run_caged(ws, NULL, "write-file", through, "r02p: planted\n", NULL);
	check(t,
	      refused_before_any_child(&r) && strstr(r.error, "symbolic link") &&
		  strstr(r.error, dir) && !caged_path_exists(landed),
	      &r,
	      "r02p: a second run granted %s to write is refused, naming the link; %s is not "
	      "written",
	      dir, what);
	unlink(landed);
	r = run_uncaged(ws, NULL, "write-file", through, "r02p: planted\n", NULL);
	check(t, did_it(&r) && caged_path_exists(landed), &r,
	      "r02p: control: without the cage the run writes %s through the link", what);
	unlink(landed);
}

void r02_a_grant_through_a_link_a_run_planted_reaches_nothing(const struct tier *t)
{
	char bin[PATH_MAX], data[PATH_MAX], ext[PATH_MAX], real[PATH_MAX], file[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r02p");
	if (!ws || cage_refused_here(t, ws, "r02p"))
		goto out;
	if (!path_join(t, bin, ws->ro, "bin") || !path_join(t, data, ws->root, "data") ||
	    !path_join(t, ext, ws->root, "ext") || !path_join(t, real, ws->rw, "real") ||
	    !path_join(t, file, real, "made"))
		goto out;
	if (!fixture(
		t, make_dirs(bin) && make_dirs(data) && make_dirs(real) && symlink(data, ext) == 0,
		"r02p: directories and a link outside the grants in %s", ws->root))
		goto out;
	r02_planted_link_judged(t, ws, "out", ws->home, "the home");
	r02_planted_link_judged(t, ws, "tools", bin, "a system directory");

	/* Controls: the same grant without the planted link is held. */
	if (!fixture(t, caged_ws_reset_policy(ws) == 0, "r02p: the default policy again") ||
	    !policy_rule(t, ws, "r02p", real, PROCAGE_WRITE) ||
	    !policy_rule(t, ws, "r02p", ext, PROCAGE_WRITE))
		goto out;
	r = run_caged(ws, NULL, "write-file", file, "r02p: granted\n", NULL);
	check(t, did_it(&r) && file_is(file, "r02p: granted\n"), &r,
	      "r02p: control: in the cage a write grant on a directory, not a link, is written");
	if (!path_join(t, file, ext, "made"))
		goto out;
	r = run_caged(ws, NULL, "write-file", file, "r02p: granted\n", NULL);
	check(t, did_it(&r) && file_is(file, "r02p: granted\n"), &r,
	      "r02p: control: in the cage a write grant through a link outside every write "
	      "grant is followed to its target");
out:
	caged_ws_free(ws);
}

/* ---- ancestor rename ------------------------------------------- */

struct r04_tree {
	char top[PATH_MAX], moved[PATH_MAX], file[PATH_MAX], moved_file[PATH_MAX], sub[PATH_MAX];
	unsigned long long ino;
};

/* <rw>/NAME/sub/keep.txt, protected by a rule of its own. */
static bool r04_tree_make(const struct tier *t, struct caged_ws *ws, const char *name,
			  const char *content, struct r04_tree *tr)
{
	char moved_name[64];
	snprintf(moved_name, sizeof moved_name, "%s-moved", name);
	if (!path_join(t, tr->top, ws->rw, name) || !path_join(t, tr->moved, ws->rw, moved_name) ||
	    !path_join(t, tr->sub, tr->top, "sub") ||
	    !path_join(t, tr->file, tr->sub, "keep.txt") ||
	    !path_join(t, tr->moved_file, tr->moved, "sub/keep.txt"))
		return false;
	if (!fixture(t, put_file(tr->file, content), "r04: %s written", tr->file))
		return false;
	tr->ino = inode_of(tr->file);
	return policy_rule(t, ws, "r04", tr->file, PROCAGE_PROTECT);
}

/*
 * Put a tree back after an attempt that renamed its top (the cage may
 * allow that): later cages need every rule's path to exist.
 */
static void r04_tree_restore(const char *top, const char *moved)
{
	if (!caged_path_exists(moved))
		return;
	caged_remove_tree(top);
	(void)rename(moved, top);
}

/* Where the protected file is now, after an attempt that may have moved it. */
static bool r04_content_kept(const struct r04_tree *tr, const char *content)
{
	return still_there(tr->file, tr->ino, content) ||
	       still_there(tr->moved_file, tr->ino, content);
}

void r04_a_protected_file_stays_protected_when_an_ancestor_is_renamed(const struct tier *t)
{
	static const char keep[] = "r04: protected content\n";
	struct r04_tree t1, t2, t3, t4, t5;
	char sub_moved[PATH_MAX], sub_moved_file[PATH_MAX], free_dir[PATH_MAX],
	    free_moved[PATH_MAX], free_file[PATH_MAX], why[600];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r04");
	if (!ws || cage_refused_here(t, ws, "r04"))
		goto out;
	if (!r04_tree_make(t, ws, "p1", keep, &t1) || !r04_tree_make(t, ws, "p2", keep, &t2) ||
	    !r04_tree_make(t, ws, "p3", keep, &t3) || !r04_tree_make(t, ws, "p4", keep, &t4) ||
	    !r04_tree_make(t, ws, "p5", keep, &t5) ||
	    !path_join(t, sub_moved, t3.top, "sub-moved") ||
	    !path_join(t, sub_moved_file, sub_moved, "keep.txt") ||
	    !path_join(t, free_dir, ws->rw, "free/d") ||
	    !path_join(t, free_moved, ws->rw, "free/d-moved") ||
	    !path_join(t, free_file, free_moved, "f") ||
	    !fixture(t, make_dirs(free_dir), "r04: %s made", free_dir))
		goto out;

	r = run_caged(ws, NULL, "rename", t1.top, t1.moved, "then", "write-file", t1.moved_file,
		      "r04: changed\n", NULL);
	check(t, refused(&r) && r04_content_kept(&t1, keep), &r,
	      "r04: renaming the protected file's grandparent and writing it at its new path is "
	      "refused, and its content kept");
	r04_tree_restore(t1.top, t1.moved);
	r = run_caged(ws, NULL, "rename", t3.sub, sub_moved, "then", "write-file", sub_moved_file,
		      "r04: changed\n", NULL);
	check(t,
	      refused(&r) &&
		  (still_there(t3.file, t3.ino, keep) || still_there(sub_moved_file, t3.ino, keep)),
	      &r,
	      "r04: renaming the protected file's parent and writing it at its new path is "
	      "refused, and its content kept");
	r04_tree_restore(t3.sub, sub_moved);
	r = run_caged(ws, NULL, "rename", t2.top, t2.moved, "then", "mkdir", t2.top, "then",
		      "mkdir", t2.sub, "then", "write-file", t2.file, "r04: planted\n", NULL);
	check(t, refused(&r) && still_there(t2.file, t2.ino, keep), &r,
	      "r04: renaming an ancestor away and making the path anew puts no other file at "
	      "the protected path");
	r04_tree_restore(t2.top, t2.moved);

	/* Two runs of one cage: the first renames, the second writes. */
	why[0] = '\0';
	if (fixture(t, caged_ws_hold_cage(ws, why, sizeof why) == 0,
		    "r04: the cage for two runs is made (%s)", why)) {
		struct caged_result first = run_caged(ws, NULL, "rename", t4.top, t4.moved, NULL);
		if (caged_path_exists(t4.moved))
			r = run_caged(ws, NULL, "write-file", t4.moved_file, "r04: changed later\n",
				      "then", "mkdir", t4.top, "then", "mkdir", t4.sub, "then",
				      "write-file", t4.file, "r04: planted later\n", NULL);
		else /* the rename was refused: the file is where it was */
			r = run_caged(ws, NULL, "write-file", t4.file, "r04: changed later\n",
				      NULL);
		check(t,
		      refused(&r) && r04_content_kept(&t4, keep) &&
			  !file_is(t4.file, "r04: planted later\n"),
		      &r,
		      "r04: after one run of a cage renamed the ancestor (%s), a later run of the "
		      "same cage can neither write the moved file nor put one at its path",
		      first.summary);
		caged_ws_drop_cage(ws);
		r04_tree_restore(t4.top, t4.moved);
	}

	r = run_caged(ws, NULL, "read-file", t5.file, "then", "rename", free_dir, free_moved,
		      "then", "write-file", free_file, "r04: free", NULL);
	check(t, did_it(&r) && strcmp(r.out, keep) == 0 && file_is(free_file, "r04: free"), &r,
	      "r04: control: in the cage the protected file is readable, and an ordinary "
	      "directory can be renamed and written in");
	r = run_uncaged(ws, NULL, "rename", t5.top, t5.moved, "then", "write-file", t5.moved_file,
			"r04: changed\n", NULL);
	check(t, did_it(&r) && file_is(t5.moved_file, "r04: changed\n"), &r,
	      "r04: control: without the cage the ancestor is renamed and the file written");
out:
	caged_ws_free(ws);
}


/* The directory holding path (path_join's output), made. */
static bool parent_made(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return make_dirs(dir);
}

/* ---- moves between writable directories ------------------------- */

void r04_files_move_between_writable_directories_and_gain_no_right(const struct tier *t)
{
	static const char orig[] = "r04: read-only content\n";
	static const char secret[] = "r04: hidden content\n";
	char w2[PATH_MAX], free_dir[PATH_MAX], locked[PATH_MAX], conf[PATH_MAX], conf2[PATH_MAX],
	    vault[PATH_MAX], key[PATH_MAX], ro_file[PATH_MAX], box[PATH_MAX], box_key[PATH_MAX],
	    box_moved_key[PATH_MAX], box_moved[PATH_MAX], dst[PATH_MAX], dst2[PATH_MAX],
	    x[PATH_MAX], w2x[PATH_MAX], w2_locked[PATH_MAX], w2_locked_conf[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r04");
	if (!ws || cage_refused_here(t, ws, "r04"))
		goto out;
	if (!path_join(t, w2, ws->root, "w2") || !path_join(t, free_dir, ws->rw, "free") ||
	    !path_join(t, locked, ws->rw, "locked") || !path_join(t, conf, locked, "conf") ||
	    !path_join(t, conf2, locked, "conf2") || !path_join(t, vault, ws->rw, "vault") ||
	    !path_join(t, key, vault, "key") || !path_join(t, ro_file, ws->ro, "data") ||
	    !path_join(t, box, ws->rw, "box") || !path_join(t, box_key, box, "vault/key") ||
	    !path_join(t, box_moved, free_dir, "box") ||
	    !path_join(t, box_moved_key, box_moved, "vault/key") ||
	    !path_join(t, dst, free_dir, "taken") || !path_join(t, dst2, w2, "taken") ||
	    !path_join(t, x, free_dir, "x") || !path_join(t, w2x, w2, "sub/x") ||
	    !path_join(t, w2_locked, w2, "locked") ||
	    !path_join(t, w2_locked_conf, w2_locked, "conf"))
		goto out;
	if (!fixture(t,
		     make_dirs(w2) && make_dirs(free_dir) && parent_made(w2x) && put_file(conf, orig) &&
			 put_file(conf2, orig) && put_file(key, secret) &&
			 put_file(ro_file, orig) && put_file(box_key, secret) && put_file(x, "x"),
		     "r04: fixtures in %s", ws->root))
		goto out;
	char box_vault[PATH_MAX];
	if (!path_join(t, box_vault, box, "vault") ||
	    !policy_rule(t, ws, "r04", w2, PROCAGE_WRITE) ||
	    !policy_rule(t, ws, "r04", locked, PROCAGE_PROTECT) ||
	    !policy_rule(t, ws, "r04", vault, PROCAGE_HIDE) ||
	    !policy_rule(t, ws, "r04", box_vault, PROCAGE_HIDE))
		goto out;
	unsigned long long conf_ino = inode_of(conf), ro_ino = inode_of(ro_file);

	struct {
		const char *what;
		const char *args[8];
	} moves[] = {
	    {"a protected file renamed into a writable directory and written",
	     {"rename", conf, dst, "then", "write-file", dst, "r04: changed\n"}},
	    {"a protected file hard-linked into a writable directory and written",
	     {"link", conf, dst, "then", "write-file", dst, "r04: changed\n"}},
	    {"a protected file renamed into the other writable tree and written",
	     {"rename", conf, dst2, "then", "write-file", dst2, "r04: changed\n"}},
	    {"a protected directory renamed into the other writable tree and its file written",
	     {"rename", locked, w2_locked, "then", "write-file", w2_locked_conf, "r04: changed\n"}},
	    {"a file of a readable-only directory hard-linked into a writable one and written",
	     {"link", ro_file, dst, "then", "write-file", dst, "r04: changed\n"}},
	    {"a file of a readable-only directory renamed into a writable one and written",
	     {"rename", ro_file, dst, "then", "write-file", dst, "r04: changed\n"}},
	};
	for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
		r = run_caged_argv(ws, NULL, moves[i].args);
		bool kept = still_there(conf, conf_ino, orig) &&
			    still_there(ro_file, ro_ino, orig) && !file_is(dst, "r04: changed\n") &&
			    !file_is(dst2, "r04: changed\n");
		check(t, refused(&r) && kept, &r, "r04: %s is refused, and nothing changed",
		      moves[i].what);
		if (!kept) { /* put things back for the next attempt */
			caged_remove_tree(dst);
			caged_remove_tree(dst2);
			if (caged_path_exists(w2_locked) && !caged_path_exists(locked))
				(void)rename(w2_locked, locked);
			put_file(conf, orig);
			put_file(ro_file, orig);
			conf_ino = inode_of(conf);
			ro_ino = inode_of(ro_file);
		}
	}
	r = run_caged(ws, NULL, "rename", key, dst, "then", "read-file", dst, NULL);
	check(t, refused(&r) && !strstr(r.out, "r04:") && file_is(key, secret), &r,
	      "r04: a hidden file cannot be moved out into a writable directory and read");
	if (!file_is(key, secret)) {
		(void)unlink(dst);
		put_file(key, secret);
	}
	r = run_caged(ws, NULL, "rename", box, box_moved, "then", "read-file", box_moved_key, NULL);
	check(t, refused(&r) && !strstr(r.out, "r04:"), &r,
	      "r04: a directory holding a hidden one, moved, still hides it");
	r04_tree_restore(box, box_moved);

	/*
	 * On tier T1 each write grant is a mount of its own (the rest is
	 * read-only, R-40): rename(2) between two of them fails with EXDEV as
	 * between file systems (mv copies instead), so the control moves the
	 * file between two directories of one tree there. On T2 it goes to a
	 * directory inside the other tree. Never to a tree's root: that is a
	 * zone of the broker (names of the workspace-config class are missing
	 * there), and a rename between a zone and a directory Landlock judges
	 * is EXDEV too.
	 */
	char rw_x[PATH_MAX];
	if (!path_join(t, rw_x, ws->rw, "other/x-moved") || !parent_made(rw_x))
		goto out;
	const char *to = tier_is_t1(t) ? rw_x : w2x;
	r = run_caged(ws, NULL, "rename", x, to, "then", "write-file", to, "r04: moved", "then",
		      "rename", to, x, NULL);
	check(t, did_it(&r) && file_is(x, "r04: moved"), &r,
	      "r04: control: in the cage an ordinary file moves between two writable directories "
	      "(%s) and stays writable",
	      tier_is_t1(t) ? "of one tree" : "of the two trees");
	r = run_uncaged(ws, NULL, "rename", conf2, dst, "then", "write-file", dst, "r04: changed\n",
			NULL);
	check(t, did_it(&r) && file_is(dst, "r04: changed\n"), &r,
	      "r04: control: without the cage a protected file is moved out and written");
out:
	caged_ws_free(ws);
}

/* ---- R-30 ------------------------------------------------------------- */

void r30_a_protected_file_cannot_be_replaced(const struct tier *t)
{
	/* Also a repository's config: valid for git, which the cage reads. */
	static const char orig[] = "[r30]\n\tsettings = protected\n";
	static const char evil[] = "r30: replaced\n";
	char cfg[PATH_MAX], settings[PATH_MAX], incoming[PATH_MAX], old[PATH_MAX],
	    free_dir[PATH_MAX], free_in[PATH_MAX], plain[PATH_MAX], plain_in[PATH_MAX],
	    plain_old[PATH_MAX], git_config[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r30");
	if (!ws || cage_refused_here(t, ws, "r30"))
		goto out;
	if (!path_join(t, cfg, ws->rw, "cfg") || !path_join(t, settings, cfg, "settings.conf") ||
	    !path_join(t, incoming, cfg, "incoming") || !path_join(t, old, cfg, "settings.old") ||
	    !path_join(t, free_dir, ws->rw, "free") ||
	    !path_join(t, free_in, free_dir, "incoming") ||
	    !path_join(t, plain, free_dir, "plain.conf") ||
	    !path_join(t, plain_in, free_dir, "plain.in") ||
	    !path_join(t, plain_old, free_dir, "plain.old") ||
	    !path_join(t, git_config, ws->rw, "repo/.git/config"))
		goto out;
	if (!fixture(t,
		     put_file(settings, orig) && make_dirs(free_dir) && put_file(git_config, orig),
		     "r30: fixtures in %s", ws->rw) ||
	    !policy_rule(t, ws, "r30", settings, PROCAGE_PROTECT))
		goto out;

	struct {
		const char *what, *target;
		const char *args[12];
	} attempts[] = {
	    {"renaming a new file from its own directory over it",
	     settings,
	     {"write-file", incoming, evil, "then", "rename", incoming, settings}},
	    {"renaming a new file from another directory over it",
	     settings,
	     {"write-file", free_in, evil, "then", "rename", free_in, settings}},
	    {"unlinking it and writing a new one",
	     settings,
	     {"unlink", settings, "then", "write-file", settings, evil}},
	    {"renaming it away and writing a new one",
	     settings,
	     {"rename", settings, old, "then", "write-file", settings, evil}},
	    {"writing it in place", settings, {"write-file", settings, evil}},
	    {"renaming a new file over a repository's .git/config (trust-handoff)",
	     git_config,
	     {"write-file", free_in, evil, "then", "rename", free_in, git_config}},
	    {"unlinking a repository's .git/config and writing a new one",
	     git_config,
	     {"unlink", git_config, "then", "write-file", git_config, evil}},
	};
	for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
		const char *target = attempts[i].target;
		unsigned long long ino = inode_of(target);
		r = run_caged_argv(ws, NULL, attempts[i].args);
		bool kept = still_there(target, ino, orig);
		check(t, refused(&r) && kept, &r,
		      "r30: %s is refused; the same file with the same content stays at %s",
		      attempts[i].what, target);
		(void)unlink(incoming);
		(void)unlink(free_in);
		if (!kept) {
			(void)unlink(old);
			put_file(target, orig);
		}
	}

	const char *const plain_steps[][8] = {
	    {"write-file", plain_in, evil, "then", "rename", plain_in, plain},
	    {"unlink", plain, "then", "write-file", plain, evil},
	    {"rename", plain, plain_old, "then", "write-file", plain, evil},
	};
	for (size_t i = 0; i < 3; i++) {
		put_file(plain, orig);
		r = run_caged_argv(ws, NULL, plain_steps[i]);
		check(t, did_it(&r) && file_is(plain, evil), &r,
		      "r30: control: in the cage an ordinary file is replaced (%s ...)",
		      plain_steps[i][0]);
	}
	r = run_uncaged(ws, NULL, "unlink", settings, "then", "write-file", settings, evil, NULL);
	check(t, did_it(&r) && file_is(settings, evil), &r,
	      "r30: control: without the cage the protected file is unlinked and replaced");
out:
	caged_ws_free(ws);
}

/* ---- the working directory and nested grants --------------------- */

/*
 * The run inherits its working directory (as `procage run` without --cwd
 * does): a write grant on its parent pins it, which puts a mount over it.
 * A directory entered before the mounts would lie under them, where the
 * relative paths .env and .git/hooks/x reach the host's files.
 */
void r04_the_working_directory_is_entered_after_the_masks(const struct tier *t)
{
	static const char secret[] = "r04: the project's secret\n";
	char proj[PATH_MAX], env_file[PATH_MAX], hook[PATH_MAX], plain[PATH_MAX], head[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r04");
	if (!ws || cage_refused_here(t, ws, "r04"))
		goto out;
	if (!path_join(t, proj, ws->rw, "proj") || !path_join(t, env_file, proj, ".env") ||
	    !path_join(t, hook, proj, ".git/hooks/pre-commit") ||
	    !path_join(t, head, proj, ".git/HEAD") || !path_join(t, plain, proj, "notes.txt"))
		goto out;
	if (!fixture(t,
		     put_file(env_file, secret) && put_file(head, "ref: refs/heads/main\n") &&
			 put_file(plain, "r04: notes\n") && make_dirs(hook) && rmdir(hook) == 0,
		     "r04: a project in %s", proj) ||
	    !policy_rule(t, ws, "r04", env_file, PROCAGE_HIDE))
		goto out;
	struct caged_opts in_proj = { .inherit_cwd = proj };

	r = run_caged(ws, &in_proj, "read-file", ".env", NULL);
	check(t, refused(&r) && !strstr(r.out, "r04:"), &r,
	      "r04: from an inherited working directory below a write grant, the hidden .env "
	      "cannot be read by its relative path");
	r = run_caged(ws, &in_proj, "write-file", ".git/hooks/pre-commit", "#!/bin/sh\n", NULL);
	check(t, refused(&r) && !caged_path_exists(hook), &r,
	      "r04: nor can a hook be planted by the relative path .git/hooks/pre-commit");
	(void)unlink(hook);
	/* An existing file: on T2 a directory holding a denial takes no new entries. */
	r = run_caged(ws, &in_proj, "read-file", "notes.txt", "then", "write-file", "notes.txt",
		      "r04: made", NULL);
	check(t, did_it(&r) && strstr(r.out, "r04: notes") && file_is(plain, "r04: made"), &r,
	      "r04: control: in the cage relative paths in the working directory are read and "
	      "written");
	r = run_uncaged(ws, &in_proj, "read-file", ".env", NULL);
	check(t, did_it(&r) && strstr(r.out, "r04: the project's secret"), &r,
	      "r04: control: without the cage .env is read by its relative path");
out:
	caged_ws_free(ws);
}

/*
 * A write grant on a repository inside a writable workspace: renaming the
 * repository through the outer grant and making it anew would carry its
 * protected hooks away and put new ones at their path.
 */
void r04_a_nested_grant_cannot_be_renamed_through_an_outer_one(const struct tier *t)
{
	static const char real_hook[] = "#!/bin/sh\necho r04: the real hook\n";
	char repo[PATH_MAX], moved[PATH_MAX], hook[PATH_MAX], git[PATH_MAX], hooks[PATH_MAX],
	    head[PATH_MAX], free_dir[PATH_MAX], free_moved[PATH_MAX];
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r04");
	if (!ws || cage_refused_here(t, ws, "r04"))
		goto out;
	if (!path_join(t, repo, ws->rw, "repo") || !path_join(t, moved, ws->rw, "repo-moved") ||
	    !path_join(t, git, repo, ".git") || !path_join(t, hooks, git, "hooks") ||
	    !path_join(t, hook, hooks, "post-checkout") || !path_join(t, head, git, "HEAD") ||
	    !path_join(t, free_dir, ws->rw, "free/d") ||
	    !path_join(t, free_moved, ws->rw, "free/d-moved"))
		goto out;
	if (!fixture(t,
		     put_file(hook, real_hook) && put_file(head, "ref: refs/heads/main\n") &&
			 make_dirs(free_dir),
		     "r04: a repository in %s", ws->rw) ||
	    !policy_rule(t, ws, "r04", repo, PROCAGE_WRITE))
		goto out;
	unsigned long long repo_ino = inode_of(repo);

	r = run_caged(ws, NULL, "rename", repo, moved, "then", "mkdir", repo, "then", "mkdir", git,
		      "then", "mkdir", hooks, "then", "write-file", hook, "r04: planted\n", NULL);
	check(t,
	      refused(&r) && inode_of(repo) == repo_ino && file_is(hook, real_hook) &&
		  !caged_path_exists(moved),
	      &r,
	      "r04: a repository granted for writing inside a writable workspace cannot be "
	      "renamed through the outer grant and replaced by one with a planted hook");
	if (caged_path_exists(moved)) {
		caged_remove_tree(repo);
		(void)rename(moved, repo);
	}
	r = run_caged(ws, NULL, "rename", free_dir, free_moved, "then", "rename", free_moved,
		      free_dir, NULL);
	check(t, did_it(&r) && caged_path_exists(free_dir), &r,
	      "r04: control: in the cage an ordinary directory of the workspace is renamed");
	r = run_uncaged(ws, NULL, "rename", repo, moved, "then", "rename", moved, repo, NULL);
	check(t, did_it(&r) && inode_of(repo) == repo_ino, &r,
	      "r04: control: without the cage the repository is renamed (and put back)");
out:
	caged_ws_free(ws);
}
