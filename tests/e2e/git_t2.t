# Everyday git on tier T2 (the broker): in a repository made before the
# run, with the default policy, the cage makes new files and directories
# at the root, and git checks out, adds, commits, stashes, tags,
# branches, fetches and collects garbage (gc); a hook planted in the same
# run, by every route tried here, never runs when the real git runs
# outside afterwards (commit, status, push into a bare repository the
# test owns). As root and as uid 65534.
#
# The routes are first taken without the cage, on a copy of the
# repository: there the hook must run, so the check outside can fail.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
command -v git >/dev/null || { echo "1..0 # SKIP git is not installed"; exit 0; }
chmod 755 "$work"

# The everyday sequence, run in the workspace; every step must succeed.
# (The scripts are given to sh -c: the cage cannot read the test's directory.)
cat >"$work/everyday.sh" <<'SH'
set -e
g() { git -c user.name=cage -c user.email=cage@example.invalid "$@"; }
echo hello >NEW.md
mkdir -p newdir/sub
echo one >newdir/a.txt
echo two >newdir/sub/b.txt
g checkout -q -b feature
g add -A
g commit -q -m "in the cage"
echo more >>NEW.md
g stash -q
g stash pop -q
g add NEW.md
g commit -q -m "second"
g tag v1
g branch other
g fetch -q "$PWD" feature:refs/heads/fetched
g gc -q
g checkout -q main
echo scratch >scratch
mv scratch scratch2
rm scratch2
echo EVERYDAY-OK
SH

# Every route to a hook the host's git would run; each one's failure is
# expected inside the cage, so none stops the script.
cat >"$work/plant.sh" <<'SH'
hook='#!/bin/sh
echo ran >"$PWNED"'
plant() { printf '%s\n' "$hook" >"$1" && chmod +x "$1"; }
# hooks/ itself, and by renaming it away and making a new one.
plant .git/hooks/pre-commit
plant .git/hooks/post-checkout
mv .git/hooks .git/hooks.old && mkdir .git/hooks && plant .git/hooks/pre-commit
ln -s ../newhooks .git/hooks2
# config: core.hooksPath into the work tree, written or swapped in.
mkdir -p hookdir && plant hookdir/pre-commit && plant hookdir/pre-push
git config core.hooksPath "$PWD/hookdir"
printf '[core]\n\thooksPath = %s/hookdir\n' "$PWD" >cfg.new && mv cfg.new .git/config
printf '[core]\n\thooksPath = %s/hookdir\n' "$PWD" >.git/config.lock && mv .git/config.lock .git/config
ln .git/config hardlinked-config 2>/dev/null && printf '[core]\n\thooksPath = %s/hookdir\n' "$PWD" >>hardlinked-config
# config.worktree with an fsmonitor, read once worktreeConfig is on.
printf '[core]\n\tfsmonitor = %s/hookdir/pre-commit\n' "$PWD" >.git/config.worktree
git config extensions.worktreeConfig true
# commondir: a common directory of the cage's making.
mkdir -p common/hooks && plant common/hooks/pre-commit && cp -r .git/objects .git/refs common/ 2>/dev/null
echo 'ref: refs/heads/main' >common/HEAD
printf '[core]\n\thooksPath = %s/hookdir\n' "$PWD" >common/config
echo "$PWD/common" >.git/commondir
# a git directory smuggled inside .git, and a gitfile to it.
mkdir -p .git/evil/hooks .git/evil/objects .git/evil/refs
echo 'ref: refs/heads/main' >.git/evil/HEAD
plant .git/evil/hooks/pre-commit
printf 'gitdir: .git/evil\n' >.gitfile-probe
# the .git directory replaced by a gitfile.
mv .git .git-real && printf 'gitdir: %s/common\n' "$PWD" >.git
exit 0
SH

git_host() { run_as "$user" git -c user.name=host -c user.email=host@example.invalid "$@"; }

# Make the repository (with one commit on main) and a bare remote in $1.
make_repository() {
	local dir=$1
	run_as "$user" git init -q -b main "$dir/repo" &&
		run_as "$user" git init -q --bare "$dir/remote.git" &&
		(cd "$dir/repo" && echo base >base.txt && git_host add base.txt &&
			git_host commit -q -m base)
}

# Outside the cage, the real git: commit, status, push. Did a hook run?
host_git_runs_hooks() {
	local dir=$1
	(
		cd "$dir/repo" || exit 1
		export PWNED="$dir/PWNED"
		echo host >>host.txt
		git_host add host.txt >/dev/null 2>&1
		git_host commit -q -m host >/dev/null 2>&1
		git_host status >/dev/null 2>&1
		git_host push -q "$dir/remote.git" HEAD:refs/heads/pushed >/dev/null 2>&1
		true
	)
	[ -e "$dir/PWNED" ]
}

# Not root: the pass as uid 65534 cannot be made, the test runs as this user.
users="uid$(id -u)"
[ "$(id -u)" -eq 0 ] && users="root 65534"
for user in $users; do
	dir="$work/$user"
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$dir" "$home" "$tmp"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$dir"
	make_repository "$dir"
	ok $? "$user: a repository with one commit and a bare remote"

	# Control: the routes without the cage reach a hook the host runs.
	ctl="$dir/control"
	mkdir -p "$ctl"
	[ "$user" != 65534 ] || chown 65534:65534 "$ctl"
	make_repository "$ctl" >/dev/null 2>&1
	(cd "$ctl/repo" && PWNED="$ctl/PWNED" run_as "$user" sh "$work/plant.sh" >/dev/null 2>&1)
	host_git_runs_hooks "$ctl"
	ok $? "$user: control: without the cage the planted hooks run in the host's git"

	out=$(cd "$dir/repo" && run_as "$user" "$t2" "$PROCAGE" run -- sh -c "$(cat "$work/everyday.sh")" 2>&1)
	like "$out" "EVERYDAY-OK" "$user: T2: new file and directory at the root, checkout -b, add, commit, stash/pop, tag, branch, fetch, gc, checkout back"
	[ "${out#*EVERYDAY-OK}" = "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
	log=$(cd "$dir/repo" && git_host log --format=%s feature 2>&1 | tr '\n' ' ')
	is "$log" "second in the cage base " "$user: the cage's commits are on the host's branch feature"
	tags=$(cd "$dir/repo" && { git_host tag; git_host branch --format='%(refname:short)'; } | tr '\n' ' ')
	is "$tags" "v1 feature fetched main other " "$user: the tag and the branches (one fetched) are there"
	head=$(cd "$dir/repo" && git_host symbolic-ref --short HEAD)
	is "$head" main "$user: and the cage checked main out again"

	out=$(cd "$dir/repo" && PWNED="$dir/PWNED" run_as "$user" "$t2" "$PROCAGE" run -- \
		sh -c "$(cat "$work/plant.sh")" 2>&1)
	ok $? "$user: T2: the planting run ends"
	[ -d "$dir/repo/.git" ] && [ ! -e "$dir/repo/.git/commondir" ] &&
		[ ! -e "$dir/repo/.git/evil" ] && [ ! -e "$dir/repo/.git/hooks.old" ]
	ok $? "$user: no commondir, no directory smuggled into .git, hooks not renamed away"
	host_git_runs_hooks "$dir"
	ok $([ $? -ne 0 ] && echo 0 || echo 1) "$user: no hook planted in the run ran in the host's git (commit, status, push)"
	pushed=$(run_as "$user" git --git-dir="$dir/remote.git" rev-parse --verify -q pushed 2>/dev/null)
	ok $([ -n "$pushed" ] && echo 0 || echo 1) "$user: control: the host's push reached the bare repository"
done
done_testing
