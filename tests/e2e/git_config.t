# git's own writes to a repository's config in a default cage, on tier T1
# (when the host offers it) and T2:
# git writes config.lock and renames it over config, and the broker
# performs that rename when every key changed is one that runs no program
# and leads git nowhere else (docs/git-config.md). git config user.email,
# remote add, checkout --track, branch -m and submodule add (of a
# repository already in the work tree) succeed, and the real git outside
# reads what they wrote; git config core.fsmonitor fails, procage's line
# after the run names the key and the file, and the config is unchanged
# byte for byte. As root and as uid 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
command -v git >/dev/null || { echo "1..0 # SKIP git is not installed"; exit 0; }
chmod 755 "$work"

# In the cage, in the work tree: $1 the remote, $2 the submodule's URL.
# (Given to sh -c: the cage cannot read the test's directory.)
cat >"$work/configure.sh" <<'SH'
set -e
git config user.email cage@example.invalid
git remote add origin "$1"
git fetch -q origin
git checkout -q --track -b tracked origin/main
git branch -m tracked renamed
git -c protocol.file.allow=always submodule add -q "$2" sub
echo GITCONF-OK
SH

git_host() { run_as "$user" git -c user.name=host -c user.email=host@example.invalid "$@"; }

# The work tree (one commit on main, and a repository at sub with one
# commit of its own), a bare remote holding main, and the submodule's
# bare origin, all in $1.
make_repositories() {
	local dir=$1
	run_as "$user" git init -q -b main "$dir/repo" &&
		run_as "$user" git init -q --bare "$dir/remote.git" &&
		run_as "$user" git init -q --bare "$dir/sub.git" &&
		(cd "$dir/repo" && echo base >base.txt && git_host add base.txt &&
			git_host commit -q -m base && git_host push -q "$dir/remote.git" main) &&
		run_as "$user" git clone -q "$dir/sub.git" "$dir/repo/sub" 2>/dev/null &&
		(cd "$dir/repo/sub" && echo s >s.txt && git_host add s.txt &&
			git_host commit -q -m sub)
}

users="uid$(id -u)"
[ "$(id -u)" -eq 0 ] && users="root 65534"
tiers=T2
"$PROCAGE" facts --json | grep -q '"tier":"T1"' && tiers="T1 T2"
for tier in $tiers; do
wrap=
[ "$tier" = T1 ] || wrap=$t2
for user in $users; do
	dir="$work/$tier-$user"
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$dir" "$home" "$tmp"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$dir"
	make_repositories "$dir"
	ok $? "$tier/$user: a work tree with a repository at sub, a remote and the submodule's origin"

	out=$(cd "$dir/repo" && run_as "$user" $wrap "$PROCAGE" run --read "$dir/remote.git" \
		--read "$dir/sub.git" -- sh -c "$(cat "$work/configure.sh")" sh "$dir/remote.git" \
		"$dir/sub.git" 2>&1)
	like "$out" "GITCONF-OK" "$tier/$user: config user.email, remote add, fetch, checkout --track, branch -m, submodule add"
	[ "${out#*GITCONF-OK}" = "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
	cfg() { (cd "$dir/repo" && run_as "$user" git config --get "$1" 2>&1); }
	is "$(cfg user.email)" cage@example.invalid "$tier/$user: the host's git reads user.email"
	is "$(cfg remote.origin.url)" "$dir/remote.git" "$tier/$user: and the remote's url"
	is "$(cfg remote.origin.fetch)" "+refs/heads/*:refs/remotes/origin/*" "$tier/$user: and its refspec"
	is "$(cfg branch.renamed.remote) $(cfg branch.renamed.merge)" "origin refs/heads/main" \
		"$tier/$user: the renamed branch tracks origin's main"
	is "$(cfg branch.tracked.merge)" "" "$tier/$user: nothing is left of the old name"
	is "$(cfg submodule.sub.url) $(cfg submodule.sub.active)" "$dir/sub.git true" \
		"$tier/$user: the submodule's url, active"
	is "$(cd "$dir/repo" && git_host rev-parse --abbrev-ref HEAD)" renamed \
		"$tier/$user: the host's git is on the renamed branch"
	left=$(cd "$dir/repo/.git" && ls -a | grep -E '^(config\.lock|\.procage-config)' | tr '\n' ' ')
	is "$left" "" "$tier/$user: no lock file and no file of the broker's left in .git"

	cp "$dir/repo/.git/config" "$dir/config.before"
	out=$(cd "$dir/repo" && run_as "$user" $wrap "$PROCAGE" run -- git config core.fsmonitor "$dir/run-me" 2>&1)
	ok $([ $? -ne 0 ] && echo 0 || echo 1) "$tier/$user: git config core.fsmonitor fails"
	like "$out" "procage: write $dir/repo/\\.git/config: git key core\\.fsmonitor is not one a run may change" \
		"$tier/$user: procage's line names the key and the repository's config"
	cmp -s "$dir/config.before" "$dir/repo/.git/config"
	ok $? "$tier/$user: the config is unchanged, byte for byte"
	is "$(cfg core.fsmonitor)" "" "$tier/$user: the host's git sees no core.fsmonitor"

	out=$(cd "$dir/repo" && run_as "$user" $wrap "$PROCAGE" run --explain all -- \
		sh -c 'git config alias.x "!sh"; git remote add evil "ext::sh -c x"; git config user.name cage' 2>&1)
	like "$out" "git key alias\\.x is not one" "$tier/$user: an alias is refused by name"
	like "$out" "git key remote\\.evil\\.url given a value that runs a program" \
		"$tier/$user: an ext:: remote is refused by name"
	is "$(cfg alias.x)$(cfg remote.evil.url) $(cfg user.name)" " cage" \
		"$tier/$user: neither landed; user.name, set after them, did"
done
done
done_testing
