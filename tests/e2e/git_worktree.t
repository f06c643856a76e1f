# Everyday listings and git worktrees in the default cage, on tier T2 (the
# wrapper refusing user namespaces) and on tier T1 where the host has it,
# as root and as uid 65534:
#
# - ls ~, ls /etc and ls of the workspace's root work, showing a hidden
#   entry's name (~/.ssh) but never what it holds;
# - git worktree add (beside the repository and inside its work tree)
#   works, and the host's git uses the new worktrees afterwards;
# - git submodule add (a clone into .git/modules) is refused, with a
#   procage line naming the directory and the flag that allows it;
# - a run using the names worktree add needs in .git (worktrees/ID with
#   its commondir, config.worktree, config, hooks, a link in worktrees/)
#   makes the host's git run nothing and remove nothing outside .git.
#   The same script without the cage must make it run and remove, so the
#   check outside can fail.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
command -v git >/dev/null || { echo "1..0 # SKIP git is not installed"; exit 0; }
chmod 755 "$work"
tiers="T2"
"$PROCAGE" facts --json 2>/dev/null | grep -q '"tier":"T1"' && tiers="T1 T2"

# Every name worktree add uses in .git, taken by a hostile run. Each
# refusal is expected in the cage, so none stops the script.
cat >"$work/plant.sh" <<'SH'
hook='#!/bin/sh
echo ran >"$PWNED"'
plant() { printf '%s\n' "$hook" >"$1" && chmod +x "$1"; }
# A common directory of the run's making, with a hook and an fsmonitor.
mkdir -p evil/hooks && plant evil/hooks/pre-commit
cp -r .git/objects .git/refs evil/ && echo 'ref: refs/heads/main' >evil/HEAD
printf '[core]\n\tfsmonitor = %s/evil/hooks/pre-commit\n' "$PWD" >evil/config
# A linked worktree's git directory naming it, with config and hooks of its own.
mkdir -p .git/worktrees/x
echo "$PWD/evil" >.git/worktrees/x/commondir
printf '[core]\n\tfsmonitor = %s/evil/hooks/pre-commit\n' "$PWD" >.git/worktrees/x/config.worktree
cp evil/config .git/worktrees/x/config
mkdir -p .git/worktrees/x/hooks && plant .git/worktrees/x/hooks/pre-commit
echo 'ref: refs/heads/main' >.git/worktrees/x/HEAD
mkdir -p wtx && printf 'gitdir: %s/.git/worktrees/x\n' "$PWD" >wtx/.git
echo "$PWD/wtx/.git" >.git/worktrees/x/gitdir
# An existing linked worktree's commondir rewritten, or removed and made again.
echo "$PWD/evil" >.git/worktrees/wt2/commondir
rm -f .git/worktrees/wt2/commondir && echo "$PWD/evil" >.git/worktrees/wt2/commondir
# A worktree entry that is a link: git worktree prune empties what it names.
ln -s "$VICTIM" .git/worktrees/y
# A prepared git directory renamed in, and a linked one renamed out.
mkdir -p prepared && cp -r evil/hooks evil/config prepared/ && echo ../.. >prepared/commondir
mv prepared .git/worktrees/z
mv .git/worktrees/x moved-out
exit 0
SH

git_host() { run_as "$user" git -c user.name=host -c user.email=host@example.invalid "$@"; }
# The workspace $1/ws holding a repository with one commit, a bare one to
# clone as a submodule, and a victim directory outside it.
make_workspace() {
	local dir=$1
	mkdir -p "$dir/ws" "$dir/victim" && echo keep >"$dir/victim/file" &&
		{ [ "$user" != 65534 ] || chown -R 65534:65534 "$dir"; } &&
		run_as "$user" git init -q -b main "$dir/ws/repo" &&
		run_as "$user" git init -q --bare "$dir/sub.git" &&
		(cd "$dir/ws/repo" && echo base >base.txt && git_host add base.txt &&
			git_host commit -q -m base &&
			git_host push -q "$dir/sub.git" HEAD:refs/heads/main)
}

# The host's git in every work tree of the repository; did anything run or go?
host_git_harmed() {
	local dir=$1 wt
	(
		export PWNED="$dir/PWNED"
		for wt in "$dir/ws/repo" "$dir/ws/repo/wtx" "$dir/ws/repo/wt2"; do
			[ -e "$wt/.git" ] || continue
			git_host -C "$wt" status >/dev/null 2>&1
			git_host -C "$wt" commit -q --allow-empty -m host >/dev/null 2>&1
		done
		git_host -C "$dir/ws/repo" worktree prune >/dev/null 2>&1
		true
	)
	[ -e "$dir/PWNED" ] || [ ! -e "$dir/victim/file" ]
}

users="uid$(id -u)"
[ "$(id -u)" -eq 0 ] && users="root 65534"
for user in $users; do
	base="$work/$user"
	home="$base/home"
	tmp="$base/tmp"
	mkdir -p "$home/.ssh" "$tmp"
	echo LISTING-SECRET >"$home/.ssh/id"
	echo visible >"$home/notes"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$base"

	# Control: the planting script without the cage harms the host's git.
	ctl="$base/control"
	make_workspace "$ctl" >/dev/null 2>&1
	(cd "$ctl/ws/repo" && git_host worktree add -q wt2 >/dev/null 2>&1 &&
		VICTIM="$ctl/victim" PWNED="$ctl/PWNED" run_as "$user" sh "$work/plant.sh" >/dev/null 2>&1)
	host_git_harmed "$ctl"
	ok $? "$user: control: without the cage the planted worktree runs a hook or empties the victim"

	for tier in $tiers; do
		dir="$base/$tier"
		make_workspace "$dir"
		ok $? "$user $tier: a workspace with a repository and a bare one"

		out=$(cd "$dir/ws" && cage "$tier" "$user" -- sh -c \
			"ls -a ~; echo ETC=\$(ls /etc | wc -l); ls -a; cat ~/.ssh/id" 2>&1)
		like "$out" "notes" "$user $tier: ls ~ works"
		like "$out" "\.ssh" "$user $tier: and shows the hidden ~/.ssh by name"
		like "$out" "ETC=[1-9]" "$user $tier: ls /etc works"
		like "$out" "repo" "$user $tier: ls of the workspace's root works"
		ok $(printf '%s' "$out" | grep -q LISTING-SECRET && echo 1 || echo 0) \
			"$user $tier: but ~/.ssh/id is not read"

		out=$(cd "$dir/ws" && cage "$tier" "$user" -- sh -c \
			'cd repo && git worktree add -q ../wt && git worktree add -q wt2 && echo WORKTREES-OK' 2>&1)
		like "$out" "WORKTREES-OK" "$user $tier: git worktree add ../wt and wt2 (inside the work tree)"
		[ "${out#*WORKTREES-OK}" = "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
		ok $(printf '%s' "$out" | grep -q "trust-handoff: new" && echo 1 || echo 0) \
			"$user $tier: a worktree git made is not named as a new repository"
		git_host -C "$dir/ws/wt" status >/dev/null 2>&1 &&
			git_host -C "$dir/ws/repo/wt2" commit -q --allow-empty -m host >/dev/null 2>&1
		ok $? "$user $tier: the host's git uses both worktrees afterwards"

		out=$(cd "$dir/ws/repo" && cage "$tier" "$user" -- git -c protocol.file.allow=always \
			submodule add -q "$dir/sub.git" sub 2>&1)
		like "$out" "procage: create $dir/ws/repo/\.git/modules: a submodule's git directory.*--waive trust-handoff" \
			"$user $tier: git submodule add is refused, with a line naming .git/modules and the flag"

		(cd "$dir/ws/repo" && VICTIM="$dir/victim" PWNED="$dir/PWNED" cage "$tier" "$user" -- \
			sh -c "$(cat "$work/plant.sh")" >/dev/null 2>&1)
		ok $? "$user $tier: the planting run ends"
		x="$dir/ws/repo/.git/worktrees/x"
		[ ! -e "$x/config.worktree" ] && [ ! -e "$x/config" ] && [ ! -e "$x/hooks" ] &&
			[ ! -L "$dir/ws/repo/.git/worktrees/y" ] && [ ! -e "$dir/ws/repo/.git/worktrees/z" ] &&
			[ "$(cat "$x/commondir")" = "../.." ] &&
			[ "$(cat "$dir/ws/repo/.git/worktrees/wt2/commondir")" = "../.." ]
		ok $? "$user $tier: worktrees/ holds git's layout only: commondir ../.., no config, hooks or link"
		host_git_harmed "$dir"
		ok $([ $? -ne 0 ] && echo 0 || echo 1) \
			"$user $tier: the host's git (status, commit, worktree prune) runs nothing and empties nothing"
	done
done
done_testing
