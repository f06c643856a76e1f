# Directories the broker makes at a workspace's root, and the tree that
# was there before: in a repository whose root and .git are the broker's
# zones, a run makes build/ and files deep in it, renames inside it, moves
# an existing directory of the root into it and writes there, then writes
# deep in the existing tree (where the broker's look for a made tree stops
# at directories older than the run), and removes what it made. A new
# entry under a protected name (.vscode at the root, hooks in .git) is
# still refused after all that. On tier T1 and T2, as root and as uid
# 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi

# The workspaces are made first, all of them, so that their directories
# are as old as they can be when the runs start.
for tier in T1 T2; do
	for user in root nobody; do
		dir="$work/$tier-$user"
		mkdir -p "$dir/home" "$dir/tmp" "$dir/ws/old/deep/er" "$dir/ws/moved/in"
		git init -q "$dir/ws"
		echo x >"$dir/ws/old/deep/er/file"
		[ "$user" = root ] || chown -R 65534:65534 "$dir"
	done
done

made_trees() {
	local tier=$1 user=$2 what="$1, $2" dir="$work/$1-$2"
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || return
	cage "$tier" "$user" -- sh -c 'set -e
		mkdir -p build/a/b
		echo 1 >build/a/b/f
		mv build/a build/c
		mv moved build/moved
		echo 2 >build/moved/in/g
		mkdir build/moved/in/new
		echo 3 >build/moved/in/new/h
		echo 4 >old/deep/er/new
		mkdir old/deep/er/dir
		echo 5 >old/deep/er/dir/i
		cat build/c/b/f build/moved/in/g build/moved/in/new/h old/deep/er/new old/deep/er/dir/i' \
		>"$dir/out" 2>"$dir/err"
	ok $? "$what: a made tree at the root, an existing directory moved into it, the old tree beside it: all written"
	is "$(tr -d '\n' <"$dir/out")" 12345 "$what: and read back"
	ok "$([ -f build/moved/in/new/h ] && [ -f old/deep/er/dir/i ]; echo $?)" \
		"$what: the files are on the host"

	cage "$tier" "$user" -- sh -c 'mkdir build2 && echo 6 >old/deep/er/again &&
		mkdir .vscode' >/dev/null 2>"$dir/err"
	ok "$([ $? -ne 0 ]; echo $?)" "$what: after a directory is made, a .vscode at the root is still refused"
	ok "$([ ! -e .vscode ] && [ -f old/deep/er/again ]; echo $?)" \
		"$what: nothing named .vscode is there; the write before it landed"
	cage "$tier" "$user" -- sh -c 'mkdir build3 && echo 7 >old/deep/er/more &&
		echo planted >.git/hooks/pre-commit' >/dev/null 2>"$dir/err"
	ok "$([ $? -ne 0 ] && [ ! -e .git/hooks/pre-commit ]; echo $?)" \
		"$what: after a directory is made, a hook is still refused"
	cage "$tier" "$user" -- sh -c 'rm -r build build2 build3 old/deep/er/dir' >/dev/null 2>"$dir/err"
	ok $? "$what: control: what was made is removed"
	cd "$work" || return
}

for tier in T1 T2; do
	for user in root nobody; do
		[ "$user" = root ] || [ "$(id -u)" -eq 0 ] || continue
		made_trees "$tier" "$user"
	done
done
done_testing
